/* Wakes and signals between two threads, for the kernel's interrupts (docs/kernel.md
 * "Interrupts", tests/node/interrupts_test.cpp): a worker thread is created, main and the worker
 * pass a turn back and forth ROUNDS times through a mutex and a condition variable, main sends
 * the worker SIGNALS queued real-time signals (tgkill) that the worker takes with sigwait, each
 * thread raises one signal for itself, and main joins the worker. On two hardware threads every
 * futex wake, the thread's creation and every tgkill is an inter-processor interrupt; a signal a
 * thread raises for itself is none.
 *
 *   interrupts ROUNDS SIGNALS */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int turn;  // 0: main's, 1: the worker's
static long rounds, signals;
static volatile pid_t worker_tid;
static volatile sig_atomic_t raised;

static void on_raise(int signo) {
  (void)signo;
  raised += 1;
}

static void* worker(void* arg) {
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGRTMIN);  // (blocked by main before the thread was created: inherited)
  pthread_mutex_lock(&lock);
  worker_tid = (pid_t)syscall(SYS_gettid);
  for (long r = 0; r < rounds; ++r) {
    while (turn != 1) pthread_cond_wait(&changed, &lock);
    turn = 0;
    pthread_cond_signal(&changed);
  }
  pthread_mutex_unlock(&lock);
  for (long s = 0; s < signals; ++s) {
    int taken = 0;
    if (sigwait(&set, &taken) != 0 || taken != SIGRTMIN) return (void*)1;
  }
  raise(SIGUSR1);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: interrupts ROUNDS SIGNALS\n");
    return 2;
  }
  rounds = atol(argv[1]);
  signals = atol(argv[2]);
  if (rounds < 1 || signals < 0) return 2;
  signal(SIGUSR1, on_raise);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGRTMIN);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
  pthread_mutex_lock(&lock);
  for (long r = 0; r < rounds; ++r) {
    turn = 1;
    pthread_cond_signal(&changed);
    while (turn != 0) pthread_cond_wait(&changed, &lock);
  }
  pthread_mutex_unlock(&lock);  // (the worker's tid was set before its first turn)
  for (long s = 0; s < signals; ++s) syscall(SYS_tgkill, getpid(), worker_tid, SIGRTMIN);
  raise(SIGUSR1);
  void* result = 0;
  if (pthread_join(t, &result) != 0 || result != 0 || raised != 2) return 1;
  printf("%ld rounds, %ld signals\n", rounds, signals);
  return 0;
}
