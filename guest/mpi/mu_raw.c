/* The message unit's registers used directly (src/net/message_unit.h), for the many-node
 * tests: run on 2 nodes. Each node checks and prints, in order:
 *   - its identity registers (rank, nodes, dimensions, shape, coordinates, sizes);
 *   - a descriptor to a node that does not exist is refused: INJ_ERRORS counts it and INJ_DONE
 *     passes it; a write to an offset with no register changes nothing;
 *   - 1-, 2- and 4-byte stores to its registers change nothing (they take whole stores only):
 *     none injects a descriptor, moves the reception head or changes a FIFO's address;
 *   - a message to itself arrives through the unit alone;
 *   - node 1 sends node 0 `count` messages of 100..(100 + count - 1) bytes while node 0's
 *     reception FIFO holds only 1 KiB: the packets wait in the unit until node 0 frees room,
 *     arrive in order and intact, and packets that would cross the FIFO's end come after a
 *     skip header. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpm/mu.h"

static volatile uint64_t* mu;
static uint64_t reg(unsigned o) {
  return mu[o / 8];
}
static void set(unsigned o, uint64_t v) {
  mu[o / 8] = v;
}

typedef hpm_mu_descriptor descriptor;

static descriptor inj[8] __attribute__((aligned(64)));
static uint8_t rec[1024] __attribute__((aligned(64)));
static volatile uint64_t tail_word;
static uint64_t head, posted;

static void send(uint32_t dest, const void* data, uint64_t bytes, uint32_t tag) {
  while (posted - reg(HPM_MU_INJ_DONE) >= 8) {
  }
  descriptor* d = &inj[posted % 8];
  memset(d, 0, sizeof *d);
  d->dest = dest;
  d->payload = (uint64_t)(uintptr_t)data;
  d->bytes = bytes;
  memcpy(d->sw, &tag, 4);
  set(HPM_MU_INJ_TAIL, ++posted);
}

/* The next packet's payload into `out` (returns its bytes; *tag its tag, *src its source),
 * sleeping until one is there; counts skip headers in *skips. */
static uint32_t receive(uint8_t* out, uint32_t* tag, uint32_t* src, int* skips) {
  for (;;) {
    while (head == tail_word) syscall(SYS_futex, &tail_word, FUTEX_WAIT, (uint32_t)head, 0, 0, 0);
    const uint64_t pos = head % sizeof rec;
    uint32_t h[4];
    memcpy(h, rec + pos, sizeof h);
    if (h[1] == HPM_MU_SKIP) {
      ++*skips;
      head += sizeof rec - pos;
      set(HPM_MU_REC_HEAD, head);
      continue;
    }
    *src = h[0];
    memcpy(tag, rec + pos + 16, 4);
    memcpy(out, rec + pos + reg(HPM_MU_HEADER_BYTES), h[1]);
    head += reg(HPM_MU_HEADER_BYTES) + ((h[1] + 31) & ~31u);
    set(HPM_MU_REC_HEAD, head);
    return h[1];
  }
}

int main(int argc, char** argv) {
  const int count = argc > 1 ? atoi(argv[1]) : 20;
  const int fd = open("/dev/hpm/mu", O_RDWR);
  if (fd < 0) return 2;
  mu = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int rank = (int)reg(HPM_MU_RANK);
  printf("rank %d of %d, %d dimensions, shape %#llx, coords %#llx, max payload %d, header %d\n",
         rank, (int)reg(HPM_MU_NODES), (int)reg(HPM_MU_DIMENSIONS),
         (unsigned long long)reg(HPM_MU_SHAPE), (unsigned long long)reg(HPM_MU_COORDS),
         (int)reg(HPM_MU_MAX_PAYLOAD), (int)reg(HPM_MU_HEADER_BYTES));
  set(HPM_MU_INJ_BASE, (uint64_t)(uintptr_t)inj);
  set(HPM_MU_INJ_ENTRIES, 8);
  set(HPM_MU_REC_BASE, (uint64_t)(uintptr_t)rec);
  set(HPM_MU_REC_BYTES, sizeof rec);
  set(HPM_MU_REC_TAIL_ADDR, (uint64_t)(uintptr_t)&tail_word);

  set(0x7f8, 12345); /* no register there */
  {
    volatile uint8_t* bytes = (volatile uint8_t*)mu;
    bytes[HPM_MU_INJ_TAIL] = 0xff;
    *(volatile uint16_t*)(bytes + HPM_MU_REC_HEAD) = 0x100;
    *(volatile uint32_t*)(bytes + HPM_MU_INJ_BASE + 4) = 0x1;
    *(volatile uint32_t*)(bytes + HPM_MU_REC_BYTES) = 0x40;
    const int unchanged = reg(HPM_MU_INJ_TAIL) == 0 && reg(HPM_MU_REC_HEAD) == 0 &&
                          reg(HPM_MU_INJ_BASE) == (uint64_t)(uintptr_t)inj &&
                          reg(HPM_MU_REC_BYTES) == sizeof rec && reg(HPM_MU_INJ_DONE) == 0;
    printf("rank %d: narrow stores changed nothing: %s\n", rank, unchanged ? "yes" : "no");
  }
  static const char nothing[8];
  send(99, nothing, 8, 0); /* no such node */
  while (reg(HPM_MU_INJ_DONE) != posted) {
  }
  printf("rank %d: refused %d, done %d, reserved reads %d\n", rank, (int)reg(HPM_MU_INJ_ERRORS),
         (int)reg(HPM_MU_INJ_DONE), (int)reg(0x7f8));

  static uint8_t buf[4096], got[4096];
  uint32_t tag = 0, src = 0;
  int skips = 0;
  const char* hello = "to myself";
  send((uint32_t)rank, hello, strlen(hello) + 1, 7);
  uint32_t n = receive(got, &tag, &src, &skips);
  printf("rank %d: %u bytes from %u, tag %u: %s\n", rank, n, src, tag, (const char*)got);

  if (rank == 1) {
    for (int m = 0; m < count; ++m) {
      for (int i = 0; i < 100 + m; ++i) buf[i] = (uint8_t)(m * 7 + i);
      send(0, buf, (uint64_t)(100 + m), (uint32_t)m);
      while (reg(HPM_MU_INJ_DONE) != posted) {
      }
    }
    printf("rank 1: sent %d messages\n", count);
  } else if (rank == 0) {
    /* Let node 1's packets pile up first: the FIFO fills and the rest wait in the unit. */
    for (volatile int spin = 0; spin < 200000; ++spin) {
    }
    int ok = 1;
    for (int m = 0; m < count; ++m) {
      n = receive(got, &tag, &src, &skips);
      ok &= n == (uint32_t)(100 + m) && tag == (uint32_t)m && src == 1;
      for (uint32_t i = 0; i < n; ++i) ok &= got[i] == (uint8_t)(m * 7 + i);
    }
    printf("rank 0: received %d messages in order and intact: %s, skip headers seen: %s\n", count,
           ok ? "yes" : "NO", skips > 0 ? "yes" : "no");
  }
  return 0;
}
