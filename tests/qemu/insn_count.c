// insn_count: a qemu TCG plugin (plugin API version 1, as accepted by Debian's qemu-user 7.2)
// that counts executed guest instructions exactly, so that hpmsim's instruction counts can be
// checked against qemu-riscv64 on the same binaries.
//
// Usage: qemu-riscv64 -plugin /path/libhpm_qemu_insn_count.so,outfile=/tmp/count PROGRAM ARGS...
//   outfile=PATH   where to write the counts at exit (required)
//   mode=callback  (default) one call per executed instruction into a per-vCPU counter: exact for
//                  multi-threaded guests too, since qemu-user runs guest threads in parallel
//   mode=inline    an inline 64-bit add per executed instruction into one shared counter: about
//                  twice as fast, but the adds are not atomic, so it is exact only for
//                  single-threaded guests; the output says "exact 0" if a second vCPU appeared
//
// Output: at a normal exit (exit_group), the file holds text: the first line is
// "instructions N" (the total); then "exact 1" or "exact 0"; then one "vcpu I N" line per vCPU
// index that executed instructions. qemu-user gives every guest thread its own vCPU but reuses
// the index of a thread that has exited, so a vcpu line is the sum over the threads that had
// that index. When the guest dies of a signal, qemu-user 7.2 does not run the plugin's atexit
// callback, so the file then holds the raw counters instead (struct shared_counts below).
//
// What counts: an instruction is counted when it begins executing. The count is injected in
// front of each instruction's translated code, so a block that is left early (a fault, a
// signal) counts exactly the instructions that began. Consequences, verified with small
// assembly programs (li; li; FAULTING; ...) and the guest programs segfault, illegal_insn and
// ebreak:
//   - an instruction that faults (a store to an unmapped address, an illegal or all-zero
//     encoding, ebreak or c.ebreak, a misaligned AMO) IS counted, although it does not retire;
//   - every ecall is counted, including the final exit_group that never returns.
//
// Only the few API functions used here are declared below, from the v1 API's documented
// signatures (include/qemu/qemu-plugin.h of qemu 7.2), because Debian ships no plugin header.
#define _GNU_SOURCE  // for ftruncate and O_CLOEXEC under -std=c11

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// ---- The v1 plugin API, as far as used ----------------------------------------------------

#define PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;  // opaque here: nothing in it is needed
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);

void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn,
                                                enum qemu_plugin_op op, void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                      char** argv);
PLUGIN_EXPORT extern int qemu_plugin_version;

// ---- The plugin ------------------------------------------------------------------------------

PLUGIN_EXPORT int qemu_plugin_version = 1;

// vCPU indices below this get a private counter; the rare rest share an atomic one.
#define MAX_VCPUS 512

// The counters live in a MAP_SHARED mapping of the output file rather than in private memory,
// because qemu-user 7.2 does not run the plugin's atexit callback when the guest dies of a
// signal (it resets the host handler and kills itself): the kernel keeps a shared file
// mapping's contents however the process ends, so the file then holds this raw struct, and a
// normal exit replaces it with the text form. The raw layout is part of the interface (the
// comparison harness reads it): little-endian, "HPMICNT1" at offset 0, then the fields below;
// the total is inline_count + overflow_count + the sum of the vcpu counts.
//
// One cache line per vCPU, so parallel guest threads do not slow each other down by sharing.
// A vCPU index is used by one host thread at a time, so a relaxed load and store (plain moves)
// suffice; the atomics only make the final cross-thread read well defined.
struct vcpu_counter {
  _Alignas(64) _Atomic uint64_t count;
};

struct shared_counts {
  char magic[8];                        // offset 0: "HPMICNT1"
  uint32_t max_vcpus;                   // offset 8: MAX_VCPUS
  _Atomic uint32_t vcpus_seen;          // offset 12: vCPUs created (inline mode's exactness)
  uint64_t inline_count;                // offset 16: inline mode's counter (non-atomic adds)
  _Atomic uint64_t overflow_count;      // offset 24: vCPUs with an index >= MAX_VCPUS
  struct vcpu_counter vcpu[MAX_VCPUS];  // offset 64, stride 64
};

_Static_assert(offsetof(struct shared_counts, inline_count) == 16, "raw layout");
_Static_assert(offsetof(struct shared_counts, overflow_count) == 24, "raw layout");
_Static_assert(offsetof(struct shared_counts, vcpu) == 64, "raw layout");
_Static_assert(sizeof(struct vcpu_counter) == 64, "raw layout");

static struct shared_counts* counts;
static bool inline_mode;
static char* outfile;

static void count_insn(unsigned int vcpu_index, void* userdata) {
  (void)userdata;
  if (vcpu_index < MAX_VCPUS) {
    _Atomic uint64_t* c = &counts->vcpu[vcpu_index].count;
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
  } else {
    atomic_fetch_add_explicit(&counts->overflow_count, 1, memory_order_relaxed);
  }
}

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    if (inline_mode) {
      qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                 &counts->inline_count, 1);
    } else {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, count_insn, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
  }
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index) {
  (void)id;
  (void)vcpu_index;
  atomic_fetch_add_explicit(&counts->vcpus_seen, 1, memory_order_relaxed);
}

// Normal exit: replace the file holding the raw counters by one holding their text form. The
// text goes to a new file renamed over the old one, so that vCPU threads still running while
// qemu exits keep writing into the old file's pages harmlessly (truncating a mapped file would
// make those writes fault).
static void write_counts(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  char text[64 * 1024];
  size_t len = 0;
  uint64_t overflow = atomic_load_explicit(&counts->overflow_count, memory_order_relaxed);
  uint64_t total = counts->inline_count + overflow;
  for (unsigned int i = 0; i < MAX_VCPUS; ++i) {
    total += atomic_load_explicit(&counts->vcpu[i].count, memory_order_relaxed);
  }
  bool exact = !inline_mode || atomic_load_explicit(&counts->vcpus_seen, memory_order_relaxed) <= 1;
  len += (size_t)snprintf(text + len, sizeof text - len, "instructions %llu\nexact %d\n",
                          (unsigned long long)total, exact ? 1 : 0);
  for (unsigned int i = 0; i < MAX_VCPUS && len < sizeof text; ++i) {
    uint64_t n = atomic_load_explicit(&counts->vcpu[i].count, memory_order_relaxed);
    if (n != 0) {
      len += (size_t)snprintf(text + len, sizeof text - len, "vcpu %u %llu\n", i,
                              (unsigned long long)n);
    }
  }
  if (overflow != 0 && len < sizeof text) {
    len += (size_t)snprintf(text + len, sizeof text - len, "vcpu >=%u %llu\n", MAX_VCPUS,
                            (unsigned long long)overflow);
  }
  if (len > sizeof text) len = sizeof text;
  char tmp[4096];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", outfile) >= sizeof tmp) {
    fprintf(stderr, "insn_count: path too long: %s\n", outfile);
    return;
  }
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
  if (fd >= 0) ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, outfile) != 0) {
    fprintf(stderr, "insn_count: cannot write %s: %s\n", outfile, strerror(errno));
  }
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "outfile=", 8) == 0) {
      outfile = argv[i] + 8;
    } else if (strcmp(argv[i], "mode=inline") == 0) {
      inline_mode = true;
    } else if (strcmp(argv[i], "mode=callback") == 0) {
      inline_mode = false;
    } else {
      fprintf(stderr, "insn_count: unknown argument '%s' (expected outfile=PATH, mode=...)\n",
              argv[i]);
      return 1;
    }
  }
  if (outfile == NULL || *outfile == '\0') {
    fprintf(stderr, "insn_count: missing argument outfile=PATH\n");
    return 1;
  }
  // The descriptor is closed once the file is mapped: in qemu-user the guest shares the host's
  // descriptor table, and a descriptor kept open here would shift the numbers the guest gets.
  int fd = open(outfile, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ftruncate(fd, sizeof(struct shared_counts)) != 0) {
    fprintf(stderr, "insn_count: cannot create %s: %s\n", outfile, strerror(errno));
    if (fd >= 0) close(fd);
    return 1;
  }
  void* map = mmap(NULL, sizeof(struct shared_counts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    fprintf(stderr, "insn_count: cannot map %s: %s\n", outfile, strerror(errno));
    return 1;
  }
  counts = map;  // a fresh file reads as zeros: every counter starts at 0
  memcpy(counts->magic, "HPMICNT1", 8);
  counts->max_vcpus = MAX_VCPUS;
  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
  qemu_plugin_register_atexit_cb(id, write_counts, NULL);
  return 0;
}
