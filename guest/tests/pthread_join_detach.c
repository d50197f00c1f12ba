// Joining and detaching. pthread_join returns each thread's value, whether it returned it or
// passed it to pthread_exit from a nested call; joining oneself is EDEADLK; joining a detached
// thread is EINVAL; pthread_tryjoin_np is EBUSY and pthread_timedjoin_np ETIMEDOUT while the
// thread runs; detached threads (by attribute and by pthread_detach) run to completion;
// threads get distinct ids (gettid), the main thread's is the process id; a requested stack
// size is honoured. With the argument "main_exit" the main thread ends with pthread_exit while
// a worker still runs: the process lives on until the worker returns, and exits with status 0.
// With "exit_in_thread" a second thread calls exit(7) while main waits to join it: the whole
// process ends with status 7.
#include <semaphore.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread_util.h"

enum { kJoinable = 10, kDetached = 6 };

static void deeper(int id) {
  pthread_exit((void*)(intptr_t)(id * id + 1));
}

static void* returner(void* arg) {
  int id = (int)(intptr_t)arg;
  if (id % 2) deeper(id);  // odd threads exit from a nested call
  return (void*)(intptr_t)(id * id + 1);
}

static sem_t detached_done;
static int detached_sum;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;

static void* detached_worker(void* arg) {
  int id = (int)(intptr_t)arg;
  sleep_ms(1);
  CHECK(pthread_mutex_lock(&sum_lock) == 0);
  detached_sum += id;
  CHECK(pthread_mutex_unlock(&sum_lock) == 0);
  CHECK(sem_post(&detached_done) == 0);
  return NULL;
}

static sem_t go;

static void* blocked_until_go(void* arg) {
  (void)arg;
  CHECK(sem_wait(&go) == 0);
  return (void*)77;
}

static pid_t tids[kJoinable];

static void* tid_reporter(void* arg) {
  int id = (int)(intptr_t)arg;
  tids[id] = (pid_t)syscall(SYS_gettid);
  CHECK(tids[id] == gettid());
  return NULL;
}

static void* self_joiner(void* arg) {
  (void)arg;
  return (void*)(intptr_t)pthread_join(pthread_self(), NULL);
}

static void* stack_user(void* arg) {
  size_t requested = (size_t)arg;
  pthread_attr_t attr;
  CHECK(pthread_getattr_np(pthread_self(), &attr) == 0);
  size_t size = 0;
  void* addr = NULL;
  CHECK(pthread_attr_getstack(&attr, &addr, &size) == 0);
  CHECK(pthread_attr_destroy(&attr) == 0);
  // Use most of it: a local is inside the reported range.
  volatile char big[48 * 1024];
  memset((char*)big, 1, sizeof big);
  char* here = (char*)big;
  int inside = here >= (char*)addr && here < (char*)addr + size;
  return (void*)(intptr_t)(size >= requested && inside && big[100] == 1);
}

static void* exiting_worker(void* arg) {
  (void)arg;
  printf("worker: exit(7)\n");
  exit(7);
}

static void* last_worker(void* arg) {
  (void)arg;
  sleep_ms(3);
  printf("worker: still running after main's pthread_exit, finishing\n");
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "exit_in_thread") == 0) {
    join_thread(start_thread(exiting_worker, NULL));
    printf("main: joined?!\n");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "main_exit") == 0) {
    printf("main: pthread_exit\n");
    fflush(stdout);
    start_thread(last_worker, NULL);
    pthread_exit(NULL);
  }
  pthread_t t[kJoinable];
  for (int i = 0; i < kJoinable; ++i) t[i] = start_thread(returner, (void*)(intptr_t)i);
  long sum = 0;
  int all_match = 1;
  for (int i = 0; i < kJoinable; ++i) {
    intptr_t v = (intptr_t)join_thread(t[i]);
    all_match &= v == i * i + 1;
    sum += v;
  }
  printf("join: values returned or passed to pthread_exit all match: %d, sum %ld\n", all_match,
         sum);
  CHECK(all_match && sum == 295);

  pthread_t self_join = start_thread(self_joiner, NULL);
  int r = (int)(intptr_t)join_thread(self_join);
  printf("join: a thread joining itself: %s\n", r == EDEADLK ? "EDEADLK" : "other");
  CHECK(r == EDEADLK);
  r = pthread_join(pthread_self(), NULL);
  printf("join: main joining itself: %s\n", r == EDEADLK ? "EDEADLK" : "other");
  CHECK(r == EDEADLK);

  CHECK(sem_init(&go, 0, 0) == 0);
  pthread_t busy = start_thread(blocked_until_go, NULL);
  r = pthread_tryjoin_np(busy, NULL);
  printf("tryjoin while running: %s\n", r == EBUSY ? "EBUSY" : "other");
  CHECK(r == EBUSY);
  int64_t start = now_ns(CLOCK_REALTIME);
  struct timespec deadline = deadline_ms(CLOCK_REALTIME, 5);
  r = pthread_timedjoin_np(busy, NULL, &deadline);
  printf("timedjoin while running: %s, waited 5 ms: %d\n", r == ETIMEDOUT ? "ETIMEDOUT" : "other",
         now_ns(CLOCK_REALTIME) - start >= 5000000);
  CHECK(r == ETIMEDOUT);
  CHECK(sem_post(&go) == 0);
  void* value = NULL;
  deadline = deadline_ms(CLOCK_REALTIME, 10000);
  r = pthread_timedjoin_np(busy, &value, &deadline);
  printf("timedjoin after it was let go: %d value %ld\n", r, (long)(intptr_t)value);
  CHECK(r == 0 && value == (void*)77);

  // Detached threads.
  CHECK(sem_init(&detached_done, 0, 0) == 0);
  pthread_attr_t attr;
  CHECK(pthread_attr_init(&attr) == 0);
  CHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0);
  int state = -1;
  CHECK(pthread_attr_getdetachstate(&attr, &state) == 0 && state == PTHREAD_CREATE_DETACHED);
  pthread_t d[kDetached];
  for (int i = 0; i < kDetached; ++i) {
    if (i < kDetached / 2) {
      CHECK(pthread_create(&d[i], &attr, detached_worker, (void*)(intptr_t)(i + 1)) == 0);
    } else {
      d[i] = start_thread(detached_worker, (void*)(intptr_t)(i + 1));
      CHECK(pthread_detach(d[i]) == 0);
    }
  }
  CHECK(pthread_attr_destroy(&attr) == 0);
  for (int i = 0; i < kDetached; ++i) CHECK(sem_wait(&detached_done) == 0);
  printf("detached: %d threads finished, sum %d\n", kDetached, detached_sum);
  CHECK(detached_sum == kDetached * (kDetached + 1) / 2);

  // Thread ids.
  for (int i = 0; i < kJoinable; ++i) t[i] = start_thread(tid_reporter, (void*)(intptr_t)i);
  for (int i = 0; i < kJoinable; ++i) join_thread(t[i]);
  int distinct = 1;
  for (int i = 0; i < kJoinable; ++i) {
    distinct &= tids[i] > 0 && tids[i] != getpid();
    for (int j = 0; j < i; ++j) distinct &= tids[i] != tids[j];
  }
  printf("gettid: %d threads with distinct ids, none the process id: %d; main's is: %d\n",
         kJoinable, distinct, gettid() == getpid());
  CHECK(distinct && gettid() == getpid());

  // Stack size.
  CHECK(pthread_attr_init(&attr) == 0);
  const size_t requested = 256 * 1024;
  CHECK(pthread_attr_setstacksize(&attr, requested) == 0);
  pthread_t s;
  CHECK(pthread_create(&s, &attr, stack_user, (void*)requested) == 0);
  CHECK(pthread_attr_destroy(&attr) == 0);
  r = (int)(intptr_t)join_thread(s);
  printf("stack size attribute honoured: %d\n", r);
  CHECK(r == 1);
  return 0;
}
