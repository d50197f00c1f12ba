/* papi_event_chooser: the events that can be counted together with the ones given, in PAPI 7's
 * usage and layout (papi_event_chooser NATIVE|PRESET evt1 evt2 ...): presets with their code,
 * whether they are derived and their description; native events of the first given event's
 * component with their description and native terms. */
#include "papi_tools.h"

#define CHOOSER_RULE "-------------------------------------------------------------------------\n"

static int set = PAPI_NULL;

/* PAPI's rule: a preset is derived unless it is NOT_DERIVED or DERIVED_CMPD. */
static const char* derived(const PAPI_event_info_t* info) {
  return info->derived[0] == '\0' || strcmp(info->derived, "NOT_DERIVED") == 0 ||
                 strcmp(info->derived, "DERIVED_CMPD") == 0
             ? "No"
             : "Yes";
}

/* The event can join the set: added, then removed again. */
static int fits(int code) {
  if (PAPI_add_event(set, code) != PAPI_OK) return 0;
  if (PAPI_remove_event(set, code) != PAPI_OK) printf("Error removing event.\n");
  return 1;
}

static int presets(void) {
  printf("    Name        Code    Deriv Description (Note)\n");
  int count = 0, code = PAPI_PRESET_MASK;
  PAPI_enum_event(&code, PAPI_ENUM_FIRST);
  do {
    PAPI_event_info_t info;
    if (!fits(code)) continue;
    if (PAPI_get_event_info(code, &info) == PAPI_OK) {
      printf("%-13s%#x  %-5s%s", info.symbol, info.event_code, derived(&info), info.long_descr);
      if (info.note[0]) printf(" (%s)", info.note);
      printf("\n");
    }
    ++count;
  } while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
  printf(CHOOSER_RULE);
  printf("Total events reported: %d\n", count);
  return 0;
}

static int natives(int cidx) {
  int count = 0, code = PAPI_NATIVE_MASK;
  if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK) {
    printf("Cannot find first event in component %d\n", cidx);
  }
  do {
    PAPI_event_info_t info;
    if (!fits(code)) continue;
    if (PAPI_get_event_info(code, &info) == PAPI_OK) {
      printf("%s\t%#x\n |%s|\n", info.symbol, info.event_code, info.long_descr);
      for (unsigned k = 0; k < info.count; ++k) {
        if (info.name[k][0])
          printf(" |Register Value[%u]: %#-10x  %s|\n", k, info.code[k], info.name[k]);
      }
    }
    ++count;
    printf(CHOOSER_RULE);
  } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
  printf(CHOOSER_RULE);
  printf("Total events reported: %d\n", count);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3 || (strcmp(argv[1], "NATIVE") != 0 && strcmp(argv[1], "PRESET") != 0)) {
    fprintf(stderr, "Usage: papi_event_chooser NATIVE|PRESET evt1 evt2 ... \n");
    return 1;
  }
  papi_tools_init();
  if (PAPI_set_debug(PAPI_VERB_ECONT) != PAPI_OK) {
    fprintf(stderr, "Error! PAPI_set_debug\n");
    return 1;
  }
  papi_tools_header("Event Chooser: Available events which can be added with given events.");
  if (PAPI_create_eventset(&set) != PAPI_OK) {
    fprintf(stderr, "PAPI_create_eventset error\n");
    return 1;
  }
  int first = 0;
  for (int i = 2; i < argc; ++i) {
    int code;
    if (PAPI_event_name_to_code(argv[i], &code) != PAPI_OK) {
      fprintf(stderr, "Event %s can't be found\n", argv[i]);
      return 1;
    }
    if (i == 2) first = code;
    const int r = PAPI_add_event(set, code);
    if (r != PAPI_OK) {
      fprintf(stderr, "Event %s can't be counted with others %d\n", argv[i], r);
      return 1;
    }
  }
  return strcmp(argv[1], "NATIVE") == 0 ? natives(PAPI_get_event_component(first)) : presets();
}
