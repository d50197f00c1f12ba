/* One-sided communication (MPI 3.1, chapter 11): puts, gets and accumulates in fence epochs
 * (derived datatypes at either side), post/start/complete/wait around a ring, passive-target
 * locks (fetch-and-op and compare-and-swap taking turns, get-accumulate under lock_all, and the
 * pattern of OSU's put latency test: one rank locking and putting while its target waits in
 * MPI_Barrier), windows MPI_Win_allocate made, and request-based operations (MPI_Rput, MPI_Rget,
 * MPI_Raccumulate, MPI_Rget_accumulate; one outside an epoch refused). Each rank prints what it
 * computed, so that the simulated run and the host build under Open MPI can be compared line by
 * line. Plain MPI C, 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static void print_ints(const char* name, const int* v, int n) {
  printf("%s:", name);
  for (int i = 0; i < n; ++i) printf(" %d", v[i]);
  printf("\n");
}

static void fence_epochs(void) {
  int mem[16];
  for (int i = 0; i < 16; ++i) mem[i] = rank * 100 + i;
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int got[4] = {0};
  MPI_Win_fence(0, win);
  const int me = 1000 + rank;
  MPI_Put(&me, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Get(got, 4, MPI_INT, prev, 4, 4, MPI_INT, win);
  MPI_Win_fence(0, win);
  print_ints("after put and get", mem, 16);
  print_ints("got from prev", got, 4);
  /* (The next epoch's accumulates may land as soon as their origins leave the fence: the window
   * is read before any of them starts.) */
  MPI_Barrier(MPI_COMM_WORLD);
  /* Accumulates from every rank into rank 0: a sum and a maximum. */
  const int one[2] = {rank + 1, 7 * rank};
  MPI_Accumulate(&one[0], 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
  MPI_Accumulate(&one[1], 1, MPI_INT, 0, 9, 1, MPI_INT, MPI_MAX, win);
  MPI_Win_fence(0, win);
  if (rank == 0) print_ints("accumulated at 0", mem + 8, 2);
  /* Derived types: 3 ints of a strided origin into every other int of the target, and a
   * strided get of the target's first ints into a strided origin. */
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int src[6] = {rank, -1, rank + 10, -1, rank + 20, -1}, dst[6] = {0};
  MPI_Put(src, 1, every_other, next, 10, 1, every_other, win);
  MPI_Win_fence(0, win);
  MPI_Get(dst, 1, every_other, prev, 10, 3, MPI_INT, win);
  MPI_Win_fence(0, win);
  print_ints("strided put landed", mem + 10, 6);
  print_ints("strided get", dst, 6);
  MPI_Type_free(&every_other);
  MPI_Win_free(&win);
}

static void pscw_ring(void) {
  int mem[4] = {0};
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Group world, from, to;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &prev, &from);
  MPI_Group_incl(world, 1, &next, &to);
  for (int round = 0; round < 3; ++round) {
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
    const int v[2] = {rank * 10 + round, -round};
    MPI_Put(v, 2, MPI_INT, next, round % 2, 2, MPI_INT, win);
    MPI_Accumulate(&v[0], 1, MPI_INT, next, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    print_ints("pscw round", mem, 4);
  }
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
}

static void passive_target(void) {
  long* counter;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
  counter[0] = counter[1] = counter[2] = counter[3] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  /* Ranks in turn: fetch-and-add on rank 0's counter, a compare-and-swap that succeeds only when
   * the slot holds the previous rank's mark. */
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) {
      const long add = 5, mark = rank + 1, expect = rank;
      long before = -1, swapped = -1;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Fetch_and_op(&add, &before, MPI_LONG, 0, 0, MPI_SUM, win);
      MPI_Compare_and_swap(&mark, &expect, &swapped, MPI_LONG, 0, 1, win);
      MPI_Win_unlock(0, win);
      printf("turn %d: fetched %ld, compare-and-swap found %ld\n", turn, before, swapped);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) printf("counter %ld, mark %ld\n", counter[0], counter[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Every rank reads and adds under lock_all, then the slot's value is known to all. */
  MPI_Win_lock_all(0, win);
  long old = -1;
  const long two = 2;
  MPI_Get_accumulate(&two, 1, MPI_LONG, &old, 1, MPI_LONG, (rank + 1) % size, 2, 1, MPI_LONG,
                     MPI_SUM, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("get_accumulate old %ld, my slot 2 now %ld\n", old, counter[2]);
  /* OSU's put latency pattern: rank 0 puts to rank 1 under its lock, over and over, while rank
   * 1 waits in MPI_Barrier (its library serves the locks meanwhile). */
  if (rank == 0) {
    for (long i = 1; i <= 20; ++i) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
      MPI_Put(&i, 1, MPI_LONG, 1, 3, 1, MPI_LONG, win);
      MPI_Win_unlock(1, win);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("rank 1's slot 3 after 20 locked puts: %ld\n", counter[3]);
  MPI_Win_free(&win);
}

static void allocated_doubles(void) {
  double* mem;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mem[0] = 1.0;
  mem[1] = 0.5;
  MPI_Win_fence(0, win);
  const double factor = 1.5 + rank;
  MPI_Accumulate(&factor, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_PROD, win);
  MPI_Win_fence(0, win);
  if (rank == size - 1) {
    const double value = 42.25;
    MPI_Accumulate(&value, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, MPI_REPLACE, win);
  }
  MPI_Win_fence(0, win);
  if (rank == 0) printf("product %.6g, replaced %.6g\n", mem[0], mem[1]);
  MPI_Win_free(&win);
}

/* Request-based operations under lock_all: each completes at its request (an MPI_Rget into a
 * strided origin among them); then an MPI_Rput outside any epoch is refused. */
static void request_based(void) {
  int* mem;
  MPI_Win win;
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  for (int i = 0; i < 8; ++i) mem[i] = rank * 100 + i;
  MPI_Barrier(MPI_COMM_WORLD);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int got[4] = {-1, -1, -1, -1}, old = -1;
  const int me = 5000 + rank, mine = rank + 1, three = 3;
  MPI_Request r[4];
  MPI_Win_lock_all(0, win);
  MPI_Rput(&me, 1, MPI_INT, next, 0, 1, MPI_INT, win, &r[0]);
  MPI_Rget(got, 1, every_other, prev, 4, 2, MPI_INT, win, &r[1]);
  MPI_Raccumulate(&mine, 1, MPI_INT, 0, 6, 1, MPI_INT, MPI_SUM, win, &r[2]);
  MPI_Rget_accumulate(&three, 1, MPI_INT, &old, 1, MPI_INT, next, 7, 1, MPI_INT, MPI_SUM, win,
                      &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  print_ints("rget into every other int", got, 4);
  printf("rget_accumulate old %d\n", old);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  print_ints("window after the requests", mem, 8);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Request outside;
  const int err = MPI_Rput(&me, 1, MPI_INT, next, 0, 1, MPI_INT, win, &outside);
  int cls = -1;
  MPI_Error_class(err, &cls);
  printf("rput outside an epoch: %s\n", cls == MPI_ERR_RMA_SYNC ? "MPI_ERR_RMA_SYNC" : "other");
  MPI_Type_free(&every_other);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    printf("mpi_rma runs on 2 or more ranks\n");
    MPI_Finalize();
    return 0;
  }
  fence_epochs();
  pscw_ring();
  passive_target();
  allocated_doubles();
  request_based();
  MPI_Finalize();
  return 0;
}
