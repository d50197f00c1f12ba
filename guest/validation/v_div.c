// v_div: divider validation kernels (tests/validation, docs/timing.md section 2).
//
//   v_div KERNEL N X
//
// Runs KERNEL for N measured iterations (after three warm-up calls of 20 iterations) on one
// hardware thread, in the kernel's region, with the operand X.
//   div_chain   14 dependent divides of X by 1   (core.divider: serial, its steps for X)
#include "hpm/region.h"
#include "vmain.h"

HPM_REGION_NAME(1, "div_chain");

void vk_div_chain(long n, long p, long x, long n_warm, long p_warm);

static const struct vk_kernel kKernels[] = {
    {"div_chain", vk_div_chain},
    {NULL, NULL},
};

int main(int argc, char** argv) {
  const struct vk_kernel* k = argc > 1 ? vk_find(kKernels, argv[1]) : NULL;
  const long n = vk_arg(argc, argv, 2, 100);
  if (k == NULL || n < 1) vk_usage(argv[0], kKernels, "N X");
  const long x = vk_arg(argc, argv, 3, 0);
  k->driver(n, 0, x, 20, 0);
  printf("v_div %s n=%ld x=%ld\n", k->name, n, x);
  return 0;
}
