/* Ping-pong between ranks 0 and 1 (the others wait at the end): for each message size, the
 * one-way time (half a round trip, averaged over `reps` round trips after an untimed one) and
 * the bandwidth, from MPI_Wtime (simulated time). Sizes double from 0 bytes to `max` (default 64
 * KiB). Output: "size_bytes one_way_us mb_per_s" per line on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long max = argc > 1 ? atol(argv[1]) : 65536;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  const int peer = argc > 3 ? atoi(argv[3]) : 1;
  char* buf = malloc((size_t)max + 1);
  memset(buf, rank, (size_t)max + 1);
  if (rank == 0) printf("# size_bytes one_way_us mb_per_s (rank 0 <-> rank %d)\n", peer);
  for (long n = 0; n <= max; n = n ? n * 2 : 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    /* One untimed round trip first (OSU's warm-up): the first size's time would otherwise
     * include the first calls' instruction-cache misses, which a barrier in hardware leaves
     * cold where a point-to-point one has run the same code. */
    if (rank == 0) {
      MPI_Send(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == peer) {
      MPI_Recv(buf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    if (rank == 0) {
      const double t0 = MPI_Wtime();
      for (int r = 0; r < reps; ++r) {
        MPI_Send(buf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      const double one_way = (MPI_Wtime() - t0) / (2.0 * reps);
      printf("%ld %.3f %.1f\n", n, one_way * 1e6, n / one_way / 1e6);
    } else if (rank == peer) {
      for (int r = 0; r < reps; ++r) {
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
