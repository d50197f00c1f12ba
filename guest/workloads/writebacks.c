/* Writebacks for seed 004's cache-conflict tool (hpmsim conflicts, docs/interconnect.md):
 *
 *   writebacks conflict LINES STRIDE ROUNDS   stores to LINES lines STRIDE bytes apart, one after
 *                                             the other, ROUNDS times: with STRIDE a multiple of
 *                                             the cache's sets x line bytes they contend for one
 *                                             set, and more lines than its ways evict each other
 *   writebacks stencil KIB SWEEPS             a 1D three-point stencil over two arrays of KIB KiB
 *                                             each: capacity writebacks once they exceed the cache
 *
 * The conflict lines live in a static array (the program's data segment); the stencil's arrays
 * are allocated (the heap, or an anonymous mapping when large). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFLICT_BYTES (64u << 20)
static volatile char conflict[CONFLICT_BYTES];

static int conflicts(unsigned long lines, unsigned long stride, unsigned long rounds) {
  if (lines * stride > CONFLICT_BYTES) {
    fprintf(stderr, "writebacks: %lu lines %lu bytes apart exceed %u bytes\n", lines, stride,
            CONFLICT_BYTES);
    return 2;
  }
  for (unsigned long r = 0; r < rounds; ++r) {
    for (unsigned long l = 0; l < lines; ++l) conflict[l * stride] = (char)(r + l);
  }
  printf("conflict: %lu lines %lu bytes apart from %p, %lu rounds\n", lines, stride,
         (void*)conflict, rounds);
  return 0;
}

static int stencil(unsigned long kib, unsigned long sweeps) {
  const size_t n = kib * 1024 / sizeof(double);
  double* a = malloc(n * sizeof(double));
  double* b = malloc(n * sizeof(double));
  if (!a || !b) return 2;
  for (size_t i = 0; i < n; ++i) a[i] = b[i] = (double)(i % 17);
  for (unsigned long s = 0; s < sweeps; ++s) {
    for (size_t i = 1; i + 1 < n; ++i) b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
    double* t = a;
    a = b;
    b = t;
  }
  printf("stencil: %lu KiB x 2, %lu sweeps, a[n/2] = %.3f\n", kib, sweeps, a[n / 2]);
  free(a);
  free(b);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 5 && strcmp(argv[1], "conflict") == 0) {
    return conflicts(strtoul(argv[2], 0, 0), strtoul(argv[3], 0, 0), strtoul(argv[4], 0, 0));
  }
  if (argc == 4 && strcmp(argv[1], "stencil") == 0) {
    return stencil(strtoul(argv[2], 0, 0), strtoul(argv[3], 0, 0));
  }
  fprintf(stderr,
          "usage: writebacks conflict LINES STRIDE ROUNDS | writebacks stencil KIB SWEEPS\n");
  return 2;
}
