/* Faults of a many-node job, for the cluster's tests: `exit R S` makes rank R exit with status S
 * after a barrier while the others wait for a message that never comes (the job must end with
 * status S); `deadlock` makes every rank wait for a message nobody sends; `abort R` calls
 * MPI_Abort(MPI_COMM_WORLD, 3) on rank R; `unmapped R` makes rank R send rank 0 a message from a
 * buffer that is not mapped (MPI's default error handler ends the job: MPI_ERR_BUFFER);
 * `readonly R` makes rank R send rank 0 a message of the rendezvous size, which rank 0 receives
 * into read-only memory (rank 0 takes the guest fault). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "deadlock";
  const int who = argc > 2 ? atoi(argv[2]) : 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (strcmp(what, "exit") == 0 && rank == who) {
    printf("rank %d exits\n", rank);
    fflush(stdout);
    exit(argc > 3 ? atoi(argv[3]) : 1);
  }
  if (strcmp(what, "abort") == 0 && rank == who) MPI_Abort(MPI_COMM_WORLD, 3);
  if (strcmp(what, "unmapped") == 0 && rank == who) {
    /* (Past the end of the guest's address space, 256 GiB: never mapped.) */
    MPI_Send((const void*)(uintptr_t)0x5000000000ull, 1000, MPI_INT, 0, 42, MPI_COMM_WORLD);
    printf("rank %d: the send from an unmapped buffer returned\n", rank);
  }
  static const int read_only[1000] = {1};
  if (strcmp(what, "readonly") == 0) {
    if (rank == who) {
      int* data = calloc(1000, sizeof *data);
      MPI_Send(data, 1000, MPI_INT, 0, 42, MPI_COMM_WORLD);
    } else if (rank == 0) {
      MPI_Recv((int*)read_only, 1000, MPI_INT, who, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank 0: the receive into read-only memory returned\n");
    }
  }
  int x = 0;
  MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
