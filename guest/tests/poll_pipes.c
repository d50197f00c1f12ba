// poll and ppoll on pipes between threads (and pause, which glibc builds on ppoll).
// - poll with a zero timeout reports what is ready now: an empty pipe is writable, not
//   readable; with a timeout and nothing ready it returns 0 no earlier than the timeout.
// - A thread blocked in poll on two pipes wakes when another thread writes one of them, with
//   POLLIN on that one only.
// - POLLHUP once the last writer is closed; POLLNVAL for a descriptor that is not open; negative
//   descriptors are skipped.
// - ppoll with a signal mask, blocked on a pipe, is interrupted by a signal another thread
//   sends (EINTR, the handler ran) and the mask comes back; pause() returns after a handler.
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "thread_util.h"

static int a[2], b[2];
static volatile int poller_ready;

static void* poll_two(void* arg) {
  (void)arg;
  struct pollfd fds[2] = {{a[0], POLLIN, 0}, {b[0], POLLIN, 0}};
  poller_ready = 1;
  int r = poll(fds, 2, 10000);
  static char result[96];
  snprintf(result, sizeof result, "%d, first %s, second %s", r,
           fds[0].revents & POLLIN ? "POLLIN" : "-", fds[1].revents & POLLIN ? "POLLIN" : "-");
  return result;
}

static volatile sig_atomic_t usr1_runs;

static void on_usr1(int sig) {
  (void)sig;
  ++usr1_runs;
}

static void* ppoll_masked(void* arg) {
  (void)arg;
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &blocked, NULL) == 0);
  sigset_t during;
  CHECK(pthread_sigmask(SIG_SETMASK, NULL, &during) == 0);
  sigdelset(&during, SIGUSR1);
  struct pollfd fd = {a[0], POLLIN, 0};
  poller_ready = 1;
  int r = ppoll(&fd, 1, NULL, &during);
  int error = errno;
  sigset_t after;
  CHECK(pthread_sigmask(SIG_SETMASK, NULL, &after) == 0);
  static char result[96];
  snprintf(result, sizeof result, "%d %s, handler ran %d, mask restored %d", r,
           r == -1 && error == EINTR ? "EINTR" : "other", (int)usr1_runs,
           sigismember(&after, SIGUSR1));
  return result;
}

static void* pauser(void* arg) {
  (void)arg;
  poller_ready = 1;
  int r = pause();
  return (void*)(intptr_t)(r == -1 && errno == EINTR);
}

static void wait_blocked(void) {
  while (!poller_ready) sched_yield();
  sleep_ms(20);  // the other thread is inside the call by now
  poller_ready = 0;
}

int main(void) {
  CHECK(pipe(a) == 0 && pipe(b) == 0);
  struct pollfd fds[2] = {{a[0], POLLIN, 0}, {a[1], POLLOUT, 0}};
  int r = poll(fds, 2, 0);
  printf("poll now: %d; read end POLLIN %d, write end POLLOUT %d\n", r,
         (fds[0].revents & POLLIN) != 0, (fds[1].revents & POLLOUT) != 0);
  CHECK(r == 1 && !(fds[0].revents & POLLIN) && (fds[1].revents & POLLOUT));

  int64_t start = now_ns(CLOCK_MONOTONIC);
  r = poll(fds, 1, 7);
  int64_t waited = now_ns(CLOCK_MONOTONIC) - start;
  printf("poll with a 7 ms timeout and nothing ready: %d, waited at least 7 ms: %d\n", r,
         waited >= 7000000);
  CHECK(r == 0 && waited >= 7000000);

  pthread_t t = start_thread(poll_two, NULL);
  wait_blocked();
  CHECK(write(b[1], "x", 1) == 1);
  printf("poll on two pipes, the second written by another thread: %s\n",
         (const char*)join_thread(t));
  char c;
  CHECK(read(b[0], &c, 1) == 1);

  struct pollfd odd[3] = {{-1, POLLIN, 0}, {b[0], POLLIN, 0}, {1000, POLLIN, 0}};
  CHECK(close(b[1]) == 0);
  r = poll(odd, 3, 0);
  printf(
      "negative fd skipped %d, POLLHUP after the writer closed %d, POLLNVAL for fd 1000 %d "
      "(%d ready)\n",
      odd[0].revents == 0, (odd[1].revents & POLLHUP) != 0, (odd[2].revents & POLLNVAL) != 0, r);
  CHECK(r == 2 && odd[0].revents == 0 && (odd[1].revents & POLLHUP) && (odd[2].revents & POLLNVAL));

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  t = start_thread(ppoll_masked, NULL);
  wait_blocked();
  CHECK(pthread_kill(t, SIGUSR1) == 0);
  printf("ppoll with a mask, interrupted by a signal from another thread: %s\n",
         (const char*)join_thread(t));
  CHECK(usr1_runs == 1);

  t = start_thread(pauser, NULL);
  wait_blocked();
  CHECK(pthread_kill(t, SIGUSR1) == 0);
  printf("pause() interrupted by a handler: %d\n", (int)(intptr_t)join_thread(t));
  CHECK(usr1_runs == 2);
  return 0;
}
