// The RV64IMAFDC + Zicsr + Zifencei instruction set, one line per instruction.
//
// X(Name, "mnemonic", Format, Class, Group)
//   Format: operand layout, used by the disassembler and to tell integer from FP registers.
//   Class:  the functional-unit class the timing model and the event catalogue use.
//   Group:  the finer group that instruction-mix events count (OpGroup; kNone for none), so that
//           an event of a group is derived from this table and cannot miss an instruction.
// Compressed instructions decode to the base instruction they expand to (with length 2).
#pragma once

#include <string_view>

#include "base/types.h"

namespace hpm::isa {

// Operand layouts. "F" marks floating-point register operands.
enum class Format : u8 {
  kNone,    // ecall, ebreak, fence.i
  kFence,   // fence pred, succ
  kR,       // rd, rs1, rs2
  kI,       // rd, rs1, imm
  kShift,   // rd, rs1, shamt
  kU,       // rd, imm20
  kJ,       // rd, target
  kJalr,    // rd, imm(rs1)
  kB,       // rs1, rs2, target
  kLoad,    // rd, imm(rs1)
  kStore,   // rs2, imm(rs1)
  kCsr,     // rd, csr, rs1
  kCsrI,    // rd, csr, uimm
  kLr,      // rd, (rs1)
  kAmo,     // rd, rs2, (rs1)
  kFLoad,   // fd, imm(rs1)
  kFStore,  // fs2, imm(rs1)
  kFR,      // fd, fs1, fs2 [, rm]
  kFR1,     // fd, fs1 [, rm]
  kFR4,     // fd, fs1, fs2, fs3 [, rm]
  kFCmp,    // rd, fs1, fs2
  kFToX,    // rd, fs1 [, rm]
  kXToF,    // fd, rs1 [, rm]
};

// Functional classes, in the order the timing model's latency table lists them.
enum class InstClass : u8 {
  kIntAlu,
  kIntMul,
  kIntDiv,
  kBranch,
  kJump,
  kLoad,
  kStore,
  kAtomic,
  kFpLoad,
  kFpStore,
  kFpAdd,
  kFpMul,
  kFpFma,
  kFpDiv,
  kFpSqrt,
  kFpMisc,  // sign injection, min/max, compare, classify, moves
  kFpCvt,
  kSystem,  // ecall, ebreak, fences, CSR accesses
  kCount
};

// Finer groups of instructions than their class, as the seeds' instruction-mix events count them
// (Blue Gene/P's IPIPE_ADD_SUB, Blue Gene/Q's PEVT_INST_XU_ICMP, ...). The integer groups
// partition the kIntAlu class and the floating-point ones the kFpMisc class (checked below).
enum class OpGroup : u8 {
  kNone,               // no finer group than its class
  kIntAddSub,          // add, sub and their immediate and word forms; lui, auipc
  kIntLogical,         // and, or, xor and their immediate forms
  kIntShift,           // shifts, all forms (RV64GC has no rotate)
  kIntCompare,         // slt, sltu and their immediate forms
  kFpCompare,          // feq, flt, fle
  kFpMove,             // fmv between integer and floating-point registers
  kFpSignMinMaxClass,  // sign injection, min, max, classify
  kTrap,               // ecall, ebreak
};

#define HPM_RV_OPS(X)                                        \
  X(Illegal, "illegal", kNone, kSystem, kNone)               \
  X(Lui, "lui", kU, kIntAlu, kIntAddSub)                     \
  X(Auipc, "auipc", kU, kIntAlu, kIntAddSub)                 \
  X(Jal, "jal", kJ, kJump, kNone)                            \
  X(Jalr, "jalr", kJalr, kJump, kNone)                       \
  X(Beq, "beq", kB, kBranch, kNone)                          \
  X(Bne, "bne", kB, kBranch, kNone)                          \
  X(Blt, "blt", kB, kBranch, kNone)                          \
  X(Bge, "bge", kB, kBranch, kNone)                          \
  X(Bltu, "bltu", kB, kBranch, kNone)                        \
  X(Bgeu, "bgeu", kB, kBranch, kNone)                        \
  X(Lb, "lb", kLoad, kLoad, kNone)                           \
  X(Lh, "lh", kLoad, kLoad, kNone)                           \
  X(Lw, "lw", kLoad, kLoad, kNone)                           \
  X(Ld, "ld", kLoad, kLoad, kNone)                           \
  X(Lbu, "lbu", kLoad, kLoad, kNone)                         \
  X(Lhu, "lhu", kLoad, kLoad, kNone)                         \
  X(Lwu, "lwu", kLoad, kLoad, kNone)                         \
  X(Sb, "sb", kStore, kStore, kNone)                         \
  X(Sh, "sh", kStore, kStore, kNone)                         \
  X(Sw, "sw", kStore, kStore, kNone)                         \
  X(Sd, "sd", kStore, kStore, kNone)                         \
  X(Addi, "addi", kI, kIntAlu, kIntAddSub)                   \
  X(Slti, "slti", kI, kIntAlu, kIntCompare)                  \
  X(Sltiu, "sltiu", kI, kIntAlu, kIntCompare)                \
  X(Xori, "xori", kI, kIntAlu, kIntLogical)                  \
  X(Ori, "ori", kI, kIntAlu, kIntLogical)                    \
  X(Andi, "andi", kI, kIntAlu, kIntLogical)                  \
  X(Slli, "slli", kShift, kIntAlu, kIntShift)                \
  X(Srli, "srli", kShift, kIntAlu, kIntShift)                \
  X(Srai, "srai", kShift, kIntAlu, kIntShift)                \
  X(Add, "add", kR, kIntAlu, kIntAddSub)                     \
  X(Sub, "sub", kR, kIntAlu, kIntAddSub)                     \
  X(Sll, "sll", kR, kIntAlu, kIntShift)                      \
  X(Slt, "slt", kR, kIntAlu, kIntCompare)                    \
  X(Sltu, "sltu", kR, kIntAlu, kIntCompare)                  \
  X(Xor, "xor", kR, kIntAlu, kIntLogical)                    \
  X(Srl, "srl", kR, kIntAlu, kIntShift)                      \
  X(Sra, "sra", kR, kIntAlu, kIntShift)                      \
  X(Or, "or", kR, kIntAlu, kIntLogical)                      \
  X(And, "and", kR, kIntAlu, kIntLogical)                    \
  X(Addiw, "addiw", kI, kIntAlu, kIntAddSub)                 \
  X(Slliw, "slliw", kShift, kIntAlu, kIntShift)              \
  X(Srliw, "srliw", kShift, kIntAlu, kIntShift)              \
  X(Sraiw, "sraiw", kShift, kIntAlu, kIntShift)              \
  X(Addw, "addw", kR, kIntAlu, kIntAddSub)                   \
  X(Subw, "subw", kR, kIntAlu, kIntAddSub)                   \
  X(Sllw, "sllw", kR, kIntAlu, kIntShift)                    \
  X(Srlw, "srlw", kR, kIntAlu, kIntShift)                    \
  X(Sraw, "sraw", kR, kIntAlu, kIntShift)                    \
  X(Fence, "fence", kFence, kSystem, kNone)                  \
  X(FenceI, "fence.i", kNone, kSystem, kNone)                \
  X(Ecall, "ecall", kNone, kSystem, kTrap)                   \
  X(Ebreak, "ebreak", kNone, kSystem, kTrap)                 \
  X(Csrrw, "csrrw", kCsr, kSystem, kNone)                    \
  X(Csrrs, "csrrs", kCsr, kSystem, kNone)                    \
  X(Csrrc, "csrrc", kCsr, kSystem, kNone)                    \
  X(Csrrwi, "csrrwi", kCsrI, kSystem, kNone)                 \
  X(Csrrsi, "csrrsi", kCsrI, kSystem, kNone)                 \
  X(Csrrci, "csrrci", kCsrI, kSystem, kNone)                 \
  X(Mul, "mul", kR, kIntMul, kNone)                          \
  X(Mulh, "mulh", kR, kIntMul, kNone)                        \
  X(Mulhsu, "mulhsu", kR, kIntMul, kNone)                    \
  X(Mulhu, "mulhu", kR, kIntMul, kNone)                      \
  X(Div, "div", kR, kIntDiv, kNone)                          \
  X(Divu, "divu", kR, kIntDiv, kNone)                        \
  X(Rem, "rem", kR, kIntDiv, kNone)                          \
  X(Remu, "remu", kR, kIntDiv, kNone)                        \
  X(Mulw, "mulw", kR, kIntMul, kNone)                        \
  X(Divw, "divw", kR, kIntDiv, kNone)                        \
  X(Divuw, "divuw", kR, kIntDiv, kNone)                      \
  X(Remw, "remw", kR, kIntDiv, kNone)                        \
  X(Remuw, "remuw", kR, kIntDiv, kNone)                      \
  X(LrW, "lr.w", kLr, kAtomic, kNone)                        \
  X(ScW, "sc.w", kAmo, kAtomic, kNone)                       \
  X(AmoswapW, "amoswap.w", kAmo, kAtomic, kNone)             \
  X(AmoaddW, "amoadd.w", kAmo, kAtomic, kNone)               \
  X(AmoxorW, "amoxor.w", kAmo, kAtomic, kNone)               \
  X(AmoandW, "amoand.w", kAmo, kAtomic, kNone)               \
  X(AmoorW, "amoor.w", kAmo, kAtomic, kNone)                 \
  X(AmominW, "amomin.w", kAmo, kAtomic, kNone)               \
  X(AmomaxW, "amomax.w", kAmo, kAtomic, kNone)               \
  X(AmominuW, "amominu.w", kAmo, kAtomic, kNone)             \
  X(AmomaxuW, "amomaxu.w", kAmo, kAtomic, kNone)             \
  X(LrD, "lr.d", kLr, kAtomic, kNone)                        \
  X(ScD, "sc.d", kAmo, kAtomic, kNone)                       \
  X(AmoswapD, "amoswap.d", kAmo, kAtomic, kNone)             \
  X(AmoaddD, "amoadd.d", kAmo, kAtomic, kNone)               \
  X(AmoxorD, "amoxor.d", kAmo, kAtomic, kNone)               \
  X(AmoandD, "amoand.d", kAmo, kAtomic, kNone)               \
  X(AmoorD, "amoor.d", kAmo, kAtomic, kNone)                 \
  X(AmominD, "amomin.d", kAmo, kAtomic, kNone)               \
  X(AmomaxD, "amomax.d", kAmo, kAtomic, kNone)               \
  X(AmominuD, "amominu.d", kAmo, kAtomic, kNone)             \
  X(AmomaxuD, "amomaxu.d", kAmo, kAtomic, kNone)             \
  X(Flw, "flw", kFLoad, kFpLoad, kNone)                      \
  X(Fsw, "fsw", kFStore, kFpStore, kNone)                    \
  X(FmaddS, "fmadd.s", kFR4, kFpFma, kNone)                  \
  X(FmsubS, "fmsub.s", kFR4, kFpFma, kNone)                  \
  X(FnmsubS, "fnmsub.s", kFR4, kFpFma, kNone)                \
  X(FnmaddS, "fnmadd.s", kFR4, kFpFma, kNone)                \
  X(FaddS, "fadd.s", kFR, kFpAdd, kNone)                     \
  X(FsubS, "fsub.s", kFR, kFpAdd, kNone)                     \
  X(FmulS, "fmul.s", kFR, kFpMul, kNone)                     \
  X(FdivS, "fdiv.s", kFR, kFpDiv, kNone)                     \
  X(FsqrtS, "fsqrt.s", kFR1, kFpSqrt, kNone)                 \
  X(FsgnjS, "fsgnj.s", kFR, kFpMisc, kFpSignMinMaxClass)     \
  X(FsgnjnS, "fsgnjn.s", kFR, kFpMisc, kFpSignMinMaxClass)   \
  X(FsgnjxS, "fsgnjx.s", kFR, kFpMisc, kFpSignMinMaxClass)   \
  X(FminS, "fmin.s", kFR, kFpMisc, kFpSignMinMaxClass)       \
  X(FmaxS, "fmax.s", kFR, kFpMisc, kFpSignMinMaxClass)       \
  X(FcvtWS, "fcvt.w.s", kFToX, kFpCvt, kNone)                \
  X(FcvtWuS, "fcvt.wu.s", kFToX, kFpCvt, kNone)              \
  X(FcvtLS, "fcvt.l.s", kFToX, kFpCvt, kNone)                \
  X(FcvtLuS, "fcvt.lu.s", kFToX, kFpCvt, kNone)              \
  X(FmvXW, "fmv.x.w", kFToX, kFpMisc, kFpMove)               \
  X(FeqS, "feq.s", kFCmp, kFpMisc, kFpCompare)               \
  X(FltS, "flt.s", kFCmp, kFpMisc, kFpCompare)               \
  X(FleS, "fle.s", kFCmp, kFpMisc, kFpCompare)               \
  X(FclassS, "fclass.s", kFToX, kFpMisc, kFpSignMinMaxClass) \
  X(FcvtSW, "fcvt.s.w", kXToF, kFpCvt, kNone)                \
  X(FcvtSWu, "fcvt.s.wu", kXToF, kFpCvt, kNone)              \
  X(FcvtSL, "fcvt.s.l", kXToF, kFpCvt, kNone)                \
  X(FcvtSLu, "fcvt.s.lu", kXToF, kFpCvt, kNone)              \
  X(FmvWX, "fmv.w.x", kXToF, kFpMisc, kFpMove)               \
  X(Fld, "fld", kFLoad, kFpLoad, kNone)                      \
  X(Fsd, "fsd", kFStore, kFpStore, kNone)                    \
  X(FmaddD, "fmadd.d", kFR4, kFpFma, kNone)                  \
  X(FmsubD, "fmsub.d", kFR4, kFpFma, kNone)                  \
  X(FnmsubD, "fnmsub.d", kFR4, kFpFma, kNone)                \
  X(FnmaddD, "fnmadd.d", kFR4, kFpFma, kNone)                \
  X(FaddD, "fadd.d", kFR, kFpAdd, kNone)                     \
  X(FsubD, "fsub.d", kFR, kFpAdd, kNone)                     \
  X(FmulD, "fmul.d", kFR, kFpMul, kNone)                     \
  X(FdivD, "fdiv.d", kFR, kFpDiv, kNone)                     \
  X(FsqrtD, "fsqrt.d", kFR1, kFpSqrt, kNone)                 \
  X(FsgnjD, "fsgnj.d", kFR, kFpMisc, kFpSignMinMaxClass)     \
  X(FsgnjnD, "fsgnjn.d", kFR, kFpMisc, kFpSignMinMaxClass)   \
  X(FsgnjxD, "fsgnjx.d", kFR, kFpMisc, kFpSignMinMaxClass)   \
  X(FminD, "fmin.d", kFR, kFpMisc, kFpSignMinMaxClass)       \
  X(FmaxD, "fmax.d", kFR, kFpMisc, kFpSignMinMaxClass)       \
  X(FcvtSD, "fcvt.s.d", kFR1, kFpCvt, kNone)                 \
  X(FcvtDS, "fcvt.d.s", kFR1, kFpCvt, kNone)                 \
  X(FeqD, "feq.d", kFCmp, kFpMisc, kFpCompare)               \
  X(FltD, "flt.d", kFCmp, kFpMisc, kFpCompare)               \
  X(FleD, "fle.d", kFCmp, kFpMisc, kFpCompare)               \
  X(FclassD, "fclass.d", kFToX, kFpMisc, kFpSignMinMaxClass) \
  X(FcvtWD, "fcvt.w.d", kFToX, kFpCvt, kNone)                \
  X(FcvtWuD, "fcvt.wu.d", kFToX, kFpCvt, kNone)              \
  X(FcvtLD, "fcvt.l.d", kFToX, kFpCvt, kNone)                \
  X(FcvtLuD, "fcvt.lu.d", kFToX, kFpCvt, kNone)              \
  X(FmvXD, "fmv.x.d", kFToX, kFpMisc, kFpMove)               \
  X(FcvtDW, "fcvt.d.w", kXToF, kFpCvt, kNone)                \
  X(FcvtDWu, "fcvt.d.wu", kXToF, kFpCvt, kNone)              \
  X(FcvtDL, "fcvt.d.l", kXToF, kFpCvt, kNone)                \
  X(FcvtDLu, "fcvt.d.lu", kXToF, kFpCvt, kNone)              \
  X(FmvDX, "fmv.d.x", kXToF, kFpMisc, kFpMove)

enum class Op : u16 {
#define HPM_X(name, mnemonic, format, cls, group) k##name,
  HPM_RV_OPS(HPM_X)
#undef HPM_X
      kCount
};

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(Op::kCount);

struct OpInfo {
  std::string_view mnemonic;
  Format format;
  InstClass cls;
  OpGroup group;
};

inline constexpr OpInfo kOpInfo[] = {
#define HPM_X(name, mnemonic, format, cls, group) \
  {mnemonic, Format::format, InstClass::cls, OpGroup::group},
    HPM_RV_OPS(HPM_X)
#undef HPM_X
};

constexpr const OpInfo& opInfo(Op op) {
  return kOpInfo[static_cast<std::size_t>(op)];
}

// The groups partition their classes: every integer ALU instruction is in exactly one integer
// group, every kFpMisc instruction in exactly one floating-point group, and no other instruction
// is in either (so the groups' events together count their class, as the class's event does).
constexpr bool groupsPartitionTheirClasses() {
  for (const OpInfo& info : kOpInfo) {
    const auto g = info.group;
    const bool int_group = g == OpGroup::kIntAddSub || g == OpGroup::kIntLogical ||
                           g == OpGroup::kIntShift || g == OpGroup::kIntCompare;
    const bool fp_group =
        g == OpGroup::kFpCompare || g == OpGroup::kFpMove || g == OpGroup::kFpSignMinMaxClass;
    if (int_group != (info.cls == InstClass::kIntAlu)) return false;
    if (fp_group != (info.cls == InstClass::kFpMisc)) return false;
    if (g == OpGroup::kTrap && info.cls != InstClass::kSystem) return false;
  }
  return true;
}
static_assert(groupsPartitionTheirClasses(), "an instruction's group does not fit its class");

std::string_view instClassName(InstClass cls);

// Whether the operands of an instruction name floating-point registers.
constexpr bool rdIsFp(Format f) {
  return f == Format::kFLoad || f == Format::kFR || f == Format::kFR1 || f == Format::kFR4 ||
         f == Format::kXToF;
}
constexpr bool rs1IsFp(Format f) {
  return f == Format::kFR || f == Format::kFR1 || f == Format::kFR4 || f == Format::kFCmp ||
         f == Format::kFToX;
}
constexpr bool rs2IsFp(Format f) {
  return f == Format::kFStore || f == Format::kFR || f == Format::kFR4 || f == Format::kFCmp;
}

// Whether the instruction writes an integer destination register rd.
constexpr bool writesIntRd(Format f) {
  switch (f) {
    case Format::kR:
    case Format::kI:
    case Format::kShift:
    case Format::kU:
    case Format::kJ:
    case Format::kJalr:
    case Format::kLoad:
    case Format::kCsr:
    case Format::kCsrI:
    case Format::kLr:
    case Format::kAmo:
    case Format::kFCmp:
    case Format::kFToX: return true;
    default: return false;
  }
}

// Floating-point operations one instruction of a class performs: a fused multiply-add two, other
// arithmetic (add, multiply, divide, square root) one, anything else none.
constexpr u32 flopsOf(InstClass cls) {
  switch (cls) {
    case InstClass::kFpFma: return 2;
    case InstClass::kFpAdd:
    case InstClass::kFpMul:
    case InstClass::kFpDiv:
    case InstClass::kFpSqrt: return 1;
    default: return 0;
  }
}

// What an operation does that the instruction-mix events count (whatever its data): the bytes a
// load or store moves, its floating-point operations and their precision, and what kind of
// atomic, system or fence instruction it is.
struct OpMix {
  u8 load_bytes = 0;
  u8 store_bytes = 0;
  u8 flops = 0;      // flopsOf(its class)
  u8 precision = 0;  // FP arithmetic: 1 single, 2 double
  bool lr = false, sc = false, amo = false, ecall = false, csr = false, fence = false;
};

constexpr OpMix opMix(Op op) {
  const OpInfo& info = opInfo(op);
  OpMix m;
  switch (op) {
    case Op::kLb:
    case Op::kLbu: m.load_bytes = 1; break;
    case Op::kLh:
    case Op::kLhu: m.load_bytes = 2; break;
    case Op::kLw:
    case Op::kLwu:
    case Op::kFlw: m.load_bytes = 4; break;
    case Op::kLd:
    case Op::kFld: m.load_bytes = 8; break;
    case Op::kSb: m.store_bytes = 1; break;
    case Op::kSh: m.store_bytes = 2; break;
    case Op::kSw:
    case Op::kFsw: m.store_bytes = 4; break;
    case Op::kSd:
    case Op::kFsd: m.store_bytes = 8; break;
    case Op::kLrW:
    case Op::kLrD: m.lr = true; break;
    case Op::kScW:
    case Op::kScD: m.sc = true; break;
    case Op::kEcall: m.ecall = true; break;
    case Op::kFence:
    case Op::kFenceI: m.fence = true; break;
    default: break;
  }
  if (info.cls == InstClass::kAtomic && !m.lr && !m.sc) m.amo = true;
  if (info.format == Format::kCsr || info.format == Format::kCsrI) m.csr = true;
  m.flops = static_cast<u8>(flopsOf(info.cls));
  if (m.flops != 0) m.precision = info.mnemonic.ends_with(".d") ? 2 : 1;
  return m;
}

// Does the instruction read rs1 / rs2 / rs3 at all?
constexpr bool readsRs1(Format f) {
  return !(f == Format::kNone || f == Format::kFence || f == Format::kU || f == Format::kJ ||
           f == Format::kCsrI);
}
constexpr bool readsRs2(Format f) {
  return f == Format::kR || f == Format::kB || f == Format::kStore || f == Format::kAmo ||
         f == Format::kFStore || f == Format::kFR || f == Format::kFR4 || f == Format::kFCmp;
}
constexpr bool readsRs3(Format f) {
  return f == Format::kFR4;
}

}  // namespace hpm::isa
