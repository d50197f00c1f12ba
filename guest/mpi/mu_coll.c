/* The message unit's collective descriptors and GI barriers used directly (src/net/message_unit.h,
 * network.collectives: bgq), for the many-node tests. Each node checks and prints, in order:
 *   - which class routes are set up (CLASSES) and COLL_MPI;
 *   - all-reduces of unsigned 64-bit sums over two packets, signed 32-bit min and max, and
 *     double sums whose exact value needs more than a double's bits at each step (the routers add
 *     exactly and round once: the sum printed is the same whatever the order of arrival);
 *   - a broadcast from the last node, reaching every node, its sender too;
 *   - a reduce to node nodes / 2: only that node receives a packet;
 *   - malformed collective descriptors refused (INJ_ERRORS and each one's status): a class not set
 *     up, a floating-point op on 4-byte words, bytes not whole words, a direct put, a routing flag;
 *   - three GI barriers on the world's class;
 *   - class route register writes refused (CLASS_ERRORS): the kernel's classes 0, 14 and GI 15,
 *     an empty box, an unknown bit; then collective and GI class 5 set to the world's box
 *     rooted at node 0 (CLASSES shows them), a GI barrier on it, and both cleared. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
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

static hpm_mu_descriptor inj[8] __attribute__((aligned(64)));
static uint8_t rec[8192] __attribute__((aligned(64)));
static volatile uint64_t tail_word, gi_word;
static uint64_t head, posted;

static hpm_mu_descriptor* post(uint32_t flags, uint32_t dest, const void* data, uint64_t bytes) {
  while (posted - reg(HPM_MU_INJ_DONE) >= 8) {
  }
  hpm_mu_descriptor* d = &inj[posted % 8];
  memset(d, 0, sizeof *d);
  d->dest = dest;
  d->flags = flags;
  d->payload = (uint64_t)(uintptr_t)data;
  d->bytes = bytes;
  set(HPM_MU_INJ_TAIL, ++posted);
  return d;
}

/* The next packet's payload appended at `out` (returns its bytes; *src its header's source). */
static uint32_t receive(uint8_t* out, uint32_t* src) {
  for (;;) {
    while (head == tail_word) syscall(SYS_futex, &tail_word, FUTEX_WAIT, (uint32_t)head, 0, 0, 0);
    const uint64_t pos = head % sizeof rec;
    uint32_t h[2];
    memcpy(h, rec + pos, sizeof h);
    if (h[1] == HPM_MU_SKIP) {
      head += sizeof rec - pos;
      set(HPM_MU_REC_HEAD, head);
      continue;
    }
    *src = h[0];
    memcpy(out, rec + pos + reg(HPM_MU_HEADER_BYTES), h[1]);
    head += reg(HPM_MU_HEADER_BYTES) + ((h[1] + 31) & ~31u);
    set(HPM_MU_REC_HEAD, head);
    return h[1];
  }
}

/* A collective of `bytes` bytes from `in`; its result (every packet of it) into `out`. */
static void collective(uint32_t flags, uint32_t dest, const void* in, void* out, uint64_t bytes,
                       int receives) {
  post(flags, dest, in, bytes);
  uint64_t got = 0;
  uint32_t src;
  while (receives && got < bytes) got += receive((uint8_t*)out + got, &src);
}

int main(void) {
  const int fd = open("/dev/hpm/mu", O_RDWR);
  if (fd < 0) return 2;
  mu = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mu == MAP_FAILED) return 2;
  const unsigned rank = (unsigned)reg(HPM_MU_RANK), nodes = (unsigned)reg(HPM_MU_NODES);
  set(HPM_MU_INJ_BASE, (uint64_t)(uintptr_t)inj);
  set(HPM_MU_INJ_ENTRIES, 8);
  set(HPM_MU_REC_BASE, (uint64_t)(uintptr_t)rec);
  set(HPM_MU_REC_BYTES, sizeof rec);
  set(HPM_MU_REC_TAIL_ADDR, (uint64_t)(uintptr_t)&tail_word);
  set(HPM_MU_GI_NOTIFY_ADDR, (uint64_t)(uintptr_t)&gi_word);
  printf("classes %#llx mpi %llu\n", (unsigned long long)reg(HPM_MU_CLASSES),
         (unsigned long long)reg(HPM_MU_COLL_MPI));

  /* Unsigned 64-bit sums over 75 words: two packets (512 + 88 bytes). */
  static uint64_t words[75], sums[75];
  for (unsigned i = 0; i < 75; ++i)
    words[i] = (uint64_t)(rank + 1) * (i + 1) + (i == 74 ? ~0ull : 0);
  collective(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_UNSIGNED_ADD, 1), 0, words, sums,
             sizeof words, 1);
  printf("sum %llu %llu %llu\n", (unsigned long long)sums[0], (unsigned long long)sums[1],
         (unsigned long long)sums[74]);

  /* Signed 32-bit min and max. */
  int32_t v[8], r[8];
  for (int i = 0; i < 8; ++i) v[i] = (int32_t)((rank * 7 + (unsigned)i * 3) % 11) - 5;
  collective(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_SIGNED_MIN, 0), 0, v, r, sizeof v, 1);
  printf("min %d %d %d\n", r[0], r[1], r[7]);
  collective(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_SIGNED_MAX, 0), 0, v, r, sizeof v, 1);
  printf("max %d %d %d\n", r[0], r[1], r[7]);

  /* Double sums: 1e16 and -1e16 alternately with small parts (a node's order of arrival would
   * change a sum rounded at each addition). */
  double d[4], ds[4];
  d[0] = (rank % 2 ? -1e16 : 1e16) + 0.25 * rank;
  d[1] = 0.1 * (rank + 1);
  d[2] = rank == 0 ? 1.0 : 0x1p-53;
  d[3] = -(double)rank;
  collective(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_FLOAT_ADD, 1), 0, d, ds, sizeof d, 1);
  uint64_t bits[4];
  memcpy(bits, ds, sizeof bits);
  printf("fsum %016llx %016llx %016llx %016llx\n", (unsigned long long)bits[0],
         (unsigned long long)bits[1], (unsigned long long)bits[2], (unsigned long long)bits[3]);
  collective(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_FLOAT_MAX, 1), 0, d, ds, sizeof d, 1);
  printf("fmax %g %g\n", ds[1], ds[3]);

  /* A broadcast from the last node: only it injects; every node receives. */
  uint64_t msg[4] = {0x1111, 0x2222, rank, 0x4444}, got[4];
  const int root = rank == nodes - 1;
  if (root) post(HPM_MU_COLL(0, HPM_MU_BROADCAST, 0, 0), 0, msg, sizeof msg);
  {
    uint64_t have = 0;
    uint32_t src;
    while (have < sizeof got) have += receive((uint8_t*)got + have, &src);
    printf("bcast %llx %llx from %llu (source %u)\n", (unsigned long long)got[0],
           (unsigned long long)got[1], (unsigned long long)got[2], src);
  }

  /* A reduce (unsigned max) to node nodes / 2. */
  uint64_t mine = 100 + rank, most = 0;
  collective(HPM_MU_COLL(0, HPM_MU_REDUCE, HPM_MU_OP_UNSIGNED_MAX, 1), nodes / 2, &mine, &most, 8,
             rank == nodes / 2);
  if (rank == nodes / 2) printf("reduce %llu\n", (unsigned long long)most);

  /* Malformed collective descriptors: each refused. */
  const uint64_t errors = reg(HPM_MU_INJ_ERRORS);
  hpm_mu_descriptor* bad[5];
  bad[0] = post(HPM_MU_COLL(3, HPM_MU_ALLREDUCE, HPM_MU_OP_OR, 1), 0, words, 8);
  bad[1] = post(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_FLOAT_ADD, 0), 0, words, 8);
  bad[2] = post(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_OR, 1), 0, words, 12);
  bad[3] = post(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_OR, 1) | HPM_MU_DIRECT_PUT, 0, words, 8);
  bad[4] = post(HPM_MU_COLL(0, HPM_MU_ALLREDUCE, HPM_MU_OP_OR, 1) | HPM_MU_DYNAMIC, 0, words, 8);
  printf("refused %llu:", (unsigned long long)(reg(HPM_MU_INJ_ERRORS) - errors));
  for (int i = 0; i < 5; ++i) printf(" %llu", (unsigned long long)bad[i]->status);
  printf("\n");

  /* GI barriers on the world's class. */
  const uint64_t before = reg(HPM_MU_GI_DONE);
  for (uint64_t k = 1; k <= 3; ++k) {
    set(HPM_MU_GI_ARM, HPM_MU_WORLD_CLASS);
    for (;;) {
      const uint64_t seen = gi_word;
      if (reg(HPM_MU_GI_DONE) - before >= k) break;
      syscall(SYS_futex, &gi_word, FUTEX_WAIT, (uint32_t)seen, 0, 0, 0);
    }
  }
  printf("barriers %llu\n", (unsigned long long)(reg(HPM_MU_GI_DONE) - before));

  /* Class route registers. */
  set(HPM_MU_CLASS_LOW, 0);
  set(HPM_MU_CLASS_SIZE, reg(HPM_MU_SHAPE));
  set(HPM_MU_CLASS_ROOT, 0);
  set(HPM_MU_CLASS_SET, HPM_MU_WORLD_CLASS);
  set(HPM_MU_CLASS_SET, HPM_MU_SYSTEM_CLASS);
  set(HPM_MU_CLASS_SET, 15 | HPM_MU_CLASS_GI);
  set(HPM_MU_CLASS_SET, 5 | 64);
  set(HPM_MU_CLASS_SIZE, 0);
  set(HPM_MU_CLASS_SET, 5);
  const uint64_t class_errors = reg(HPM_MU_CLASS_ERRORS);
  set(HPM_MU_CLASS_SIZE, reg(HPM_MU_SHAPE));
  set(HPM_MU_CLASS_SET, 5);
  set(HPM_MU_CLASS_SET, 5 | HPM_MU_CLASS_GI);
  const uint64_t with = reg(HPM_MU_CLASSES), gi_before = reg(HPM_MU_GI_DONE + 8 * 5);
  set(HPM_MU_GI_ARM, 5);
  for (;;) {
    const uint64_t seen = gi_word;
    if (reg(HPM_MU_GI_DONE + 8 * 5) != gi_before) break;
    syscall(SYS_futex, &gi_word, FUTEX_WAIT, (uint32_t)seen, 0, 0, 0);
  }
  set(HPM_MU_CLASS_SET, 5 | HPM_MU_CLASS_CLEAR);
  set(HPM_MU_CLASS_SET, 5 | HPM_MU_CLASS_GI | HPM_MU_CLASS_CLEAR);
  printf("class errors %llu, set %#llx, barrier %llu, cleared %#llx\n",
         (unsigned long long)class_errors, (unsigned long long)with,
         (unsigned long long)(reg(HPM_MU_GI_DONE + 8 * 5) - gi_before),
         (unsigned long long)reg(HPM_MU_CLASSES));
  return 0;
}
