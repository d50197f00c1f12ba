/* The collectives libmpi runs on Blue Gene/P's collective network and global barrier
 * (guest/lib/mpi/mpi_colnet.c), checked against values computed here from the known inputs:
 * barrier, broadcast of 0 to 5,000 bytes from several roots, and reduce/allreduce on every
 * type and op the tree combines (signed and unsigned 32- and 64-bit integers with SUM, MAX,
 * MIN, BAND, BOR, BXOR, their extremes included; doubles with MAX, MIN and SUM), in place, on
 * a duplicate of the world, and on communicators the tree does not hold.
 *
 * Rank 0 prints one line per check with the number of ranks that passed it; a rank that
 * fails a check prints what it got; the exit status is 1 on any failure. The program prints
 * the same bytes whichever way libmpi runs the collectives: on the tree (bgp), or point to
 * point (bgq, or bgp with collective.mpi=false). So a run with the hardware and one without
 * must agree.
 *
 * Double sums. Integer results are exact on either path. A double sum on the tree is the
 * exact sum rounded once (libmpi's fixed-point method) when every input's exponent is within
 * 71 binades of the element's largest (8 nodes; 74 - log2(nodes) in general); point to point
 * it is a tree of rounded additions. So:
 * - "exact" checks use inputs whose every partial sum is representable (multiples of 2^-16
 *   below 2^26 in magnitude, subnormal multiples, cancellations, -0.0): both paths must give
 *   the exact sum, bit for bit;
 * - the "rounded" check uses random doubles spanning 50 binades (so their exact sum fits a
 *   long double's 113 bits, and the tree's fixed point holds them exactly): on the tree the
 *   result must be the exact sum rounded once, point to point within the bound of `size`
 *   roundings; the program reads which path ran from /dev/hpm/col's MPI register (as libmpi
 *   does) and prints the same line either way;
 * - non-finite inputs (inf, NaN) make libmpi fall back to point to point: IEEE's answers. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm/col.h"

static int rank, size, failures;

/* Whether libmpi's collectives on the world run on the collective network. */
static int on_tree(void) {
  volatile uint64_t* col = hpm_col_map();
  return col && hpm_col_read(col, HPM_COL_MPI) == 1;
}

static void check(const char* what, int ok) {
  int passed = 0;
  MPI_Reduce(&ok, &passed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!ok) ++failures;
  if (rank == 0) printf("%-44s %d/%d\n", what, passed, size);
}

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t random_bits(int salt, int r, int i) {
  return mix(((uint64_t)salt << 48) ^ ((uint64_t)r << 24) ^ (uint64_t)i);
}

/* ---- broadcast ---- */

static void bcast_check(int bytes, int root) {
  enum { GUARD = 16 };
  unsigned char* buf = malloc((size_t)bytes + GUARD);
  for (int i = 0; i < bytes + GUARD; ++i) {
    buf[i] = rank == root && i < bytes ? (unsigned char)random_bits(1, root, i) : 0xee;
  }
  MPI_Bcast(buf, bytes, MPI_BYTE, root, MPI_COMM_WORLD);
  int ok = 1, bad = -1;
  for (int i = 0; i < bytes + GUARD && ok; ++i) {
    ok = buf[i] == (i < bytes ? (unsigned char)random_bits(1, root, i) : 0xee);
    if (!ok) bad = i;
  }
  if (!ok)
    printf("rank %d: bcast %d bytes from %d: byte %d is %d\n", rank, bytes, root, bad, buf[bad]);
  char name[64];
  snprintf(name, sizeof name, "bcast %d bytes root %d", bytes, root);
  check(name, ok);
  free(buf);
}

/* ---- integer reductions ---- */

typedef struct {
  MPI_Datatype type;
  const char* name;
  int width; /* bytes: 4 or 8 */
  int is_signed;
} int_type;

static const int_type int_types[] = {
    {MPI_INT, "int", 4, 1},
    {MPI_UNSIGNED, "unsigned", 4, 0},
    {MPI_INT32_T, "int32_t", 4, 1},
    {MPI_UINT32_T, "uint32_t", 4, 0},
    {MPI_LONG, "long", 8, 1},
    {MPI_UNSIGNED_LONG, "unsigned long", 8, 0},
    {MPI_LONG_LONG, "long long", 8, 1},
    {MPI_UNSIGNED_LONG_LONG, "unsigned long long", 8, 0},
    {MPI_INT64_T, "int64_t", 8, 1},
    {MPI_UINT64_T, "uint64_t", 8, 0},
};

typedef struct {
  MPI_Op op;
  const char* name;
} op_name;

static const op_name int_ops[] = {{MPI_SUM, "sum"},   {MPI_MAX, "max"}, {MPI_MIN, "min"},
                                  {MPI_BAND, "band"}, {MPI_BOR, "bor"}, {MPI_BXOR, "bxor"}};

/* A value as a signed integer of the type (sign-extended from its width). */
static int64_t as_signed(const int_type* t, uint64_t v) {
  return t->width == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static uint64_t narrow(const int_type* t, uint64_t v) {
  return t->width == 4 ? v & 0xffffffffull : v;
}

/* Rank r's element i for op. Every op sees the type's extremes, -1 and 0 among random bits;
 * a signed SUM's inputs cannot overflow in any order (MAX and MIN meet on one element only,
 * the others are small enough for any number of ranks up to 2^16), so the reference and
 * both paths are defined. */
static uint64_t int_input(const int_type* t, MPI_Op op, int r, int i) {
  const int bits = t->width * 8;
  const uint64_t max = t->is_signed ? (1ull << (bits - 1)) - 1 : narrow(t, ~0ull);
  const uint64_t min = t->is_signed ? narrow(t, 1ull << (bits - 1)) : 0;
  const uint64_t x = random_bits(2 + (int)op, r, i);
  if (op == MPI_SUM && t->is_signed) {
    if (i % 4 == 0) return r == i / 4 % size ? max : r == (i / 4 + 1) % size ? min : 0;
    return narrow(t, (uint64_t)(as_signed(t, x) >> 17));
  }
  switch (i % 7) {
    case 0: return r == i / 7 % size ? max : narrow(t, x);
    case 1: return r == i / 7 % size ? min : narrow(t, x);
    case 2: return narrow(t, ~0ull);
    case 3: return r % 2 ? 0 : narrow(t, x);
    default: return narrow(t, x);
  }
}

static uint64_t combine(const int_type* t, MPI_Op op, uint64_t a, uint64_t b) {
  switch (op) {
    case MPI_SUM: return narrow(t, a + b);
    case MPI_BAND: return a & b;
    case MPI_BOR: return a | b;
    case MPI_BXOR: return a ^ b;
    default: break;
  }
  int a_greater = t->is_signed ? as_signed(t, a) > as_signed(t, b) : a > b;
  return (op == MPI_MAX) == a_greater ? a : b;
}

static void put(const int_type* t, void* buf, int i, uint64_t v) {
  if (t->width == 4) {
    ((uint32_t*)buf)[i] = (uint32_t)v;
  } else {
    ((uint64_t*)buf)[i] = v;
  }
}

static uint64_t get(const int_type* t, const void* buf, int i) {
  return t->width == 4 ? ((const uint32_t*)buf)[i] : ((const uint64_t*)buf)[i];
}

/* Reduce (root: that rank; -1: allreduce; in_place: the input in recvbuf) of `count`
 * elements of type t under op on comm, whose rank k is world rank members[k]. */
static void int_check(const int_type* t, const op_name* op, int count, int root, int in_place,
                      MPI_Comm comm, const char* comm_name) {
  int crank, csize;
  MPI_Comm_rank(comm, &crank);
  MPI_Comm_size(comm, &csize);
  int* members = malloc(sizeof(int) * (size_t)csize);
  MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, comm);
  void* in = malloc((size_t)count * 8 + 8);
  void* out = malloc((size_t)count * 8 + 8);
  const uint64_t canary = 0x5a5a5a5a5a5a5a5aull;
  for (int i = 0; i <= count; ++i) put(t, out, i, canary);
  for (int i = 0; i < count; ++i) put(t, in_place ? out : in, i, int_input(t, op->op, rank, i));
  const void* send = in_place ? MPI_IN_PLACE : in;
  if (root < 0) {
    MPI_Allreduce(send, out, count, t->type, op->op, comm);
  } else {
    if (in_place && crank != root) send = out; /* (MPI_IN_PLACE is the root's only) */
    MPI_Reduce(send, out, count, t->type, op->op, root, comm);
  }
  int ok = 1;
  const int receives = root < 0 || crank == root;
  for (int i = 0; i < count && ok; ++i) {
    uint64_t expect = int_input(t, op->op, members[0], i);
    for (int k = 1; k < csize; ++k) {
      expect = combine(t, op->op, expect, int_input(t, op->op, members[k], i));
    }
    if (!receives) expect = in_place ? int_input(t, op->op, rank, i) : narrow(t, canary);
    const uint64_t got = get(t, out, i);
    if (got != expect) {
      ok = 0;
      printf("rank %d: %s %s element %d: got %#llx, expected %#llx\n", rank, t->name, op->name, i,
             (unsigned long long)got, (unsigned long long)expect);
    }
  }
  ok &= get(t, out, count) == narrow(t, canary);
  char name[96];
  snprintf(name, sizeof name, "%s %s %s x%d%s%s", root < 0 ? "allreduce" : "reduce", t->name,
           op->name, count, in_place ? " in place" : "", comm_name);
  if (root >= 0) snprintf(name + strlen(name), sizeof name - strlen(name), " root %d", root);
  check(name, ok);
  free(members);
  free(in);
  free(out);
}

/* ---- double reductions ---- */

static int same_double(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return memcmp(&a, &b, sizeof a) == 0;
}

/* Rank r's element i for exact sums and for MAX/MIN: every partial sum of these is a double
 * (see the top). Element kinds by i % 8: mixed magnitudes (k * 2^e, |k| < 2^10, e in
 * -16..16), subnormals, one value cancelled by its negation, -0.0 everywhere, +0.0 and -0.0
 * mixed, a rank's +-infinity-free extreme (2^26 - 2^-16), negatives only, and a value only
 * one rank holds. */
static double exact_input(int r, int i) {
  const uint64_t x = random_bits(40, r, i);
  const double k = (double)(int)(x % 2047) - 1023.0;
  const double scale = ldexp(1.0, (int)((x >> 16) % 33) - 16);
  switch (i % 8) {
    case 0: return k * scale;
    case 1: return ldexp((double)(int)(x % 1001) - 500.0, -1074);
    case 2: return r == 0 ? 1234.0625 : r == size - 1 ? -1234.0625 : k;
    case 3: return -0.0;
    case 4: return r % 2 ? -0.0 : 0.0;
    case 5: return r == i / 8 % size ? ldexp(1.0, 26) - ldexp(1.0, -16) : k * scale;
    case 6: return -fabs(k * scale) - 1.0;
    default: return r == i / 8 % size ? k * scale : 0.0;
  }
}

/* Random doubles spanning 50 binades, of either sign (for the rounded sum). */
static double rounded_input(int r, int i) {
  const uint64_t x = random_bits(41, r, i);
  const uint64_t bits = (x & ((1ull << 52) - 1)) | (uint64_t)(1023 - 25 + (int)((x >> 52) % 51))
                                                       << 52;
  double d;
  memcpy(&d, &bits, sizeof d);
  return x >> 63 ? -d : d;
}

/* Doubles for MAX and MIN: exact_input's, with -0.0 left out (MAX(-0.0, +0.0) is either
 * under IEEE's comparison), and the infinities and DBL_MAX's neighbours on some elements. */
static double order_input(int r, int i) {
  if (i % 11 == 0 && r == i / 11 % size) return i % 2 ? INFINITY : -INFINITY;
  if (i % 11 == 1) return r % 2 ? 1.7976931348623157e308 : -1.7976931348623157e308;
  const double d = exact_input(r, i);
  return d == 0.0 ? 0.0 : d;
}

typedef double (*double_input)(int r, int i);

static void double_check(const char* what, MPI_Op op, double_input input, int count, int root,
                         int rounded) {
  double* in = malloc(sizeof(double) * (size_t)count + 8);
  double* out = malloc(sizeof(double) * (size_t)count + 8);
  for (int i = 0; i < count; ++i) in[i] = input(rank, i);
  for (int i = 0; i < count; ++i) out[i] = -1.5;
  if (root < 0) {
    MPI_Allreduce(in, out, count, MPI_DOUBLE, op, MPI_COMM_WORLD);
  } else {
    MPI_Reduce(in, out, count, MPI_DOUBLE, op, root, MPI_COMM_WORLD);
  }
  const int tree = on_tree();
  int ok = 1;
  for (int i = 0; i < count && (root < 0 || rank == root); ++i) {
    double expect = input(0, i);
    long double exact = expect, magnitude = fabs(expect);
    for (int r = 1; r < size; ++r) {
      const double x = input(r, i);
      if (op == MPI_MAX) expect = x > expect ? x : expect;
      if (op == MPI_MIN) expect = x < expect ? x : expect;
      exact += x; /* exact: the inputs span fewer bits than a long double's 113 */
      magnitude += fabsl((long double)x);
    }
    if (op == MPI_SUM && expect == expect) expect = (double)exact; /* the one rounding */
    int good = same_double(out[i], expect);
    if (rounded && !tree) {
      /* Point to point: size - 1 roundings of partial sums no larger than the inputs' sum of
       * magnitudes. */
      good = fabsl((long double)out[i] - exact) <= magnitude * size * 0x1p-53L;
    }
    if (!good) {
      ok = 0;
      printf("rank %d: %s element %d: got %a, expected %a\n", rank, what, i, out[i], expect);
    }
  }
  char name[96];
  snprintf(name, sizeof name, "%s %s x%d", root < 0 ? "allreduce" : "reduce", what, count);
  if (root >= 0) snprintf(name + strlen(name), sizeof name - strlen(name), " root %d", root);
  check(name, ok);
  free(in);
  free(out);
}

/* Elements 0: +inf on rank 0; 1: +inf and -inf (NaN with two ranks); 2: NaN on the last rank;
 * 3: finite. */
static double nonfinite_input(int r, int i) {
  switch (i) {
    case 0: return r == 0 ? INFINITY : 1.0;
    case 1: return r == 0 ? INFINITY : r == 1 ? -INFINITY : 2.0;
    case 2: return r == size - 1 ? NAN : 3.0;
    default: return r + 0.25;
  }
}

static void nonfinite_check(void) {
  double in[4], out[4];
  for (int i = 0; i < 4; ++i) in[i] = nonfinite_input(rank, i);
  MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const int ok = isinf(out[0]) && out[0] > 0 && (size > 1 ? isnan(out[1]) : isinf(out[1])) &&
                 isnan(out[2]) && out[3] == size * (size - 1) / 2.0 + 0.25 * size;
  if (!ok) printf("rank %d: nonfinite sum: %a %a %a %a\n", rank, out[0], out[1], out[2], out[3]);
  check("allreduce double sum inf/nan x4", ok);
}

/* ---- barrier ---- */

/* No rank leaves a barrier before the last one entered it (simulated time, one clock for all
 * nodes): rank r works r units before entering. Then a run of barriers back to back. */
static void barrier_check(void) {
  volatile unsigned long spin = 0;
  for (long k = 0; k < 5000L * rank; ++k) spin += (unsigned long)k;
  double times[2] = {MPI_Wtime(), 0};
  MPI_Barrier(MPI_COMM_WORLD);
  times[1] = MPI_Wtime();
  double* all = malloc(sizeof(double) * 2 * (size_t)size);
  MPI_Allgather(times, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
  double last_in = all[0], first_out = all[1];
  for (int r = 1; r < size; ++r) {
    if (all[2 * r] > last_in) last_in = all[2 * r];
    if (all[2 * r + 1] < first_out) first_out = all[2 * r + 1];
  }
  check("barrier: none leaves before all entered", first_out >= last_in);
  free(all);
  for (int k = 0; k < 10; ++k) MPI_Barrier(MPI_COMM_WORLD);
  check("barrier x10", 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  barrier_check();

  const int roots[] = {0, size / 2, size - 1};
  const int byte_counts[] = {0, 1, 255, 256, 257, 5000};
  for (size_t b = 0; b < sizeof byte_counts / sizeof byte_counts[0]; ++b) {
    for (int k = 0; k < 3; ++k) {
      if (k > 0 && roots[k] == roots[k - 1]) continue;
      if (k == 2 && roots[2] == roots[0]) continue;
      bcast_check(byte_counts[b], roots[k]);
    }
  }

  /* Every type and op, allreduce and reduce (rotating roots); 37 elements: 2 packets of
   * 4-byte elements, 2 of 8-byte ones, the last part-filled. */
  int turn = 0;
  for (size_t t = 0; t < sizeof int_types / sizeof int_types[0]; ++t) {
    for (size_t o = 0; o < sizeof int_ops / sizeof int_ops[0]; ++o) {
      int_check(&int_types[t], &int_ops[o], 37, -1, 0, MPI_COMM_WORLD, "");
      int_check(&int_types[t], &int_ops[o], 37, turn++ % size, 0, MPI_COMM_WORLD, "");
    }
  }
  /* One element; many packets (more than the FIFO's 8 in flight); in place; zero. */
  int_check(&int_types[0], &int_ops[0], 1, -1, 0, MPI_COMM_WORLD, "");
  int_check(&int_types[4], &int_ops[0], 700, -1, 0, MPI_COMM_WORLD, "");
  int_check(&int_types[1], &int_ops[2], 700, size - 1, 0, MPI_COMM_WORLD, "");
  int_check(&int_types[0], &int_ops[1], 40, -1, 1, MPI_COMM_WORLD, "");
  int_check(&int_types[9], &int_ops[5], 40, size / 2, 1, MPI_COMM_WORLD, "");
  int_check(&int_types[4], &int_ops[0], 0, -1, 0, MPI_COMM_WORLD, "");

  /* Communicators: a duplicate of the world (the tree), the world reversed and the even and
   * odd ranks (point to point). */
  MPI_Comm dup, reversed, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int_check(&int_types[0], &int_ops[0], 37, -1, 0, dup, " dup");
  int_check(&int_types[6], &int_ops[2], 37, 0, 0, dup, " dup");
  int_check(&int_types[0], &int_ops[0], 37, -1, 0, reversed, " reversed");
  int_check(&int_types[5], &int_ops[1], 37, -1, 0, half, " half");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&half);

  /* Doubles. */
  double_check("double max", MPI_MAX, order_input, 70, -1, 0);
  double_check("double min", MPI_MIN, order_input, 70, -1, 0);
  double_check("double max", MPI_MAX, order_input, 70, size - 1, 0);
  double_check("double min", MPI_MIN, order_input, 70, 0, 0);
  double_check("double sum exact", MPI_SUM, exact_input, 200, -1, 0);
  double_check("double sum exact", MPI_SUM, exact_input, 200, size / 2, 0);
  double_check("double sum exact", MPI_SUM, exact_input, 3, -1, 0);
  double_check("double sum rounded", MPI_SUM, rounded_input, 300, -1, 1);
  double_check("double sum rounded", MPI_SUM, rounded_input, 50, size - 1, 1);
  nonfinite_check();

  /* A type and ops the tree does not combine, from the same program (point to point). */
  int v = rank % 3 + 1, prod = 0, expect_prod = 1;
  for (int r = 0; r < size; ++r) expect_prod *= r % 3 + 1;
  MPI_Allreduce(&v, &prod, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  short s = (short)(rank - 3), smax = 0;
  MPI_Allreduce(&s, &smax, 1, MPI_SHORT, MPI_MAX, MPI_COMM_WORLD);
  check("allreduce int prod, short max", prod == expect_prod && smax == size - 4);

  int failed_ranks = 0, failed = failures > 0;
  MPI_Allreduce(&failed, &failed_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (failed_ranks) {
      printf("colnet: %d ranks, %d failed\n", size, failed_ranks);
    } else {
      printf("colnet: %d ranks, all passed\n", size);
    }
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
