// Loads and stores of every width: lb/lbu/lh/lhu/lw/lwu/ld and flw/fld at every byte offset
// 0..7 (misaligned ones included: Linux and qemu complete them, so the simulator must), the
// sign and zero extension of each, NaN boxing of flw's result, sb/sh/sw/sd/fsw/fsd at every
// offset into a zeroed buffer (the whole buffer is printed after each store), accesses that
// straddle a page boundary, immediate offsets at the ends of their range (-2048, 2047), and a
// load into x0 (discarded).
#include <sys/mman.h>

#include "isa.h"

#define LOAD(insn)                                                      \
  static uint64_t ld_##insn(const unsigned char* p) {                   \
    uint64_t r;                                                         \
    __asm__ volatile(#insn " %0, 0(%1)" : "=r"(r) : "r"(p) : "memory"); \
    return r;                                                           \
  }
LOAD(lb)
LOAD(lbu)
LOAD(lh)
LOAD(lhu)
LOAD(lw)
LOAD(lwu)
LOAD(ld)

static uint64_t ld_flw(const unsigned char* p) {
  uint64_t r;
  __asm__ volatile("flw ft0, 0(%1)\n fmv.x.d %0, ft0" : "=r"(r) : "r"(p) : "ft0", "memory");
  return r;
}
static uint64_t ld_fld(const unsigned char* p) {
  uint64_t r;
  __asm__ volatile("fld ft0, 0(%1)\n fmv.x.d %0, ft0" : "=r"(r) : "r"(p) : "ft0", "memory");
  return r;
}

#define STORE(insn)                                                     \
  static void st_##insn(unsigned char* p, uint64_t v) {                 \
    __asm__ volatile(#insn " %1, 0(%0)" : : "r"(p), "r"(v) : "memory"); \
  }
STORE(sb)
STORE(sh)
STORE(sw)
STORE(sd)

static void st_fsw(unsigned char* p, uint64_t v) {
  __asm__ volatile("fmv.d.x ft0, %1\n fsw ft0, 0(%0)" : : "r"(p), "r"(v) : "ft0", "memory");
}
static void st_fsd(unsigned char* p, uint64_t v) {
  __asm__ volatile("fmv.d.x ft0, %1\n fsd ft0, 0(%0)" : : "r"(p), "r"(v) : "ft0", "memory");
}

typedef uint64_t (*LoadFn)(const unsigned char*);
typedef void (*StoreFn)(unsigned char*, uint64_t);

static const struct {
  const char* name;
  LoadFn fn;
  int size;
} kLoads[] = {{"lb", ld_lb, 1},   {"lbu", ld_lbu, 1}, {"lh", ld_lh, 2},
              {"lhu", ld_lhu, 2}, {"lw", ld_lw, 4},   {"lwu", ld_lwu, 4},
              {"ld", ld_ld, 8},   {"flw", ld_flw, 4}, {"fld", ld_fld, 8}};

static const struct {
  const char* name;
  StoreFn fn;
} kStores[] = {{"sb", st_sb}, {"sh", st_sh},   {"sw", st_sw},
               {"sd", st_sd}, {"fsw", st_fsw}, {"fsd", st_fsd}};

static void dump(const unsigned char* p, int n) {
  for (int i = 0; i < n; ++i) out_hexn(p[i], 2);
}

int main(void) {
  static _Alignas(64) unsigned char buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = (unsigned char)(0x81 + i * 0x13);  // many bytes >= 0x80

  for (size_t l = 0; l < sizeof kLoads / sizeof kLoads[0]; ++l) {
    out_str(kLoads[l].name);
    out_char(':');
    for (int off = 0; off < 8; ++off) {
      out_char(' ');
      out_hex64(kLoads[l].fn(buf + 16 + off));
    }
    out_nl();
  }

  static const uint64_t values[] = {0x0123456789abcdefULL, 0xfedcba9876543210ULL,
                                    0x8000000000000080ULL};
  for (size_t s = 0; s < sizeof kStores / sizeof kStores[0]; ++s) {
    for (size_t v = 0; v < sizeof values / sizeof values[0]; ++v) {
      out_str(kStores[s].name);
      out_char(' ');
      out_hex64(values[v]);
      out_char(':');
      for (int off = 0; off < 8; ++off) {
        unsigned char z[24] = {0};
        kStores[s].fn(z + 8 + off, values[v]);
        out_char(' ');
        dump(z + 8, 16);
      }
      out_nl();
    }
  }

  // Accesses straddling a page boundary (both pages mapped).
  unsigned char* two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(two != MAP_FAILED);
  for (int i = 4080; i < 4112; ++i) two[i] = (unsigned char)(i * 7);
  out_str("straddle loads:");
  for (int back = 1; back < 8; ++back) {
    out_char(' ');
    out_hex64(ld_ld(two + 4096 - back));
    out_char('/');
    out_hex64(ld_lw(two + 4096 - (back & 3)));
    out_char('/');
    out_hex64(ld_fld(two + 4096 - back));
  }
  out_nl();
  st_sd(two + 4093, 0x1122334455667788ULL);
  st_fsw(two + 4094, box_s(0xa1b2c3d4u));
  out_str("straddle stores: ");
  dump(two + 4088, 16);
  out_nl();
  CHECK(munmap(two, 8192) == 0);

  // Immediate offsets at the ends of the range, and a load into x0.
  static unsigned char big[4200];
  for (int i = 0; i < 4200; ++i) big[i] = (unsigned char)(i ^ (i >> 8));
  uint64_t lo, hi, zero;
  unsigned char* mid = big + 2100;
  __asm__ volatile(
      "ld %0, -2048(%3)\n"
      "lhu %1, 2047(%3)\n"
      "lw x0, 0(%3)\n"
      "mv %2, x0\n"
      : "=&r"(lo), "=&r"(hi), "=&r"(zero)
      : "r"(mid)
      : "memory");
  __asm__ volatile("sd %1, -2048(%0)\n sb %1, 2047(%0)" : : "r"(mid), "r"(~lo) : "memory");
  out_str("imm range: ");
  out_hex64(lo);
  out_char(' ');
  out_hex64(hi);
  out_char(' ');
  out_hex64(zero);
  out_char(' ');
  dump(big + 52, 8);
  out_char(' ');
  dump(big + 4147, 1);
  out_nl();
  out_flush();
  return 0;
}
