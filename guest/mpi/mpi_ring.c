/* A token goes round the ring of ranks `laps` times; each rank adds its rank to it, and rank 0
 * prints what came back (sum over laps of 0 + 1 + ... + size - 1). Then each rank sends its
 * rank to the next with MPI_Sendrecv and prints what it got from the previous. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int laps = argc > 1 ? atoi(argv[1]) : 3;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long token = 0;
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      token += rank;
      MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank;
      MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("ring: %d ranks, %d laps, token %ld\n", size, laps, token);
  int got = -1;
  MPI_Status status;
  MPI_Sendrecv(&rank, 1, MPI_INT, next, 99, &got, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d got %d from %d (tag %d, %d int)\n", rank, got, status.MPI_SOURCE, status.MPI_TAG,
         count);
  MPI_Finalize();
  return token == (long)laps * size * (size - 1) / 2 || rank != 0 ? 0 : 1;
}
