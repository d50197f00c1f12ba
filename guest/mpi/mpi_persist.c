/* Persistent requests, cancelling and buffered sends (MPI 3.1, 3.9, 3.8.4, 3.6): each rank
 * prints what it received, so that the simulated run and the host build under Open MPI can be
 * compared line by line. Plain MPI C, 2 or more ranks.
 *
 * - A ring exchange on persistent requests, started three times (MPI_Startall), the send buffer
 *   changed between starts; a wait leaves the requests inactive; MPI_Request_free frees them.
 * - A receive that nothing matches, cancelled: its status says so (MPI_Test_cancelled).
 * - Buffered sends from an attached buffer, their send buffer overwritten at once; detaching
 *   gives the buffer back.
 * - An info object: keys set, replaced, read (truncated too), counted, listed, deleted, copied;
 *   and the library's version string (printed only as non-empty: each library has its own). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    printf("mpi_persist needs 2 or more ranks\n");
    MPI_Finalize();
    return 1;
  }
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  int out[4], in[4];
  MPI_Request r[2];
  MPI_Send_init(out, 4, MPI_INT, next, 5, MPI_COMM_WORLD, &r[0]);
  MPI_Recv_init(in, 4, MPI_INT, prev, 5, MPI_COMM_WORLD, &r[1]);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) out[i] = 1000 * round + 10 * rank + i;
    MPI_Startall(2, r);
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
    printf("round %d: from %d tag %d: %d %d %d %d; requests %s\n", round, st[1].MPI_SOURCE,
           st[1].MPI_TAG, in[0], in[1], in[2], in[3],
           r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL ? "kept" : "gone");
  }
  /* (Waiting for an inactive request returns at once.) */
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
  printf("freed: %s\n", r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL ? "yes" : "no");

  /* A receive nothing matches (tag 999 is never sent), cancelled. */
  int never = -1, cancelled = -1;
  MPI_Request c;
  MPI_Irecv(&never, 1, MPI_INT, prev, 999, MPI_COMM_WORLD, &c);
  MPI_Cancel(&c);
  MPI_Status cs;
  MPI_Wait(&c, &cs);
  MPI_Test_cancelled(&cs, &cancelled);
  printf("cancelled receive: %s, buffer %d\n", cancelled ? "cancelled" : "not cancelled", never);

  /* Buffered sends. */
  const int room = 4 * (8 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char* buffer = malloc((size_t)room);
  MPI_Buffer_attach(buffer, room);
  int msg[8], got[8];
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 8; ++i) msg[i] = rank * 100 + k * 10 + i;
    MPI_Bsend(msg, 8, MPI_INT, next, 20 + k, MPI_COMM_WORLD);
    memset(msg, 0, sizeof msg); /* (the message was copied out) */
  }
  for (int k = 0; k < 3; ++k) {
    MPI_Recv(got, 8, MPI_INT, prev, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("bsend %d: %d ... %d\n", k, got[0], got[7]);
  }
  void* back = NULL;
  int back_size = 0;
  MPI_Buffer_detach(&back, &back_size);
  printf("detached: %s, size %s\n", back == buffer ? "the buffer" : "another",
         back_size == room ? "as attached" : "changed");
  free(buffer);

  MPI_Info info, copy;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alpha", "1");
  MPI_Info_set(info, "beta", "two");
  MPI_Info_set(info, "alpha", "one"); /* (replaced in place) */
  char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
  int flag = 0, nkeys = 0, length = 0;
  MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, value, &flag);
  printf("info alpha: %s (%d)\n", flag ? value : "-", flag);
  MPI_Info_get(info, "beta", 2, value, &flag);
  printf("info beta, 2 characters: %s\n", value);
  MPI_Info_get_valuelen(info, "beta", &length, &flag);
  MPI_Info_get(info, "gamma", MPI_MAX_INFO_VAL, value, &flag);
  printf("info beta's length %d, gamma set %d\n", length, flag);
  MPI_Info_dup(info, &copy);
  MPI_Info_delete(info, "alpha");
  MPI_Info_get_nkeys(info, &nkeys);
  printf("info keys after delete: %d\n", nkeys);
  MPI_Info_get_nkeys(copy, &nkeys);
  printf("copy's keys:");
  for (int i = 0; i < nkeys; ++i) {
    MPI_Info_get_nthkey(copy, i, key);
    printf(" %s", key);
  }
  printf("\n");
  MPI_Info_free(&info);
  MPI_Info_free(&copy);
  printf("infos freed: %s\n", info == MPI_INFO_NULL && copy == MPI_INFO_NULL ? "yes" : "no");
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int library_length = 0;
  MPI_Get_library_version(library, &library_length);
  printf("library version: %s\n", library_length > 0 ? "named" : "empty");

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("persist: %d ranks done\n", size);
  MPI_Finalize();
  return 0;
}
