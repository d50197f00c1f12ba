/* Counting on several cores at once, each thread pinned to its own core.
 *
 * bgp: two threads on cores 0 and 1 share the one UPC-P unit (one handle, select 0 counts both
 * cores), started once by the main thread; each thread reads its own core's instruction counter
 * around a loop of its own length while the other runs: each difference is exactly 1 + 2n.
 * bgq: four threads on cores 0..3, each with its own core's PUnit: the same exact read
 * differences, and a threshold on each thread's multiplications whose interrupts go to that thread
 * only (the handler checks which thread runs it): calls == floor(count / period) per thread.
 * Exits 0 when every check holds. */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ctr_common.h"

#define kMaxThreads 4

struct worker {
  int cpu;
  uint64_t n;
  pthread_t thread;
  hpmctr_unit* shared; /* bgp: the unit of all threads */
  /* results */
  int ran_on;
  uint64_t first, last;
  pid_t tid;
  int calls, foreign_calls, overflow_error;
  uint64_t signals, count;
};

static pthread_barrier_t barrier;
static const uint64_t kPeriod = 1000;

static void on_period(hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle, void* context,
                      void* arg) {
  (void)u;
  (void)counter;
  (void)count;
  (void)cycle;
  (void)context;
  struct worker* w = arg;
  if ((pid_t)syscall(SYS_gettid) == w->tid) {
    ++w->calls;
  } else {
    ++w->foreign_calls;
  }
}

static void* run_worker(void* arg) {
  struct worker* w = arg;
  w->ran_on = sched_getcpu();
  w->tid = (pid_t)syscall(SYS_gettid);
  if (w->shared != NULL) { /* bgp */
    hpmctr_unit* u = w->shared;
    char name[96];
    thread_event(u, "Instructions", name, sizeof name);
    const int input = hpmctr_event(u, name);
    pthread_barrier_wait(&barrier);
    loop_between_reads(counter_register(u, input % (int)u->counters), w->n, &w->first, &w->last);
    pthread_barrier_wait(&barrier);
    return NULL;
  }
  hpmctr_unit u = open_core_unit();
  const int instructions = add_thread_event(&u, "Instructions");
  const int muls = add_thread_event(&u, "InstIntMul");
  w->overflow_error = hpmctr_overflow(&u, muls, kPeriod, on_period, w);
  pthread_barrier_wait(&barrier);
  hpmctr_start(&u);
  loop_between_reads(counter_register(&u, instructions), w->n, &w->first, &w->last);
  hpmctr_stop(&u);
  mul_loop_counted(run_register(&u), w->n);
  for (volatile int i = 0; i < 200; ++i) {
  }
  w->count = hpmctr_count(&u, muls);
  w->signals = hpmctr_overflow_signals(&u, muls);
  pthread_barrier_wait(&barrier);
  hpmctr_close(&u);
  return NULL;
}

int main(void) {
  const enum hpmctr_machine machine = hpmctr_machine();
  if (machine == HPMCTR_NONE) die("no counter unit", -1);
  const int bgp = machine == HPMCTR_BGP;
  const int threads = bgp ? 2 : 4;
  const int cpus_per_core = bgp ? 1 : 4;
  hpmctr_unit shared;
  if (bgp) {
    const int r = hpmctr_open(&shared, HPMCTR_UPC, 0);
    if (r != 0) die("open", r);
    for (int core = 0; core < threads; ++core) {
      char name[32];
      snprintf(name, sizeof name, "PU%d_INSTRUCTIONS", core); /* hpmsim's own bgp event */
      if (hpmctr_add_name(&shared, name, HPMCTR_LEVEL_HIGH) < 0) die(name, -1);
    }
    hpmctr_start(&shared);
  }
  struct worker workers[kMaxThreads];
  memset(workers, 0, sizeof workers);
  pthread_barrier_init(&barrier, NULL, (unsigned)threads);
  for (int k = 0; k < threads; ++k) {
    struct worker* w = &workers[k];
    w->cpu = k * cpus_per_core;
    w->n = 20000 + 7919 * (uint64_t)k;
    w->shared = bgp ? &shared : NULL;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    if (pthread_create(&w->thread, &attr, run_worker, w) != 0) die("pthread_create", k);
    pthread_attr_destroy(&attr);
  }
  for (int k = 0; k < threads; ++k) pthread_join(workers[k].thread, NULL);
  if (bgp) {
    hpmctr_stop(&shared);
    hpmctr_close(&shared);
  }
  for (int k = 0; k < threads; ++k) {
    const struct worker* w = &workers[k];
    char what[128];
    snprintf(what, sizeof what, "thread %d runs on cpu", k);
    check_eq(what, (uint64_t)w->ran_on, (uint64_t)w->cpu);
    snprintf(what, sizeof what, "thread %d (core %d) read difference, n=%" PRIu64, k,
             w->cpu / cpus_per_core, w->n);
    check_eq(what, w->last - w->first, 1 + 2 * w->n);
    if (bgp) continue;
    snprintf(what, sizeof what, "thread %d threshold set", k);
    check_eq(what, (uint64_t)-w->overflow_error, 0);
    snprintf(what, sizeof what, "thread %d calls == floor(count / period), count %" PRIu64, k,
             w->count);
    check_eq(what, (uint64_t)w->calls, w->count / kPeriod);
    snprintf(what, sizeof what, "thread %d interrupts == calls", k);
    check_eq(what, w->signals, (uint64_t)w->calls);
    snprintf(what, sizeof what, "thread %d handler calls on another thread", k);
    check_eq(what, (uint64_t)w->foreign_calls, 0);
  }
  return finish();
}
