/* A hostile guest of the message unit (issue 39: the host's memory and time stay bounded
 * whatever the guest writes). Run on 2 nodes with one scenario:
 *   tail   INJ_TAIL written far past any ring: 2^40 with no ring, then 2^24 on a 64-entry ring
 *          of refused descriptors; prints what INJ_ERRORS, INJ_DONE and INJ_TAIL read then.
 *   huge   node 0 posts a 4 GiB descriptor whose payload is unmapped (refused), then one of
 *          4 GiB over a mapped region to node 1, which never drains its small FIFO.
 *   flood  node 1 sends node 0 64 KiB messages for MSECS simulated milliseconds while node 0
 *          never drains its 1 KiB FIFO.
 *   gets   each node sends the other remote gets whose descriptors are remote gets back, a
 *          chain that would fan out eightfold at every hop, for MSECS milliseconds.
 * Every scenario ends by itself after MSECS simulated milliseconds (default 20) with exit 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hpm/mu.h"

typedef hpm_mu_descriptor descriptor;

static volatile uint64_t* mu; /* the unit's registers, by offset / 8 */
#define reg(offset) mu[(offset) / 8]
#define set(offset, value) (mu[(offset) / 8] = (value))

static descriptor ring[64] __attribute__((aligned(64))), chain[8] __attribute__((aligned(64)));
static uint8_t rec[1024] __attribute__((aligned(64)));
static volatile uint64_t tail_word;
static uint64_t posted;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Posts `d` when the ring has room before `deadline`; returns whether it did. */
static int post(const descriptor* d, double deadline) {
  while (posted - reg(HPM_MU_INJ_DONE) >= 64) {
    if (now_ms() > deadline) return 0;
  }
  ring[posted % 64] = *d;
  set(HPM_MU_INJ_TAIL, ++posted);
  return 1;
}

static void sleep_until(double deadline) {
  while (now_ms() < deadline) {
    struct timespec t = {0, 100000};
    nanosleep(&t, NULL);
  }
}

int main(int argc, char** argv) {
  const char* scenario = argc > 1 ? argv[1] : "tail";
  const double msecs = argc > 2 ? atof(argv[2]) : 20;
  mu = hpm_mu_map();
  if (mu == NULL) return 2;
  const int rank = (int)reg(HPM_MU_RANK);
  const double deadline = now_ms() + msecs;
  set(HPM_MU_REC_BASE, (uint64_t)(uintptr_t)rec);
  set(HPM_MU_REC_BYTES, sizeof rec);
  set(HPM_MU_REC_TAIL_ADDR, (uint64_t)(uintptr_t)&tail_word);

  if (strcmp(scenario, "tail") == 0) {
    set(HPM_MU_INJ_TAIL, (uint64_t)1 << 40); /* no ring at all */
    printf("rank %d: no ring: errors %llu, done %llu, tail %llu\n", rank,
           (unsigned long long)reg(HPM_MU_INJ_ERRORS), (unsigned long long)reg(HPM_MU_INJ_DONE),
           (unsigned long long)reg(HPM_MU_INJ_TAIL));
    for (int i = 0; i < 64; ++i) ring[i].dest = 99; /* no such node: each refused */
    set(HPM_MU_INJ_BASE, (uint64_t)(uintptr_t)ring);
    set(HPM_MU_INJ_ENTRIES, 64);
    const uint64_t from = reg(HPM_MU_INJ_TAIL);
    set(HPM_MU_INJ_TAIL, from + ((uint64_t)1 << 24));
    printf("rank %d: 64-entry ring: errors %llu, done %llu, tail %llu\n", rank,
           (unsigned long long)(reg(HPM_MU_INJ_ERRORS)), (unsigned long long)reg(HPM_MU_INJ_DONE),
           (unsigned long long)reg(HPM_MU_INJ_TAIL));
    set(HPM_MU_INJ_ENTRIES, (uint64_t)1 << 40);
    printf("rank %d: a ring of 2^40 entries reads back as %llu\n", rank,
           (unsigned long long)reg(HPM_MU_INJ_ENTRIES));
    return 0;
  }

  set(HPM_MU_INJ_BASE, (uint64_t)(uintptr_t)ring);
  set(HPM_MU_INJ_ENTRIES, 64);
  descriptor d;
  memset(&d, 0, sizeof d);
  if (strcmp(scenario, "huge") == 0) {
    if (rank == 0) {
      d.dest = 1;
      d.payload = 0x10000; /* nothing mapped there */
      d.bytes = (uint64_t)4 << 30;
      post(&d, deadline);
      const size_t size = (size_t)4 << 30;
      void* big = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (big == MAP_FAILED) {
        printf("rank 0: no 4 GiB mapping\n");
        return 1;
      }
      d.payload = (uint64_t)(uintptr_t)big;
      post(&d, deadline);
      printf("rank 0: refused %llu of 2 descriptors of 4 GiB\n",
             (unsigned long long)reg(HPM_MU_INJ_ERRORS));
      sleep_until(deadline);
      printf("rank 0: done %llu of 2 after %g ms\n", (unsigned long long)reg(HPM_MU_INJ_DONE),
             msecs);
    } else {
      sleep_until(deadline);
    }
    return 0;
  }
  if (strcmp(scenario, "flood") == 0) {
    if (rank == 1) {
      static uint8_t buf[65536];
      d.dest = 0;
      d.payload = (uint64_t)(uintptr_t)buf;
      d.bytes = sizeof buf;
      uint64_t sent = 0;
      while (now_ms() < deadline && post(&d, deadline)) ++sent;
      printf("rank 1: posted %llu messages of 64 KiB, %llu done, in %g ms\n",
             (unsigned long long)sent, (unsigned long long)reg(HPM_MU_INJ_DONE), msecs);
    } else {
      sleep_until(deadline); /* never drains its FIFO */
    }
    return 0;
  }
  if (strcmp(scenario, "gets") == 0) {
    /* Each chain entry: a remote get to the other node whose payload is this same chain (the
     * same address on every node). */
    for (int i = 0; i < 8; ++i) {
      chain[i].dest = (uint32_t)(rank ^ 1);
      chain[i].flags = HPM_MU_REMOTE_GET;
      chain[i].payload = (uint64_t)(uintptr_t)chain;
      chain[i].bytes = sizeof chain;
    }
    d = chain[0];
    post(&d, deadline);
    sleep_until(deadline);
    printf("rank %d: chain started\n", rank);
    return 0;
  }
  fprintf(stderr, "mu_hostile: unknown scenario '%s' (tail, huge, flood, gets)\n", scenario);
  return 2;
}
