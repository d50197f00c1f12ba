// Zicsr on the floating-point CSRs and Zicntr: csrrw/csrrs/csrrc and their immediate forms on
// fflags, frm and fcsr (old values returned, fields aliased between fcsr and fflags/frm, bits
// above the field widths ignored on write and read as zero, rs1 = x0 forms that only read),
// the pseudo-instructions frflags/fsflags/frrm/fsrm/frcsr/fscsr, flags accumulating across
// operations until cleared, and rdcycle/rdtime/rdinstret: readable from user mode and never
// decreasing (their values are time- and host-dependent, so only monotonicity is printed).
#include "isa.h"

#define CSR_OP(name, insn, csr)                                                \
  static uint64_t name(uint64_t v) {                                           \
    uint64_t old;                                                              \
    __asm__ volatile(insn " %0, " csr ", %1" : "=r"(old) : "r"(v) : "memory"); \
    return old;                                                                \
  }
#define CSR_IMM(name, insn, csr, imm)                                      \
  static uint64_t name(void) {                                             \
    uint64_t old;                                                          \
    __asm__ volatile(insn " %0, " csr ", " #imm : "=r"(old) : : "memory"); \
    return old;                                                            \
  }

CSR_OP(rw_fflags, "csrrw", "fflags")
CSR_OP(rs_fflags, "csrrs", "fflags")
CSR_OP(rc_fflags, "csrrc", "fflags")
CSR_OP(rw_frm, "csrrw", "frm")
CSR_OP(rs_frm, "csrrs", "frm")
CSR_OP(rc_frm, "csrrc", "frm")
CSR_OP(rw_fcsr, "csrrw", "fcsr")
CSR_OP(rs_fcsr, "csrrs", "fcsr")
CSR_OP(rc_fcsr, "csrrc", "fcsr")
CSR_IMM(rwi_fflags_31, "csrrwi", "fflags", 31)
CSR_IMM(rsi_fflags_4, "csrrsi", "fflags", 4)
CSR_IMM(rci_fflags_1, "csrrci", "fflags", 1)
CSR_IMM(rwi_frm_3, "csrrwi", "frm", 3)
CSR_IMM(rsi_frm_4, "csrrsi", "frm", 4)
CSR_IMM(rci_frm_7, "csrrci", "frm", 7)
CSR_IMM(rwi_fcsr_21, "csrrwi", "fcsr", 21)
CSR_IMM(rsi_fcsr_8, "csrrsi", "fcsr", 8)
CSR_IMM(rci_fcsr_31, "csrrci", "fcsr", 31)

static uint64_t read_fcsr(void) {
  uint64_t v;
  __asm__ volatile("csrr %0, fcsr" : "=r"(v));
  return v;
}

static void step(const char* what, uint64_t old) {
  out_str(what);
  out_str(": old ");
  out_hex64(old);
  out_str(" fcsr now ");
  out_hex64(read_fcsr());
  out_nl();
}

int main(void) {
  step("start fscsr 0", rw_fcsr(0));
  step("csrrw fflags 0x1f", rw_fflags(0x1f));
  step("csrrw fflags 0xffffffffffffffff", rw_fflags(~0ULL));
  step("csrrc fflags 0x5", rc_fflags(0x5));
  step("csrrs fflags 0x100", rs_fflags(0x100));
  step("csrrw frm 2", rw_frm(2));
  step("csrrs frm 5", rs_frm(5));
  step("csrrc frm 1", rc_frm(1));
  step("csrrw frm 0xff", rw_frm(0xff));
  step("csrrw frm 5 (stored, only invalid when used)", rw_frm(5));
  step("csrrw fcsr 0xffffffffffffffff", rw_fcsr(~0ULL));
  step("csrrc fcsr 0xe3", rc_fcsr(0xe3));
  step("csrrs fcsr 0x41", rs_fcsr(0x41));
  step("csrrwi fflags 31", rwi_fflags_31());
  step("csrrci fflags 1", rci_fflags_1());
  step("csrrsi fflags 4", rsi_fflags_4());
  step("csrrwi frm 3", rwi_frm_3());
  step("csrrsi frm 4", rsi_frm_4());
  step("csrrci frm 7", rci_frm_7());
  step("csrrwi fcsr 21", rwi_fcsr_21());
  step("csrrsi fcsr 8", rsi_fcsr_8());
  step("csrrci fcsr 31", rci_fcsr_31());
  step("csrrs fflags x0 (read only)", rs_fflags(0));

  // The pseudo-instructions.
  uint64_t a, b, c, d;
  __asm__ volatile(
      "fscsr x0\n"
      "li t0, 0x7\n"
      "fsflags %0, t0\n"  // returns the old flags (0)
      "li t0, 4\n"
      "fsrm %1, t0\n"  // returns the old rounding mode (0)
      "frflags %2\n"
      "frrm %3\n"
      : "=&r"(a), "=&r"(b), "=&r"(c), "=&r"(d)
      :
      : "t0");
  out_str("fsflags/fsrm/frflags/frrm: ");
  out_hex64(a);
  out_char(' ');
  out_hex64(b);
  out_char(' ');
  out_hex64(c);
  out_char(' ');
  out_hex64(d);
  out_nl();

  // Flags accumulate: NX from 1/3, then DZ from 1/0, then NV from 0/0; none clears another.
  uint64_t f1, f2, f3;
  __asm__ volatile(
      "fscsr x0\n"
      "li t0, 1\n"
      "fcvt.d.l ft0, t0\n"
      "li t0, 3\n"
      "fcvt.d.l ft1, t0\n"
      "fdiv.d ft2, ft0, ft1\n"
      "frflags %0\n"
      "fmv.d.x ft1, x0\n"
      "fdiv.d ft2, ft0, ft1\n"
      "frflags %1\n"
      "fdiv.d ft2, ft1, ft1\n"
      "frflags %2\n"
      "fsflags x0\n"
      : "=&r"(f1), "=&r"(f2), "=&r"(f3)
      :
      : "t0", "ft0", "ft1", "ft2");
  out_str("accumulated flags: ");
  out_hex64(f1);
  out_char(' ');
  out_hex64(f2);
  out_char(' ');
  out_hex64(f3);
  out_nl();

  // Zicntr: readable and monotonic (non-decreasing; instret strictly increasing).
  uint64_t c0, t0, i0, c1 = 0, t1 = 0, i1 = 0;
  __asm__ volatile("rdcycle %0\n rdtime %1\n rdinstret %2" : "=r"(c0), "=r"(t0), "=r"(i0));
  int monotonic = 1;
  for (int k = 0; k < 1000; ++k) {
    __asm__ volatile("rdcycle %0\n rdtime %1\n rdinstret %2" : "=r"(c1), "=r"(t1), "=r"(i1));
    monotonic &= c1 >= c0 && t1 >= t0 && i1 > i0;
    c0 = c1;
    t0 = t1;
    i0 = i1;
  }
  uint64_t cy, tm, ir;
  __asm__ volatile("csrr %0, cycle\n csrr %1, time\n csrr %2, instret"
                   : "=r"(cy), "=r"(tm), "=r"(ir));
  monotonic &= cy >= c1 && tm >= t1 && ir > i1;
  out_str(monotonic ? "counters monotonic\n" : "counters NOT monotonic\n");
  out_flush();
  return 0;
}
