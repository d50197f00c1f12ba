// v_branch: branch-misprediction validation kernel (tests/validation, docs/timing.md section 4).
//
//   v_branch KIND N
//
// Runs the branch kernel for N measured iterations (after three warm-up calls over the same N
// directions, so that they are in the L1D) in its region. Each iteration loads a direction byte and
// branches over one instruction when it is 0 (6 or 5 instructions):
//   predictable   every byte 1: the branch is never taken
//   random        bytes from a fixed pseudo-random sequence: taken about half of the time, in
//                 no pattern the predictor can learn
// Prints how many of the N branches are taken.
#include <stdint.h>

#include "hpm/region.h"
#include "vmain.h"

HPM_REGION_NAME(30, "branch");

void vk_branch(long n, long p, long x, long n_warm, long p_warm);

static const struct vk_kernel kKernels[] = {
    {"predictable", vk_branch},
    {"random", vk_branch},
    {NULL, NULL},
};

int main(int argc, char** argv) {
  const struct vk_kernel* k = argc > 1 ? vk_find(kKernels, argv[1]) : NULL;
  if (k == NULL) vk_usage(argv[0], kKernels, "N");
  const long n = vk_arg(argc, argv, 2, 100);
  if (n < 20 || n > 8192) vk_usage(argv[0], kKernels, "N (20 to 8192)");
  unsigned char* directions = malloc((size_t)n);
  if (directions == NULL) return 1;
  const int random = strcmp(k->name, "random") == 0;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  long taken = 0;
  for (long i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    directions[i] = random ? (unsigned char)(state >> 63) : 1;
    taken += directions[i] == 0;
  }
  k->driver(n, (long)directions, 0, n, (long)directions);
  printf("v_branch %s n=%ld taken=%ld\n", k->name, n, taken);
  free(directions);
  return 0;
}
