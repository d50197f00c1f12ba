/* Collectives on sub-communicators (issue 45): barrier, broadcast, reduce and allreduce on
 * communicators made by MPI_Comm_split and MPI_Comm_dup, checked against values computed here.
 * On bgq, libmpi runs those whose members are a box of the torus in node order on a
 * sub-communicator class of their own (guest/lib/mpi/mpi_torcoll.c); the others, and every one
 * with network.collective_mpi=false, point to point. The program prints the same bytes either
 * way, so a run with the classes and one without must agree.
 *
 * The communicators, on 8 ranks (bgq's 2x2x2x1x1 torus; node ids are the coordinates' mixed
 * radix, the first dimension the most significant):
 * - halves (rank / 4), pairs (rank / 2) and parities (rank % 2): boxes, three classes on every
 *   node; the two halves (disjoint) share one class;
 * - a duplicate of a half: a box, another class;
 * - "uneven" ({0, 3} and the rest) and "reversed" (the halves, ranks in reverse order): no box;
 * - 14 duplicates of a half at once: the classes run out (1 to 13 are the program's; the
 *   halves, pairs, parities and the duplicate hold four), so the last five run point to point;
 *   all freed and made again, they get the classes back;
 * - "lower" (ranks 0-3 only) then "evens" (0, 2, 4, 6): members whose free classes differ agree
 *   on one free on all of them.
 *
 * Each rank prints one line per communicator and check; the exit status is 1 on any failure. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int world_rank, world_size, failures;

static void check(const char* name, const char* what, int ok) {
  if (!ok) {
    ++failures;
    printf("FAIL %s %s\n", name, what);
  }
}

/* One round of every collective on `comm`, checked against its members' world ranks; prints the
 * results. */
static void round_on(const char* name, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int members[64];
  MPI_Allgather(&world_rank, 1, MPI_INT, members, 1, MPI_INT, comm);
  int64_t want_sum = 0;
  int want_min = world_size, want_max = -1;
  unsigned want_bits = 0;
  for (int i = 0; i < size; ++i) {
    want_sum += members[i] + 1;
    want_min = members[i] < want_min ? members[i] : want_min;
    want_max = members[i] > want_max ? members[i] : want_max;
    want_bits |= 1u << members[i];
  }

  MPI_Barrier(comm);
  int64_t v = world_rank + 1, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_INT64_T, MPI_SUM, comm);
  check(name, "allreduce sum", sum == want_sum);
  /* (Multiples of 1/4: every partial sum is exact, on either path.) */
  double d = 0.25 * (world_rank + 1), dsum = 0;
  MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm);
  check(name, "allreduce double sum", dsum == 0.25 * (double)want_sum);
  int mn = -1, mx = -1;
  MPI_Allreduce(&world_rank, &mn, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&world_rank, &mx, 1, MPI_INT, MPI_MAX, comm);
  check(name, "allreduce min and max", mn == want_min && mx == want_max);
  unsigned bits = 1u << world_rank, all_bits = 0;
  MPI_Allreduce(&bits, &all_bits, 1, MPI_UNSIGNED, MPI_BOR, comm);
  check(name, "allreduce bor", all_bits == want_bits);
  /* In place, several packets' worth (300 int64s: 2,400 bytes). */
  int64_t many[300];
  for (int i = 0; i < 300; ++i) many[i] = (int64_t)(world_rank + 1) * (i - 150);
  MPI_Allreduce(MPI_IN_PLACE, many, 300, MPI_INT64_T, MPI_SUM, comm);
  int many_ok = 1;
  for (int i = 0; i < 300; ++i) many_ok = many_ok && many[i] == want_sum * (i - 150);
  check(name, "allreduce in place, 300 elements", many_ok);

  const int root = size - 1;
  int64_t red[3] = {world_rank, 2 * world_rank, -world_rank}, got[3] = {-1, -1, -1};
  MPI_Reduce(red, got, 3, MPI_INT64_T, MPI_SUM, root, comm);
  const int64_t s = want_sum - size;
  if (rank == root) check(name, "reduce", got[0] == s && got[1] == 2 * s && got[2] == -s);
  if (rank != root) check(name, "reduce leaves others", got[0] == -1);

  int64_t b[5] = {0, 0, 0, 0, 0};
  if (rank == 0) {
    for (int i = 0; i < 5; ++i) b[i] = (int64_t)(members[0] + 1) * 1000 + i;
  }
  MPI_Bcast(b, 5, MPI_INT64_T, 0, comm);
  int b_ok = 1;
  for (int i = 0; i < 5; ++i) b_ok = b_ok && b[i] == (int64_t)(members[0] + 1) * 1000 + i;
  check(name, "bcast", b_ok);
  MPI_Barrier(comm);
  printf("%s: rank %d of %d, sum %lld, dsum %.2f, min %d, max %d, bits %#x, bcast %lld\n", name,
         rank, size, (long long)sum, dsum, mn, mx, all_bits, (long long)b[4]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size != 8) {
    if (world_rank == 0) printf("mpi_subcomm runs on 8 ranks, not %d\n", world_size);
    MPI_Finalize();
    return 1;
  }
  MPI_Comm half, pair, parity, half_dup, uneven, reversed;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank / 4, world_rank, &half);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank / 2, world_rank, &pair);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &parity);
  MPI_Comm_dup(half, &half_dup);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0 || world_rank == 3, world_rank, &uneven);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank / 4, -world_rank, &reversed);
  round_on("world", MPI_COMM_WORLD);
  round_on("half", half);
  round_on("pair", pair);
  round_on("parity", parity);
  round_on("half_dup", half_dup);
  round_on("uneven", uneven);
  round_on("reversed", reversed);
  /* Interleaved: each communicator's collectives in its own order. */
  round_on("half", half);
  round_on("parity", parity);

  for (int again = 0; again < 2; ++again) {
    MPI_Comm dups[14];
    for (int i = 0; i < 14; ++i) {
      MPI_Comm_dup(half, &dups[i]);
      char name[32];
      snprintf(name, sizeof name, "dup%d.%d", again, i);
      round_on(name, dups[i]);
    }
    for (int i = 0; i < 14; ++i) MPI_Comm_free(&dups[i]);
    check("dups", "freed", dups[0] == MPI_COMM_NULL);
  }

  MPI_Comm lower, evens;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < 4 ? 0 : MPI_UNDEFINED, world_rank, &lower);
  if (lower != MPI_COMM_NULL) round_on("lower", lower);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2 == 0 ? 0 : MPI_UNDEFINED, world_rank, &evens);
  if (evens != MPI_COMM_NULL) round_on("evens", evens);
  if (lower != MPI_COMM_NULL) MPI_Comm_free(&lower);
  if (evens != MPI_COMM_NULL) MPI_Comm_free(&evens);

  MPI_Comm_free(&half);
  MPI_Comm_free(&pair);
  MPI_Comm_free(&parity);
  MPI_Comm_free(&half_dup);
  MPI_Comm_free(&uneven);
  MPI_Comm_free(&reversed);
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) printf("subcomm: %d failures\n", all_failures);
  MPI_Finalize();
  return all_failures != 0;
}
