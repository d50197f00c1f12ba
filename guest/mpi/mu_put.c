/* The message unit's direct puts, remote gets and routing flags driven directly
 * (src/net/message_unit.h), for the many-node tests: run on 2 or more nodes. Each node, in order:
 *   - fills its table (bytes that say whose it is), sets its put counter to what the others will
 *     send it, and tells every other node it is ready (memory-FIFO messages);
 *   - puts `bytes` bytes into every other node's inbox, routed dynamically, and sleeps until its
 *     own counter reaches zero: every put it was sent has landed; checks each inbox;
 *   - asks the next node, with a remote get on the priority channel, to put its table into this
 *     node's `got`, and checks it when that counter reaches zero;
 *   - sends three descriptors the unit must refuse (an unknown flag, dynamic and priority
 *     together, a remote get that is not whole descriptors);
 *   - tells every node it is done, on the system channel, and waits for all of them (so no get
 *     finds its server gone); then once more on the escape channel (so no system message is
 *     still on its way through a node that has ended). */
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

enum { MAX_NODES = 16, MAX_BYTES = 16384, TABLE_BYTES = 3000 };
typedef hpm_mu_descriptor descriptor;

static volatile uint64_t* mu;
static descriptor inj[16] __attribute__((aligned(64)));
static uint8_t rec[8192] __attribute__((aligned(64)));
static volatile uint64_t tail_word;
static uint64_t head, posted;
static uint8_t block[MAX_BYTES];
static uint8_t inbox[MAX_NODES][MAX_BYTES];
static uint8_t table[TABLE_BYTES], got[TABLE_BYTES];
static volatile uint64_t put_counter, get_counter;
static descriptor get_request __attribute__((aligned(64)));

static uint64_t reg(unsigned o) {
  return mu[o / 8];
}
static void set(unsigned o, uint64_t v) {
  mu[o / 8] = v;
}

static void post(const descriptor* d) {
  while (posted - reg(HPM_MU_INJ_DONE) >= 16) {
  }
  inj[posted % 16] = *d;
  set(HPM_MU_INJ_TAIL, ++posted);
}

static void message(uint32_t dest, uint32_t tag) {
  descriptor d = {0};
  d.dest = dest;
  d.flags = tag == 2 ? HPM_MU_SYSTEM : 0; /* (the last messages on the system channel) */
  memcpy(d.sw, &tag, 4);
  post(&d);
}

/* The next memory-FIFO message's tag, sleeping until one is there. */
static uint32_t next_tag(void) {
  for (;;) {
    while (head == tail_word) syscall(SYS_futex, &tail_word, FUTEX_WAIT, (uint32_t)head, 0, 0, 0);
    const uint64_t pos = head % sizeof rec;
    uint32_t h[2], tag;
    memcpy(h, rec + pos, sizeof h);
    if (h[1] == HPM_MU_SKIP) {
      head += sizeof rec - pos;
      set(HPM_MU_REC_HEAD, head);
      continue;
    }
    memcpy(&tag, rec + pos + 16, 4);
    head += reg(HPM_MU_HEADER_BYTES) + ((h[1] + 31) & ~31u);
    set(HPM_MU_REC_HEAD, head);
    return tag;
  }
}

/* Reads messages until `count` of tag `tag` have come (messages of a later phase may come
 * first from a faster node: they are counted too). */
static int seen[4];
static void wait_for(uint32_t tag, int count) {
  while (seen[tag] < count) {
    const uint32_t t = next_tag();
    if (t < 4) ++seen[t];
  }
}

static void wait_zero(volatile uint64_t* counter) {
  for (uint64_t v; (v = *counter) != 0;) {
    syscall(SYS_futex, counter, FUTEX_WAIT, (uint32_t)v, 0, 0, 0);
  }
}

static uint8_t pattern(int owner, int to, int i) {
  return (uint8_t)(owner * 31 + to * 7 + i * 13 + (i >> 8));
}

int main(int argc, char** argv) {
  const int bytes = argc > 1 ? atoi(argv[1]) : 4096;
  const int fd = open("/dev/hpm/mu", O_RDWR);
  if (fd < 0 || bytes <= 0 || bytes > MAX_BYTES) return 2;
  mu = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int rank = (int)reg(HPM_MU_RANK), nodes = (int)reg(HPM_MU_NODES);
  if (nodes > MAX_NODES) return 2;
  set(HPM_MU_INJ_BASE, (uint64_t)(uintptr_t)inj);
  set(HPM_MU_INJ_ENTRIES, 16);
  set(HPM_MU_REC_BASE, (uint64_t)(uintptr_t)rec);
  set(HPM_MU_REC_BYTES, sizeof rec);
  set(HPM_MU_REC_TAIL_ADDR, (uint64_t)(uintptr_t)&tail_word);

  for (int i = 0; i < TABLE_BYTES; ++i) table[i] = pattern(rank, 99, i);
  put_counter = (uint64_t)(nodes - 1) * (uint64_t)bytes;
  for (int n = 0; n < nodes; ++n) {
    if (n != rank) message((uint32_t)n, 1);
  }
  wait_for(1, nodes - 1);

  /* Direct puts to every other node, dynamically routed, from one block each. */
  for (int k = 1; k < nodes; ++k) {
    const int to = (rank + k) % nodes;
    while (posted != reg(HPM_MU_INJ_DONE)) {
    } /* (the block is reused) */
    for (int i = 0; i < bytes; ++i) block[i] = pattern(rank, to, i);
    descriptor d = {0};
    d.dest = (uint32_t)to;
    d.flags = HPM_MU_DIRECT_PUT | HPM_MU_DYNAMIC;
    d.payload = (uint64_t)(uintptr_t)block;
    d.bytes = (uint64_t)bytes;
    d.put = (uint64_t)(uintptr_t)inbox[rank];
    d.counter = (uint64_t)(uintptr_t)&put_counter;
    post(&d);
  }
  wait_zero(&put_counter);
  int ok = 1;
  for (int n = 0; n < nodes; ++n) {
    if (n == rank) continue;
    for (int i = 0; i < bytes; ++i) ok &= inbox[n][i] == pattern(n, rank, i);
  }
  printf("rank %d: %d direct puts of %d bytes landed intact, counter %llu: %s\n", rank, nodes - 1,
         bytes, (unsigned long long)put_counter, ok ? "yes" : "NO");

  /* A remote get: the next node puts its table into `got`. */
  const int server = (rank + 1) % nodes;
  get_counter = TABLE_BYTES;
  memset(&get_request, 0, sizeof get_request);
  get_request.dest = (uint32_t)rank;
  get_request.flags = HPM_MU_DIRECT_PUT;
  get_request.payload = (uint64_t)(uintptr_t)table; /* (the same address on every node) */
  get_request.bytes = TABLE_BYTES;
  get_request.put = (uint64_t)(uintptr_t)got;
  get_request.counter = (uint64_t)(uintptr_t)&get_counter;
  descriptor g = {0};
  g.dest = (uint32_t)server;
  g.flags = HPM_MU_REMOTE_GET | HPM_MU_PRIORITY;
  g.payload = (uint64_t)(uintptr_t)&get_request;
  g.bytes = sizeof get_request;
  post(&g);
  wait_zero(&get_counter);
  ok = 1;
  for (int i = 0; i < TABLE_BYTES; ++i) ok &= got[i] == pattern(server, 99, i);
  printf("rank %d: remote get of node %d's table: %s\n", rank, server, ok ? "intact" : "WRONG");

  const uint64_t errors = reg(HPM_MU_INJ_ERRORS);
  descriptor bad = {0};
  bad.dest = (uint32_t)server;
  bad.flags = 1u << 30; /* (a flag the unit does not define: bit 5 is bgq's collective flag) */
  post(&bad);
  bad.flags = HPM_MU_DYNAMIC | HPM_MU_PRIORITY;
  post(&bad);
  bad.flags = HPM_MU_REMOTE_GET;
  bad.payload = (uint64_t)(uintptr_t)table;
  bad.bytes = 10;
  post(&bad);
  while (posted != reg(HPM_MU_INJ_DONE)) {
  }
  printf("rank %d: refused %llu bad descriptors\n", rank,
         (unsigned long long)(reg(HPM_MU_INJ_ERRORS) - errors));

  for (int n = 0; n < nodes; ++n) {
    if (n != rank) message((uint32_t)n, 2);
  }
  wait_for(2, nodes - 1);
  /* A last round on the escape channel: every system message has landed everywhere (and passed
   * every node on its way) before any node ends, so every link counter saw it. */
  for (int n = 0; n < nodes; ++n) {
    if (n != rank) message((uint32_t)n, 3);
  }
  wait_for(3, nodes - 1);
  return 0;
}
