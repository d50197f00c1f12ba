/* papi_xml_event_info: the node's hardware and every event that can be counted (with the events
 * named on the command line, if any), as XML, in PAPI 7's layout. Options: -p (presets only),
 * -n (native events only), -c N (component N only), -h. */
#include <stdio.h>

#include "papi_tools.h"

static int set = PAPI_NULL;
static int want_presets = 1, want_natives = 1, only_cidx = -1;

/* The text with XML's five special characters escaped. */
static void xml(const char* text) {
  for (const char* c = text; *c; ++c) {
    switch (*c) {
      case '"': fputs("&quot;", stdout); break;
      case '&': fputs("&amp;", stdout); break;
      case '\'': fputs("&apos;", stdout); break;
      case '<': fputs("&lt;", stdout); break;
      case '>': fputs("&gt;", stdout); break;
      default: putchar(*c);
    }
  }
}

static void hardware(void) {
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  printf("<hardware>\n  <vendor string=\"");
  xml(hw->vendor_string);
  printf("\"/>\n  <vendorCode value=\"%d\"/>\n  <model string=\"", hw->vendor);
  xml(hw->model_string);
  printf("\"/>\n  <modelCode value=\"%d\"/>\n", hw->model);
  printf("  <cpuRevision value=\"%f\"/>\n", hw->revision);
  printf("  <cpuID>\n    <family value=\"%d\"/>\n    <model value=\"%d\"/>\n", hw->cpuid_family,
         hw->cpuid_model);
  printf("    <stepping value=\"%d\"/>\n  </cpuID>\n", hw->cpuid_stepping);
  printf("  <cpuMaxMegahertz value=\"%d\"/>\n", hw->cpu_max_mhz);
  printf("  <cpuMinMegahertz value=\"%d\"/>\n", hw->cpu_min_mhz);
  printf("  <threads value=\"%d\"/>\n  <cores value=\"%d\"/>\n", hw->threads, hw->cores);
  printf("  <sockets value=\"%d\"/>\n  <nodes value=\"%d\"/>\n", hw->sockets, hw->nnodes);
  printf("  <cpuPerNode value=\"%d\"/>\n  <totalCPUs value=\"%d\"/>\n", hw->ncpu, hw->totalcpus);
  printf("</hardware>\n");
}

/* The event can join the set: added, then removed again. */
static int fits(int code) {
  if (PAPI_add_event(set, code) != PAPI_OK) return 0;
  if (PAPI_remove_event(set, code) != PAPI_OK) {
    fprintf(stderr, "Error removing event from eventset\n");
    exit(1);
  }
  return 1;
}

/* One event set type of a component: each event that fits, with its index in the component's
 * enumeration. (BGPM's events take no unit masks, so no <modifier> elements.) */
static void events(int cidx, int mask, const char* type) {
  printf("  <eventset type=\"%s\">\n", type);
  int code = mask, index = -1;
  for (int r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx); r == PAPI_OK;
       r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx)) {
    ++index;
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) != PAPI_OK || !fits(code)) continue;
    printf("    <event index=\"%d\" name=\"", index);
    xml(info.symbol);
    printf("\" desc=\"");
    xml(info.long_descr);
    printf("\">\n    </event>\n");
  }
  printf("  </eventset>\n");
}

static void usage(const char* program) {
  fprintf(stderr, "Usage: %s [options] [[event1] event2 ...]\n", program);
  fprintf(stderr, "     options: -h     print help message\n");
  fprintf(stderr, "              -p     print only preset events\n");
  fprintf(stderr, "              -n     print only native events\n");
  fprintf(stderr, "              -c n   print only events for component index n\n");
  fprintf(stderr, "If event1, event2, etc., are specified, then only events\n");
  fprintf(stderr, "that can be run in addition to these events will be printed\n\n");
}

/* The options, and the named events added to the set (exits on an error, as PAPI's). */
static void parse(int argc, char** argv, int components) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') {
      switch (argv[i][1]) {
        case 'c':
          only_cidx = i + 1 < argc ? atoi(argv[++i]) : -1;
          if (only_cidx < 0 || only_cidx >= components) {
            fprintf(stderr, "Error: component index %d out of bounds (0..%d)\n", only_cidx,
                    components - 1);
            usage(argv[0]);
            exit(1);
          }
          break;
        case 'p': want_presets = 1, want_natives = 0; break;
        case 'n': want_natives = 1, want_presets = 0; break;
        case 'h': usage(argv[0]); exit(0);
        default:
          fprintf(stderr, "Error: unknown option: %s\n", argv[i]);
          usage(argv[0]);
          exit(1);
      }
      continue;
    }
    int code = -1;
    PAPI_event_name_to_code(argv[i], &code);
    if (PAPI_query_event(code) != PAPI_OK) {
      fprintf(stderr, "Error: unknown event: %s\n", argv[i]);
      usage(argv[0]);
      exit(1);
    }
    if (PAPI_add_event(set, code) != PAPI_OK) {
      fprintf(stderr, "Error: event %s cannot be counted with others\n", argv[i]);
      usage(argv[0]);
      exit(1);
    }
  }
}

static void component(int cidx) {
  const PAPI_component_info_t* info = PAPI_get_component_info(cidx);
  printf("<component index=\"%d\" type=\"%s\" id=\"%s\">\n", cidx, cidx ? "Unknown" : "CPU",
         info->name);
  if (want_natives) events(cidx, PAPI_NATIVE_MASK, "NATIVE");
  if (want_presets) events(cidx, PAPI_PRESET_MASK, "PRESET");
  printf("</component>\n");
}

int main(int argc, char** argv) {
  papi_tools_init();
  if (PAPI_create_eventset(&set) != PAPI_OK) {
    fprintf(stderr, "Error!  PAPI_create_eventset\n");
    return 1;
  }
  const int components = PAPI_num_components();
  parse(argc, argv, components);
  printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<eventinfo>\n");
  hardware();
  if (only_cidx >= 0) {
    component(only_cidx);
  } else {
    for (int cidx = 0; cidx < components; ++cidx) {
      component(cidx);
      /* A fresh set for the next component, with the named events again. */
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
      PAPI_create_eventset(&set);
      parse(argc, argv, components);
    }
  }
  printf("</eventinfo>\n");
  return 0;
}
