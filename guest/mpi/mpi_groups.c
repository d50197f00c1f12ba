/* Groups, communicators made from them, user-defined reductions and complex types (MPI 3.1,
 * 6.3-6.4 and 5.9): each rank prints what it computed, so that the simulated run and the host
 * build under Open MPI can be compared line by line. Plain MPI C.
 *
 *   mpi_groups          the checks below (3 or more ranks)
 *   mpi_groups shared   also MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): one process per node,
 *                       and a shared window over it (the process's own memory), none over more
 *                       here, so each is alone (Open MPI on one host puts them all together)
 *
 * Printed, per rank: group sizes and ranks of unions, intersections, differences, included,
 * excluded and range-selected groups; translated ranks; comparisons; communicators made by
 * MPI_Comm_create (the odd ranks, in reverse order) and MPI_Comm_create_group (the first three
 * ranks), with an allreduce on each; a non-commutative user-defined reduction (2x2 integer
 * matrix products, in rank order) by MPI_Reduce to several roots, MPI_Allreduce and MPI_Scan;
 * a commutative one (the largest magnitude; the inputs have no ties, so the order of combining
 * cannot show); complex sums and products. */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static void print_group(const char* name, MPI_Group g) {
  int n = 0, r = 0;
  MPI_Group_size(g, &n);
  MPI_Group_rank(g, &r);
  printf("%s: size %d, my rank %s", name, n, r == MPI_UNDEFINED ? "undefined" : "");
  if (r != MPI_UNDEFINED) printf("%d", r);
  /* Its members as world ranks. */
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  printf(", members");
  for (int i = 0; i < n; ++i) {
    int w = -1;
    MPI_Group_translate_ranks(g, 1, &i, world, &w);
    printf(" %d", w);
  }
  printf("\n");
  MPI_Group_free(&world);
}

static const char* compared(int result) {
  return result == MPI_IDENT     ? "ident"
         : result == MPI_SIMILAR ? "similar"
         : result == MPI_UNEQUAL ? "unequal"
                                 : "?";
}

/* 2x2 integer matrices (row-major, 4 int64s each) multiplied modulo 2^64: associative, not
 * commutative. inout = in x inout. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const uint64_t* a = in;
  uint64_t* b = inout;
  for (int m = 0; m + 4 <= *len; m += 4) {
    const uint64_t* x = a + m;
    uint64_t* y = b + m;
    const uint64_t r0 = x[0] * y[0] + x[1] * y[2], r1 = x[0] * y[1] + x[1] * y[3];
    const uint64_t r2 = x[2] * y[0] + x[3] * y[2], r3 = x[2] * y[1] + x[3] * y[3];
    y[0] = r0;
    y[1] = r1;
    y[2] = r2;
    y[3] = r3;
  }
}

static void absmax(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i) {
    const double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
    if (x > y) b[i] = a[i];
  }
}

static void print_matrices(const char* name, const uint64_t* m) {
  printf("%s:", name);
  for (int i = 0; i < 8; ++i) printf(" %llu", (unsigned long long)m[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3) {
    if (rank == 0) printf("mpi_groups needs 3 or more ranks\n");
    MPI_Finalize();
    return 1;
  }

  /* ---- groups ---- */
  MPI_Group world, evens, odds, first3, u, in, diff, excl, range, rrange, empty;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int even_ranks[64], odd_ranks[64], ne = 0, no = 0;
  for (int r = 0; r < size; ++r) {
    if (r % 2 == 0) even_ranks[ne++] = r;
  }
  for (int r = size - 1; r >= 0; --r) {
    if (r % 2 == 1) odd_ranks[no++] = r; /* (descending: a reordered group) */
  }
  MPI_Group_incl(world, ne, even_ranks, &evens);
  MPI_Group_incl(world, no, odd_ranks, &odds);
  const int three[3] = {0, 1, 2};
  MPI_Group_incl(world, 3, three, &first3);
  MPI_Group_union(odds, first3, &u);
  MPI_Group_intersection(first3, evens, &in);
  MPI_Group_difference(world, first3, &diff);
  MPI_Group_excl(world, 3, three, &excl);
  int ranges[2][3] = {{size - 1, 0, -2}, {1, 1, 1}};
  MPI_Group_range_incl(world, size % 2 == 0 ? 1 : 2, ranges, &range);
  int rranges[1][3] = {{0, size - 1, 3}};
  MPI_Group_range_excl(world, 1, rranges, &rrange);
  MPI_Group_difference(evens, world, &empty);
  print_group("world", world);
  print_group("evens", evens);
  print_group("odds descending", odds);
  print_group("odds union first three", u);
  print_group("first three intersect evens", in);
  print_group("world minus first three", diff);
  print_group("world excluding first three", excl);
  print_group("range from the last down by 2", range);
  print_group("range excluding every third", rrange);
  print_group("evens minus world", empty);
  int cmp1, cmp2, cmp3, cmp4;
  MPI_Group_compare(diff, excl, &cmp1);
  MPI_Group_compare(world, evens, &cmp2);
  MPI_Group_compare(u, u, &cmp3);
  MPI_Group union_back;
  MPI_Group_union(first3, odds, &union_back);
  MPI_Group_compare(u, union_back, &cmp4);
  printf(
      "compare: difference vs exclusion %s, world vs evens %s, union vs itself %s, union vs "
      "union the other way %s\n",
      compared(cmp1), compared(cmp2), compared(cmp3), compared(cmp4));
  int from[3] = {0, 1, MPI_PROC_NULL}, to[3];
  MPI_Group_translate_ranks(odds, 2, from, evens, to);
  MPI_Group_translate_ranks(odds, 3, from, world, to);
  printf("translate odds 0 1 PROC_NULL to world: %d %d %s\n", to[0], to[1],
         to[2] == MPI_PROC_NULL ? "PROC_NULL" : "?");

  /* ---- communicators from groups ---- */
  MPI_Comm odd_comm, first_comm;
  MPI_Comm_create(MPI_COMM_WORLD, odds, &odd_comm);
  if (odd_comm == MPI_COMM_NULL) {
    printf("odd comm: none\n");
  } else {
    int r, n, sum = 0;
    MPI_Comm_rank(odd_comm, &r);
    MPI_Comm_size(odd_comm, &n);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, odd_comm);
    int root_world = -1;
    if (r == 0) root_world = rank;
    MPI_Bcast(&root_world, 1, MPI_INT, 0, odd_comm);
    printf("odd comm: rank %d of %d, sum of world ranks %d, its rank 0 is world %d\n", r, n, sum,
           root_world);
    MPI_Comm_free(&odd_comm);
  }
  if (rank < 3) {
    MPI_Comm_create_group(MPI_COMM_WORLD, first3, 7, &first_comm);
    int r, n, prod = 1, mine = rank + 2;
    MPI_Comm_rank(first_comm, &r);
    MPI_Comm_size(first_comm, &n);
    MPI_Allreduce(&mine, &prod, 1, MPI_INT, MPI_PROD, first_comm);
    printf("first three comm: rank %d of %d, product %d\n", r, n, prod);
    MPI_Comm_free(&first_comm);
  }
  /* (The world goes on after the others' creations, whoever took part.) */
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- user-defined operations ---- */
  MPI_Op mm, am;
  MPI_Op_create(matmul, 0, &mm);
  MPI_Op_create(absmax, 1, &am);
  int commute_mm = -1, commute_am = -1, commute_sum = -1;
  MPI_Op_commutative(mm, &commute_mm);
  MPI_Op_commutative(am, &commute_am);
  MPI_Op_commutative(MPI_SUM, &commute_sum);
  printf("commutative: matmul %d, absmax %d, sum %d\n", commute_mm, commute_am, commute_sum);
  /* Rank r's matrices: [[1, r + 1], [0, 1]] and [[r + 2, 1], [1, 0]]. */
  uint64_t m[8] = {1, (uint64_t)rank + 1, 0, 1, (uint64_t)rank + 2, 1, 1, 0}, out[8];
  for (int root = 0; root < size; root += size - 1) {
    memset(out, 0, sizeof out);
    MPI_Reduce(m, out, 8, MPI_UINT64_T, mm, root, MPI_COMM_WORLD);
    if (rank == root) {
      char name[32];
      snprintf(name, sizeof name, "matmul reduce to %d", root);
      print_matrices(name, out);
    }
  }
  MPI_Allreduce(m, out, 8, MPI_UINT64_T, mm, MPI_COMM_WORLD);
  print_matrices("matmul allreduce", out);
  MPI_Scan(m, out, 8, MPI_UINT64_T, mm, MPI_COMM_WORLD);
  print_matrices("matmul scan", out);
  double v[3] = {rank % 2 ? -1.5 * rank : 1.25 * rank, 2.5 - rank, (double)(rank * rank) - 7},
         vmax[3];
  MPI_Allreduce(v, vmax, 3, MPI_DOUBLE, am, MPI_COMM_WORLD);
  printf("absmax: %g %g %g\n", vmax[0], vmax[1], vmax[2]);
  MPI_Op_free(&mm);
  MPI_Op_free(&am);
  printf("freed: %s\n", mm == MPI_OP_NULL && am == MPI_OP_NULL ? "yes" : "no");

  /* ---- complex types ---- */
  double complex z = (rank + 1) + rank * I, zs = 0, zp = 0;
  MPI_Allreduce(&z, &zs, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&z, &zp, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
  float complex f = 0.5f * (float)rank - 1.0f * I, fs = 0;
  MPI_Reduce(&f, &fs, 1, MPI_C_FLOAT_COMPLEX, MPI_SUM, 0, MPI_COMM_WORLD);
  printf("complex: sum %g%+gi, product %g%+gi\n", creal(zs), cimag(zs), creal(zp), cimag(zp));
  if (rank == 0) printf("float complex sum %g%+gi\n", (double)crealf(fs), (double)cimagf(fs));
  double complex dz[2] = {z, conj(z)}, dzs[2];
  MPI_Allreduce(dz, dzs, 2, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  printf("double complex (Fortran's) sums %g%+gi %g%+gi\n", creal(dzs[0]), cimag(dzs[0]),
         creal(dzs[1]), cimag(dzs[1]));

  if (argc > 1 && strcmp(argv[1], "shared") == 0) {
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int n = 0;
    MPI_Comm_size(shared, &n);
    printf("shared-memory comm: size %d\n", n);
    /* A shared window over it is this process's memory; over the world (more than one node),
     * no memory is shared. */
    int* mem = NULL;
    int* queried = NULL;
    MPI_Aint bytes = 0;
    int unit = 0;
    MPI_Win win;
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, shared, &mem, &win);
    MPI_Win_shared_query(win, MPI_PROC_NULL, &bytes, &unit, &queried);
    mem[3] = rank;
    printf("shared window: %ld bytes, unit %d, same memory %s, holds %d\n", (long)bytes, unit,
           queried == mem ? "yes" : "no", queried[3]);
    MPI_Win_free(&win);
    if (size > 1) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      const int err = MPI_Win_allocate_shared(4, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
      printf("shared window over the world: %s\n",
             err == MPI_ERR_RMA_SHARED ? "MPI_ERR_RMA_SHARED" : "allowed");
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Comm_free(&shared);
  }

  MPI_Group* all[] = {&world, &evens, &odds,  &first3, &u,         &in,
                      &diff,  &excl,  &range, &rrange, &union_back};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) MPI_Group_free(all[i]);
  printf("groups freed: %s\n", world == MPI_GROUP_NULL ? "yes" : "no");
  MPI_Finalize();
  return 0;
}
