/* Messages on both sides of libmpi's rendezvous cutoff (2049 bytes on bgq), in the orders MPI's
 * matching rules constrain: each check prints what it received, and the host build of this
 * source under Open MPI must print the same bytes.
 * - order: rank 0 sends each other rank small and large messages on one tag alternately, before
 *   the receiver posts any receive (so large ones wait as requests to send, small ones as
 *   buffered data): they must match receives in the order they were sent.
 * - any source: every other rank sends rank 0 a large message; rank 0 receives them with
 *   MPI_ANY_SOURCE, probing each first (MPI_Get_count gives its size before its data moved).
 * - exchange: neighbours in a ring swap large messages with MPI_Isend/MPI_Irecv both ways.
 * - self: a large message to oneself, the receive posted first and posted after.
 * - shorter: a large message into a larger receive buffer (MPI_Get_count says how much came).
 * Usage: mpi_rendezvous [bytes] (the large size; default 40000). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned sum(const unsigned char* b, long n) {
  unsigned s = 0;
  for (long i = 0; i < n; ++i) s = s * 31u + b[i];
  return s;
}

static void fill(unsigned char* b, long n, int seed) {
  for (long i = 0; i < n; ++i) b[i] = (unsigned char)(seed * 7 + i * 13 + i / 251);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long big = argc > 1 ? atol(argv[1]) : 40000;
  const long small = 100;
  unsigned char* a = malloc((size_t)big * 2);
  unsigned char* b = malloc((size_t)big * 2);

  /* order */
  enum { kMessages = 6 };
  if (rank == 0) {
    MPI_Request req[kMessages * 64];
    unsigned char* out = malloc((size_t)big * kMessages);
    int n = 0;
    for (int to = 1; to < size; ++to) {
      for (int m = 0; m < kMessages; ++m) {
        const long len = m % 2 ? big : small;
        fill(out + (size_t)m * (size_t)big, len, to * 10 + m);
        MPI_Isend(out + (size_t)m * (size_t)big, (int)len, MPI_BYTE, to, 5, MPI_COMM_WORLD,
                  &req[n++]);
      }
      MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
      n = 0;
    }
    free(out);
  } else {
    /* (50 us of waiting first: the messages are here before their receives.) */
    const double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 50e-6) {
    }
    for (int m = 0; m < kMessages; ++m) {
      MPI_Status st;
      int count = 0;
      MPI_Recv(a, (int)big, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_BYTE, &count);
      printf("order %d: %d bytes, sum %u\n", m, count, sum(a, count));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* any source */
  if (rank == 0) {
    for (int k = 1; k < size; ++k) {
      MPI_Status st;
      int count = 0;
      MPI_Probe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_BYTE, &count);
      const int from = st.MPI_SOURCE;
      MPI_Recv(a, count, MPI_BYTE, from, 6, MPI_COMM_WORLD, &st);
      /* (Arrival order between sources is the network's: print in rank order below.) */
      b[from] = (unsigned char)(sum(a, count) & 0xff);
      if (count != big + from) printf("any source: rank %d sent %d bytes\n", from, count);
    }
    for (int from = 1; from < size; ++from) printf("any source %d: sum byte %u\n", from, b[from]);
  } else {
    fill(a, big + rank, rank);
    MPI_Send(a, (int)(big + rank), MPI_BYTE, 0, 6, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* exchange */
  {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request r[2];
    fill(a, big, rank + 100);
    MPI_Isend(a, (int)big, MPI_BYTE, right, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b, (int)big, MPI_BYTE, left, 7, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    printf("exchange from %d: sum %u\n", left, sum(b, big));
  }

  /* self */
  {
    MPI_Request r;
    fill(a, big, rank + 200);
    MPI_Irecv(b, (int)big, MPI_BYTE, rank, 8, MPI_COMM_WORLD, &r);
    MPI_Send(a, (int)big, MPI_BYTE, rank, 8, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("self, posted first: sum %u\n", sum(b, big));
    MPI_Isend(a, (int)big, MPI_BYTE, rank, 9, MPI_COMM_WORLD, &r);
    MPI_Recv(b, (int)big, MPI_BYTE, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("self, posted after: sum %u\n", sum(b, big));
  }

  /* shorter */
  if (rank == 1 % size) {
    fill(a, big, 300);
    MPI_Send(a, (int)big, MPI_BYTE, 0, 10, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    MPI_Status st;
    int count = 0;
    memset(b, 0xee, (size_t)big * 2);
    MPI_Recv(b, (int)big * 2, MPI_BYTE, 1 % size, 10, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    printf("shorter: %d bytes, sum %u, the rest untouched %d\n", count, sum(b, count),
           b[big] == 0xee && b[2 * big - 1] == 0xee);
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
