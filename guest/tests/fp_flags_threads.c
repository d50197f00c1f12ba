// Accrued FP exception flags are per hart: one thread raises inexact, underflow and overflow
// without pause while others clear their flags, compute exactly and check that none appear, and
// then raise exactly one flag and check that it alone appears. Run with the simulator switching
// hardware threads every few instructions (the timing mode, siblings on one core), a flag of
// one thread showing up in another's fflags is a failure line.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { kCheckers = 3, kRounds = 400 };

static atomic_int done;

static unsigned readFlags(void) {
  unsigned f;
  __asm__ volatile("frflags %0" : "=r"(f));
  return f;
}
static void clearFlags(void) {
  __asm__ volatile("fsflags zero");
}

static void* raiser(void* arg) {
  (void)arg;
  volatile double x = 1.0, tiny = 1e-300, huge = 1e300;
  while (atomic_load(&done) < kCheckers) {
    x = x / 3.0 + 1.0;    // inexact
    x = x + tiny * tiny;  // underflow and inexact
    x = x - huge * huge;  // overflow
    x = 1.0;
  }
  return NULL;
}

static void* checker(void* arg) {
  const long id = (long)arg;
  int failures = 0;
  volatile double a = 1.5, b = 2.25, third = 3.0;
  for (int round = 0; round < kRounds; ++round) {
    clearFlags();
    for (int i = 0; i < 20; ++i) a = a * 2.0 + b - b;  // exact
    a = 1.5;
    unsigned f = readFlags();
    if (f != 0) {
      if (failures++ < 3)
        printf("checker %ld round %d: flags %#x after exact work\n", id, round, f);
    }
    clearFlags();
    volatile double q = 1.0 / third;  // inexact only
    (void)q;
    f = readFlags();
    if (f != 0x1) {
      if (failures++ < 3) printf("checker %ld round %d: flags %#x, want NX alone\n", id, round, f);
    }
  }
  atomic_fetch_add(&done, 1);
  return (void*)(long)failures;
}

int main(void) {
  pthread_t r, c[kCheckers];
  pthread_create(&r, NULL, raiser, NULL);
  for (long i = 0; i < kCheckers; ++i) pthread_create(&c[i], NULL, checker, (void*)i);
  long failures = 0;
  for (int i = 0; i < kCheckers; ++i) {
    void* v;
    pthread_join(c[i], &v);
    failures += (long)v;
  }
  pthread_join(r, NULL);
  printf("fp_flags_threads: %ld failures\n", failures);
  return failures == 0 ? 0 : 1;
}
