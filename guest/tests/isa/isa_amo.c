// The A extension: every AMO (swap, add, xor, and, or, min, max, minu, maxu) in .w and .d with
// each ordering suffix (none, .aq, .rl, .aqrl) on edge-value pairs, printing the old value
// returned in rd (sign-extended for .w) and the new memory contents (a .w AMO touches only its
// word); an AMO with rd = x0; and LR/SC: success, the reservation consumed by an SC (a second
// SC fails and leaves memory alone), an SC to another page than the LR fails and also
// invalidates the reservation, lr.w sign extension, and the ordering variants of LR and SC.
// The failure code of SC is implementation-specific beyond being nonzero, so only "failed" is
// printed.
#include "isa.h"

// One function per AMO, width and ordering suffix (a suffix like ".aq" cannot be pasted into
// a name, so each variant is named explicitly).
#define AMO_NAMED(op, width, sfx, name)                        \
  static uint64_t name(uint64_t* mem, uint64_t v) {            \
    uint64_t old;                                              \
    __asm__ volatile("amo" #op "." #width #sfx " %0, %2, (%1)" \
                     : "=&r"(old)                              \
                     : "r"(mem), "r"(v)                        \
                     : "memory");                              \
    return old;                                                \
  }
#define AMO_FAMILY(op)                       \
  AMO_NAMED(op, d, , amo_##op##_d)           \
  AMO_NAMED(op, d, .aq, amo_##op##_d_aq)     \
  AMO_NAMED(op, d, .rl, amo_##op##_d_rl)     \
  AMO_NAMED(op, d, .aqrl, amo_##op##_d_aqrl) \
  AMO_NAMED(op, w, , amo_##op##_w)           \
  AMO_NAMED(op, w, .aq, amo_##op##_w_aq)     \
  AMO_NAMED(op, w, .rl, amo_##op##_w_rl)     \
  AMO_NAMED(op, w, .aqrl, amo_##op##_w_aqrl)

AMO_FAMILY(swap)
AMO_FAMILY(add)
AMO_FAMILY(xor)
AMO_FAMILY(and)
AMO_FAMILY(or)
AMO_FAMILY(min)
AMO_FAMILY(max)
AMO_FAMILY(minu)
AMO_FAMILY(maxu)

typedef uint64_t (*AmoFn)(uint64_t*, uint64_t);
#define ENTRIES(op)                                                                         \
  {"amo" #op ".d", amo_##op##_d, 8}, {"amo" #op ".d.aq", amo_##op##_d_aq, 8},               \
      {"amo" #op ".d.rl", amo_##op##_d_rl, 8}, {"amo" #op ".d.aqrl", amo_##op##_d_aqrl, 8}, \
      {"amo" #op ".w", amo_##op##_w, 4}, {"amo" #op ".w.aq", amo_##op##_w_aq, 4},           \
      {"amo" #op ".w.rl", amo_##op##_w_rl, 4}, {                                            \
    "amo" #op ".w.aqrl", amo_##op##_w_aqrl, 4                                               \
  }

static const struct {
  const char* name;
  AmoFn fn;
  int size;
} kAmos[] = {ENTRIES(swap), ENTRIES(add), ENTRIES(xor),  ENTRIES(and), ENTRIES(or),
             ENTRIES(min),  ENTRIES(max), ENTRIES(minu), ENTRIES(maxu)};

// Operands: a subset of the edge values keeps the output moderate (the suffixes repeat it).
static const uint64_t kAmoVals[] = {0,
                                    1,
                                    0xffffffffffffffffULL,
                                    0x7fffffffffffffffULL,
                                    0x8000000000000000ULL,
                                    0x000000007fffffffULL,
                                    0x0000000080000000ULL,
                                    0x00000000ffffffffULL,
                                    0x0123456789abcdefULL,
                                    0xfedcba9876543210ULL};
#define N_AMO_VALS (sizeof kAmoVals / sizeof kAmoVals[0])

static uint64_t lr_d(uint64_t* p) {
  uint64_t v;
  __asm__ volatile("lr.d %0, (%1)" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint64_t lr_d_aqrl(uint64_t* p) {
  uint64_t v;
  __asm__ volatile("lr.d.aqrl %0, (%1)" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint64_t lr_w(uint64_t* p) {
  uint64_t v;
  __asm__ volatile("lr.w.aq %0, (%1)" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static uint64_t sc_d(uint64_t* p, uint64_t v) {
  uint64_t fail;
  __asm__ volatile("sc.d %0, %2, (%1)" : "=&r"(fail) : "r"(p), "r"(v) : "memory");
  return fail;
}
static uint64_t sc_d_rl(uint64_t* p, uint64_t v) {
  uint64_t fail;
  __asm__ volatile("sc.d.rl %0, %2, (%1)" : "=&r"(fail) : "r"(p), "r"(v) : "memory");
  return fail;
}
static uint64_t sc_w(uint64_t* p, uint64_t v) {
  uint64_t fail;
  __asm__ volatile("sc.w.aqrl %0, %2, (%1)" : "=&r"(fail) : "r"(p), "r"(v) : "memory");
  return fail;
}

static void report_sc(const char* what, uint64_t fail, uint64_t mem) {
  out_str(what);
  out_str(fail != 0 ? ": failed, mem " : ": succeeded, mem ");
  out_hex64(mem);
  out_nl();
}

int main(void) {
  static _Alignas(4096) uint64_t mem[1024];  // one page: mem[0] here, another page below
  static _Alignas(4096) uint64_t other_page[2];

  for (size_t k = 0; k < sizeof kAmos / sizeof kAmos[0]; ++k) {
    out_str(kAmos[k].name);
    out_char(':');
    for (size_t i = 0; i < N_AMO_VALS; ++i) {
      for (size_t j = 0; j < N_AMO_VALS; ++j) {
        // The word AMO operates on the low word of mem[1]; mem[0] and the high word of mem[1]
        // are guards that must stay unchanged.
        mem[0] = 0x1111111111111111ULL;
        mem[1] = kAmoVals[i];
        mem[2] = 0x2222222222222222ULL;
        uint64_t old = kAmos[k].fn(&mem[1], kAmoVals[j]);
        out_char(' ');
        out_hex64(old);
        out_char('/');
        out_hex64(mem[1]);
        CHECK(mem[0] == 0x1111111111111111ULL && mem[2] == 0x2222222222222222ULL);
        if (kAmos[k].size == 4) CHECK(mem[1] >> 32 == kAmoVals[i] >> 32);
      }
    }
    out_nl();
  }

  // An AMO whose result goes to x0 still updates memory.
  mem[1] = 40;
  __asm__ volatile("amoadd.d x0, %1, (%0)" : : "r"(&mem[1]), "r"(2) : "memory");
  out_str("amoadd.d x0: mem ");
  out_hex64(mem[1]);
  out_nl();

  // LR/SC.
  mem[1] = 5;
  (void)sc_d(&mem[1], 0);  // clears any reservation left by earlier code
  uint64_t f = sc_d(&mem[1], 77);
  report_sc("sc.d without reservation", f, mem[1]);
  uint64_t v = lr_d(&mem[1]);
  f = sc_d(&mem[1], v + 1);
  report_sc("lr.d + sc.d", f, mem[1]);
  f = sc_d(&mem[1], 1000);
  report_sc("second sc.d after the reservation was used", f, mem[1]);
  v = lr_d_aqrl(&mem[1]);
  other_page[0] = 9;
  f = sc_d(&other_page[0], 10);
  report_sc("sc.d to another page than lr.d", f, other_page[0]);
  f = sc_d(&mem[1], 11);
  report_sc("sc.d after that failed sc.d", f, mem[1]);
  v = lr_d(&mem[1]);
  f = sc_d_rl(&mem[1], v * 2);
  report_sc("lr.d + sc.d.rl", f, mem[1]);

  mem[1] = 0x00000000fffffff0ULL;
  v = lr_w(&mem[1]);
  out_str("lr.w sign-extends: ");
  out_hex64(v);
  out_nl();
  f = sc_w(&mem[1], 0x123456789abcdef0ULL);  // stores only the low word
  report_sc("lr.w + sc.w", f, mem[1]);
  f = sc_w(&mem[1], 0);
  report_sc("second sc.w", f, mem[1]);
  out_flush();
  return 0;
}
