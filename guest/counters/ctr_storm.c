/* Random register traffic on every counter unit of the machine: loads and stores of random
 * values at random offsets of each mapped register window (aligned and not, 1 to 8 bytes,
 * reserved registers included), with work between them that makes events, and the units'
 * interrupts delivered to a handler that answers with more random stores. The units must take
 * all of it as the hardware does (docs/upc.md, docs/upcq.md: a write to a reserved or read-only
 * register is ignored, a narrow store merges into its register): never an internal error, a
 * crash, a hang or a result that changes between runs. Prints a digest of everything read.
 *
 *   ctr_storm [SEED [ACCESSES]]        (defaults 1 and 20000)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"  // guest/tests: Rng

enum { kMaxUnits = 20 };

typedef struct {
  volatile uint8_t* base;
  uint64_t size;
} Window;

static Window windows[kMaxUnits];
static int unit_count;
static Rng rng;
static uint64_t digest = 0xcbf29ce484222325ull;
static volatile uint64_t interrupts;

static void mix(uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    digest ^= (v >> (8 * i)) & 0xff;
    digest *= 0x100000001b3ull;
  }
}

/* Values that reach the interesting bits of the units' registers: small numbers (counter and
 * input indices, modes), single bits, all ones, thresholds just below a power of two, anything. */
static uint64_t value(void) {
  switch (rng_next(&rng) % 6) {
    case 0: return rng_next(&rng) % 1024;
    case 1: return 1ull << (rng_next(&rng) % 64);
    case 2: return ~0ull;
    case 3: return (1ull << (rng_next(&rng) % 20)) - 1 - rng_next(&rng) % 4;
    case 4: return 0;
    default: return rng_next(&rng);
  }
}

/* One access: a load or a store of 1, 2, 4 or 8 bytes at a random offset, aligned to its size
 * (an access straddling two registers is a bus error, which would end the program). */
static void access_one(void) {
  const Window* w = &windows[rng_next(&rng) % unit_count];
  const unsigned size = 1u << (rng_next(&rng) % 4);
  uint64_t offset = rng_next(&rng) % w->size;
  offset &= ~(uint64_t)(size - 1); /* within one register */
  volatile uint8_t* p = w->base + offset;
  const int store = rng_next(&rng) % 2;
  const uint64_t v = value();
  switch (size) {
    case 1:
      if (store)
        *p = (uint8_t)v;
      else
        mix(*p);
      break;
    case 2:
      if (store)
        *(volatile uint16_t*)p = (uint16_t)v;
      else
        mix(*(volatile uint16_t*)p);
      break;
    case 4:
      if (store)
        *(volatile uint32_t*)p = (uint32_t)v;
      else
        mix(*(volatile uint32_t*)p);
      break;
    default:
      if (store)
        *(volatile uint64_t*)p = v;
      else
        mix(*(volatile uint64_t*)p);
      break;
  }
}

static void on_interrupt(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)info;
  (void)context;
  ++interrupts;
  /* Acknowledge, or not, or reprogram: whatever random stores do. */
  for (int i = 0; i < 4; ++i) access_one();
}

static void open_unit(const char* path) {
  const int fd = open(path, O_RDWR);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0) exit(2);
  void* m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) exit(3);
  /* Every unit interrupts this thread. */
  if (ioctl(fd, 0x48500001, SIGRTMIN + 1) != 0) exit(4);
  windows[unit_count].base = (volatile uint8_t*)m;
  windows[unit_count].size = (uint64_t)st.st_size;
  ++unit_count;
}

int main(int argc, char** argv) {
  const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
  const long accesses = argc > 2 ? strtol(argv[2], NULL, 0) : 20000;
  rng.state = seed * 0x9E3779B97F4A7C15ull + 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_interrupt;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGRTMIN + 1, &sa, NULL);
  open_unit("/dev/hpm/upc");
  char path[32];
  for (int k = 0; k < 16; ++k) {
    snprintf(path, sizeof path, "/dev/hpm/punit%d", k);
    open_unit(path);
  }
  open_unit("/dev/hpm/l2");
  open_unit("/dev/hpm/io");
  open_unit("/dev/hpm/cnk");
  if (unit_count == 0) {
    printf("no counter unit\n");
    return 1;
  }
  volatile double x = 1.0;
  for (long i = 0; i < accesses; ++i) {
    access_one();
    /* Work between accesses: integer and FP operations, loads and stores, a system call now
     * and then (events for every unit kind). */
    const unsigned work = (unsigned)(rng_next(&rng) % 64);
    for (unsigned j = 0; j < work; ++j) x = x * 1.0000001 + 1e-9;
    if (i % 1000 == 0) (void)getppid();
  }
  printf("ctr_storm seed %llu: %d units, %ld accesses, %llu interrupts, digest %016llx\n",
         (unsigned long long)seed, unit_count, accesses, (unsigned long long)interrupts,
         (unsigned long long)digest);
  return 0;
}
