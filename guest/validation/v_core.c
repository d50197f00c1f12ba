// v_core: execution-pipe validation kernels (tests/validation, docs/timing.md section 2).
//
//   v_core KERNEL N [THREADS]
//
// Runs KERNEL for N measured iterations (after three warm-up calls of 20 iterations) on THREADS
// hardware threads of core 0 (default 1; thread i on hardware thread i), each in the kernel's
// region. Each loop is 16 instructions: 14 operations, the counter decrement and the branch.
//   int_chain   14 dependent integer adds        (core.latency.int_alu)
//   int_indep   14 independent integer ops       (core.occupancy.int_alu, core.integer_pipes)
//   fp_chain    14 dependent FP adds             (core.latency.fp_add)
//   fp_indep    14 independent FP adds           (core.occupancy.fp_add, core.fp_pipes)
#include "hpm/region.h"
#include "vmain.h"

HPM_REGION_NAME(1, "int_chain");
HPM_REGION_NAME(2, "int_indep");
HPM_REGION_NAME(3, "fp_chain");
HPM_REGION_NAME(4, "fp_indep");

void vk_int_chain(long n, long p, long x, long n_warm, long p_warm);
void vk_int_indep(long n, long p, long x, long n_warm, long p_warm);
void vk_fp_chain(long n, long p, long x, long n_warm, long p_warm);
void vk_fp_indep(long n, long p, long x, long n_warm, long p_warm);

static const struct vk_kernel kKernels[] = {
    {"int_chain", vk_int_chain},
    {"int_indep", vk_int_indep},
    {"fp_chain", vk_fp_chain},
    {"fp_indep", vk_fp_indep},
    {NULL, NULL},
};

struct job {
  const struct vk_kernel* kernel;
  long n;
};

static void run(int index, void* arg) {
  (void)index;
  const struct job* j = (const struct job*)arg;
  j->kernel->driver(j->n, 0, 0, 20, 0);
}

int main(int argc, char** argv) {
  const struct vk_kernel* k = argc > 1 ? vk_find(kKernels, argv[1]) : NULL;
  if (k == NULL) vk_usage(argv[0], kKernels, "N [THREADS]");
  struct job j = {k, vk_arg(argc, argv, 2, 100)};
  const int threads = (int)vk_arg(argc, argv, 3, 1);
  if (j.n < 1) vk_usage(argv[0], kKernels, "N [THREADS]");
  vk_run_threads(threads, 1, NULL, run, &j);
  printf("v_core %s n=%ld threads=%d\n", k->name, j.n, threads);
  return 0;
}
