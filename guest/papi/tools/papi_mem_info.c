/* papi_mem_info: the node's cache and TLB hierarchy as PAPI reports it (PAPI 7's layout). */
#include "papi_tools.h"

static const char* type_name(int type) {
  switch (PAPI_MH_CACHE_TYPE(type)) {
    case PAPI_MH_TYPE_DATA: return "Data";
    case PAPI_MH_TYPE_INST: return "Instruction";
    case PAPI_MH_TYPE_UNIFIED: return "Unified";
    default: return "Unknown";
  }
}

int main(void) {
  papi_tools_init();
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  const PAPI_mh_info_t* mh = &hw->mem_hierarchy;
  printf("Memory Cache and TLB Hierarchy Information.\n");
  printf("------------------------------------------------------------------------\n");
  printf(
      "TLB Information.\n  There may be multiple descriptors for each level of TLB\n"
      "  if multiple page sizes are supported.\n\n");
  for (int l = 0; l < mh->levels; ++l) {
    for (int k = 0; k < PAPI_MH_MAX_LEVELS; ++k) {
      const PAPI_mh_tlb_info_t* t = &mh->level[l].tlb[k];
      if (t->type == PAPI_MH_TYPE_EMPTY) continue;
      printf(
          "L%d %s TLB:\n  Page Size:         %6d KB\n  Number of Entries: %6d\n"
          "  Associativity:     %6d\n\n",
          l + 1, type_name(t->type), t->page_size, t->num_entries, t->associativity);
    }
  }
  printf("\nCache Information.\n\n");
  for (int l = 0; l < mh->levels; ++l) {
    for (int k = 0; k < PAPI_MH_MAX_LEVELS; ++k) {
      const PAPI_mh_cache_info_t* c = &mh->level[l].cache[k];
      if (c->type == PAPI_MH_TYPE_EMPTY) continue;
      printf(
          "L%d %s Cache:\n  Total size:         %6d KB\n  Line size:          %6d B\n"
          "  Number of Lines:    %6d\n  Associativity:      %6d\n\n",
          l + 1, type_name(c->type), c->size >> 10, c->line_size, c->num_lines, c->associativity);
    }
  }
  printf("mem_info.c                              PASSED\n");
  return 0;
}
