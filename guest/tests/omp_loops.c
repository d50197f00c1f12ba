// OpenMP worksharing loops and reductions. Results do not depend on the team size or the
// schedule: parallel for with schedule(static), schedule(static, chunk), schedule(dynamic, chunk)
// and schedule(guided) each touch every iteration exactly once; reductions with +, *, max, min,
// &, |, ^ and && over integers, and + over doubles whose terms are exact in binary, equal the
// serial results; collapse(2) covers a 2-D index space; an ordered loop prints in order; a
// matrix-vector product and a stencil give the serial answer. The team size is printed: the
// caller sets OMP_NUM_THREADS, or leaves it to the machine's default.
#include <omp.h>
#include <string.h>

#include "common.h"

enum { kN = 4000, kRows = 96, kCols = 64 };

static int hits[kN];
static double matrix[kRows][kCols];
static double vector[kCols];
static double result[kRows];

static int all_hit_once(void) {
  int ok = 1;
  for (int i = 0; i < kN; ++i) {
    ok &= hits[i] == 1;
    hits[i] = 0;
  }
  return ok;
}

int main(void) {
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  printf("team size %d (max threads %d)\n", team, omp_get_max_threads());

  int owner_ok = 1;
#pragma omp parallel for schedule(static) reduction(&& : owner_ok)
  for (int i = 0; i < kN; ++i) {
    ++hits[i];
    // schedule(static): contiguous blocks, in thread order.
    int n = omp_get_num_threads(), t = omp_get_thread_num();
    int per = kN / n, extra = kN % n;
    int first = t * per + (t < extra ? t : extra);
    int count = per + (t < extra ? 1 : 0);
    owner_ok = owner_ok && i >= first && i < first + count;
  }
  printf("static: every iteration once: %d, blocks in thread order: %d\n", all_hit_once(),
         owner_ok);
  CHECK(owner_ok);

  owner_ok = 1;
#pragma omp parallel for schedule(static, 7) reduction(&& : owner_ok)
  for (int i = 0; i < kN; ++i) {
    ++hits[i];
    owner_ok = owner_ok && (i / 7) % omp_get_num_threads() == omp_get_thread_num();
  }
  printf("static,7: every iteration once: %d, chunks round-robin: %d\n", all_hit_once(), owner_ok);
  CHECK(owner_ok);

#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < kN; ++i) {
    __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
  }
  printf("dynamic,16: every iteration once: %d\n", all_hit_once());
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < kN; ++i) {
    __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
  }
  printf("guided: every iteration once: %d\n", all_hit_once());

  long sum = 0, product = 1, max = -1, min = 1L << 40;
  unsigned and_bits = ~0u, or_bits = 0, xor_bits = 0;
  int all_positive = 1;
  double dsum = 0;
#pragma omp parallel for reduction(+ : sum, dsum) reduction(max : max) reduction(min : min) \
    reduction(& : and_bits) reduction(| : or_bits) reduction(^ : xor_bits) \
    reduction(&& : all_positive) schedule(dynamic, 32)
  for (int i = 1; i <= kN; ++i) {
    sum += i;
    dsum += i * 0.25;  // exact in binary at any summation order
    long v = (long)((i * 7919L) % 10007);
    if (v > max) max = v;
    if (v < min) min = v;
    and_bits &= ~(1u << (i % 32)) | (i < 4000 ? 0xffffffffu : 0u);
    or_bits |= 1u << (i % 29);
    xor_bits ^= (unsigned)i;
    all_positive = all_positive && i > 0;
  }
#pragma omp parallel for reduction(* : product)
  for (int i = 1; i <= 20; ++i) product *= i;
  long serial_max = -1, serial_min = 1L << 40;
  unsigned serial_xor = 0;
  for (int i = 1; i <= kN; ++i) {
    long v = (long)((i * 7919L) % 10007);
    if (v > serial_max) serial_max = v;
    if (v < serial_min) serial_min = v;
    serial_xor ^= (unsigned)i;
  }
  printf("reductions: sum %ld dsum %.2f product %ld max %ld min %ld\n", sum, dsum, product, max,
         min);
  printf("reductions: and %#x or %#x xor %#x all_positive %d\n", and_bits, or_bits, xor_bits,
         all_positive);
  CHECK(sum == (long)kN * (kN + 1) / 2 && dsum == sum * 0.25 && product == 2432902008176640000L);
  CHECK(max == serial_max && min == serial_min && xor_bits == serial_xor && all_positive);
  CHECK(or_bits == (1u << 29) - 1 && and_bits == ~(1u << (4000 % 32)));

  long pairs = 0;
#pragma omp parallel for collapse(2) reduction(+ : pairs)
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) pairs += i * kCols + j;
  }
  printf("collapse(2): %ld\n", pairs);
  CHECK(pairs == (long)kRows * kCols * (kRows * kCols - 1) / 2);

  printf("ordered:");
#pragma omp parallel for ordered schedule(dynamic, 1)
  for (int i = 0; i < 12; ++i) {
#pragma omp ordered
    printf(" %d", i);
  }
  printf("\n");

  for (int j = 0; j < kCols; ++j) vector[j] = (j % 5) - 2;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) matrix[i][j] = (i + 2 * j) % 9;
  }
#pragma omp parallel for schedule(static, 4)
  for (int i = 0; i < kRows; ++i) {
    double acc = 0;
    for (int j = 0; j < kCols; ++j) acc += matrix[i][j] * vector[j];
    result[i] = acc;
  }
  double checksum = 0;
  int mv_ok = 1;
  for (int i = 0; i < kRows; ++i) {
    double acc = 0;
    for (int j = 0; j < kCols; ++j) acc += matrix[i][j] * vector[j];
    mv_ok &= acc == result[i];
    checksum += result[i] * (i + 1);
  }
  printf("matrix-vector product: checksum %.1f, equals serial: %d\n", checksum, mv_ok);
  CHECK(mv_ok);
  return 0;
}
