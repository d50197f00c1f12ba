// Signals between threads.
// - tgkill (pthread_kill) runs the handler on the target thread, also when the target is busy
//   in a loop with no system call (asynchronous delivery to a running thread).
// - A process-directed signal (kill) goes to a thread that does not block it, when the sender
//   and the others block it.
// - A signal sent to a thread that blocks it stays pending for that thread only (sigpending in
//   another thread does not show it) and is delivered to it when it unblocks; a
//   process-directed signal that every thread blocks stays pending for the process (every
//   thread's sigpending shows it) and goes to the first thread that unblocks it.
// - New threads inherit the creator's signal mask.
// - sigwait in a dedicated thread receives process-directed signals the others block.
// - A read on an empty pipe interrupted by a signal from another thread restarts with
//   SA_RESTART (and returns the data written after the handler ran) and fails with EINTR
//   without it.
// - A fault (SIGSEGV) in a second thread runs the handler on that thread, which recovers with
//   siglongjmp while the main thread goes on.
// - Alternate signal stacks are per thread: a new thread has none (its SA_ONSTACK handler runs
//   on its own stack) until it sets its own.
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "thread_util.h"

static volatile pid_t handler_tid;
static volatile sig_atomic_t handler_runs;

static void record_tid(int sig) {
  (void)sig;
  handler_tid = gettid();
  ++handler_runs;
}

static void set_handler(int sig, int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = record_tid;
  sa.sa_flags = flags;
  CHECK(sigaction(sig, &sa, NULL) == 0);
}

static void block(int sig, int how) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  CHECK(pthread_sigmask(how, &s, NULL) == 0);
}

static void wait_for_runs(int n) {
  while (handler_runs < n) sched_yield();
}

static volatile pid_t spinner_tid;

static void* spinner(void* arg) {
  (void)arg;
  spinner_tid = gettid();
  while (handler_runs == 0) {
  }  // no system call: the signal must interrupt the loop
  return NULL;
}

// A worker that reports its tid and then waits (blocked in a futex) until told to finish.
struct Worker {
  pthread_t thread;
  pid_t tid;
  int unblock_then_finish;  // 1: unblock SIGUSR1 once released
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int released;
  int pending_usr1_before;  // what sigpending showed this thread before release
};

static void* worker_main(void* arg) {
  struct Worker* w = arg;
  CHECK(pthread_mutex_lock(&w->lock) == 0);
  w->tid = gettid();
  CHECK(pthread_cond_broadcast(&w->cond) == 0);
  while (!w->released) CHECK(pthread_cond_wait(&w->cond, &w->lock) == 0);
  CHECK(pthread_mutex_unlock(&w->lock) == 0);
  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  w->pending_usr1_before = sigismember(&pending, SIGUSR1);
  if (w->unblock_then_finish) block(SIGUSR1, SIG_UNBLOCK);
  return NULL;
}

static void start_worker(struct Worker* w, int unblock) {
  memset(w, 0, sizeof *w);
  w->unblock_then_finish = unblock;
  CHECK(pthread_mutex_init(&w->lock, NULL) == 0);
  CHECK(pthread_cond_init(&w->cond, NULL) == 0);
  w->thread = start_thread(worker_main, w);
  CHECK(pthread_mutex_lock(&w->lock) == 0);
  while (w->tid == 0) CHECK(pthread_cond_wait(&w->cond, &w->lock) == 0);
  CHECK(pthread_mutex_unlock(&w->lock) == 0);
}

static void release_worker(struct Worker* w) {
  CHECK(pthread_mutex_lock(&w->lock) == 0);
  w->released = 1;
  CHECK(pthread_cond_broadcast(&w->cond) == 0);
  CHECK(pthread_mutex_unlock(&w->lock) == 0);
  join_thread(w->thread);
}

static int mask_has(int sig) {
  sigset_t now;
  CHECK(pthread_sigmask(SIG_SETMASK, NULL, &now) == 0);
  return sigismember(&now, sig);
}

static void* report_mask(void* arg) {
  (void)arg;
  return (void*)(intptr_t)(mask_has(SIGUSR2) * 2 + mask_has(SIGUSR1));
}

static void* signal_waiter(void* arg) {
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  int received = 0;
  for (int i = 0; i < 3; ++i) {
    int sig = 0;
    CHECK(sigwait(&set, &sig) == 0);
    received += sig == SIGUSR1;
    __atomic_add_fetch(&handler_runs, 1, __ATOMIC_SEQ_CST);
  }
  return (void*)(intptr_t)received;
}

static int pipe_fds[2];
static volatile int reader_ready;

static void* pipe_reader(void* arg) {
  (void)arg;
  char buf[16] = {0};
  reader_ready = 1;
  ssize_t n = read(pipe_fds[0], buf, sizeof buf - 1);
  int error = n < 0 ? errno : 0;
  static char result[64];
  snprintf(result, sizeof result, "%zd %s \"%s\"", n,
           error == EINTR ? "EINTR"
           : error        ? "other"
                          : "ok",
           buf);
  return result;
}

static const char* interrupted_read(int flags) {
  set_handler(SIGUSR2, flags);
  handler_runs = 0;
  reader_ready = 0;
  CHECK(pipe(pipe_fds) == 0);
  pthread_t t = start_thread(pipe_reader, NULL);
  while (!reader_ready) sched_yield();
  sleep_ms(50);  // the reader is blocked in read() by now
  CHECK(pthread_kill(t, SIGUSR2) == 0);
  wait_for_runs(1);
  CHECK(write(pipe_fds[1], "data", 4) == 4);
  const char* result = join_thread(t);
  CHECK(close(pipe_fds[0]) == 0 && close(pipe_fds[1]) == 0);
  return result;
}

static __thread sigjmp_buf recover;
static volatile pid_t segv_tid;
static volatile uintptr_t segv_addr;

static void on_segv(int sig, siginfo_t* info, void* uc) {
  (void)sig;
  (void)uc;
  segv_tid = gettid();
  segv_addr = (uintptr_t)info->si_addr;
  siglongjmp(recover, 1);
}

static void* faulting_thread(void* arg) {
  volatile int* bad = arg;
  if (sigsetjmp(recover, 1) == 0) {
    *bad = 1;
    return (void*)0;
  }
  return (void*)(intptr_t)gettid();
}

static char* alt_base;
enum { kAltSize = 64 * 1024 };
static volatile int handler_on_alt;

static void where_am_i(int sig) {
  (void)sig;
  char probe;
  handler_on_alt = &probe >= alt_base && &probe < alt_base + kAltSize;
}

static void* altstack_thread(void* arg) {
  (void)arg;
  stack_t ss;
  CHECK(sigaltstack(NULL, &ss) == 0);
  int inherited_none = (ss.ss_flags & SS_DISABLE) != 0;
  handler_on_alt = -1;
  CHECK(raise(SIGURG) == 0);
  int without = handler_on_alt;
  // Its own alternate stack (a second region of the same buffer).
  ss = (stack_t){.ss_sp = alt_base, .ss_size = kAltSize, .ss_flags = 0};
  CHECK(sigaltstack(&ss, NULL) == 0);
  handler_on_alt = -1;
  CHECK(raise(SIGURG) == 0);
  return (void*)(intptr_t)(inherited_none * 100 + without * 10 + handler_on_alt);
}

int main(void) {
  set_handler(SIGUSR1, 0);
  // tgkill to a busy thread.
  pthread_t t = start_thread(spinner, NULL);
  while (spinner_tid == 0) sched_yield();
  CHECK(pthread_kill(t, SIGUSR1) == 0);
  join_thread(t);  // the loop ends only once the handler has run
  printf("pthread_kill to a busy thread: handler ran on it %d\n", handler_tid == spinner_tid);
  CHECK(handler_tid == spinner_tid && handler_runs == 1);

  // kill() reaches the one thread that does not block the signal.
  block(SIGUSR1, SIG_BLOCK);
  struct Worker blocking, open;
  start_worker(&blocking, 0);  // inherits the blocked mask
  block(SIGUSR1, SIG_UNBLOCK);
  start_worker(&open, 0);  // does not block it
  block(SIGUSR1, SIG_BLOCK);
  handler_runs = 0;
  CHECK(kill(getpid(), SIGUSR1) == 0);
  wait_for_runs(1);
  printf("kill(): delivered to the thread that does not block it: %d\n", handler_tid == open.tid);
  CHECK(handler_tid == open.tid);
  release_worker(&open);

  // A thread-directed signal to a thread that blocks it stays with that thread.
  handler_runs = 0;
  CHECK(pthread_kill(blocking.thread, SIGUSR1) == 0);
  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  int main_sees = sigismember(&pending, SIGUSR1);
  blocking.unblock_then_finish = 1;
  release_worker(&blocking);
  printf(
      "pthread_kill to a thread blocking it: pending for it %d, for main %d, delivered to it on "
      "unblock %d\n",
      blocking.pending_usr1_before, main_sees, handler_runs == 1 && handler_tid == blocking.tid);
  CHECK(blocking.pending_usr1_before && !main_sees && handler_runs == 1 &&
        handler_tid == blocking.tid);

  // A process-directed signal that everyone blocks stays pending for the process.
  struct Worker late;
  start_worker(&late, 1);  // blocks SIGUSR1 (inherited) until released
  handler_runs = 0;
  CHECK(kill(getpid(), SIGUSR1) == 0);
  CHECK(sigpending(&pending) == 0);
  main_sees = sigismember(&pending, SIGUSR1);
  release_worker(&late);
  printf(
      "kill() while every thread blocks it: pending for main %d and the worker %d; taken by the "
      "worker that unblocked %d\n",
      main_sees, late.pending_usr1_before, handler_runs == 1 && handler_tid == late.tid);
  CHECK(main_sees && late.pending_usr1_before && handler_runs == 1 && handler_tid == late.tid);

  // Mask inheritance.
  block(SIGUSR2, SIG_BLOCK);
  int inherited = (int)(intptr_t)join_thread(start_thread(report_mask, NULL));
  block(SIGUSR2, SIG_UNBLOCK);
  printf("new thread inherits the mask: USR1 %d USR2 %d\n", inherited & 1, inherited >> 1);
  CHECK(inherited == 3);

  // sigwait in a dedicated thread (SIGUSR1 blocked everywhere).
  handler_runs = 0;
  t = start_thread(signal_waiter, NULL);
  for (int i = 1; i <= 3; ++i) {
    CHECK(kill(getpid(), SIGUSR1) == 0);
    while (__atomic_load_n(&handler_runs, __ATOMIC_SEQ_CST) < i) sched_yield();
  }
  printf("sigwait thread received %d of 3\n", (int)(intptr_t)join_thread(t));
  block(SIGUSR1, SIG_UNBLOCK);

  // A pipe read interrupted by a signal from another thread.
  printf("read interrupted, SA_RESTART: %s\n", interrupted_read(SA_RESTART));
  printf("read interrupted, no SA_RESTART: %s\n", interrupted_read(0));

  // A fault in a second thread.
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
  int* page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  pid_t recovered = (pid_t)(intptr_t)join_thread(start_thread(faulting_thread, page + 5));
  printf("SIGSEGV in a second thread: handled on it %d, si_addr right %d, main unaffected\n",
         recovered != 0 && recovered == segv_tid && recovered != gettid(),
         segv_addr == (uintptr_t)(page + 5));
  CHECK(recovered != 0 && recovered == segv_tid && segv_addr == (uintptr_t)(page + 5));

  // Alternate stacks per thread: main has one, a new thread starts without.
  alt_base = malloc(2 * kAltSize);
  CHECK(alt_base != NULL);
  stack_t ss = {.ss_sp = alt_base + kAltSize, .ss_size = kAltSize, .ss_flags = 0};
  CHECK(sigaltstack(&ss, NULL) == 0);
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = where_am_i;
  sa.sa_flags = SA_ONSTACK;
  CHECK(sigaction(SIGURG, &sa, NULL) == 0);
  int r = (int)(intptr_t)join_thread(start_thread(altstack_thread, NULL));
  printf(
      "sigaltstack per thread: new thread starts without one %d, SA_ONSTACK handler on the "
      "thread's stack %d, on its own alternate stack once set %d\n",
      r / 100, (r / 10) % 10 == 0, r % 10 == 1);
  CHECK(r == 101);
  return 0;
}
