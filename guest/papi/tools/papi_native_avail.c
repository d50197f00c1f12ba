/* papi_native_avail: every native event of every active component (PAPI 7's layout). Options:
 * -c (one line per event... PAPI's --noqual), -e EVENT (one event), -i STR (names containing
 * STR), -x STR (names not containing STR), --noqual, -h. BGPM's events take no qualifiers. */
#include "papi_tools.h"

static void print_box(const char* text) {
  printf("| %-77s|\n", text);
}

/* The description wrapped into the box, indented as PAPI does. */
static void print_description(const char* text) {
  const size_t width = 66;
  size_t len = strlen(text);
  while (len > 0) {
    size_t take = len < width ? len : width;
    if (take < len) {
      size_t cut = take;
      while (cut > 0 && text[cut] != ' ') --cut;
      if (cut > 0) take = cut;
    }
    printf("|            %-*.*s|\n", 66, (int)take, text);
    text += take;
    len -= take;
    while (len > 0 && *text == ' ') ++text, --len;
  }
}

int main(int argc, char** argv) {
  const char* include = NULL;
  const char* exclude = NULL;
  const char* one = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-i") == 0 && i + 1 < argc) {
      include = argv[++i];
    } else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc) {
      exclude = argv[++i];
    } else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc) {
      one = argv[++i];
    } else if (strcmp(argv[i], "--noqual") == 0 || strcmp(argv[i], "-c") == 0) {
      /* BGPM's events have no qualifiers: nothing to leave out */
    } else {
      printf(
          "This is the PAPI native avail program.\n"
          "It provides availability and details about PAPI Native Events.\n"
          "Usage: %s [options]\n"
          "\t-h, --help   print this help message\n"
          "\t-e EVENTNAME display detailed information about named native event\n"
          "\t-i EVENTSTR  include only event names that contain EVENTSTR\n"
          "\t-x EVENTSTR  exclude any event names that contain EVENTSTR\n"
          "\t--noqual     do not print the qualifiers of events\n",
          argv[0]);
      return strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 ? 0 : 1;
    }
  }
  papi_tools_init();
  papi_tools_header("Available native events and hardware information.");
  if (one != NULL) {
    int code;
    PAPI_event_info_t info;
    if (PAPI_event_name_to_code(one, &code) != PAPI_OK ||
        PAPI_get_event_info(code, &info) != PAPI_OK) {
      printf("Sorry, an event by the name '%s' could not be found.\n", one);
      return 1;
    }
    printf("Event name:     %s\n", info.symbol);
    printf("Description:    |%s|\n\n", info.long_descr);
    return 0;
  }
  int total = 0;
  for (int cidx = 0; cidx < PAPI_num_components(); ++cidx) {
    const PAPI_component_info_t* c = PAPI_get_component_info(cidx);
    if (c == NULL || c->disabled) continue;
    printf("===============================================================================\n");
    printf(" Native Events in Component: %s\n", c->name);
    printf("===============================================================================\n");
    int code = PAPI_NATIVE_MASK;
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK) continue;
    do {
      PAPI_event_info_t info;
      if (PAPI_get_event_info(code, &info) != PAPI_OK) continue;
      if (include != NULL && strstr(info.symbol, include) == NULL) continue;
      if (exclude != NULL && strstr(info.symbol, exclude) != NULL) continue;
      ++total;
      print_box(info.symbol);
      print_description(info.long_descr);
      printf(PAPI_TOOLS_RULE);
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    printf("\n");
  }
  printf("Total events reported: %d\n", total);
  return 0;
}
