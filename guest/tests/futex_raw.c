// The futex system call used directly, and the thread-identity calls around it.
// FUTEX_WAIT returns EAGAIN when the word has changed, ETIMEDOUT after a relative timeout (no
// earlier), and 0 when woken by FUTEX_WAKE, which returns how many it woke (at most the count
// asked for). FUTEX_WAIT_BITSET takes an absolute deadline on CLOCK_MONOTONIC, or on
// CLOCK_REALTIME with FUTEX_CLOCK_REALTIME; FUTEX_WAKE_BITSET wakes only waiters whose bitset
// intersects its own; a bitset of 0 is EINVAL, an unaligned word EINVAL. FUTEX_CMP_REQUEUE moves
// waiters to another word without waking them (EAGAIN if the word changed), FUTEX_REQUEUE does
// the same unconditionally, and the moved waiters are woken on their new word. FUTEX_WAKE_OP
// updates a second word and wakes on both. Every operation is used with and without
// FUTEX_PRIVATE_FLAG. Also: gettid, tkill and tgkill to a thread, kill(getpid()) with signal 0,
// and clone3, which is not provided (ENOSYS) so that glibc falls back to clone. A wait without
// a timeout interrupted by a handler restarts with SA_RESTART and fails with EINTR without.
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread_util.h"

static long futex(uint32_t* addr, int op, uint32_t val, const struct timespec* ts, uint32_t* addr2,
                  uint32_t val3) {
  return syscall(SYS_futex, addr, op, val, ts, addr2, val3);
}

// A call's result as text; up to four may be used in one printf.
static const char* result(long r) {
  static char bufs[4][32];
  static int next;
  if (r >= 0) {
    char* buf = bufs[next++ % 4];
    snprintf(buf, 32, "%ld", r);
    return buf;
  }
  switch (errno) {
    case EAGAIN: return "EAGAIN";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EINVAL: return "EINVAL";
    case ENOSYS: return "ENOSYS";
    case EINTR: return "EINTR";
    case ESRCH: return "ESRCH";
    default: return "other";
  }
}

static int private_flag;  // 0 or FUTEX_PRIVATE_FLAG for this round

struct Waiter {
  uint32_t* word;
  uint32_t expected;
  uint32_t bitset;  // 0: plain FUTEX_WAIT
  long result;
  int error;
};

static uint32_t announced;

static void* waiter(void* arg) {
  struct Waiter* w = arg;
  __atomic_add_fetch(&announced, 1, __ATOMIC_SEQ_CST);
  if (w->bitset == 0) {
    w->result = futex(w->word, FUTEX_WAIT | private_flag, w->expected, NULL, NULL, 0);
  } else {
    w->result =
        futex(w->word, FUTEX_WAIT_BITSET | private_flag, w->expected, NULL, NULL, w->bitset);
  }
  w->error = w->result < 0 ? errno : 0;
  return NULL;
}

// Moves every waiter on `from` to `probe` without waking any, until `n` have been moved, so
// the caller knows they are all inside the kernel; returns how many calls it took (>= 1).
static void gather(uint32_t* from, uint32_t* probe, int n) {
  int moved = 0;
  while (moved < n) {
    long r =
        futex(from, FUTEX_CMP_REQUEUE | private_flag, 0, (void*)(uintptr_t)INT_MAX, probe, *from);
    CHECK(r >= 0);
    moved += (int)r;
    if (moved < n) sleep_ms(1);
  }
  CHECK(moved == n);
}

static void round_of_tests(void) {
  uint32_t word = 1, other = 0, probe = 0;
  printf("-- %s\n", private_flag ? "FUTEX_PRIVATE_FLAG" : "shared");
  // Value mismatch.
  long r = futex(&word, FUTEX_WAIT | private_flag, 2, NULL, NULL, 0);
  printf("wait with a stale value: %s\n", result(r));
  // Relative timeout.
  struct timespec rel = {0, 3000000};
  int64_t start = now_ns(CLOCK_MONOTONIC);
  r = futex(&word, FUTEX_WAIT | private_flag, 1, &rel, NULL, 0);
  int64_t waited = now_ns(CLOCK_MONOTONIC) - start;
  printf("wait with a 3 ms timeout: %s, waited at least 3 ms: %d\n", result(r), waited >= 3000000);
  CHECK(r == -1 && errno == ETIMEDOUT && waited >= 3000000);
  // Absolute deadlines.
  struct timespec abs = deadline_ms(CLOCK_MONOTONIC, 2);
  r = futex(&word, FUTEX_WAIT_BITSET | private_flag, 1, &abs, NULL, FUTEX_BITSET_MATCH_ANY);
  int64_t late = now_ns(CLOCK_MONOTONIC) - ((int64_t)abs.tv_sec * 1000000000 + abs.tv_nsec);
  printf("wait_bitset, monotonic deadline: %s, not early: %d\n", result(r), late >= 0);
  CHECK(r == -1 && errno == ETIMEDOUT && late >= 0);
  abs = deadline_ms(CLOCK_REALTIME, 2);
  r = futex(&word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME | private_flag, 1, &abs, NULL,
            FUTEX_BITSET_MATCH_ANY);
  late = now_ns(CLOCK_REALTIME) - ((int64_t)abs.tv_sec * 1000000000 + abs.tv_nsec);
  printf("wait_bitset, realtime deadline: %s, not early: %d\n", result(r), late >= 0);
  CHECK(r == -1 && errno == ETIMEDOUT && late >= 0);
  abs = deadline_ms(CLOCK_MONOTONIC, -5);  // already past
  r = futex(&word, FUTEX_WAIT_BITSET | private_flag, 1, &abs, NULL, FUTEX_BITSET_MATCH_ANY);
  printf("wait_bitset, deadline already past: %s\n", result(r));
  // Invalid arguments.
  r = futex(&word, FUTEX_WAIT_BITSET | private_flag, 1, NULL, NULL, 0);
  printf("wait_bitset with bitset 0: %s\n", result(r));
  r = futex((uint32_t*)((char*)&word + 1), FUTEX_WAKE | private_flag, 1, NULL, NULL, 0);
  printf("wake on an unaligned word: %s\n", result(r));
  r = futex(&word, FUTEX_WAKE | private_flag, 5, NULL, NULL, 0);
  printf("wake with nobody waiting: %s\n", result(r));

  // WAKE wakes at most `val` waiters.
  struct Waiter w[3];
  pthread_t t[3];
  word = 0;
  for (int i = 0; i < 3; ++i) {
    w[i] = (struct Waiter){&word, 0, 0, -2, 0};
    t[i] = start_thread(waiter, &w[i]);
  }
  gather(&word, &probe, 3);  // all three now wait on `probe`
  r = futex(&probe, FUTEX_WAKE | private_flag, 2, NULL, NULL, 0);
  printf("3 waiters, wake 2: %s\n", result(r));
  long r2 = futex(&probe, FUTEX_WAKE | private_flag, INT_MAX, NULL, NULL, 0);
  for (int i = 0; i < 3; ++i) join_thread(t[i]);
  printf("then wake all: %s; waiters' results: %ld %ld %ld\n", result(r2), w[0].result, w[1].result,
         w[2].result);
  CHECK(r == 2 && r2 == 1);

  // Bitsets: two waiters with bitsets 1 and 2; waking bitset 2 wakes only the second.
  word = 0;
  w[0] = (struct Waiter){&word, 0, 1, -2, 0};
  w[1] = (struct Waiter){&word, 0, 2, -2, 0};
  t[0] = start_thread(waiter, &w[0]);
  t[1] = start_thread(waiter, &w[1]);
  gather(&word, &probe, 2);
  r = futex(&probe, FUTEX_WAKE_BITSET | private_flag, INT_MAX, NULL, NULL, 2);
  join_thread(t[1]);
  r2 = futex(&probe, FUTEX_WAKE_BITSET | private_flag, INT_MAX, NULL, NULL, 4);
  long r3 = futex(&probe, FUTEX_WAKE_BITSET | private_flag, INT_MAX, NULL, NULL, 1);
  join_thread(t[0]);
  printf("wake_bitset 2: %s, then bitset 4: %s, then bitset 1: %s\n", result(r), result(r2),
         result(r3));
  CHECK(r == 1 && r2 == 0 && r3 == 1 && w[0].result == 0 && w[1].result == 0);

  // CMP_REQUEUE and REQUEUE.
  word = 0;
  other = 0;
  for (int i = 0; i < 3; ++i) {
    w[i] = (struct Waiter){&word, 0, 0, -2, 0};
    t[i] = start_thread(waiter, &w[i]);
  }
  gather(&word, &probe, 3);
  r = futex(&probe, FUTEX_CMP_REQUEUE | private_flag, 1, (void*)(uintptr_t)1, &other, 99);
  printf("cmp_requeue with a changed word: %s\n", result(r));
  r = futex(&probe, FUTEX_CMP_REQUEUE | private_flag, 1, (void*)(uintptr_t)1, &other, probe);
  printf("cmp_requeue wake 1, move 1: %s (woken + moved)\n", result(r));
  r2 = futex(&probe, FUTEX_REQUEUE | private_flag, 0, (void*)(uintptr_t)INT_MAX, &other, 0);
  printf("requeue wake 0, move the rest: %s (woken + moved)\n", result(r2));
  r3 = futex(&probe, FUTEX_WAKE | private_flag, INT_MAX, NULL, NULL, 0);
  long r4 = futex(&other, FUTEX_WAKE | private_flag, INT_MAX, NULL, NULL, 0);
  for (int i = 0; i < 3; ++i) join_thread(t[i]);
  printf("left on the old word: %s, woken on the new word: %s\n", result(r3), result(r4));
  CHECK(r == 2 && r2 == 1 && r3 == 0 && r4 == 2);

  // WAKE_OP: other += 5 (old value 0 compared == 0: wake on both).
  word = 0;
  other = 0;
  w[0] = (struct Waiter){&word, 0, 0, -2, 0};
  w[1] = (struct Waiter){&other, 0, 0, -2, 0};
  t[0] = start_thread(waiter, &w[0]);
  t[1] = start_thread(waiter, &w[1]);
  uint32_t probe2 = 0;
  gather(&word, &probe, 1);
  gather(&other, &probe2, 1);
  // Requeue them back onto word and other (a 0-wake requeue returns the 1 it moved).
  CHECK(futex(&probe, FUTEX_REQUEUE | private_flag, 0, (void*)(uintptr_t)1, &word, 0) == 1);
  CHECK(futex(&probe2, FUTEX_REQUEUE | private_flag, 0, (void*)(uintptr_t)1, &other, 0) == 1);
  r = futex(&word, FUTEX_WAKE_OP | private_flag, 1, (void*)(uintptr_t)1, &other,
            FUTEX_OP(FUTEX_OP_ADD, 5, FUTEX_OP_CMP_EQ, 0));
  join_thread(t[0]);
  join_thread(t[1]);
  printf("wake_op (add 5, wake both if it was 0): %s, other is now %u\n", result(r), other);
  CHECK(r == 2 && other == 5);
}

static volatile sig_atomic_t usr1_tid;

static void on_usr1(int sig) {
  (void)sig;
  usr1_tid = gettid();
}

static pid_t target_tid;

static void* target(void* arg) {
  uint32_t* gate = arg;
  __atomic_store_n(&target_tid, gettid(), __ATOMIC_RELEASE);
  while (__atomic_load_n(gate, __ATOMIC_ACQUIRE) == 0) {
    futex(gate, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  }
  return (void*)(intptr_t)gettid();
}

static volatile sig_atomic_t usr2_runs;

static void on_usr2(int sig) {
  (void)sig;
  ++usr2_runs;
}

// A FUTEX_WAIT without a timeout interrupted by a signal handler: with SA_RESTART the wait
// resumes (the waiter is found waiting again and is then woken normally, result 0); without it,
// the wait fails with EINTR.
static void interrupted_wait(int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr2;
  sa.sa_flags = flags;
  CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
  usr2_runs = 0;
  uint32_t word = 0, probe = 0;
  struct Waiter w = {&word, 0, 0, -2, 0};
  pthread_t t = start_thread(waiter, &w);
  gather(&word, &probe, 1);
  CHECK(futex(&probe, FUTEX_REQUEUE, 0, (void*)(uintptr_t)1, &word, 0) == 1);  // back on word
  CHECK(pthread_kill(t, SIGUSR2) == 0);
  while (usr2_runs == 0) sched_yield();
  long result;
  if (flags & SA_RESTART) {
    // Waiting again on its word: moved (not woken) by a requeue, then woken.
    int found = 0;
    for (int attempt = 0; attempt < 2000 && !found; ++attempt) {
      found = futex(&word, FUTEX_CMP_REQUEUE, 0, (void*)(uintptr_t)1, &probe, 0) == 1;
      if (!found) sleep_ms(1);
    }
    printf("futex wait interrupted, SA_RESTART: waiting again %d, ", found);
    CHECK(futex(&probe, FUTEX_WAKE, 1, NULL, NULL, 0) == found);
    join_thread(t);
    result = w.result;
  } else {
    join_thread(t);
    result = w.result;
    printf("futex wait interrupted, no SA_RESTART: ");
  }
  printf("result %s\n", result == 0 ? "0" : (w.error == EINTR ? "EINTR" : "other"));
  CHECK((flags & SA_RESTART) ? result == 0 : (result == -1 && w.error == EINTR));
}

int main(void) {
  round_of_tests();
  private_flag = FUTEX_PRIVATE_FLAG;
  round_of_tests();
  private_flag = 0;
  interrupted_wait(SA_RESTART);
  interrupted_wait(0);

  // tkill / tgkill at another thread: its handler runs on that thread.
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  uint32_t gate = 0;
  pthread_t t = start_thread(target, &gate);
  pid_t tid = 0;
  while ((tid = __atomic_load_n(&target_tid, __ATOMIC_ACQUIRE)) == 0) sched_yield();
  CHECK(tid != getpid());
  long r = syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
  while (usr1_tid == 0) sched_yield();
  int tgkill_ok = usr1_tid == tid;
  usr1_tid = 0;
  r |= syscall(SYS_tkill, tid, SIGUSR1);
  while (usr1_tid == 0) sched_yield();
  int tkill_ok = usr1_tid == tid;
  __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
  futex(&gate, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  pid_t joined = (pid_t)(intptr_t)join_thread(t);
  printf("tgkill ran the handler on the target thread: %d, tkill: %d, gettid agrees: %d\n",
         tgkill_ok, tkill_ok, joined == tid);
  CHECK(r == 0 && tgkill_ok && tkill_ok && joined == tid);
  // (A thread just joined may linger in Linux's exit path, so probe an id never used.)
  r = syscall(SYS_tgkill, getpid(), 999999, 0);
  printf("tgkill to a thread id not in the process: %s\n", result(r));
  CHECK(r == -1 && errno == ESRCH);
  r = syscall(SYS_tgkill, getpid(), gettid(), 0);
  printf("tgkill with signal 0 to ourselves: %s, kill(getpid(), 0): %s\n", result(r),
         result(kill(getpid(), 0)));
  r = syscall(SYS_clone3, NULL, 0);
  printf("clone3: %s\n", result(r));
  CHECK(r == -1 && errno == ENOSYS);
  return 0;
}
