/* The network's counters read by a guest through BGPM (seed 001's NWUnit and the IOUnit's
 * message events): on a ring of nodes (network.shape=Nx1x1x1x1), each rank counts while it
 * sends one 1000-byte message to the next rank and receives one from the previous, with
 * nothing else on the network meanwhile (it waits 20 us of simulated time before it starts and
 * before it stops, so that the barrier's packets are off its links). Each rank prints:
 *   its link counters: chunks sent on A+ and A-, packets received on A- and A+, packets for it
 *   (PEVT_NW_USER_PP_SENT, _RECV, _RECV_FIFO on links attached with Bgpm_Attach, and per link
 *   through Bgpm_NW_ReadLinkEvent), and its message unit's (PEVT_MU_PKT_INJ, _MSG_INJ,
 *   _FIFO_PKT_RCV).
 * A 1000-byte message is 2 packets: 32 + 512 and 32 + 488 (padded to 512) bytes, 34 chunks. */
#include <bgpm.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void pause_20us(void) {
  const struct timespec t = {0, 20000};
  nanosleep(&t, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Bgpm_Init(BGPM_MODE_SWDISTRIB);
  const unsigned nw = (unsigned)Bgpm_CreateEventSet();
  unsigned nw_events[] = {PEVT_NW_USER_PP_SENT, PEVT_NW_USER_PP_RECV, PEVT_NW_USER_PP_RECV_FIFO,
                          PEVT_NW_USER_DYN_PP_SENT};
  int r = Bgpm_AddEventList(nw, nw_events, 4);
  const int attach = Bgpm_Attach(nw, UPC_NW_ALL_TORUS_LINKS, 0);
  if (r == 0) r = Bgpm_Apply(nw);
  const unsigned io = (unsigned)Bgpm_CreateEventSet();
  unsigned io_events[] = {PEVT_MU_PKT_INJ, PEVT_MU_MSG_INJ, PEVT_MU_FIFO_PKT_RCV};
  if (r == 0) r = Bgpm_AddEventList(io, io_events, 3);
  if (r == 0) r = Bgpm_Apply(io);
  if (r != 0 || attach != 0) {
    printf("rank %d: bgpm setup failed: %d (attach %d)\n", rank, r, attach);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  static char out[1000], in[1000];
  memset(out, rank, sizeof out);
  MPI_Barrier(MPI_COMM_WORLD);
  pause_20us();
  Bgpm_Start(nw);
  Bgpm_Start(io);
  MPI_Sendrecv(out, sizeof out, MPI_BYTE, (rank + 1) % size, 0, in, sizeof in, MPI_BYTE,
               (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  pause_20us();
  Bgpm_Stop(nw);
  Bgpm_Stop(io);
  uint64_t v[4] = {0}, m[3] = {0}, a_minus = 0, a_plus = 0, recv_minus = 0, recv_plus = 0;
  for (unsigned i = 0; i < 4; ++i) Bgpm_ReadEvent(nw, i, &v[i]);
  for (unsigned i = 0; i < 3; ++i) Bgpm_ReadEvent(io, i, &m[i]);
  Bgpm_NW_ReadLinkEvent(nw, 0, UPC_NW_LINK_A_MINUS, &a_minus);
  Bgpm_NW_ReadLinkEvent(nw, 0, UPC_NW_LINK_A_PLUS, &a_plus);
  Bgpm_NW_ReadLinkEvent(nw, 1, UPC_NW_LINK_A_MINUS, &recv_minus);
  Bgpm_NW_ReadLinkEvent(nw, 1, UPC_NW_LINK_A_PLUS, &recv_plus);
  printf(
      "rank %d: chunks sent %llu (A+ %llu, A- %llu), packets received %llu (A- %llu, A+ %llu), "
      "for it %llu, dynamic %llu; mu packets %llu, messages %llu, received %llu; got %d\n",
      rank, (unsigned long long)v[0], (unsigned long long)a_plus, (unsigned long long)a_minus,
      (unsigned long long)v[1], (unsigned long long)recv_minus, (unsigned long long)recv_plus,
      (unsigned long long)v[2], (unsigned long long)v[3], (unsigned long long)m[0],
      (unsigned long long)m[1], (unsigned long long)m[2], in[0]);
  MPI_Finalize();
  return 0;
}
