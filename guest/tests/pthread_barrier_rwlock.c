// Barriers and reader-writer locks.
// Barrier: 8 threads run 6 phases; in each, every thread writes its slot, waits at the barrier,
// then reads every other slot and must see this phase's values; exactly one thread per phase
// gets PTHREAD_BARRIER_SERIAL_THREAD.
// rwlock: two readers hold the lock at once (the second's tryrdlock succeeds while the first
// holds it), a writer's trywrlock and timedwrlock fail (EBUSY, ETIMEDOUT) while a reader holds
// it, a reader's tryrdlock and timedrdlock fail while a writer holds it, and 6 threads
// (4 readers, 2 writers) keep an invariant (a == b) that writers update in two steps: readers
// never see it broken.
#include <semaphore.h>
#include <string.h>

#include "thread_util.h"

enum { kThreads = 8, kPhases = 6 };

static pthread_barrier_t barrier;
static int slots[kThreads];
static int serial_count[kPhases];
static int stale_reads;

static void* phase_worker(void* arg) {
  int id = (int)(intptr_t)arg;
  for (int phase = 0; phase < kPhases; ++phase) {
    slots[id] = phase * 100 + id;
    int r = pthread_barrier_wait(&barrier);
    CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD);
    if (r == PTHREAD_BARRIER_SERIAL_THREAD)
      __atomic_add_fetch(&serial_count[phase], 1, __ATOMIC_RELAXED);
    for (int j = 0; j < kThreads; ++j) {
      if (slots[j] != phase * 100 + j) __atomic_add_fetch(&stale_reads, 1, __ATOMIC_RELAXED);
    }
    // Nobody writes the next phase's values before everyone has read this phase's.
    r = pthread_barrier_wait(&barrier);
    CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD);
  }
  return NULL;
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t holding, release;

static void* hold_read(void* arg) {
  (void)arg;
  CHECK(pthread_rwlock_rdlock(&rw) == 0);
  CHECK(sem_post(&holding) == 0);
  CHECK(sem_wait(&release) == 0);
  CHECK(pthread_rwlock_unlock(&rw) == 0);
  return NULL;
}

static void* hold_write(void* arg) {
  (void)arg;
  CHECK(pthread_rwlock_wrlock(&rw) == 0);
  CHECK(sem_post(&holding) == 0);
  CHECK(sem_wait(&release) == 0);
  CHECK(pthread_rwlock_unlock(&rw) == 0);
  return NULL;
}

static const char* err_name(int e) {
  return e == 0           ? "0"
         : e == EBUSY     ? "EBUSY"
         : e == ETIMEDOUT ? "ETIMEDOUT"
         : e == EDEADLK   ? "EDEADLK"
                          : "other";
}

static long a, b;
static int broken_seen;
static long reads_done;

static void* rw_reader(void* arg) {
  (void)arg;
  for (int i = 0; i < 400; ++i) {
    CHECK(pthread_rwlock_rdlock(&rw) == 0);
    if (a != b) __atomic_add_fetch(&broken_seen, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&reads_done, 1, __ATOMIC_RELAXED);
    CHECK(pthread_rwlock_unlock(&rw) == 0);
  }
  return NULL;
}

static void* rw_writer(void* arg) {
  (void)arg;
  for (int i = 0; i < 300; ++i) {
    CHECK(pthread_rwlock_wrlock(&rw) == 0);
    a = a + 1;
    __asm__ volatile("" ::: "memory");
    b = b + 1;
    CHECK(pthread_rwlock_unlock(&rw) == 0);
  }
  return NULL;
}

int main(void) {
  CHECK(pthread_barrier_init(&barrier, NULL, kThreads) == 0);
  pthread_t t[kThreads];
  for (int i = 0; i < kThreads; ++i) t[i] = start_thread(phase_worker, (void*)(intptr_t)i);
  for (int i = 0; i < kThreads; ++i) join_thread(t[i]);
  CHECK(pthread_barrier_destroy(&barrier) == 0);
  printf("barrier: %d phases of %d threads, stale reads %d, serial threads per phase:", kPhases,
         kThreads, stale_reads);
  for (int p = 0; p < kPhases; ++p) printf(" %d", serial_count[p]);
  printf("\n");
  for (int p = 0; p < kPhases; ++p) CHECK(serial_count[p] == 1);
  CHECK(stale_reads == 0);

  CHECK(sem_init(&holding, 0, 0) == 0);
  CHECK(sem_init(&release, 0, 0) == 0);
  // Readers share.
  pthread_t r1 = start_thread(hold_read, NULL);
  CHECK(sem_wait(&holding) == 0);
  int r = pthread_rwlock_tryrdlock(&rw);
  printf("rwlock: tryrdlock while another thread reads: %s\n", err_name(r));
  CHECK(r == 0);
  CHECK(pthread_rwlock_unlock(&rw) == 0);
  printf("rwlock: trywrlock while a reader holds it: %s\n",
         err_name(pthread_rwlock_trywrlock(&rw)));
  int64_t start = now_ns(CLOCK_REALTIME);
  struct timespec deadline = deadline_ms(CLOCK_REALTIME, 8);
  r = pthread_rwlock_timedwrlock(&rw, &deadline);
  printf("rwlock: timedwrlock while a reader holds it: %s, waited 8 ms: %d\n", err_name(r),
         now_ns(CLOCK_REALTIME) - start >= 8000000);
  CHECK(r == ETIMEDOUT);
  CHECK(sem_post(&release) == 0);
  join_thread(r1);
  // A writer excludes.
  pthread_t w1 = start_thread(hold_write, NULL);
  CHECK(sem_wait(&holding) == 0);
  printf("rwlock: tryrdlock while a writer holds it: %s\n",
         err_name(pthread_rwlock_tryrdlock(&rw)));
  printf("rwlock: trywrlock while a writer holds it: %s\n",
         err_name(pthread_rwlock_trywrlock(&rw)));
  deadline = deadline_ms(CLOCK_MONOTONIC, 6);
  r = pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &deadline);
  printf("rwlock: clockrdlock (monotonic) while a writer holds it: %s\n", err_name(r));
  CHECK(r == ETIMEDOUT);
  CHECK(sem_post(&release) == 0);
  join_thread(w1);
  r = pthread_rwlock_wrlock(&rw);
  printf("rwlock: wrlock after the writer let go: %s; relock: %s\n", err_name(r),
         err_name(pthread_rwlock_wrlock(&rw)));
  CHECK(pthread_rwlock_unlock(&rw) == 0);

  // Mixed load keeps the invariant.
  pthread_t m[6];
  for (int i = 0; i < 6; ++i) m[i] = start_thread(i < 4 ? rw_reader : rw_writer, NULL);
  for (int i = 0; i < 6; ++i) join_thread(m[i]);
  printf("rwlock: a=%ld b=%ld reads=%ld broken invariant seen %d times\n", a, b, reads_done,
         broken_seen);
  CHECK(a == 600 && b == 600 && reads_done == 1600 && broken_seen == 0);
  CHECK(pthread_rwlock_destroy(&rw) == 0);
  return 0;
}
