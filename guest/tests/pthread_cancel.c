// Thread cancellation (deferred, the default): a thread cancelled while blocked in
// pthread_cond_wait (its cleanup handler unlocks the mutex the wait re-acquired), in
// nanosleep, in read() on an empty pipe and in sem_wait; cleanup handlers run in reverse order
// of pushing; pthread_join returns PTHREAD_CANCELED. A thread with cancellation disabled is
// not interrupted (its sleep completes) and is cancelled at the next cancellation point after
// it enables it again; pthread_cleanup_pop(1) runs a handler without cancellation. An
// asynchronously cancellable thread is cancelled while it runs a loop with no system call.
#include <semaphore.h>
#include <string.h>
#include <unistd.h>

#include "thread_util.h"

static char log_buf[256];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const char* what) {
  CHECK(pthread_mutex_lock(&log_lock) == 0);
  strncat(log_buf, what, sizeof log_buf - strlen(log_buf) - 1);
  CHECK(pthread_mutex_unlock(&log_lock) == 0);
}

static void cleanup_note(void* what) {
  note(what);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int waiting;

static void unlock_cleanup(void* m) {
  note("[unlock]");
  CHECK(pthread_mutex_unlock(m) == 0);
}

static void* cond_waiter(void* arg) {
  (void)arg;
  pthread_cleanup_push(cleanup_note, "[outer]");
  CHECK(pthread_mutex_lock(&lock) == 0);
  pthread_cleanup_push(unlock_cleanup, &lock);
  waiting = 1;
  for (;;) pthread_cond_wait(&never, &lock);
  pthread_cleanup_pop(0);
  pthread_cleanup_pop(0);
  return NULL;
}

static sem_t started;

static void* sleeper(void* arg) {
  (void)arg;
  pthread_cleanup_push(cleanup_note, "[sleep]");
  CHECK(sem_post(&started) == 0);
  struct timespec ts = {1000, 0};
  nanosleep(&ts, NULL);
  note("[sleep returned?!]");
  pthread_cleanup_pop(0);
  return NULL;
}

static int pipe_fds[2];

static void* reader(void* arg) {
  (void)arg;
  pthread_cleanup_push(cleanup_note, "[read]");
  CHECK(sem_post(&started) == 0);
  char c;
  ssize_t n = read(pipe_fds[0], &c, 1);
  (void)n;
  note("[read returned?!]");
  pthread_cleanup_pop(0);
  return NULL;
}

static sem_t never_posted;

static void* sem_waiter(void* arg) {
  (void)arg;
  pthread_cleanup_push(cleanup_note, "[sem]");
  CHECK(sem_post(&started) == 0);
  sem_wait(&never_posted);
  note("[sem_wait returned?!]");
  pthread_cleanup_pop(0);
  return NULL;
}

static sem_t cancel_sent;

static void* disabled(void* arg) {
  (void)arg;
  int old = -1;
  CHECK(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
  CHECK(old == PTHREAD_CANCEL_ENABLE);
  pthread_cleanup_push(cleanup_note, "[disabled]");
  CHECK(sem_post(&started) == 0);
  CHECK(sem_wait(&cancel_sent) == 0);  // a cancellation point, but cancellation is disabled
  sleep_ms(2);                         // completes: not interrupted
  note("[slept]");
  pthread_cleanup_push(cleanup_note, "[popped]");
  pthread_cleanup_pop(1);  // runs the handler now, without any cancellation
  CHECK(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0);
  CHECK(old == PTHREAD_CANCEL_DISABLE);
  pthread_testcancel();  // acts on the pending request
  note("[testcancel returned?!]");
  pthread_cleanup_pop(0);
  return NULL;
}

static volatile unsigned long spins;

static void* async_spinner(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; ++i) ++spins;
  CHECK(sem_post(&started) == 0);
  // A request that arrived already is acted on as the type becomes asynchronous.
  CHECK(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL) == 0);
  for (;;) ++spins;  // no cancellation point: only asynchronous cancellation can end this
  return NULL;
}

static void run_case(const char* name, void* (*fn)(void*)) {
  log_buf[0] = 0;
  pthread_t t = start_thread(fn, NULL);
  if (fn == cond_waiter) {
    // Once the waiter has set the flag and we hold the mutex, it is inside the wait.
    for (;;) {
      CHECK(pthread_mutex_lock(&lock) == 0);
      int w = waiting;
      CHECK(pthread_mutex_unlock(&lock) == 0);
      if (w) break;
      sched_yield();
    }
  } else {
    CHECK(sem_wait(&started) == 0);
  }
  CHECK(pthread_cancel(t) == 0);
  if (fn == disabled) CHECK(sem_post(&cancel_sent) == 0);
  void* result = join_thread(t);
  printf("%s: %s, cleanup %s\n", name, result == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "returned",
         log_buf);
  CHECK(result == PTHREAD_CANCELED);
}

int main(void) {
  CHECK(sem_init(&started, 0, 0) == 0);
  CHECK(sem_init(&never_posted, 0, 0) == 0);
  CHECK(sem_init(&cancel_sent, 0, 0) == 0);
  CHECK(pipe(pipe_fds) == 0);
  run_case("cancelled in pthread_cond_wait", cond_waiter);
  int r = pthread_mutex_trylock(&lock);
  printf("the mutex is free again after the cancelled wait: %d\n", r == 0);
  CHECK(r == 0 && pthread_mutex_unlock(&lock) == 0);
  run_case("cancelled in nanosleep", sleeper);
  run_case("cancelled in read on a pipe", reader);
  run_case("cancelled in sem_wait", sem_waiter);
  run_case("cancellation disabled, then enabled", disabled);
  run_case("asynchronous cancellation of a loop", async_spinner);
  CHECK(spins >= 1000);
  // A request made before the thread reaches its cancellation point is acted on there.
  log_buf[0] = 0;
  pthread_t t = start_thread(sleeper, NULL);
  CHECK(pthread_cancel(t) == 0);
  void* result = join_thread(t);
  CHECK(sem_wait(&started) == 0);
  printf("cancelled before reaching nanosleep: %s, cleanup %s\n",
         result == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "returned", log_buf);
  CHECK(result == PTHREAD_CANCELED);
  printf("cancel tests done\n");
  return 0;
}
