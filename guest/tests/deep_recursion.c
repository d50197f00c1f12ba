// Deep recursion on the default 8 MiB stack: a non-tail-recursive function 100000 frames deep
// (each frame about 48 bytes, so ~5 MB of stack; the stack pages are touched one by one and
// must be grown or pre-mapped by the kernel), mutual recursion, and an Ackermann function whose
// call tree is deep and irregular.
#include "common.h"

// noinline and the work after the call keep the compiler from turning this into a loop.
__attribute__((noinline)) static uint64_t depth_sum(uint64_t n, volatile uint64_t* sink) {
  if (n == 0) return 0;
  uint64_t below = depth_sum(n - 1, sink);
  *sink += n;
  return below + (n ^ (below >> 3));
}

__attribute__((noinline)) static int is_odd(unsigned n);
__attribute__((noinline)) static int is_even(unsigned n) {
  return n == 0 ? 1 : is_odd(n - 1);
}
__attribute__((noinline)) static int is_odd(unsigned n) {
  return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) static unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

int main(void) {
  volatile uint64_t sink = 0;
  uint64_t r = depth_sum(100000, &sink);
  printf("depth 100000: result=%llu sink=%llu\n", (unsigned long long)r, (unsigned long long)sink);
  printf("is_even(50001)=%d is_odd(50001)=%d\n", is_even(50001), is_odd(50001));
  printf("ackermann(2, 300)=%u ackermann(3, 6)=%u\n", ackermann(2, 300), ackermann(3, 6));
  return 0;
}
