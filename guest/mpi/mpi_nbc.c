/* Non-blocking collectives (MPI 3.1, 5.12): each started, other work done while it runs, then
 * completed, and its result printed beside the blocking collective's; several outstanding at
 * once; and one that can finish only if it progresses while its rank waits for something else.
 * Each rank prints what it computed, so that the simulated run and the host build under Open
 * MPI can be compared line by line. Plain MPI C, 2 or more ranks. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

/* Point-to-point work while collectives run: a ring exchange. */
static int ring_work(int round) {
  int out = rank * 100 + round, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 77, &in, 1, MPI_INT, (rank + size - 1) % size,
               77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return in;
}

static void print_ints(const char* name, const int* v, int n) {
  printf("%s:", name);
  for (int i = 0; i < n; ++i) printf(" %d", v[i]);
  printf("\n");
}

/* 2x2 matrices of int64 (4 elements each): inout = in x inout, not commutative. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int64_t* a = in;
  int64_t* b = inout;
  for (int m = 0; m + 4 <= *len; m += 4) {
    const int64_t r0 = a[m] * b[m] + a[m + 1] * b[m + 2],
                  r1 = a[m] * b[m + 1] + a[m + 1] * b[m + 3];
    const int64_t r2 = a[m + 2] * b[m] + a[m + 3] * b[m + 2];
    const int64_t r3 = a[m + 2] * b[m + 1] + a[m + 3] * b[m + 3];
    b[m] = r0;
    b[m + 1] = r1;
    b[m + 2] = r2;
    b[m + 3] = r3;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > 16) {
    if (rank == 0) printf("mpi_nbc runs on 2 to 16 ranks\n");
    MPI_Finalize();
    return 1;
  }
  MPI_Request r[8];

  /* A barrier and a broadcast outstanding together, ring work in between. */
  int b[4] = {0, 0, 0, 0};
  if (rank == size - 1) {
    for (int i = 0; i < 4; ++i) b[i] = 10 * i + 7;
  }
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(b, 4, MPI_INT, size - 1, MPI_COMM_WORLD, &r[1]);
  const int got = ring_work(1);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  printf("ibarrier done, ring got %d\n", got);
  print_ints("ibcast", b, 4);

  /* Reductions, against the blocking calls. */
  int v[3] = {rank + 1, 2 * rank - 5, rank % 3}, sum[3], bsum[3], mx[3], bmx[3];
  MPI_Iallreduce(v, sum, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Ireduce(v, mx, 3, MPI_INT, MPI_MAX, 1, MPI_COMM_WORLD, &r[1]);
  ring_work(2);
  int done = 0;
  while (!done) MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
  MPI_Allreduce(v, bsum, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(v, bmx, 3, MPI_INT, MPI_MAX, 1, MPI_COMM_WORLD);
  print_ints("iallreduce sum", sum, 3);
  printf("iallreduce equals allreduce: %s\n", memcmp(sum, bsum, sizeof sum) == 0 ? "yes" : "no");
  if (rank == 1) {
    print_ints("ireduce max at 1", mx, 3);
    printf("ireduce equals reduce: %s\n", memcmp(mx, bmx, sizeof mx) == 0 ? "yes" : "no");
  }
  double d = 0.5 * rank, dsum = -1;
  MPI_Iallreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  printf("iallreduce double %g\n", dsum);

  /* A non-commutative user-defined operation, in rank order, to the last rank. */
  MPI_Op mm;
  MPI_Op_create(matmul, 0, &mm);
  int64_t m[4] = {1, rank + 1, 0, 1}, mres[4] = {0, 0, 0, 0};
  if (rank % 2) m[2] = 1;
  MPI_Ireduce(m, mres, 4, MPI_INT64_T, mm, size - 1, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  if (rank == size - 1) {
    printf("ireduce matmul: %lld %lld %lld %lld\n", (long long)mres[0], (long long)mres[1],
           (long long)mres[2], (long long)mres[3]);
  }
  MPI_Op_free(&mm);

  /* Gathers, scatters, all-to-all. */
  int mine[2] = {rank, rank * rank}, all[32], allg[32], sc[32], part[2], a2a_in[16], a2a_out[16];
  for (int i = 0; i < 2 * size; ++i) sc[i] = 1000 + i;
  for (int i = 0; i < size; ++i) a2a_in[i] = rank * 16 + i;
  MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Iallgather(mine, 2, MPI_INT, allg, 2, MPI_INT, MPI_COMM_WORLD, &r[1]);
  MPI_Iscatter(sc, 2, MPI_INT, part, 2, MPI_INT, 0, MPI_COMM_WORLD, &r[2]);
  MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &r[3]);
  ring_work(3);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  if (rank == 0) print_ints("igather", all, 2 * size);
  print_ints("iallgather", allg, 2 * size);
  print_ints("iscatter", part, 2);
  print_ints("ialltoall", a2a_out, size);
  /* All-to-all with a type per peer: ints to even ranks, shorts to odd ones. */
  int wcounts[16], wdispl[16], rwdispl[16];
  MPI_Datatype wtypes[16];
  unsigned char wsend[16 * 8], wrecv[16 * 8];
  for (int i = 0; i < size; ++i) {
    wtypes[i] = i % 2 ? MPI_SHORT : MPI_INT;
    wcounts[i] = 1;
    wdispl[i] = 8 * i;
  }
  for (int i = 0; i < 16 * 8; ++i) wsend[i] = (unsigned char)(rank * 31 + i);
  memset(wrecv, 0, sizeof wrecv);
  MPI_Datatype rtypes[16];
  for (int i = 0; i < size; ++i) {
    rtypes[i] = rank % 2 ? MPI_SHORT : MPI_INT;
    rwdispl[i] = 8 * i;
  }
  MPI_Ialltoallw(wsend, wcounts, wdispl, wtypes, wrecv, wcounts, rwdispl, rtypes, MPI_COMM_WORLD,
                 &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  printf("ialltoallw:");
  for (int i = 0; i < 8 * size; ++i) printf(" %u", wrecv[i]);
  printf("\n");

  /* Varying counts: rank i gives i + 1 ints. */
  int counts[16], displs[16], vin[16], vout[256], total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = i + 1;
    displs[i] = total;
    total += i + 1;
  }
  for (int i = 0; i <= rank; ++i) vin[i] = rank * 10 + i;
  MPI_Iallgatherv(vin, rank + 1, MPI_INT, vout, counts, displs, MPI_INT, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  print_ints("iallgatherv", vout, total);
  MPI_Igatherv(vin, rank + 1, MPI_INT, vout, counts, displs, MPI_INT, size - 1, MPI_COMM_WORLD,
               &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  if (rank == size - 1) print_ints("igatherv", vout, total);
  int vpart[16];
  MPI_Iscatterv(vout, counts, displs, MPI_INT, vpart, rank + 1, MPI_INT, size - 1, MPI_COMM_WORLD,
                &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  print_ints("iscatterv", vpart, rank + 1);

  /* Scans and reduce-scatter. */
  int sc_in = rank + 1, scan = 0, exscan = -99;
  MPI_Iscan(&sc_in, &scan, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD, &r[0]);
  MPI_Iexscan(&sc_in, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  if (rank == 0) exscan = 0; /* (undefined at rank 0) */
  printf("iscan prod %d, iexscan sum %d\n", scan, exscan);
  int rs_in[32], rs_out[2];
  for (int i = 0; i < 2 * size; ++i) rs_in[i] = rank + i;
  MPI_Ireduce_scatter_block(rs_in, rs_out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  print_ints("ireduce_scatter_block", rs_out, 2);

  /* Progress in the background: rank 0 waits for a message that rank 2 sends only once its
   * barrier has completed, which (on 3 or more ranks) needs rank 0's second round of the
   * dissemination barrier, sent after its first round's message arrived: rank 0's part must go
   * on while it waits in MPI_Recv. (On 2 ranks, rank 1 plays rank 2's part.) */
  const int waiter = size >= 3 ? 2 : 1;
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  if (rank == waiter) {
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    int token = 4242;
    MPI_Send(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
  } else if (rank == 0) {
    int token = 0;
    MPI_Recv(&token, 1, MPI_INT, waiter, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    printf("background progress: got %d\n", token);
  } else {
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("nbc: %d ranks done\n", size);
  MPI_Finalize();
  return 0;
}
