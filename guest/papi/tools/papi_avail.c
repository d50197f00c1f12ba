/* papi_avail: PAPI's preset events, which exist on this node and how (PAPI 7's layout).
 * Options: -a (available only), -d (details), -e EVENT (one event's full information), -h. */
#include "papi_tools.h"

static void usage(const char* name) {
  printf(
      "This is the PAPI avail program.\n"
      "It provides availability and details about PAPI Presets and User-defined Events.\n"
      "Usage: %s [options]\n"
      "General command options:\n"
      "\t-h, --help       Print this help message\n"
      "\t-a, --avail      Display only available PAPI preset and user defined events\n"
      "\t-d, --detail     Display detailed information about events\n"
      "\t-e EVENTNAME     Display detailed event information for named event\n",
      name);
}

static void event_detail(const char* name) {
  int code;
  PAPI_event_info_t info;
  if (PAPI_event_name_to_code(name, &code) != PAPI_OK ||
      PAPI_get_event_info(code, &info) != PAPI_OK) {
    printf(
        "Sorry, an event by the name '%s' could not be found.\n"
        "Is it typed correctly?\n\n",
        name);
    return;
  }
  printf("%-30s%s\n", "Event name:", info.symbol);
  printf("%-30s0x%-10x\n", "Event Code:", info.event_code);
  printf("%-30s%d\n", "Number of Native Events:", info.count);
  printf("%-29s|%s|\n", "Short Description:", info.short_descr);
  printf("%-29s|%s|\n", "Long Description:", info.long_descr);
  printf("%-29s|%s|\n", "Developer's Notes:", info.note);
  if (IS_PRESET(code)) {
    printf("%-29s|%s|\n", "Derived Type:", info.derived);
    printf("%-29s|%s|\n", "Postfix Processing String:", info.postfix);
  }
  for (unsigned j = 0; j < info.count; ++j) {
    PAPI_event_info_t n;
    PAPI_get_event_info((int)info.code[j], &n);
    printf(" Native Code[%d]: 0x%x |%s|\n", j, info.code[j], info.name[j]);
    printf(" Native Event Description: |%s|\n\n", n.long_descr);
  }
  if (IS_PRESET(code) && PAPI_query_event(code) != PAPI_OK) {
    printf("\nPRESET event %s is NOT available on this architecture!\n\n", name);
  }
}

int main(int argc, char** argv) {
  int avail_only = 0, detail = 0;
  const char* one = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-a") == 0 || strcmp(argv[i], "--avail") == 0) {
      avail_only = 1;
    } else if (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "--detail") == 0) {
      detail = 1;
    } else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc) {
      one = argv[++i];
    } else {
      usage(argv[0]);
      return strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 ? 0 : 1;
    }
  }
  papi_tools_init();
  papi_tools_header("Available PAPI preset and user defined events plus hardware information.");
  if (one != NULL) {
    event_detail(one);
    printf(PAPI_TOOLS_RULE);
    return 0;
  }
  printf(
      "================================================================================\n"
      "  PAPI Preset Events\n"
      "================================================================================\n");
  printf("    Name        Code    Avail Deriv Description (Note)\n");
  int total = 0, avail = 0, derived = 0, code = PAPI_PRESET_MASK;
  PAPI_enum_event(&code, PAPI_ENUM_FIRST);
  do {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) != PAPI_OK) continue;
    ++total;
    const int here = info.count > 0;
    const int is_derived = here && strcmp(info.derived, "NOT_DERIVED") != 0;
    avail += here;
    derived += is_derived;
    if (avail_only && !here) continue;
    if (detail && here) {
      event_detail(info.symbol);
      continue;
    }
    printf("%-13s0x%x  %-5s %-4s %s\n", info.symbol, info.event_code, here ? "Yes" : "No",
           is_derived ? "Yes" : "No", info.long_descr);
  } while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
  printf(PAPI_TOOLS_RULE);
  printf("Of %d possible events, %d are available, of which %d are derived.\n\n", total, avail,
         derived);
  if (avail == 0) printf("No events detected!  Check papi_component_avail to find out why.\n\n");
  return 0;
}
