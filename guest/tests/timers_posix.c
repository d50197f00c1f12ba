// POSIX timers on simulated time.
// - SIGEV_SIGNAL on CLOCK_MONOTONIC: a periodic timer (first at 3 ms, then every 2 ms) whose
//   signals, taken with sigwaitinfo, carry SI_TIMER, the timer's id and sigev_value, at the
//   right times; timer_gettime shows the interval and the time left; timer_settime returns the
//   old setting; overruns: while the signal is blocked the timer expires 6 times but one
//   signal is queued, with si_overrun 5, which timer_getoverrun then reports.
// - An absolute (TIMER_ABSTIME) one-shot on CLOCK_REALTIME fires at its deadline.
// - SIGEV_NONE sends nothing; timer_gettime shows it counting down and then disarmed.
// - SIGEV_THREAD_ID: the signal goes to the chosen thread (its handler runs there).
// - SIGEV_THREAD (glibc): each expiry runs the function in a thread other than the creator's,
//   with the sigev_value.
// - CPU-time timers: CLOCK_PROCESS_CPUTIME_ID counts the process's CPU time (not sleeping);
//   CLOCK_THREAD_CPUTIME_ID counts only the creating thread's (not another thread's work).
// - timer_delete: the id is then invalid (EINVAL).
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "thread_util.h"

static const int64_t kMs = 1000000;

static timer_t make_timer(clockid_t clock, int notify, int signo, int value, pid_t tid) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = notify;
  ev.sigev_signo = signo;
  ev.sigev_value.sival_int = value;
  if (notify == SIGEV_THREAD_ID) ev._sigev_un._tid = tid;
  timer_t id;
  CHECK(timer_create(clock, &ev, &id) == 0);
  return id;
}

static void arm(timer_t id, int flags, int64_t first_ns, int64_t interval_ns) {
  struct itimerspec its = {ts_from_ns(interval_ns), ts_from_ns(first_ns)};
  CHECK(timer_settime(id, flags, &its, NULL) == 0);
}

static volatile pid_t handled_on;
static volatile sig_atomic_t handled;

static void on_signal(int sig) {
  (void)sig;
  handled_on = gettid();
  ++handled;
}

static volatile int target_ready;
static volatile pid_t target_tid;

static void* target_thread(void* arg) {
  (void)arg;
  target_tid = gettid();
  sigset_t none;
  sigemptyset(&none);
  while (handled == 0) sigsuspend(&none);
  return NULL;
}

static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thread_cond = PTHREAD_COND_INITIALIZER;
static int thread_calls, thread_value_ok, thread_elsewhere;
static pid_t creator_tid;

static void timer_function(union sigval v) {
  CHECK(pthread_mutex_lock(&thread_lock) == 0);
  ++thread_calls;
  thread_value_ok += v.sival_int == 4242;
  thread_elsewhere += gettid() != creator_tid;
  CHECK(pthread_cond_broadcast(&thread_cond) == 0);
  CHECK(pthread_mutex_unlock(&thread_lock) == 0);
}

static volatile unsigned long sink;

static void* cpu_burner(void* arg) {
  int64_t ns = *(int64_t*)arg;
  while (now_ns(CLOCK_THREAD_CPUTIME_ID) < ns) {
    for (int i = 0; i < 1000; ++i) ++sink;
  }
  return NULL;
}

int main(void) {
  creator_tid = gettid();
  sigset_t rt1;
  sigemptyset(&rt1);
  sigaddset(&rt1, SIGRTMIN + 1);
  CHECK(sigprocmask(SIG_BLOCK, &rt1, NULL) == 0);

  // A periodic SIGEV_SIGNAL timer.
  timer_t periodic = make_timer(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 1, 1234, 0);
  int64_t armed = now_ns(CLOCK_MONOTONIC);
  arm(periodic, 0, 3 * kMs, 2 * kMs);
  struct itimerspec cur;
  CHECK(timer_gettime(periodic, &cur) == 0);
  int64_t left = cur.it_value.tv_sec * 1000000000L + cur.it_value.tv_nsec;
  printf("periodic timer: interval %ld ns, time left within 3 ms: %d\n", cur.it_interval.tv_nsec,
         left > 0 && left <= 3 * kMs);
  CHECK(cur.it_interval.tv_nsec == 2 * kMs && left > 0 && left <= 3 * kMs);
  printf("periodic signals after:");
  for (int i = 0; i < 3; ++i) {
    siginfo_t info;
    CHECK(sigwaitinfo(&rt1, &info) == SIGRTMIN + 1);
    int64_t at = now_ns(CLOCK_MONOTONIC) - armed;
    printf(" %.3f", (double)at / kMs);
    CHECK(info.si_code == SI_TIMER && info.si_value.sival_int == 1234);
    CHECK(info.si_timerid == (int)(intptr_t)periodic && info.si_overrun == 0);
    CHECK(at >= 3 * kMs + i * 2 * kMs && at < 3 * kMs + i * 2 * kMs + kMs / 2);
  }
  printf(" ms; SI_TIMER, timer id and value right\n");
  // Overruns: stay away 11 ms (6 expirations at 2 ms intervals); one signal is queued.
  int64_t next_due = armed + 9 * kMs;
  sleep_ms((next_due - now_ns(CLOCK_MONOTONIC)) / kMs + 11);
  siginfo_t info;
  CHECK(sigwaitinfo(&rt1, &info) == SIGRTMIN + 1);
  int overrun = timer_getoverrun(periodic);
  struct timespec zero = {0, 0};
  int more = sigtimedwait(&rt1, &info, &zero);
  printf("overrun: si_overrun %d, timer_getoverrun %d, another signal queued: %d\n",
         info.si_overrun, overrun, more > 0);
  struct itimerspec old;
  struct itimerspec off = {{0, 0}, {0, 0}};
  CHECK(timer_settime(periodic, 0, &off, &old) == 0);
  printf("timer_settime returned the old interval %ld ns\n", old.it_interval.tv_nsec);
  CHECK(old.it_interval.tv_nsec == 2 * kMs);
  CHECK(timer_delete(periodic) == 0);
  printf("timer_gettime after timer_delete: %s\n",
         timer_gettime(periodic, &cur) == -1 && errno == EINVAL ? "EINVAL" : "other");

  // An absolute one-shot on CLOCK_REALTIME.
  timer_t absolute = make_timer(CLOCK_REALTIME, SIGEV_SIGNAL, SIGRTMIN + 1, 7, 0);
  int64_t deadline = now_ns(CLOCK_REALTIME) + 5 * kMs;
  arm(absolute, TIMER_ABSTIME, deadline, 0);
  CHECK(sigwaitinfo(&rt1, &info) == SIGRTMIN + 1);
  int64_t late = now_ns(CLOCK_REALTIME) - deadline;
  printf("absolute realtime timer: fired %ld ns after its deadline, value %d\n", (long)late,
         info.si_value.sival_int);
  CHECK(late >= 0 && late < kMs / 2 && info.si_value.sival_int == 7);
  CHECK(timer_gettime(absolute, &cur) == 0);
  CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);  // a fired one-shot is disarmed
  CHECK(timer_delete(absolute) == 0);

  // SIGEV_NONE: no signal; timer_gettime shows it counting down, then disarmed.
  timer_t silent = make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, 0);
  arm(silent, 0, 5 * kMs, 0);
  sleep_ms(2);
  CHECK(timer_gettime(silent, &cur) == 0);
  left = cur.it_value.tv_sec * 1000000000L + cur.it_value.tv_nsec;
  int counting = left > 2 * kMs && left <= 3 * kMs;
  sleep_ms(4);
  CHECK(timer_gettime(silent, &cur) == 0);
  int expired = cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0;
  CHECK(sigtimedwait(&rt1, &info, &zero) == -1 && errno == EAGAIN);
  printf("SIGEV_NONE: 2 ms in, about 3 ms left %d; after it expired, disarmed %d\n", counting,
         expired);
  CHECK(counting && expired);
  CHECK(timer_delete(silent) == 0);

  // SIGEV_THREAD_ID.
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  pthread_t t = start_thread(target_thread, NULL);
  while (target_tid == 0) sched_yield();
  timer_t directed = make_timer(CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGUSR1, 0, target_tid);
  arm(directed, 0, 2 * kMs, 0);
  join_thread(t);
  printf("SIGEV_THREAD_ID: the handler ran on the chosen thread: %d\n", handled_on == target_tid);
  CHECK(handled == 1 && handled_on == target_tid);
  CHECK(timer_delete(directed) == 0);

  // SIGEV_THREAD.
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = timer_function;
  ev.sigev_value.sival_int = 4242;
  timer_t threaded;
  CHECK(timer_create(CLOCK_MONOTONIC, &ev, &threaded) == 0);
  arm(threaded, 0, 1 * kMs, 3 * kMs);
  CHECK(pthread_mutex_lock(&thread_lock) == 0);
  while (thread_calls < 3) CHECK(pthread_cond_wait(&thread_cond, &thread_lock) == 0);
  CHECK(pthread_mutex_unlock(&thread_lock) == 0);
  CHECK(timer_delete(threaded) == 0);
  printf("SIGEV_THREAD: %d calls, value right %d, in another thread %d\n", thread_calls >= 3,
         thread_value_ok == thread_calls, thread_elsewhere == thread_calls);
  CHECK(thread_value_ok == thread_calls && thread_elsewhere == thread_calls);

  // CPU-time timers.
  handled = 0;
  CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
  timer_t process_cpu = make_timer(CLOCK_PROCESS_CPUTIME_ID, SIGEV_SIGNAL, SIGUSR2, 0, 0);
  int64_t cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  arm(process_cpu, 0, 2 * kMs, 0);
  sleep_ms(10);
  int while_sleeping = handled;
  while (handled == 0) ++sink;
  int64_t used = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  printf("process CPU timer: fired while sleeping %d; fired after %d ms of CPU: %d\n",
         while_sleeping, 2, used >= 2 * kMs && used < 3 * kMs);
  CHECK(while_sleeping == 0 && used >= 2 * kMs && used < 3 * kMs);
  CHECK(timer_delete(process_cpu) == 0);

  handled = 0;
  timer_t thread_cpu = make_timer(CLOCK_THREAD_CPUTIME_ID, SIGEV_SIGNAL, SIGUSR2, 0, 0);
  int64_t mine0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  arm(thread_cpu, 0, 3 * kMs, 0);
  int64_t other_cpu = 6 * kMs;
  t = start_thread(cpu_burner, &other_cpu);  // another thread's CPU time does not count
  join_thread(t);
  int after_other = handled;
  while (handled == 0) ++sink;
  int64_t mine = now_ns(CLOCK_THREAD_CPUTIME_ID) - mine0;
  printf(
      "thread CPU timer: fired during another thread's 6 ms of CPU %d; fired after 3 ms of "
      "its own: %d\n",
      after_other, mine >= 3 * kMs && mine < 4 * kMs);
  CHECK(after_other == 0 && mine >= 3 * kMs && mine < 4 * kMs);
  CHECK(timer_delete(thread_cpu) == 0);
  return 0;
}
