// Much distinct code: 4,096 small functions (4^6, made by the preprocessor), each called
// through a table in two passes, the second in another order. Its decoded code (some 1.5 MiB)
// passes a small code cache (kernel.code_cache_mib=1) several times, so the cache starts again
// empty mid-run while the program must still compute exactly what qemu-riscv64 computes.
#include <stdint.h>
#include <stdio.h>

typedef uint64_t (*Step)(uint64_t);

// Each function mixes its own constant in, so no two compile to the same code (and none can be
// merged by the linker).
#define F(n)                                                   \
  __attribute__((noinline)) static uint64_t f##n(uint64_t x) { \
    x = x * 0x9e3779b97f4a7c15ull + 0x##n##ull;                \
    x ^= x >> 29;                                              \
    x = x * 0xbf58476d1ce4e5b9ull + (0x##n##ull >> 3);         \
    x ^= x >> 31;                                              \
    x = x * 0x94d049bb133111ebull + (0x##n##ull >> 5);         \
    return x ^ (x >> 27);                                      \
  }
#define D1(n) F(n##0) F(n##1) F(n##2) F(n##3)
#define D2(n) D1(n##0) D1(n##1) D1(n##2) D1(n##3)
#define D3(n) D2(n##0) D2(n##1) D2(n##2) D2(n##3)
#define D4(n) D3(n##0) D3(n##1) D3(n##2) D3(n##3)
#define D5(n) D4(n##0) D4(n##1) D4(n##2) D4(n##3)
#define D6(n) D5(n##0) D5(n##1) D5(n##2) D5(n##3)
D6(1)

#define T(n) f##n,
#define E1(n) T(n##0) T(n##1) T(n##2) T(n##3)
#define E2(n) E1(n##0) E1(n##1) E1(n##2) E1(n##3)
#define E3(n) E2(n##0) E2(n##1) E2(n##2) E2(n##3)
#define E4(n) E3(n##0) E3(n##1) E3(n##2) E3(n##3)
#define E5(n) E4(n##0) E4(n##1) E4(n##2) E4(n##3)
#define E6(n) E5(n##0) E5(n##1) E5(n##2) E5(n##3)
static const Step steps[] = {E6(1)};

enum { kSteps = sizeof steps / sizeof steps[0] };

int main(void) {
  uint64_t x = 1;
  for (unsigned i = 0; i < kSteps; ++i) x = steps[i](x);
  const uint64_t first = x;
  // The second pass visits the functions in a stride order (5,003 is odd, so coprime to 4^6).
  for (unsigned i = 0; i < kSteps; ++i) x = steps[(i * 5003u) % kSteps](x);
  printf("%u functions: after one pass %016llx, after two %016llx\n", (unsigned)kSteps,
         (unsigned long long)first, (unsigned long long)x);
  return 0;
}
