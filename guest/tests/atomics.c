// Atomics in one thread: C11 <stdatomic.h> operations of every width (fetch_add/sub/and/or/xor,
// exchange, strong and weak compare_exchange with success and failure, memory orders, atomic
// flags and fences), GCC __atomic builtins on 8-, 16-, 32- and 64-bit objects (the sub-word
// ones become LR/SC loops with masking), and hand-written LR/SC loops in inline assembly
// (an increment, a compare-and-swap that fails on a mismatch, and a bounded retry loop).
#include <stdatomic.h>
#include <stdbool.h>

#include "common.h"

static _Atomic int64_t a64 = 5;
static _Atomic int32_t a32 = -7;
static _Atomic uint16_t a16 = 0xfff0;
static _Atomic uint8_t a8 = 0x80;
static atomic_flag flag = ATOMIC_FLAG_INIT;

// LR/SC increment: retries until the store-conditional succeeds; returns the old value.
static uint64_t lrsc_fetch_add(uint64_t* p, uint64_t v) {
  uint64_t old, tmp;
  __asm__ volatile(
      "1: lr.d.aq %0, (%2)\n"
      "   add %1, %0, %3\n"
      "   sc.d.rl %1, %1, (%2)\n"
      "   bnez %1, 1b\n"
      : "=&r"(old), "=&r"(tmp)
      : "r"(p), "r"(v)
      : "memory");
  return old;
}

// LR/SC compare-and-swap on a 32-bit word: returns 0 on success, 1 if the value differed.
static int lrsc_cas32(int32_t* p, int32_t expected, int32_t desired) {
  int32_t seen;
  int fail;
  __asm__ volatile(
      "1: lr.w %0, (%2)\n"
      "   bne %0, %3, 2f\n"
      "   sc.w %1, %4, (%2)\n"
      "   bnez %1, 1b\n"
      "   j 3f\n"
      "2: li %1, 1\n"
      "3:\n"
      : "=&r"(seen), "=&r"(fail)
      : "r"(p), "r"(expected), "r"(desired)
      : "memory");
  return fail;
}

int main(void) {
  printf("fetch_add64 old=%lld\n", (long long)atomic_fetch_add(&a64, 10));
  printf("fetch_sub64 old=%lld\n",
         (long long)atomic_fetch_sub_explicit(&a64, 100, memory_order_acq_rel));
  printf("fetch_and64 old=%lld\n", (long long)atomic_fetch_and(&a64, 0x0f0f));
  printf("fetch_or64 old=%lld\n", (long long)atomic_fetch_or(&a64, INT64_MIN));
  long long xor_old = (long long)atomic_fetch_xor(&a64, -1);
  printf("fetch_xor64 old=%lld now=%lld\n", xor_old, (long long)atomic_load(&a64));
  printf("exchange32 old=%d\n", atomic_exchange(&a32, 123456));
  int32_t expected = 0;
  bool ok = atomic_compare_exchange_strong(&a32, &expected, 1);
  printf("cas32 mismatch: ok=%d expected now=%d\n", ok, expected);
  ok = atomic_compare_exchange_strong(&a32, &expected, 77);
  printf("cas32 match: ok=%d value=%d\n", ok, atomic_load_explicit(&a32, memory_order_relaxed));
  int32_t e2 = 77;
  int tries = 0;
  while (!atomic_compare_exchange_weak(&a32, &e2, 78)) ++tries;
  printf("weak cas eventually ok: value=%d\n", atomic_load(&a32));
  (void)tries;  // a weak CAS may fail spuriously; the count is not part of the output

  printf("fetch_add16 old=%u\n", (unsigned)atomic_fetch_add(&a16, 0x20));  // wraps to 0x10
  printf("a16 now=%#x\n", (unsigned)atomic_load(&a16));
  printf("fetch_or8 old=%#x\n", (unsigned)atomic_fetch_or(&a8, 0x0f));
  uint8_t e8 = 0x8f;
  ok = atomic_compare_exchange_strong(&a8, &e8, 0x11);
  printf("cas8: ok=%d value=%#x\n", ok, (unsigned)atomic_load(&a8));
  bool t1 = atomic_flag_test_and_set(&flag);
  bool t2 = atomic_flag_test_and_set(&flag);
  atomic_flag_clear(&flag);
  bool t3 = atomic_flag_test_and_set(&flag);
  printf("flag: %d %d %d\n", t1, t2, t3);
  atomic_thread_fence(memory_order_seq_cst);
  atomic_signal_fence(memory_order_seq_cst);

  // __atomic builtins on plain objects of every size (each result is taken in its own
  // statement: the order in which function arguments are evaluated is unspecified).
  uint8_t b = 250;
  uint16_t h = 65530;
  uint32_t w = 0xffffffffu;
  uint64_t d = 0x7fffffffffffffffULL;
  unsigned rb = __atomic_add_fetch(&b, 10, __ATOMIC_SEQ_CST);
  unsigned rh = __atomic_add_fetch(&h, 10, __ATOMIC_RELAXED);
  unsigned rw = __atomic_add_fetch(&w, 1, __ATOMIC_ACQUIRE);
  unsigned long long rd = __atomic_add_fetch(&d, 1, __ATOMIC_RELEASE);
  printf("__atomic_add_fetch (wrapping): %u %u %u %llu\n", rb, rh, rw, rd);
  unsigned old = __atomic_fetch_nand(&b, 0x0c, __ATOMIC_SEQ_CST);
  printf("__atomic_fetch_nand: old %u new %u\n", old, (unsigned)b);
  old = __atomic_fetch_and(&h, 0xff0f, __ATOMIC_SEQ_CST);
  printf("__atomic_fetch_and16: old %u new %u\n", old, (unsigned)h);
  old = __atomic_exchange_n(&h, 1234, __ATOMIC_SEQ_CST);
  printf("__atomic_exchange_n16: old %u new %u\n", old, (unsigned)h);
  old = __atomic_fetch_xor(&w, 0xa5a5a5a5u, __ATOMIC_ACQ_REL);
  printf("__atomic_fetch_xor32: old %u new %u\n", old, w);
  uint64_t exp64 = 1;
  ok = __atomic_compare_exchange_n(&d, &exp64, 99, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  printf("__atomic_compare_exchange_n fail: %d exp=%#llx\n", ok, (unsigned long long)exp64);
  ok = __atomic_compare_exchange_n(&d, &exp64, 99, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  printf("__atomic_compare_exchange_n ok: %d d=%llu\n", ok, (unsigned long long)d);
  unsigned char byte_flag = 0;
  bool first = __atomic_test_and_set(&byte_flag, __ATOMIC_SEQ_CST);
  bool second = __atomic_test_and_set(&byte_flag, __ATOMIC_SEQ_CST);
  printf("__atomic_test_and_set: %d %d\n", first ? 1 : 0, second ? 1 : 0);
  int32_t s32 = -5;
  int32_t before = __atomic_fetch_sub(&s32, 2147483647, __ATOMIC_SEQ_CST);  // wraps
  printf("__atomic_fetch_sub32: old %d new %d\n", before, s32);
  printf("always_lock_free 1/2/4/8: %d %d %d %d\n", __atomic_always_lock_free(1, 0),
         __atomic_always_lock_free(2, 0), __atomic_always_lock_free(4, 0),
         __atomic_always_lock_free(8, 0));

  // Hand-written LR/SC loops.
  uint64_t counter = 0;
  for (int i = 0; i < 1000; ++i) lrsc_fetch_add(&counter, (uint64_t)i);
  printf("lr/sc fetch_add total=%llu\n", (unsigned long long)counter);
  int32_t word = 10;
  int f1 = lrsc_cas32(&word, 11, 20);
  int f2 = lrsc_cas32(&word, 10, 20);
  printf("lr/sc cas: mismatch fail=%d, match fail=%d, word=%d\n", f1, f2, word);
  return 0;
}
