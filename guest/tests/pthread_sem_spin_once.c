// Semaphores, spinlocks and pthread_once.
// Semaphores: a ping-pong of 300 turns on two semaphores; sem_trywait on zero (EAGAIN);
// sem_timedwait and sem_clockwait time out no earlier than the deadline (ETIMEDOUT); a
// counting semaphore initialised to 3 admits at most 3 of 8 threads at a time into a section
// (each stays inside until the section is full, so exactly 3 is reached); sem_getvalue.
// Spinlocks: 6 threads increment a counter under a pthread spinlock; trylock EBUSY while held.
// pthread_once: 8 threads race to one initialiser, which runs once, and all see its effect.
#include <semaphore.h>
#include <string.h>

#include "thread_util.h"

enum { kTurns = 300, kGuests = 8, kSlots = 3, kSpinners = 6, kSpins = 2000, kOnceThreads = 8 };

static sem_t ping, pong;
static int volleys;

static void* ponger(void* arg) {
  (void)arg;
  for (int i = 0; i < kTurns; ++i) {
    CHECK(sem_wait(&pong) == 0);
    ++volleys;
    CHECK(sem_post(&ping) == 0);
  }
  return NULL;
}

static sem_t slots;
static int inside, max_inside, admitted;
static pthread_mutex_t inside_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t inside_cond = PTHREAD_COND_INITIALIZER;
static int full_rounds;

static void* guest(void* arg) {
  (void)arg;
  CHECK(sem_wait(&slots) == 0);
  CHECK(pthread_mutex_lock(&inside_lock) == 0);
  ++inside;
  ++admitted;
  if (inside > max_inside) max_inside = inside;
  // Stay inside until the section is full (or nobody else can come in), so the maximum
  // occupancy is reached whatever the schedule.
  int generation = full_rounds;
  if (inside == kSlots || admitted == kGuests) {
    ++full_rounds;
    CHECK(pthread_cond_broadcast(&inside_cond) == 0);
  } else {
    while (full_rounds == generation) CHECK(pthread_cond_wait(&inside_cond, &inside_lock) == 0);
  }
  --inside;
  CHECK(pthread_mutex_unlock(&inside_lock) == 0);
  CHECK(sem_post(&slots) == 0);
  return NULL;
}

static pthread_spinlock_t spin;
static long spin_counter;

static void* spinner(void* arg) {
  (void)arg;
  for (int i = 0; i < kSpins; ++i) {
    CHECK(pthread_spin_lock(&spin) == 0);
    long v = spin_counter;
    __asm__ volatile("" ::: "memory");
    spin_counter = v + 1;
    CHECK(pthread_spin_unlock(&spin) == 0);
  }
  return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_runs;
static int initialised_value;

static void initialise(void) {
  ++init_runs;
  sleep_ms(1);  // others arrive while the initialiser runs, and must wait for it
  initialised_value = 42;
}

static void* once_caller(void* arg) {
  (void)arg;
  CHECK(pthread_once(&once, initialise) == 0);
  return (void*)(intptr_t)initialised_value;
}

static const char* err_name(int e) {
  return e == 0           ? "0"
         : e == EAGAIN    ? "EAGAIN"
         : e == ETIMEDOUT ? "ETIMEDOUT"
         : e == EBUSY     ? "EBUSY"
                          : "other";
}

int main(void) {
  CHECK(sem_init(&ping, 0, 0) == 0);
  CHECK(sem_init(&pong, 0, 0) == 0);
  pthread_t t = start_thread(ponger, NULL);
  for (int i = 0; i < kTurns; ++i) {
    ++volleys;
    CHECK(sem_post(&pong) == 0);
    CHECK(sem_wait(&ping) == 0);
  }
  join_thread(t);
  printf("semaphore ping-pong: %d volleys (expected %d)\n", volleys, 2 * kTurns);
  CHECK(volleys == 2 * kTurns);

  int r = sem_trywait(&ping) == 0 ? 0 : errno;
  printf("sem_trywait on zero: %s\n", err_name(r));
  int64_t start = now_ns(CLOCK_REALTIME);
  struct timespec deadline = deadline_ms(CLOCK_REALTIME, 9);
  r = sem_timedwait(&ping, &deadline) == 0 ? 0 : errno;
  printf("sem_timedwait on zero: %s, waited 9 ms: %d\n", err_name(r),
         now_ns(CLOCK_REALTIME) - start >= 9000000);
  CHECK(r == ETIMEDOUT);
  start = now_ns(CLOCK_MONOTONIC);
  deadline = deadline_ms(CLOCK_MONOTONIC, 4);
  r = sem_clockwait(&ping, CLOCK_MONOTONIC, &deadline) == 0 ? 0 : errno;
  printf("sem_clockwait (monotonic) on zero: %s, waited 4 ms: %d\n", err_name(r),
         now_ns(CLOCK_MONOTONIC) - start >= 4000000);
  CHECK(r == ETIMEDOUT);
  CHECK(sem_post(&ping) == 0 && sem_post(&ping) == 0);
  int value = -1;
  CHECK(sem_getvalue(&ping, &value) == 0);
  deadline = deadline_ms(CLOCK_REALTIME, 1);
  r = sem_timedwait(&ping, &deadline) == 0 ? 0 : errno;
  printf("after two posts: value %d, sem_timedwait %s\n", value, err_name(r));
  CHECK(value == 2 && r == 0);

  CHECK(sem_init(&slots, 0, kSlots) == 0);
  pthread_t g[kGuests];
  for (int i = 0; i < kGuests; ++i) g[i] = start_thread(guest, NULL);
  for (int i = 0; i < kGuests; ++i) join_thread(g[i]);
  CHECK(sem_getvalue(&slots, &value) == 0);
  printf("counting semaphore: %d admitted, at most %d inside (slots %d), value after %d\n",
         admitted, max_inside, kSlots, value);
  CHECK(admitted == kGuests && max_inside == kSlots && value == kSlots);

  CHECK(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
  pthread_t s[kSpinners];
  for (int i = 0; i < kSpinners; ++i) s[i] = start_thread(spinner, NULL);
  for (int i = 0; i < kSpinners; ++i) join_thread(s[i]);
  CHECK(pthread_spin_lock(&spin) == 0);
  r = pthread_spin_trylock(&spin);
  CHECK(pthread_spin_unlock(&spin) == 0);
  printf("spinlock: counter %ld (expected %d), trylock while held: %s\n", spin_counter,
         kSpinners * kSpins, err_name(r));
  CHECK(spin_counter == kSpinners * kSpins && r == EBUSY);
  CHECK(pthread_spin_destroy(&spin) == 0);

  pthread_t o[kOnceThreads];
  for (int i = 0; i < kOnceThreads; ++i) o[i] = start_thread(once_caller, NULL);
  int all_saw = 1;
  for (int i = 0; i < kOnceThreads; ++i) all_saw &= (intptr_t)join_thread(o[i]) == 42;
  printf("pthread_once: initialiser ran %d time(s), every caller saw its result: %d\n", init_runs,
         all_saw);
  CHECK(init_runs == 1 && all_saw);
  return 0;
}
