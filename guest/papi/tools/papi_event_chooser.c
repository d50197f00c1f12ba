/* papi_event_chooser: the events that can be counted together with the ones given (PAPI 7's
 * usage: papi_event_chooser NATIVE|PRESET evt1 evt2 ...). */
#include "papi_tools.h"

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "NATIVE") != 0 && strcmp(argv[1], "PRESET") != 0)) {
    printf("Usage: %s NATIVE|PRESET evt1 evt2 ... \n", argv[0]);
    return 1;
  }
  const int native = strcmp(argv[1], "NATIVE") == 0;
  papi_tools_init();
  papi_tools_header("Event Chooser: Available events which can be added with given events.");
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  for (int i = 2; i < argc; ++i) {
    int code;
    int r = PAPI_event_name_to_code(argv[i], &code);
    if (r == PAPI_OK) r = PAPI_add_event(set, code);
    if (r != PAPI_OK) {
      printf("Event %s can't be counted with the other events: %s\n", argv[i], PAPI_strerror(r));
      return 1;
    }
  }
  int count = 0, code = native ? PAPI_NATIVE_MASK : PAPI_PRESET_MASK;
  int r = native ? PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0)
                 : PAPI_enum_event(&code, PAPI_ENUM_FIRST);
  while (r == PAPI_OK) {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) == PAPI_OK && info.count > 0 &&
        PAPI_add_event(set, code) == PAPI_OK) {
      PAPI_remove_event(set, code);
      if (native) {
        printf("%s\n  %s\n", info.symbol, info.long_descr);
      } else {
        printf("%s\t0x%x\t%s\n", info.symbol, info.event_code, info.long_descr);
      }
      ++count;
    }
    r = native ? PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 0)
               : PAPI_enum_event(&code, PAPI_ENUM_EVENTS);
  }
  printf(PAPI_TOOLS_RULE);
  printf("Total events reported: %d\n", count);
  printf("event_chooser.c                          PASSED\n");
  return 0;
}
