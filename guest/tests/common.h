// Helpers shared by the guest behaviour tests. Each test prints deterministic output (never an
// address, a time, a host name or a random value), so that its output under hpmsim can be
// compared byte for byte with its output under qemu-riscv64; internal consistency checks exit
// with status 1 and a message on stderr naming the failed check.
#ifndef HPM_GUEST_TESTS_COMMON_H
#define HPM_GUEST_TESTS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fflush(stdout);                                                                 \
      fprintf(stderr, "CHECK failed at %s:%d: %s\n", __FILE_NAME__, __LINE__, #cond); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

// A small deterministic generator (xorshift64*), so tests need no host randomness.
typedef struct {
  uint64_t state;
} Rng;

static inline uint64_t rng_next(Rng* r) {
  uint64_t x = r->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

// A uniformly distributed value in [0, n), n > 0 (the modulo bias is irrelevant for tests).
static inline uint64_t rng_below(Rng* r, uint64_t n) {
  return rng_next(r) % n;
}

// FNV-1a over bytes: a compact, address-independent digest of a buffer.
static inline uint64_t fnv1a(const void* data, size_t len) {
  const unsigned char* p = (const unsigned char*)data;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

#endif  // HPM_GUEST_TESTS_COMMON_H
