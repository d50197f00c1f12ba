/* col_raw: Blue Gene/P's collective network and global barrier driven through their devices
 * alone (hpm/col.h, no MPI): on each virtual channel, `rounds` combines (64-bit ADD, then
 * unsigned MAX) whose results every node checks, `rounds` broadcasts from changing roots, then
 * a global barrier. Small and quick: the events tests' workload. Prints one line per node;
 * exits 1 on a wrong result, 2 where the node has no collective network. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpm/col.h"

static volatile uint64_t* col;
static uint64_t node, nodes;

/* Sends one packet on `vc` and returns the one that comes back to this node. */
static uint32_t exchange(unsigned vc, uint32_t header, const uint64_t* out, uint64_t* in) {
  while (!hpm_col_can_inject(col, vc)) {
  }
  hpm_col_inject(col, vc, header, out);
  while (!hpm_col_ready(col, vc)) {
  }
  return hpm_col_receive(col, vc, in);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  col = hpm_col_map();
  volatile uint64_t* gi = hpm_gi_map();
  if (col == NULL || gi == NULL) {
    fprintf(stderr, "col_raw: this node has no collective network\n");
    return 2;
  }
  node = hpm_col_read(col, HPM_COL_NODE);
  nodes = hpm_col_read(col, HPM_COL_NODES);
  int failures = 0;
  uint64_t out[HPM_COL_PACKET_WORDS], in[HPM_COL_PACKET_WORDS];
  for (unsigned vc = 0; vc < HPM_COL_VCS; ++vc) {
    for (int r = 0; r < rounds; ++r) {
      /* ADD: every node's node + i + r, summed. */
      for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) out[i] = node + (uint64_t)(i + r);
      exchange(vc, HPM_COL_HEADER(0, HPM_COL_OP_ADD, HPM_COL_OPSIZE_64, r), out, in);
      for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) {
        failures += in[i] != nodes * (uint64_t)(i + r) + nodes * (nodes - 1) / 2;
      }
      /* MAX: the largest node's. */
      for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) out[i] = node * 1000 + (uint64_t)i;
      exchange(vc, HPM_COL_HEADER(0, HPM_COL_OP_MAX, HPM_COL_OPSIZE_64, r), out, in);
      for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) {
        failures += in[i] != (nodes - 1) * 1000 + (uint64_t)i;
      }
      /* A broadcast from node r mod nodes: it reaches every node, its sender too. */
      const uint64_t root = (uint64_t)r % nodes;
      if (node == root) {
        for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) out[i] = 7000 + (uint64_t)(r + i);
        while (!hpm_col_can_inject(col, vc)) {
        }
        hpm_col_inject(col, vc, HPM_COL_HEADER(0, HPM_COL_OP_NONE, HPM_COL_OPSIZE_64, r), out);
      }
      while (!hpm_col_ready(col, vc)) {
      }
      hpm_col_receive(col, vc, in);
      for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) failures += in[i] != 7000 + (uint64_t)(r + i);
    }
  }
  hpm_gi_arm(gi, 0);
  hpm_gi_wait(gi, 0, 1);
  printf("node %llu of %llu: %s\n", (unsigned long long)node, (unsigned long long)nodes,
         failures == 0 ? "every result right" : "WRONG results");
  return failures == 0 ? 0 : 1;
}
