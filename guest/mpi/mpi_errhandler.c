/* Error handlers (MPI 3.1, 8.3): with MPI_ERRORS_RETURN, wrong arguments give their error
 * classes back (printed by name: the numbers differ between MPI libraries); a duplicate of a
 * communicator inherits its handler; a handler of the program's is called with the communicator
 * and the error, also through MPI_Comm_call_errhandler; a window's handler is its own. With the
 * argument "fatal", a wrong call under MPI_ERRORS_ARE_FATAL (the default) ends the job. Each
 * rank prints what it saw, so that the simulated run and the host build under Open MPI can be
 * compared line by line. Plain MPI C, 1 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char* name_of(int error) {
  int cls = -1;
  MPI_Error_class(error, &cls);
  switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    default: return "another class";
  }
}

static int calls;

static void on_error(MPI_Comm* comm, int* error, ...) {
  int size;
  MPI_Comm_size(*comm, &size);
  ++calls;
  printf("handler: %s on a communicator of %d ranks\n", name_of(*error), size);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    if (rank == size - 1) MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("not reached on rank %d\n", rank);
    MPI_Finalize();
    return 0;
  }
  MPI_Errhandler h;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
  printf("world's handler at start: %s\n", h == MPI_ERRORS_ARE_FATAL ? "fatal" : "another");
  MPI_Errhandler_free(&h);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  printf("send to rank %d: %s\n", size, name_of(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD)));
  printf("send of -1 ints: %s\n", name_of(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)));
  printf("send of no type: %s\n",
         name_of(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD)));
  printf("receive with tag -5: %s\n",
         name_of(MPI_Recv(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE)));
  printf("broadcast from root %d: %s\n", size,
         name_of(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD)));
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_errhandler(dup, &h);
  printf("a duplicate's handler: %s\n", h == MPI_ERRORS_RETURN ? "return" : "another");
  MPI_Errhandler_free(&h);
  MPI_Errhandler mine;
  MPI_Comm_create_errhandler(on_error, &mine);
  MPI_Comm_set_errhandler(dup, mine);
  const int e = MPI_Send(&x, 1, MPI_INT, -7, 0, dup);
  printf("send to rank -7 returned %s after %d handler call\n", name_of(e), calls);
  MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
  printf("handler calls: %d\n", calls);
  MPI_Errhandler_free(&mine);
  int mem[2] = {0, 0};
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_fence(0, win);
  printf("put to rank %d: %s\n", size, name_of(MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win)));
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
