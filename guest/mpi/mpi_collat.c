/* Collective latency, in the spirit of the OSU micro-benchmarks (the project's own code): for
 * MPI_Barrier, MPI_Allreduce (1 double, 1 int64_t and 256 doubles, MPI_SUM) and MPI_Bcast
 * (8 bytes and 4 KiB from rank 0) on MPI_COMM_WORLD, `warmup` untimed calls, then `iters`
 * timed ones, each timed on every rank with MPI_Wtime (simulated time).
 *
 *   mpi_collat [iters (default 20)] [warmup (default 2)]
 *
 * Barriers are timed back to back. Every other call is preceded by an untimed barrier, so a
 * rank that leaves a broadcast early (the root, point to point) does not start the next one
 * before the others have finished this one; its time is still only its own part of the call.
 * A rank's latency is the mean of its timed calls; rank 0 prints, per operation, the mean and
 * the largest of the ranks' latencies in microseconds:
 *
 *   # op avg_us max_us (N ranks, I iterations)
 *   barrier 1.234 1.456
 *   ...
 *
 * The results of the calls are checked outside the timed part (a wrong sum would make a
 * latency meaningless); a rank that finds one wrong prints it and the exit status is 1. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kOps = 6, kVector = 256, kLargeBcast = 4096 };

static const char* const kNames[kOps] = {"barrier",           "allreduce_double_1",
                                         "allreduce_int64_1", "allreduce_double_256",
                                         "bcast_8",           "bcast_4096"};

static int rank, size, failures;
static double dbuf_in[kVector], dbuf_out[kVector];
static unsigned char bcast_buf[kLargeBcast];

static void fail(const char* what, int i) {
  ++failures;
  printf("rank %d: %s: element %d is wrong\n", rank, what, i);
}

/* Sets up the buffers for a call of `op` (untimed: a receiver's broadcast buffer cleared). */
static void prepare(int op) {
  if (op >= 4 && rank != 0) memset(bcast_buf, 0, kLargeBcast);
}

static int64_t int64_in, int64_out;

/* One call of operation `op`: all the timed part does. */
static void call(int op) {
  switch (op) {
    case 0: MPI_Barrier(MPI_COMM_WORLD); break;
    case 1:
    case 3:
      MPI_Allreduce(dbuf_in, dbuf_out, op == 1 ? 1 : kVector, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case 2: MPI_Allreduce(&int64_in, &int64_out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); break;
    default: MPI_Bcast(bcast_buf, op == 4 ? 8 : kLargeBcast, MPI_BYTE, 0, MPI_COMM_WORLD); break;
  }
}

/* Checks the result of the call of `op` just made (untimed). */
static void check(int op) {
  if (op == 1 || op == 3) {
    /* Inputs are small integers: every partial sum is exact on either path. */
    const int n = op == 1 ? 1 : kVector;
    for (int i = 0; i < n; ++i) {
      if (dbuf_out[i] != (double)(i + 1) * size * (size + 1) / 2) fail(kNames[op], i);
    }
  } else if (op == 2) {
    if (int64_out != ((int64_t)size << 40) + (int64_t)size * (size - 1) / 2) fail(kNames[op], 0);
  } else if (op >= 4) {
    const int n = op == 4 ? 8 : kLargeBcast;
    for (int i = 0; i < n; ++i) {
      if (bcast_buf[i] != (unsigned char)(i * 7 + 1)) {
        fail(kNames[op], i);
        break;
      }
    }
  }
}

/* Rank's mean latency of `op` over `iters` timed calls, in seconds. */
static double time_op(int op, int iters, int warmup) {
  for (int i = 0; i < warmup; ++i) {
    prepare(op);
    call(op);
    check(op);
  }
  double total = 0.0;
  if (op == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) call(op);
    total = MPI_Wtime() - t0;
  } else {
    for (int i = 0; i < iters; ++i) {
      prepare(op);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      call(op);
      total += MPI_Wtime() - t0;
      check(op);
    }
  }
  return total / iters;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  const int warmup = argc > 2 ? atoi(argv[2]) : 2;
  if (iters < 1 || warmup < 0) {
    if (rank == 0) printf("usage: mpi_collat [iters >= 1] [warmup >= 0]\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 0; i < kVector; ++i) dbuf_in[i] = (double)(i + 1) * (rank + 1);
  int64_in = ((int64_t)1 << 40) + rank;
  if (rank == 0) {
    for (int i = 0; i < kLargeBcast; ++i) bcast_buf[i] = (unsigned char)(i * 7 + 1);
  }

  double mine[kOps];
  for (int op = 0; op < kOps; ++op) mine[op] = time_op(op, iters, warmup);

  /* Outside the timed loops: the ranks' latencies, summed and their largest. */
  double sum[kOps], max[kOps];
  MPI_Reduce(mine, sum, kOps, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, max, kOps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int failed = 0;
  MPI_Reduce(&failures, &failed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# op avg_us max_us (%d ranks, %d iterations)\n", size, iters);
    for (int op = 0; op < kOps; ++op) {
      printf("%s %.3f %.3f\n", kNames[op], sum[op] / size * 1e6, max[op] * 1e6);
    }
    if (failed) printf("collat: %d wrong results\n", failed);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
