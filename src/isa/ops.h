// The RV64IMAFDC + Zicsr + Zifencei instruction set, one line per instruction.
//
// X(Name, "mnemonic", Format, Class)
//   Format: operand layout, used by the disassembler and to tell integer from FP registers.
//   Class:  the functional-unit class the timing model and the event catalogue use.
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

#define HPM_RV_OPS(X)                     \
  X(Illegal, "illegal", kNone, kSystem)   \
  X(Lui, "lui", kU, kIntAlu)              \
  X(Auipc, "auipc", kU, kIntAlu)          \
  X(Jal, "jal", kJ, kJump)                \
  X(Jalr, "jalr", kJalr, kJump)           \
  X(Beq, "beq", kB, kBranch)              \
  X(Bne, "bne", kB, kBranch)              \
  X(Blt, "blt", kB, kBranch)              \
  X(Bge, "bge", kB, kBranch)              \
  X(Bltu, "bltu", kB, kBranch)            \
  X(Bgeu, "bgeu", kB, kBranch)            \
  X(Lb, "lb", kLoad, kLoad)               \
  X(Lh, "lh", kLoad, kLoad)               \
  X(Lw, "lw", kLoad, kLoad)               \
  X(Ld, "ld", kLoad, kLoad)               \
  X(Lbu, "lbu", kLoad, kLoad)             \
  X(Lhu, "lhu", kLoad, kLoad)             \
  X(Lwu, "lwu", kLoad, kLoad)             \
  X(Sb, "sb", kStore, kStore)             \
  X(Sh, "sh", kStore, kStore)             \
  X(Sw, "sw", kStore, kStore)             \
  X(Sd, "sd", kStore, kStore)             \
  X(Addi, "addi", kI, kIntAlu)            \
  X(Slti, "slti", kI, kIntAlu)            \
  X(Sltiu, "sltiu", kI, kIntAlu)          \
  X(Xori, "xori", kI, kIntAlu)            \
  X(Ori, "ori", kI, kIntAlu)              \
  X(Andi, "andi", kI, kIntAlu)            \
  X(Slli, "slli", kShift, kIntAlu)        \
  X(Srli, "srli", kShift, kIntAlu)        \
  X(Srai, "srai", kShift, kIntAlu)        \
  X(Add, "add", kR, kIntAlu)              \
  X(Sub, "sub", kR, kIntAlu)              \
  X(Sll, "sll", kR, kIntAlu)              \
  X(Slt, "slt", kR, kIntAlu)              \
  X(Sltu, "sltu", kR, kIntAlu)            \
  X(Xor, "xor", kR, kIntAlu)              \
  X(Srl, "srl", kR, kIntAlu)              \
  X(Sra, "sra", kR, kIntAlu)              \
  X(Or, "or", kR, kIntAlu)                \
  X(And, "and", kR, kIntAlu)              \
  X(Addiw, "addiw", kI, kIntAlu)          \
  X(Slliw, "slliw", kShift, kIntAlu)      \
  X(Srliw, "srliw", kShift, kIntAlu)      \
  X(Sraiw, "sraiw", kShift, kIntAlu)      \
  X(Addw, "addw", kR, kIntAlu)            \
  X(Subw, "subw", kR, kIntAlu)            \
  X(Sllw, "sllw", kR, kIntAlu)            \
  X(Srlw, "srlw", kR, kIntAlu)            \
  X(Sraw, "sraw", kR, kIntAlu)            \
  X(Fence, "fence", kFence, kSystem)      \
  X(FenceI, "fence.i", kNone, kSystem)    \
  X(Ecall, "ecall", kNone, kSystem)       \
  X(Ebreak, "ebreak", kNone, kSystem)     \
  X(Csrrw, "csrrw", kCsr, kSystem)        \
  X(Csrrs, "csrrs", kCsr, kSystem)        \
  X(Csrrc, "csrrc", kCsr, kSystem)        \
  X(Csrrwi, "csrrwi", kCsrI, kSystem)     \
  X(Csrrsi, "csrrsi", kCsrI, kSystem)     \
  X(Csrrci, "csrrci", kCsrI, kSystem)     \
  X(Mul, "mul", kR, kIntMul)              \
  X(Mulh, "mulh", kR, kIntMul)            \
  X(Mulhsu, "mulhsu", kR, kIntMul)        \
  X(Mulhu, "mulhu", kR, kIntMul)          \
  X(Div, "div", kR, kIntDiv)              \
  X(Divu, "divu", kR, kIntDiv)            \
  X(Rem, "rem", kR, kIntDiv)              \
  X(Remu, "remu", kR, kIntDiv)            \
  X(Mulw, "mulw", kR, kIntMul)            \
  X(Divw, "divw", kR, kIntDiv)            \
  X(Divuw, "divuw", kR, kIntDiv)          \
  X(Remw, "remw", kR, kIntDiv)            \
  X(Remuw, "remuw", kR, kIntDiv)          \
  X(LrW, "lr.w", kLr, kAtomic)            \
  X(ScW, "sc.w", kAmo, kAtomic)           \
  X(AmoswapW, "amoswap.w", kAmo, kAtomic) \
  X(AmoaddW, "amoadd.w", kAmo, kAtomic)   \
  X(AmoxorW, "amoxor.w", kAmo, kAtomic)   \
  X(AmoandW, "amoand.w", kAmo, kAtomic)   \
  X(AmoorW, "amoor.w", kAmo, kAtomic)     \
  X(AmominW, "amomin.w", kAmo, kAtomic)   \
  X(AmomaxW, "amomax.w", kAmo, kAtomic)   \
  X(AmominuW, "amominu.w", kAmo, kAtomic) \
  X(AmomaxuW, "amomaxu.w", kAmo, kAtomic) \
  X(LrD, "lr.d", kLr, kAtomic)            \
  X(ScD, "sc.d", kAmo, kAtomic)           \
  X(AmoswapD, "amoswap.d", kAmo, kAtomic) \
  X(AmoaddD, "amoadd.d", kAmo, kAtomic)   \
  X(AmoxorD, "amoxor.d", kAmo, kAtomic)   \
  X(AmoandD, "amoand.d", kAmo, kAtomic)   \
  X(AmoorD, "amoor.d", kAmo, kAtomic)     \
  X(AmominD, "amomin.d", kAmo, kAtomic)   \
  X(AmomaxD, "amomax.d", kAmo, kAtomic)   \
  X(AmominuD, "amominu.d", kAmo, kAtomic) \
  X(AmomaxuD, "amomaxu.d", kAmo, kAtomic) \
  X(Flw, "flw", kFLoad, kFpLoad)          \
  X(Fsw, "fsw", kFStore, kFpStore)        \
  X(FmaddS, "fmadd.s", kFR4, kFpFma)      \
  X(FmsubS, "fmsub.s", kFR4, kFpFma)      \
  X(FnmsubS, "fnmsub.s", kFR4, kFpFma)    \
  X(FnmaddS, "fnmadd.s", kFR4, kFpFma)    \
  X(FaddS, "fadd.s", kFR, kFpAdd)         \
  X(FsubS, "fsub.s", kFR, kFpAdd)         \
  X(FmulS, "fmul.s", kFR, kFpMul)         \
  X(FdivS, "fdiv.s", kFR, kFpDiv)         \
  X(FsqrtS, "fsqrt.s", kFR1, kFpSqrt)     \
  X(FsgnjS, "fsgnj.s", kFR, kFpMisc)      \
  X(FsgnjnS, "fsgnjn.s", kFR, kFpMisc)    \
  X(FsgnjxS, "fsgnjx.s", kFR, kFpMisc)    \
  X(FminS, "fmin.s", kFR, kFpMisc)        \
  X(FmaxS, "fmax.s", kFR, kFpMisc)        \
  X(FcvtWS, "fcvt.w.s", kFToX, kFpCvt)    \
  X(FcvtWuS, "fcvt.wu.s", kFToX, kFpCvt)  \
  X(FcvtLS, "fcvt.l.s", kFToX, kFpCvt)    \
  X(FcvtLuS, "fcvt.lu.s", kFToX, kFpCvt)  \
  X(FmvXW, "fmv.x.w", kFToX, kFpMisc)     \
  X(FeqS, "feq.s", kFCmp, kFpMisc)        \
  X(FltS, "flt.s", kFCmp, kFpMisc)        \
  X(FleS, "fle.s", kFCmp, kFpMisc)        \
  X(FclassS, "fclass.s", kFToX, kFpMisc)  \
  X(FcvtSW, "fcvt.s.w", kXToF, kFpCvt)    \
  X(FcvtSWu, "fcvt.s.wu", kXToF, kFpCvt)  \
  X(FcvtSL, "fcvt.s.l", kXToF, kFpCvt)    \
  X(FcvtSLu, "fcvt.s.lu", kXToF, kFpCvt)  \
  X(FmvWX, "fmv.w.x", kXToF, kFpMisc)     \
  X(Fld, "fld", kFLoad, kFpLoad)          \
  X(Fsd, "fsd", kFStore, kFpStore)        \
  X(FmaddD, "fmadd.d", kFR4, kFpFma)      \
  X(FmsubD, "fmsub.d", kFR4, kFpFma)      \
  X(FnmsubD, "fnmsub.d", kFR4, kFpFma)    \
  X(FnmaddD, "fnmadd.d", kFR4, kFpFma)    \
  X(FaddD, "fadd.d", kFR, kFpAdd)         \
  X(FsubD, "fsub.d", kFR, kFpAdd)         \
  X(FmulD, "fmul.d", kFR, kFpMul)         \
  X(FdivD, "fdiv.d", kFR, kFpDiv)         \
  X(FsqrtD, "fsqrt.d", kFR1, kFpSqrt)     \
  X(FsgnjD, "fsgnj.d", kFR, kFpMisc)      \
  X(FsgnjnD, "fsgnjn.d", kFR, kFpMisc)    \
  X(FsgnjxD, "fsgnjx.d", kFR, kFpMisc)    \
  X(FminD, "fmin.d", kFR, kFpMisc)        \
  X(FmaxD, "fmax.d", kFR, kFpMisc)        \
  X(FcvtSD, "fcvt.s.d", kFR1, kFpCvt)     \
  X(FcvtDS, "fcvt.d.s", kFR1, kFpCvt)     \
  X(FeqD, "feq.d", kFCmp, kFpMisc)        \
  X(FltD, "flt.d", kFCmp, kFpMisc)        \
  X(FleD, "fle.d", kFCmp, kFpMisc)        \
  X(FclassD, "fclass.d", kFToX, kFpMisc)  \
  X(FcvtWD, "fcvt.w.d", kFToX, kFpCvt)    \
  X(FcvtWuD, "fcvt.wu.d", kFToX, kFpCvt)  \
  X(FcvtLD, "fcvt.l.d", kFToX, kFpCvt)    \
  X(FcvtLuD, "fcvt.lu.d", kFToX, kFpCvt)  \
  X(FmvXD, "fmv.x.d", kFToX, kFpMisc)     \
  X(FcvtDW, "fcvt.d.w", kXToF, kFpCvt)    \
  X(FcvtDWu, "fcvt.d.wu", kXToF, kFpCvt)  \
  X(FcvtDL, "fcvt.d.l", kXToF, kFpCvt)    \
  X(FcvtDLu, "fcvt.d.lu", kXToF, kFpCvt)  \
  X(FmvDX, "fmv.d.x", kXToF, kFpMisc)

enum class Op : u16 {
#define HPM_X(name, mnemonic, format, cls) k##name,
  HPM_RV_OPS(HPM_X)
#undef HPM_X
      kCount
};

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(Op::kCount);

struct OpInfo {
  std::string_view mnemonic;
  Format format;
  InstClass cls;
};

inline constexpr OpInfo kOpInfo[] = {
#define HPM_X(name, mnemonic, format, cls) {mnemonic, Format::format, InstClass::cls},
    HPM_RV_OPS(HPM_X)
#undef HPM_X
};

constexpr const OpInfo& opInfo(Op op) {
  return kOpInfo[static_cast<std::size_t>(op)];
}

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
