// pthread mutexes of each kind: a normal mutex guarding a counter that 8 threads increment
// (no update lost), trylock on a mutex another thread holds (EBUSY), a recursive mutex locked
// three times by its owner and busy for others until fully unlocked, an error-checking mutex
// (relock EDEADLK, unlock by a non-owner or when unlocked EPERM), and timed locks: one that
// times out (ETIMEDOUT, no earlier than its deadline) while another thread holds the mutex, and
// one that gets the mutex when the holder lets go before the deadline.
// With the argument "robust": a robust mutex whose owner exits holding it is given to the next
// locker with EOWNERDEAD, also to a locker already blocked when the owner dies; after
// pthread_mutex_consistent it works normally. (With set_robust_list, the kernel does this at
// thread exit; without it, as under qemu-user 7.2, glibc does it itself.)
#include <semaphore.h>
#include <string.h>

#include "thread_util.h"

enum { kThreads = 8, kIncrements = 3000 };

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* increment(void* arg) {
  (void)arg;
  for (int i = 0; i < kIncrements; ++i) {
    CHECK(pthread_mutex_lock(&counter_lock) == 0);
    long v = counter;
    __asm__ volatile("" ::: "memory");  // a window for a lost update if the lock failed
    counter = v + 1;
    CHECK(pthread_mutex_unlock(&counter_lock) == 0);
  }
  return NULL;
}

// A helper thread that takes `target`, tells the main thread (held), waits for permission
// (release), optionally sleeps, and unlocks.
struct Holder {
  pthread_mutex_t* target;
  sem_t held;
  sem_t release;
  int sleep_before_unlock_ms;
  int trylock_result;  // for the recursive test: the helper's trylock while main holds it
};

static void* hold(void* arg) {
  struct Holder* h = arg;
  CHECK(pthread_mutex_lock(h->target) == 0);
  CHECK(sem_post(&h->held) == 0);
  CHECK(sem_wait(&h->release) == 0);
  if (h->sleep_before_unlock_ms > 0) sleep_ms(h->sleep_before_unlock_ms);
  CHECK(pthread_mutex_unlock(h->target) == 0);
  return NULL;
}

static void* try_once(void* arg) {
  struct Holder* h = arg;
  h->trylock_result = pthread_mutex_trylock(h->target);
  if (h->trylock_result == 0) CHECK(pthread_mutex_unlock(h->target) == 0);
  return NULL;
}

static void* unlock_foreign(void* arg) {
  return (void*)(intptr_t)pthread_mutex_unlock(arg);
}

static const char* err_name(int e) {
  switch (e) {
    case 0: return "0";
    case EBUSY: return "EBUSY";
    case EDEADLK: return "EDEADLK";
    case EPERM: return "EPERM";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EINVAL: return "EINVAL";
    default: return "other";
  }
}

static void* exit_holding(void* arg) {
  struct Holder* h = arg;
  CHECK(pthread_mutex_lock(h->target) == 0);
  CHECK(sem_post(&h->held) == 0);
  if (h->sleep_before_unlock_ms > 0) sleep_ms(h->sleep_before_unlock_ms);
  return NULL;  // exits still holding the mutex
}

static void init_holder(struct Holder* h, pthread_mutex_t* m);

static void robust(void) {
  pthread_mutexattr_t attr;
  CHECK(pthread_mutexattr_init(&attr) == 0);
  CHECK(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0);
  pthread_mutex_t m;
  CHECK(pthread_mutex_init(&m, &attr) == 0);
  struct Holder h;
  init_holder(&h, &m);
  join_thread(start_thread(exit_holding, &h));
  int r = pthread_mutex_lock(&m);
  printf("robust: lock after the owner exited holding it: %s\n",
         r == EOWNERDEAD ? "EOWNERDEAD" : err_name(r));
  CHECK(r == EOWNERDEAD);
  CHECK(pthread_mutex_consistent(&m) == 0);
  CHECK(pthread_mutex_unlock(&m) == 0);
  CHECK(pthread_mutex_lock(&m) == 0);
  CHECK(pthread_mutex_unlock(&m) == 0);
  printf("robust: usable again after pthread_mutex_consistent\n");
  // A locker blocked in the kernel when the owner dies is woken with EOWNERDEAD.
  init_holder(&h, &m);
  h.sleep_before_unlock_ms = 5;
  pthread_t t = start_thread(exit_holding, &h);
  CHECK(sem_wait(&h.held) == 0);
  r = pthread_mutex_lock(&m);  // blocks until the owner exits
  printf("robust: blocked locker when the owner exited: %s\n",
         r == EOWNERDEAD ? "EOWNERDEAD" : err_name(r));
  CHECK(r == EOWNERDEAD);
  CHECK(pthread_mutex_consistent(&m) == 0 && pthread_mutex_unlock(&m) == 0);
  join_thread(t);
  CHECK(pthread_mutex_destroy(&m) == 0);
  CHECK(pthread_mutexattr_destroy(&attr) == 0);
}

static void init_holder(struct Holder* h, pthread_mutex_t* m) {
  memset(h, 0, sizeof *h);
  h->target = m;
  CHECK(sem_init(&h->held, 0, 0) == 0);
  CHECK(sem_init(&h->release, 0, 0) == 0);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "robust") == 0) {
    robust();
    return 0;
  }
  // A normal mutex under contention.
  pthread_t t[kThreads];
  for (int i = 0; i < kThreads; ++i) t[i] = start_thread(increment, NULL);
  for (int i = 0; i < kThreads; ++i) join_thread(t[i]);
  printf("normal: counter=%ld expected=%d\n", counter, kThreads * kIncrements);
  CHECK(counter == kThreads * kIncrements);

  // trylock on a mutex held by another thread.
  pthread_mutex_t normal;
  CHECK(pthread_mutex_init(&normal, NULL) == 0);
  struct Holder h;
  init_holder(&h, &normal);
  pthread_t holder = start_thread(hold, &h);
  CHECK(sem_wait(&h.held) == 0);
  printf("normal: trylock while another thread holds it: %s\n",
         err_name(pthread_mutex_trylock(&normal)));
  CHECK(sem_post(&h.release) == 0);
  join_thread(holder);
  int r = pthread_mutex_trylock(&normal);
  printf("normal: trylock after it let go: %s\n", err_name(r));
  CHECK(r == 0 && pthread_mutex_unlock(&normal) == 0);
  CHECK(pthread_mutex_destroy(&normal) == 0);

  // A recursive mutex.
  pthread_mutexattr_t attr;
  CHECK(pthread_mutexattr_init(&attr) == 0);
  CHECK(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0);
  pthread_mutex_t recursive;
  CHECK(pthread_mutex_init(&recursive, &attr) == 0);
  for (int depth = 0; depth < 3; ++depth) CHECK(pthread_mutex_lock(&recursive) == 0);
  CHECK(pthread_mutex_trylock(&recursive) == 0);  // depth 4
  init_holder(&h, &recursive);
  for (int depth = 4; depth > 0; --depth) {
    pthread_t other = start_thread(try_once, &h);
    join_thread(other);
    printf("recursive: depth %d, other thread's trylock: %s\n", depth, err_name(h.trylock_result));
    CHECK(h.trylock_result == EBUSY);
    CHECK(pthread_mutex_unlock(&recursive) == 0);
  }
  pthread_t other = start_thread(try_once, &h);
  join_thread(other);
  printf("recursive: fully unlocked, other thread's trylock: %s\n", err_name(h.trylock_result));
  CHECK(h.trylock_result == 0);
  printf("recursive: unlock when unlocked: %s\n", err_name(pthread_mutex_unlock(&recursive)));
  CHECK(pthread_mutex_destroy(&recursive) == 0);

  // An error-checking mutex.
  CHECK(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK) == 0);
  pthread_mutex_t errorcheck;
  CHECK(pthread_mutex_init(&errorcheck, &attr) == 0);
  printf("errorcheck: unlock when unlocked: %s\n", err_name(pthread_mutex_unlock(&errorcheck)));
  CHECK(pthread_mutex_lock(&errorcheck) == 0);
  printf("errorcheck: relock by the owner: %s\n", err_name(pthread_mutex_lock(&errorcheck)));
  pthread_t foreign = start_thread(unlock_foreign, &errorcheck);
  printf("errorcheck: unlock by another thread: %s\n",
         err_name((int)(intptr_t)join_thread(foreign)));
  CHECK(pthread_mutex_unlock(&errorcheck) == 0);
  CHECK(pthread_mutex_destroy(&errorcheck) == 0);
  CHECK(pthread_mutexattr_destroy(&attr) == 0);

  // Timed locks: a timeout while the holder keeps it, then a wait the holder ends in time.
  pthread_mutex_t timed;
  CHECK(pthread_mutex_init(&timed, NULL) == 0);
  init_holder(&h, &timed);
  h.sleep_before_unlock_ms = 5;
  holder = start_thread(hold, &h);
  CHECK(sem_wait(&h.held) == 0);
  int64_t start = now_ns(CLOCK_REALTIME);
  struct timespec deadline = deadline_ms(CLOCK_REALTIME, 20);
  r = pthread_mutex_timedlock(&timed, &deadline);
  int64_t waited = now_ns(CLOCK_REALTIME) - start;
  printf("timedlock while held: %s, waited at least 20 ms: %d\n", err_name(r), waited >= 20000000);
  CHECK(r == ETIMEDOUT && waited >= 20000000);
  // CLOCK_MONOTONIC deadline (pthread_mutex_clocklock).
  deadline = deadline_ms(CLOCK_MONOTONIC, 10);
  r = pthread_mutex_clocklock(&timed, CLOCK_MONOTONIC, &deadline);
  printf("clocklock (monotonic) while held: %s\n", err_name(r));
  CHECK(r == ETIMEDOUT);
  CHECK(sem_post(&h.release) == 0);  // the holder unlocks after 5 ms
  deadline = deadline_ms(CLOCK_REALTIME, 10000);
  r = pthread_mutex_timedlock(&timed, &deadline);
  printf("timedlock released before the deadline: %s\n", err_name(r));
  CHECK(r == 0);
  CHECK(pthread_mutex_unlock(&timed) == 0);
  join_thread(holder);
  CHECK(pthread_mutex_destroy(&timed) == 0);
  printf("mutex tests done\n");
  return 0;
}
