// Atomic memory operations and LR/SC across threads (argument: the thread count, default 8).
// Each thread, many times over: amoadd.w and amoadd.d on shared counters, an LR/SC loop that
// increments a 64-bit word, a compare-and-swap loop (GCC's __atomic_compare_exchange, itself
// LR/SC), a lock built on amoswap.w.aq/amoswap.w.rl guarding a plain counter, amomax/amomin
// with values that depend on the thread, and amoor/amoand/amoxor on a bit mask. The totals are
// exact. Then message passing: a writer fills a buffer and publishes it with a release store;
// readers that see the flag with an acquire load see the whole buffer.
#include <string.h>

#include "thread_util.h"

enum { kMaxThreads = 64, kIterations = 2000, kWords = 64 };

static int nthreads = 8;
static volatile uint32_t amo_w;
static volatile uint64_t amo_d;
static volatile uint64_t lrsc_d;
static volatile uint32_t lrsc_w;
static uint64_t cas_d;
static volatile uint32_t swap_lock;
static uint64_t locked_counter;
static volatile int64_t max_value = INT64_MIN, min_value = INT64_MAX;
static volatile uint64_t or_mask, xor_mask;
static volatile uint64_t and_mask = ~0ull;

static inline void lrsc_increment_d(volatile uint64_t* p) {
  uint64_t tmp;
  int fail;
  __asm__ volatile(
      "1: lr.d %0, (%2)\n"
      "   addi %0, %0, 1\n"
      "   sc.d %1, %0, (%2)\n"
      "   bnez %1, 1b\n"
      : "=&r"(tmp), "=&r"(fail)
      : "r"(p)
      : "memory");
}

static inline void lrsc_add_w(volatile uint32_t* p, uint32_t v) {
  uint32_t tmp;
  int fail;
  __asm__ volatile(
      "1: lr.w.aqrl %0, (%2)\n"
      "   addw %0, %0, %3\n"
      "   sc.w.aqrl %1, %0, (%2)\n"
      "   bnez %1, 1b\n"
      : "=&r"(tmp), "=&r"(fail)
      : "r"(p), "r"(v)
      : "memory");
}

static inline void swap_acquire(volatile uint32_t* lock) {
  uint32_t old;
  do {
    __asm__ volatile("amoswap.w.aq %0, %2, (%1)" : "=r"(old) : "r"(lock), "r"(1) : "memory");
  } while (old != 0);
}

static inline void swap_release(volatile uint32_t* lock) {
  __asm__ volatile("amoswap.w.rl zero, zero, (%0)" ::"r"(lock) : "memory");
}

static void* worker(void* arg) {
  int id = (int)(intptr_t)arg;
  for (int i = 0; i < kIterations; ++i) {
    __asm__ volatile("amoadd.w zero, %1, (%0)" ::"r"(&amo_w), "r"(1) : "memory");
    __asm__ volatile("amoadd.d zero, %1, (%0)" ::"r"(&amo_d), "r"((uint64_t)id + 1) : "memory");
    lrsc_increment_d(&lrsc_d);
    lrsc_add_w(&lrsc_w, 3);
    uint64_t expected = __atomic_load_n(&cas_d, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&cas_d, &expected, expected + 2, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
    }
    swap_acquire(&swap_lock);
    uint64_t v = locked_counter;
    __asm__ volatile("" ::: "memory");
    locked_counter = v + 1;
    swap_release(&swap_lock);
    int64_t value = (int64_t)(id * 1000 + i) * (id % 2 ? -1 : 1);
    __asm__ volatile("amomax.d zero, %1, (%0)" ::"r"(&max_value), "r"(value) : "memory");
    __asm__ volatile("amomin.d zero, %1, (%0)" ::"r"(&min_value), "r"(value) : "memory");
  }
  uint64_t bit = 1ull << id;
  __asm__ volatile("amoor.d zero, %1, (%0)" ::"r"(&or_mask), "r"(bit) : "memory");
  __asm__ volatile("amoand.d zero, %1, (%0)" ::"r"(&and_mask), "r"(~bit) : "memory");
  __asm__ volatile("amoxor.d zero, %1, (%0)" ::"r"(&xor_mask), "r"(bit | 1) : "memory");
  return NULL;
}

static uint64_t message[kWords];
static int published;

static void* writer(void* arg) {
  (void)arg;
  for (int i = 0; i < kWords; ++i) message[i] = 0x1000 + (uint64_t)i * i;
  __atomic_store_n(&published, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void* message_reader(void* arg) {
  (void)arg;
  while (!__atomic_load_n(&published, __ATOMIC_ACQUIRE)) sched_yield();
  int ok = 1;
  for (int i = 0; i < kWords; ++i) ok &= message[i] == 0x1000 + (uint64_t)i * i;
  return (void*)(intptr_t)ok;
}

int main(int argc, char** argv) {
  if (argc > 1) nthreads = atoi(argv[1]);
  CHECK(nthreads >= 2 && nthreads <= kMaxThreads);
  pthread_t t[kMaxThreads];
  for (int i = 0; i < nthreads; ++i) t[i] = start_thread(worker, (void*)(intptr_t)i);
  for (int i = 0; i < nthreads; ++i) join_thread(t[i]);
  const uint64_t n = (uint64_t)nthreads, iters = kIterations;
  printf("%d threads x %d iterations\n", nthreads, kIterations);
  printf("amoadd.w %u (expected %lu), amoadd.d %lu (expected %lu)\n", amo_w, n * iters, amo_d,
         iters * n * (n + 1) / 2);
  printf("lr/sc.d %lu, lr/sc.w %u, cas %lu, amoswap lock %lu\n", lrsc_d, lrsc_w, cas_d,
         locked_counter);
  printf("amomax %ld amomin %ld\n", (long)max_value, (long)min_value);
  printf("amoor %#lx amoand %#lx amoxor %#lx\n", or_mask, and_mask, xor_mask);
  CHECK(amo_w == n * iters && amo_d == iters * n * (n + 1) / 2);
  CHECK(lrsc_d == n * iters && lrsc_w == 3 * n * iters && cas_d == 2 * n * iters);
  CHECK(locked_counter == n * iters);
  uint64_t all = nthreads == 64 ? ~0ull : (1ull << nthreads) - 1;
  CHECK(or_mask == all && and_mask == ~all);
  CHECK(xor_mask == ((all & ~1ull) | (uint64_t)(nthreads % 2)));  // bit 0: toggled by all
  // Largest even id's last value; smallest: the largest odd id's last value, negated.
  int even = (nthreads - 1) % 2 == 0 ? nthreads - 1 : nthreads - 2;
  int odd = (nthreads - 1) % 2 == 1 ? nthreads - 1 : nthreads - 2;
  CHECK(max_value == even * 1000 + kIterations - 1);
  CHECK(min_value == -(int64_t)(odd * 1000 + kIterations - 1));

  pthread_t readers[3];
  for (int i = 0; i < 3; ++i) readers[i] = start_thread(message_reader, NULL);
  pthread_t w = start_thread(writer, NULL);
  int ok = 1;
  for (int i = 0; i < 3; ++i) ok &= (int)(intptr_t)join_thread(readers[i]);
  join_thread(w);
  printf("message passing with release/acquire: readers saw the whole message: %d\n", ok);
  CHECK(ok);
  return 0;
}
