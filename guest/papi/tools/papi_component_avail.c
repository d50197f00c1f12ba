/* papi_component_avail: the compiled-in components, which are active and why the others are
 * disabled (PAPI 7's layout). Option -d: the active components' details too. */
#include "papi_tools.h"

int main(int argc, char** argv) {
  const int details = argc > 1 && strcmp(argv[1], "-d") == 0;
  papi_tools_init();
  papi_tools_header("Available components and hardware information.");
  printf("Compiled-in components:\n");
  for (int cidx = 0; cidx < PAPI_num_components(); ++cidx) {
    const PAPI_component_info_t* c = PAPI_get_component_info(cidx);
    printf("Name:   %-23s %s\n", c->name, c->description);
    if (c->disabled) printf("   \\-> Disabled: %s\n", c->disabled_reason);
  }
  printf("\nActive components:\n");
  for (int cidx = 0; cidx < PAPI_num_components(); ++cidx) {
    const PAPI_component_info_t* c = PAPI_get_component_info(cidx);
    if (c->disabled) continue;
    printf("Name:   %-23s %s\n", c->name, c->description);
    printf("                                Native: %d, Preset: %d, Counters: %d\n",
           c->num_native_events, c->num_preset_events, c->num_cntrs);
    if (details) {
      printf(
          "                                Version: %s, Multiplexed counters: %d, "
          "Interrupts: %s\n",
          c->version, c->num_mpx_cntrs, c->hardware_intr ? "yes" : "no");
    }
    printf("\n");
  }
  printf(PAPI_TOOLS_RULE);
  return 0;
}
