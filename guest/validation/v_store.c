// v_store: store-queue validation kernels (tests/validation, docs/timing.md section 5).
//
//   v_store KERNEL N
//
// Runs KERNEL for N measured iterations (after three warm-up calls of 20 iterations over
// another buffer) in the kernel's region. Each iteration is 16 stores of 8 bytes (from x0),
// the pointer increment, the counter and the branch:
//   distinct   16 different 16-byte blocks: one store-queue entry per store
//   pairs      8 pairs filling 8 aligned 16-byte blocks: with l1p.write_combining the second
//              store of a pair joins the first's entry
#include <sys/mman.h>

#include "hpm/region.h"
#include "vmain.h"

HPM_REGION_NAME(20, "sq_distinct");
HPM_REGION_NAME(21, "sq_pairs");

void vk_sq_distinct(long n, long p, long x, long n_warm, long p_warm);
void vk_sq_pairs(long n, long p, long x, long n_warm, long p_warm);

enum { kWarm = 20 };

static const struct vk_kernel kKernels[] = {
    {"distinct", vk_sq_distinct},
    {"pairs", vk_sq_pairs},
    {NULL, NULL},
};

static char* buffer(size_t bytes) {
  void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return (char*)p;
}

int main(int argc, char** argv) {
  const struct vk_kernel* k = argc > 1 ? vk_find(kKernels, argv[1]) : NULL;
  if (k == NULL) vk_usage(argv[0], kKernels, "N");
  const long n = vk_arg(argc, argv, 2, 100);
  if (n < 1) vk_usage(argv[0], kKernels, "N");
  char* measured = buffer((size_t)n * 256);
  char* warm = buffer(kWarm * 256);
  k->driver(n, (long)measured, 0, kWarm, (long)warm);
  printf("v_store %s n=%ld\n", k->name, n);
  return 0;
}
