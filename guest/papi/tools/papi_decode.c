/* papi_decode: PAPI's preset events as CSV text (PAPI 7's format: name, derived, postfix, short
 * and long description, note, native terms). Options: -a (available presets only), -h. */
#include "papi_tools.h"

int main(int argc, char** argv) {
  int avail_only = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-a") == 0) {
      avail_only = 1;
    } else {
      printf(
          "This is the PAPI decode utility program.\n"
          "It decodes PAPI preset events into csv formatted text.\n"
          "By default all presets are decoded.\n"
          "The text goes to stdout, but can be piped to a file.\n"
          "Usage:\n\n    %s [options]\n\n"
          "Options:\n\n  -a  decode only available presets\n  -h  print this help\n",
          argv[0]);
      return strcmp(argv[i], "-h") == 0 ? 0 : 1;
    }
  }
  papi_tools_init();
  printf("name,derived,postfix,short_descr,long_descr,note,[native,...]\n\n");
  int code = PAPI_PRESET_MASK;
  PAPI_enum_event(&code, PAPI_ENUM_FIRST);
  do {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) != PAPI_OK) continue;
    if (avail_only && info.count == 0) continue;
    printf("%s,%s,%s,\"%s\",\"%s\",\"%s\"", info.symbol,
           info.count > 0 ? info.derived : "NOT_DERIVED", info.postfix, info.short_descr,
           info.long_descr, info.note);
    for (unsigned j = 0; j < info.count; ++j) printf(",%s", info.name[j]);
    printf("\n");
  } while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
  return 0;
}
