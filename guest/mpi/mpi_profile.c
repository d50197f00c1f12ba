/* MPI's profiling interface (MPI 3.1, 14.2): this program defines MPI_Send and MPI_Barrier of
 * its own, which count their calls and call the library's PMPI_ ones, as a profiling tool
 * does; a ring of sends and a few barriers, then each rank prints its counts. The simulated run
 * and the host build under Open MPI print the same. Plain MPI C, 1 or more ranks. */
#include <mpi.h>
#include <stdio.h>

static int sends, barriers;

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Barrier(MPI_Comm comm) {
  ++barriers;
  return PMPI_Barrier(comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int token = 0;
  for (int lap = 0; lap < 3; ++lap) {
    if (rank == 0) {
      token += 1;
      MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += 1;
      MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf(
      "token %d; this rank's MPI_Send calls %d, MPI_Barrier calls %d (counted by its own "
      "wrappers over PMPI_)\n",
      token, sends, barriers);
  MPI_Finalize();
  return 0;
}
