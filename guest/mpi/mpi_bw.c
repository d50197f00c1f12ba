/* Streaming bandwidth from rank 0 to rank 1, as OSU's osu_bw measures it: for each message
 * size, rank 0 posts `window` MPI_Isend and rank 1 `window` MPI_Irecv, both wait for all, and
 * rank 1 answers with an empty message; `iters` such rounds follow one untimed round. The
 * bandwidth is the bytes of the timed rounds over rank 0's MPI_Wtime (simulated time). Sizes
 * double from `min` to `max` bytes (defaults 1 KiB and 64 KiB). One byte in 64 of every message
 * is checked, outside the timed part. Output: "size_bytes mb_per_s" per line on rank 0.
 * Usage: mpi_bw [max] [window] [iters] [min] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WINDOW 256

static unsigned char pattern(long n, int w, long i) {
  return (unsigned char)(n + w + i / 64);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long max = argc > 1 ? atol(argv[1]) : 65536;
  int window = argc > 2 ? atoi(argv[2]) : 64;
  const int iters = argc > 3 ? atoi(argv[3]) : 4;
  const long min = argc > 4 ? atol(argv[4]) : 1024;
  if (window < 1 || window > MAX_WINDOW || size < 2 || min < 1 || max < min) {
    if (rank == 0) fprintf(stderr, "mpi_bw: window 1 to %d, 2 ranks or more\n", MAX_WINDOW);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* One buffer per message of the window, so that received bytes can be checked. */
  unsigned char* buf = malloc((size_t)max * (size_t)window);
  MPI_Request req[MAX_WINDOW];
  int bad = 0;
  if (rank == 0) printf("# size_bytes mb_per_s (rank 0 -> rank 1, window %d)\n", window);
  for (long n = min; n <= max; n *= 2) {
    /* The bytes sent depend on the size and the slot only: filled before the timed rounds,
     * and checked by rank 1 after the untimed round (then cleared) and after the last. */
    if (rank == 0) {
      for (int w = 0; w < window; ++w) {
        for (long i = 0; i < n; i += 64) buf[(size_t)w * (size_t)n + (size_t)i] = pattern(n, w, i);
      }
    }
    double t0 = 0;
    for (int it = 0; it <= iters; ++it) {
      if (it == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
      }
      if (rank == 0) {
        for (int w = 0; w < window; ++w) {
          MPI_Isend(buf + (size_t)w * (size_t)n, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        for (int w = 0; w < window; ++w) {
          MPI_Irecv(buf + (size_t)w * (size_t)n, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        if (it == 0 || it == iters) {
          for (int w = 0; w < window; ++w) {
            unsigned char* b = buf + (size_t)w * (size_t)n;
            for (long i = 0; i < n; i += 64) bad |= b[i] != pattern(n, w, i);
            if (it == 0) memset(b, 0, (size_t)n);
          }
        }
      }
    }
    const double seconds = MPI_Wtime() - t0;
    if (rank == 0) {
      printf("%ld %.1f\n", n, (double)n * window * iters / seconds / 1e6);
    }
  }
  if (rank == 1 && bad) fprintf(stderr, "mpi_bw: received bytes differ from those sent\n");
  free(buf);
  MPI_Finalize();
  return bad;
}
