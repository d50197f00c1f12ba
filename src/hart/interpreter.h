// The body of Hart::run. Included by each translation unit that instantiates it for an
// observer (hart.cpp for the functional mode; the timing model for its own).
#pragma once

#include <bit>
#include <cstring>

#include "hart/fpu.h"
#include "hart/hart.h"

namespace hpm {
namespace detail {

inline i64 sext32(u64 v) {
  return static_cast<i32>(static_cast<u32>(v));
}

inline u64 divSigned(u64 a, u64 b) {
  const i64 x = static_cast<i64>(a), y = static_cast<i64>(b);
  if (y == 0) return ~u64{0};
  if (x == INT64_MIN && y == -1) return a;
  return static_cast<u64>(x / y);
}
inline u64 remSigned(u64 a, u64 b) {
  const i64 x = static_cast<i64>(a), y = static_cast<i64>(b);
  if (y == 0) return a;
  if (x == INT64_MIN && y == -1) return 0;
  return static_cast<u64>(x % y);
}
inline u64 divUnsigned(u64 a, u64 b) {
  return b == 0 ? ~u64{0} : a / b;
}
inline u64 remUnsigned(u64 a, u64 b) {
  return b == 0 ? a : a % b;
}
inline u64 divw(u64 a, u64 b) {
  const i32 x = static_cast<i32>(a), y = static_cast<i32>(b);
  if (y == 0) return ~u64{0};
  if (x == INT32_MIN && y == -1) return static_cast<u64>(static_cast<i64>(x));
  return static_cast<u64>(static_cast<i64>(x / y));
}
inline u64 remw(u64 a, u64 b) {
  const i32 x = static_cast<i32>(a), y = static_cast<i32>(b);
  if (y == 0) return static_cast<u64>(static_cast<i64>(x));
  if (x == INT32_MIN && y == -1) return 0;
  return static_cast<u64>(static_cast<i64>(x % y));
}
inline u64 divuw(u64 a, u64 b) {
  const u32 x = static_cast<u32>(a), y = static_cast<u32>(b);
  return static_cast<u64>(sext32(y == 0 ? ~u32{0} : x / y));
}
inline u64 remuw(u64 a, u64 b) {
  const u32 x = static_cast<u32>(a), y = static_cast<u32>(b);
  return static_cast<u64>(sext32(y == 0 ? x : x % y));
}
inline u64 mulh(u64 a, u64 b) {
  return static_cast<u64>((static_cast<i128>(static_cast<i64>(a)) * static_cast<i64>(b)) >> 64);
}
inline u64 mulhu(u64 a, u64 b) {
  return static_cast<u64>((static_cast<u128>(a) * b) >> 64);
}
inline u64 mulhsu(u64 a, u64 b) {
  return static_cast<u64>((static_cast<i128>(static_cast<i64>(a)) * static_cast<i128>(b)) >> 64);
}

// AMO arithmetic on the value read (old) and the register operand (src), at width W.
template <class W>
inline W amoCompute(isa::Op op, W old, W src) {
  using S = std::make_signed_t<W>;
  using isa::Op;
  switch (op) {
    case Op::kAmoswapW:
    case Op::kAmoswapD: return src;
    case Op::kAmoaddW:
    case Op::kAmoaddD: return static_cast<W>(old + src);
    case Op::kAmoxorW:
    case Op::kAmoxorD: return old ^ src;
    case Op::kAmoandW:
    case Op::kAmoandD: return old & src;
    case Op::kAmoorW:
    case Op::kAmoorD: return old | src;
    case Op::kAmominW:
    case Op::kAmominD: return static_cast<S>(old) < static_cast<S>(src) ? old : src;
    case Op::kAmomaxW:
    case Op::kAmomaxD: return static_cast<S>(old) > static_cast<S>(src) ? old : src;
    case Op::kAmominuW:
    case Op::kAmominuD: return old < src ? old : src;
    case Op::kAmomaxuW:
    case Op::kAmomaxuD: return old > src ? old : src;
    default: return old;
  }
}

}  // namespace detail

template <class Observer>
Stop Hart::run(u64 budget, Observer& observer) {
  using isa::Op;
  namespace sf = softfloat;
  HartState& s = state_;
  u64* const x = s.x.data();
  u64* const f = s.f.data();
  GuestMemory& mem = memory_;
  u64 pc = s.pc;
  u64 retired = 0;  // instructions retired in this call
  u8 fflags = s.fflags;
  Stop stop;
  const isa::DecodedInst* in = nullptr;
  const Block* block = nullptr;
  u64 block_retired = 0;  // `retired` at the start of the current block

  fpu::HostFlags::clear();

  // The effective rounding mode of an FP instruction, or false if it is invalid (dynamic mode
  // with a reserved frm value), which makes the instruction illegal.
  auto roundingMode = [&s](const isa::DecodedInst& d, u8& rm) {
    rm = d.rm == 7 ? s.frm : d.rm;
    return rm <= 4;
  };
  auto softRm = [](u8 rm) { return static_cast<sf::Rounding>(rm); };

  bool resume = resumable();
  while (retired < budget) {
    if (resume) [[unlikely]] {
      // (In the middle of the block, as if the instructions before were retired in this run.)
      block = resume_block_;
      in = resume_in_;
      resume = false;
    } else {
      u64 fault_addr = 0;
      block = code_.lookup(pc, fault_addr);
      if (block == nullptr) [[unlikely]] {
        stop = {StopReason::kFetchFault, fault_addr};
        in = nullptr;
        goto stopped;
      }
      in = block->insts;
    }
    block_retired = retired - static_cast<u64>(in - block->insts);
    // Read before executing: fence.i may flush the cache (and so this block) mid-way.
    const u64 retired_after_block = block_retired + block->count;
    for (const isa::DecodedInst* const end = block->insts + block->count; in != end; ++in) {
      const isa::DecodedInst& d = *in;
      if constexpr (Observer::kActive) {
        if (!observer.beforeIssue(d, pc, s)) {
          stop = {StopReason::kObserver, 0};
          resume_block_ = block;
          resume_in_ = in;
          resume_pc_ = pc;
          resume_flushes_ = code_.flushCount();
          goto stopped;
        }
      }
      u64 next = pc + d.length;
      [[maybe_unused]] u64 ea = 0;
      switch (d.op) {
        // ---- RV64I ----
        case Op::kLui: x[d.rd] = static_cast<u64>(static_cast<i64>(d.imm)); break;
        case Op::kAuipc: x[d.rd] = pc + static_cast<i64>(d.imm); break;
        case Op::kJal:
          x[d.rd] = next;
          next = pc + static_cast<i64>(d.imm);
          break;
        case Op::kJalr: {
          const u64 target = (x[d.rs1] + static_cast<i64>(d.imm)) & ~u64{1};
          x[d.rd] = next;
          next = target;
          break;
        }
        case Op::kBeq:
          if (x[d.rs1] == x[d.rs2]) next = pc + static_cast<i64>(d.imm);
          break;
        case Op::kBne:
          if (x[d.rs1] != x[d.rs2]) next = pc + static_cast<i64>(d.imm);
          break;
        case Op::kBlt:
          if (static_cast<i64>(x[d.rs1]) < static_cast<i64>(x[d.rs2])) {
            next = pc + static_cast<i64>(d.imm);
          }
          break;
        case Op::kBge:
          if (static_cast<i64>(x[d.rs1]) >= static_cast<i64>(x[d.rs2])) {
            next = pc + static_cast<i64>(d.imm);
          }
          break;
        case Op::kBltu:
          if (x[d.rs1] < x[d.rs2]) next = pc + static_cast<i64>(d.imm);
          break;
        case Op::kBgeu:
          if (x[d.rs1] >= x[d.rs2]) next = pc + static_cast<i64>(d.imm);
          break;

#define HPM_LOAD(OP, T, EXTEND)                         \
  case Op::OP: {                                        \
    ea = x[d.rs1] + static_cast<i64>(d.imm);            \
    T v;                                                \
    if (!mem.load(ea, v)) [[unlikely]] {                \
      stop = {StopReason::kLoadFault, ea};              \
      goto stopped;                                     \
    }                                                   \
    x[d.rd] = static_cast<u64>(static_cast<EXTEND>(v)); \
    break;                                              \
  }
          HPM_LOAD(kLb, i8, i64)
          HPM_LOAD(kLh, i16, i64)
          HPM_LOAD(kLw, i32, i64)
          HPM_LOAD(kLd, u64, u64)
          HPM_LOAD(kLbu, u8, u64)
          HPM_LOAD(kLhu, u16, u64)
          HPM_LOAD(kLwu, u32, u64)
#undef HPM_LOAD

#define HPM_STORE(OP, T, VALUE)                                  \
  case Op::OP: {                                                 \
    ea = x[d.rs1] + static_cast<i64>(d.imm);                     \
    if (!mem.store<T>(ea, static_cast<T>(VALUE))) [[unlikely]] { \
      stop = {StopReason::kStoreFault, ea};                      \
      goto stopped;                                              \
    }                                                            \
    break;                                                       \
  }
          HPM_STORE(kSb, u8, x[d.rs2])
          HPM_STORE(kSh, u16, x[d.rs2])
          HPM_STORE(kSw, u32, x[d.rs2])
          HPM_STORE(kSd, u64, x[d.rs2])
          HPM_STORE(kFsw, u32, f[d.rs2])
          HPM_STORE(kFsd, u64, f[d.rs2])
#undef HPM_STORE

        case Op::kAddi: x[d.rd] = x[d.rs1] + static_cast<i64>(d.imm); break;
        case Op::kSlti: x[d.rd] = static_cast<i64>(x[d.rs1]) < d.imm; break;
        case Op::kSltiu: x[d.rd] = x[d.rs1] < static_cast<u64>(static_cast<i64>(d.imm)); break;
        case Op::kXori: x[d.rd] = x[d.rs1] ^ static_cast<u64>(static_cast<i64>(d.imm)); break;
        case Op::kOri: x[d.rd] = x[d.rs1] | static_cast<u64>(static_cast<i64>(d.imm)); break;
        case Op::kAndi: x[d.rd] = x[d.rs1] & static_cast<u64>(static_cast<i64>(d.imm)); break;
        case Op::kSlli: x[d.rd] = x[d.rs1] << d.imm; break;
        case Op::kSrli: x[d.rd] = x[d.rs1] >> d.imm; break;
        case Op::kSrai: x[d.rd] = static_cast<u64>(static_cast<i64>(x[d.rs1]) >> d.imm); break;
        case Op::kAdd: x[d.rd] = x[d.rs1] + x[d.rs2]; break;
        case Op::kSub: x[d.rd] = x[d.rs1] - x[d.rs2]; break;
        case Op::kSll: x[d.rd] = x[d.rs1] << (x[d.rs2] & 63); break;
        case Op::kSlt: x[d.rd] = static_cast<i64>(x[d.rs1]) < static_cast<i64>(x[d.rs2]); break;
        case Op::kSltu: x[d.rd] = x[d.rs1] < x[d.rs2]; break;
        case Op::kXor: x[d.rd] = x[d.rs1] ^ x[d.rs2]; break;
        case Op::kSrl: x[d.rd] = x[d.rs1] >> (x[d.rs2] & 63); break;
        case Op::kSra:
          x[d.rd] = static_cast<u64>(static_cast<i64>(x[d.rs1]) >> (x[d.rs2] & 63));
          break;
        case Op::kOr: x[d.rd] = x[d.rs1] | x[d.rs2]; break;
        case Op::kAnd: x[d.rd] = x[d.rs1] & x[d.rs2]; break;
        case Op::kAddiw: x[d.rd] = detail::sext32(x[d.rs1] + static_cast<i64>(d.imm)); break;
        case Op::kSlliw: x[d.rd] = detail::sext32(x[d.rs1] << d.imm); break;
        case Op::kSrliw: x[d.rd] = detail::sext32(static_cast<u32>(x[d.rs1]) >> d.imm); break;
        case Op::kSraiw:
          x[d.rd] = static_cast<u64>(static_cast<i64>(static_cast<i32>(x[d.rs1]) >> d.imm));
          break;
        case Op::kAddw: x[d.rd] = detail::sext32(x[d.rs1] + x[d.rs2]); break;
        case Op::kSubw: x[d.rd] = detail::sext32(x[d.rs1] - x[d.rs2]); break;
        case Op::kSllw: x[d.rd] = detail::sext32(x[d.rs1] << (x[d.rs2] & 31)); break;
        case Op::kSrlw:
          x[d.rd] = detail::sext32(static_cast<u32>(x[d.rs1]) >> (x[d.rs2] & 31));
          break;
        case Op::kSraw:
          x[d.rd] =
              static_cast<u64>(static_cast<i64>(static_cast<i32>(x[d.rs1]) >> (x[d.rs2] & 31)));
          break;
        case Op::kFence: break;  // harts run one at a time: memory is always coherent
        case Op::kFenceI:
          // Ends its block; nothing of the current block is used after the flush.
          code_.flush();
          break;
        case Op::kEcall:
          if constexpr (Observer::kActive) observer.retire(d, pc, next, 0);
          stop = {StopReason::kEcall, 0};
          ++in;  // the ecall retires
          pc = next;
          goto stopped;
        case Op::kEbreak: stop = {StopReason::kEbreak, pc}; goto stopped;
        case Op::kIllegal: stop = {StopReason::kIllegalInstruction, d.raw}; goto stopped;

        // ---- Zicsr / Zicntr ----
        case Op::kCsrrw:
        case Op::kCsrrs:
        case Op::kCsrrc:
        case Op::kCsrrwi:
        case Op::kCsrrsi:
        case Op::kCsrrci: {
          const u32 csr = static_cast<u32>(d.imm) & 0xfff;
          const bool immediate = d.op == Op::kCsrrwi || d.op == Op::kCsrrsi || d.op == Op::kCsrrci;
          const u64 operand = immediate ? d.rs1 : x[d.rs1];
          const bool is_write = d.op == Op::kCsrrw || d.op == Op::kCsrrwi || d.rs1 != 0;
          u64 old = 0;
          const u64 done = retired + static_cast<u64>(in - block->insts);
          switch (csr) {
            case 0x001:
              fflags |= fpu::HostFlags::take();
              old = fflags;
              break;
            case 0x002: old = s.frm; break;
            case 0x003:
              fflags |= fpu::HostFlags::take();
              old = (u64{s.frm} << 5) | fflags;
              break;
            case 0xc00:  // cycle
            case 0xc01:  // time: the timebase is the core clock
              // An active observer keeps s.cycle current; otherwise one instruction is a cycle.
              old = Observer::kActive ? s.cycle : s.cycle + done;
              break;
            case 0xc02: old = s.instret + done; break;
            default: stop = {StopReason::kIllegalInstruction, d.raw}; goto stopped;
          }
          if (is_write) {
            if (csr >= 0xc00) {  // read-only counters
              stop = {StopReason::kIllegalInstruction, d.raw};
              goto stopped;
            }
            u64 value = operand;
            if (d.op == Op::kCsrrs || d.op == Op::kCsrrsi) value = old | operand;
            if (d.op == Op::kCsrrc || d.op == Op::kCsrrci) value = old & ~operand;
            if (csr == 0x001) fflags = value & 0x1f;
            if (csr == 0x002) s.frm = value & 0x7;
            if (csr == 0x003) {
              fflags = value & 0x1f;
              s.frm = (value >> 5) & 0x7;
            }
          }
          x[d.rd] = old;
          break;
        }

        // ---- M ----
        case Op::kMul: x[d.rd] = x[d.rs1] * x[d.rs2]; break;
        case Op::kMulh: x[d.rd] = detail::mulh(x[d.rs1], x[d.rs2]); break;
        case Op::kMulhsu: x[d.rd] = detail::mulhsu(x[d.rs1], x[d.rs2]); break;
        case Op::kMulhu: x[d.rd] = detail::mulhu(x[d.rs1], x[d.rs2]); break;
        case Op::kDiv: x[d.rd] = detail::divSigned(x[d.rs1], x[d.rs2]); break;
        case Op::kDivu: x[d.rd] = detail::divUnsigned(x[d.rs1], x[d.rs2]); break;
        case Op::kRem: x[d.rd] = detail::remSigned(x[d.rs1], x[d.rs2]); break;
        case Op::kRemu: x[d.rd] = detail::remUnsigned(x[d.rs1], x[d.rs2]); break;
        case Op::kMulw: x[d.rd] = detail::sext32(x[d.rs1] * x[d.rs2]); break;
        case Op::kDivw: x[d.rd] = detail::divw(x[d.rs1], x[d.rs2]); break;
        case Op::kDivuw: x[d.rd] = detail::divuw(x[d.rs1], x[d.rs2]); break;
        case Op::kRemw: x[d.rd] = detail::remw(x[d.rs1], x[d.rs2]); break;
        case Op::kRemuw: x[d.rd] = detail::remuw(x[d.rs1], x[d.rs2]); break;

        // ---- A ----
        case Op::kLrW:
        case Op::kLrD: {
          ea = x[d.rs1];
          const unsigned size = d.op == Op::kLrW ? 4 : 8;
          if (ea & (size - 1)) [[unlikely]] {
            stop = {StopReason::kMisalignedAtomic, ea};
            goto stopped;
          }
          u64 value;
          if (size == 4) {
            u32 v;
            if (!mem.load(ea, v)) {
              stop = {StopReason::kLoadFault, ea};
              goto stopped;
            }
            value = v;
            x[d.rd] = static_cast<u64>(detail::sext32(v));
          } else {
            if (!mem.load(ea, value)) {
              stop = {StopReason::kLoadFault, ea};
              goto stopped;
            }
            x[d.rd] = value;
          }
          s.reserved = true;
          s.reserved_size = static_cast<u8>(size);
          s.reserved_addr = ea;
          s.reserved_value = value;
          break;
        }
        case Op::kScW:
        case Op::kScD: {
          ea = x[d.rs1];
          const unsigned size = d.op == Op::kScW ? 4 : 8;
          if (ea & (size - 1)) [[unlikely]] {
            stop = {StopReason::kMisalignedAtomic, ea};
            goto stopped;
          }
          u8* p = mem.translate(ea, size, GuestMemory::kRead | GuestMemory::kWrite);
          if (p == nullptr) [[unlikely]] {
            stop = {StopReason::kStoreFault, ea};
            goto stopped;
          }
          bool success = s.reserved && s.reserved_addr == ea && s.reserved_size == size;
          if (success) {
            const u64 current = size == 4 ? loadUnaligned<u32>(p) : loadUnaligned<u64>(p);
            success = current == s.reserved_value;
          }
          if (success) {
            if (size == 4) {
              storeUnaligned<u32>(p, static_cast<u32>(x[d.rs2]));
            } else {
              storeUnaligned<u64>(p, x[d.rs2]);
            }
          }
          s.reserved = false;
          x[d.rd] = success ? 0 : 1;
          break;
        }
        case Op::kAmoswapW:
        case Op::kAmoaddW:
        case Op::kAmoxorW:
        case Op::kAmoandW:
        case Op::kAmoorW:
        case Op::kAmominW:
        case Op::kAmomaxW:
        case Op::kAmominuW:
        case Op::kAmomaxuW: {
          ea = x[d.rs1];
          if (ea & 3) [[unlikely]] {
            stop = {StopReason::kMisalignedAtomic, ea};
            goto stopped;
          }
          u8* p = mem.translate(ea, 4, GuestMemory::kRead | GuestMemory::kWrite);
          if (p == nullptr) [[unlikely]] {
            stop = {StopReason::kStoreFault, ea};
            goto stopped;
          }
          const u32 old = loadUnaligned<u32>(p);
          storeUnaligned<u32>(p, detail::amoCompute<u32>(d.op, old, static_cast<u32>(x[d.rs2])));
          x[d.rd] = static_cast<u64>(detail::sext32(old));
          break;
        }
        case Op::kAmoswapD:
        case Op::kAmoaddD:
        case Op::kAmoxorD:
        case Op::kAmoandD:
        case Op::kAmoorD:
        case Op::kAmominD:
        case Op::kAmomaxD:
        case Op::kAmominuD:
        case Op::kAmomaxuD: {
          ea = x[d.rs1];
          if (ea & 7) [[unlikely]] {
            stop = {StopReason::kMisalignedAtomic, ea};
            goto stopped;
          }
          u8* p = mem.translate(ea, 8, GuestMemory::kRead | GuestMemory::kWrite);
          if (p == nullptr) [[unlikely]] {
            stop = {StopReason::kStoreFault, ea};
            goto stopped;
          }
          const u64 old = loadUnaligned<u64>(p);
          storeUnaligned<u64>(p, detail::amoCompute<u64>(d.op, old, x[d.rs2]));
          x[d.rd] = old;
          break;
        }

        // ---- F and D ----
        case Op::kFlw: {
          ea = x[d.rs1] + static_cast<i64>(d.imm);
          u32 v;
          if (!mem.load(ea, v)) [[unlikely]] {
            stop = {StopReason::kLoadFault, ea};
            goto stopped;
          }
          f[d.rd] = fpu::box(v);
          break;
        }
        case Op::kFld: {
          ea = x[d.rs1] + static_cast<i64>(d.imm);
          u64 v;
          if (!mem.load(ea, v)) [[unlikely]] {
            stop = {StopReason::kLoadFault, ea};
            goto stopped;
          }
          f[d.rd] = v;
          break;
        }

#define HPM_FP_RM                                    \
  u8 rm;                                             \
  if (!roundingMode(d, rm)) [[unlikely]] {           \
    stop = {StopReason::kIllegalInstruction, d.raw}; \
    goto stopped;                                    \
  }
#define HPM_FP2_32(OP, HOST, SOFT)                                                      \
  case Op::OP: {                                                                        \
    HPM_FP_RM                                                                           \
    const u32 a = fpu::unbox(f[d.rs1]), b = fpu::unbox(f[d.rs2]);                       \
    f[d.rd] = fpu::box(rm == 0 ? fpu::HOST(a, b) : sf::SOFT(a, b, softRm(rm), fflags)); \
    break;                                                                              \
  }
#define HPM_FP2_64(OP, HOST, SOFT)                                            \
  case Op::OP: {                                                              \
    HPM_FP_RM                                                                 \
    const u64 a = f[d.rs1], b = f[d.rs2];                                     \
    f[d.rd] = rm == 0 ? fpu::HOST(a, b) : sf::SOFT(a, b, softRm(rm), fflags); \
    break;                                                                    \
  }
          HPM_FP2_32(kFaddS, add32, add32)
          HPM_FP2_32(kFsubS, sub32, sub32)
          HPM_FP2_32(kFmulS, mul32, mul32)
          HPM_FP2_32(kFdivS, div32, div32)
          HPM_FP2_64(kFaddD, add64, add64)
          HPM_FP2_64(kFsubD, sub64, sub64)
          HPM_FP2_64(kFmulD, mul64, mul64)
          HPM_FP2_64(kFdivD, div64, div64)
#undef HPM_FP2_32
#undef HPM_FP2_64
        case Op::kFsqrtS: {
          HPM_FP_RM
          const u32 a = fpu::unbox(f[d.rs1]);
          f[d.rd] = fpu::box(rm == 0 ? fpu::sqrt32(a) : sf::sqrt32(a, softRm(rm), fflags));
          break;
        }
        case Op::kFsqrtD: {
          HPM_FP_RM
          const u64 a = f[d.rs1];
          f[d.rd] = rm == 0 ? fpu::sqrt64(a) : sf::sqrt64(a, softRm(rm), fflags);
          break;
        }

        // Fused multiply-add: negating operands (not the result) gives the exact RISC-V forms
        // in every rounding mode: fmsub = a*b-c, fnmsub = -(a*b)+c, fnmadd = -(a*b)-c.
#define HPM_FMA_32(OP, NEG_PRODUCT, NEG_ADDEND)                              \
  case Op::OP: {                                                             \
    HPM_FP_RM                                                                \
    const u32 a = fpu::unbox(f[d.rs1]) ^ ((NEG_PRODUCT) ? 0x80000000u : 0u); \
    const u32 b = fpu::unbox(f[d.rs2]);                                      \
    const u32 c = fpu::unbox(f[d.rs3]) ^ ((NEG_ADDEND) ? 0x80000000u : 0u);  \
    f[d.rd] = fpu::box(rm == 0 ? fpu::fma32(a, b, c, fflags)                 \
                               : sf::mulAdd32(a, b, c, softRm(rm), fflags)); \
    break;                                                                   \
  }
#define HPM_FMA_64(OP, NEG_PRODUCT, NEG_ADDEND)                                                  \
  case Op::OP: {                                                                                 \
    HPM_FP_RM                                                                                    \
    const u64 a = f[d.rs1] ^ ((NEG_PRODUCT) ? u64{1} << 63 : 0);                                 \
    const u64 b = f[d.rs2];                                                                      \
    const u64 c = f[d.rs3] ^ ((NEG_ADDEND) ? u64{1} << 63 : 0);                                  \
    f[d.rd] = rm == 0 ? fpu::fma64(a, b, c, fflags) : sf::mulAdd64(a, b, c, softRm(rm), fflags); \
    break;                                                                                       \
  }
          HPM_FMA_32(kFmaddS, false, false)
          HPM_FMA_32(kFmsubS, false, true)
          HPM_FMA_32(kFnmsubS, true, false)
          HPM_FMA_32(kFnmaddS, true, true)
          HPM_FMA_64(kFmaddD, false, false)
          HPM_FMA_64(kFmsubD, false, true)
          HPM_FMA_64(kFnmsubD, true, false)
          HPM_FMA_64(kFnmaddD, true, true)
#undef HPM_FMA_32
#undef HPM_FMA_64

        case Op::kFsgnjS:
          f[d.rd] = fpu::box(fpu::sgnj32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2])));
          break;
        case Op::kFsgnjnS:
          f[d.rd] = fpu::box(fpu::sgnjn32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2])));
          break;
        case Op::kFsgnjxS:
          f[d.rd] = fpu::box(fpu::sgnjx32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2])));
          break;
        case Op::kFsgnjD: f[d.rd] = fpu::sgnj64(f[d.rs1], f[d.rs2]); break;
        case Op::kFsgnjnD: f[d.rd] = fpu::sgnjn64(f[d.rs1], f[d.rs2]); break;
        case Op::kFsgnjxD: f[d.rd] = fpu::sgnjx64(f[d.rs1], f[d.rs2]); break;
        case Op::kFminS:
          f[d.rd] = fpu::box(sf::min32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2]), fflags));
          break;
        case Op::kFmaxS:
          f[d.rd] = fpu::box(sf::max32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2]), fflags));
          break;
        case Op::kFminD: f[d.rd] = sf::min64(f[d.rs1], f[d.rs2], fflags); break;
        case Op::kFmaxD: f[d.rd] = sf::max64(f[d.rs1], f[d.rs2], fflags); break;
        case Op::kFeqS:
          x[d.rd] = sf::eq32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2]), fflags);
          break;
        case Op::kFltS:
          x[d.rd] = sf::lt32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2]), fflags);
          break;
        case Op::kFleS:
          x[d.rd] = sf::le32(fpu::unbox(f[d.rs1]), fpu::unbox(f[d.rs2]), fflags);
          break;
        case Op::kFeqD: x[d.rd] = sf::eq64(f[d.rs1], f[d.rs2], fflags); break;
        case Op::kFltD: x[d.rd] = sf::lt64(f[d.rs1], f[d.rs2], fflags); break;
        case Op::kFleD: x[d.rd] = sf::le64(f[d.rs1], f[d.rs2], fflags); break;
        case Op::kFclassS: x[d.rd] = sf::classify32(fpu::unbox(f[d.rs1])); break;
        case Op::kFclassD: x[d.rd] = sf::classify64(f[d.rs1]); break;
        case Op::kFmvXW: x[d.rd] = static_cast<u64>(detail::sext32(f[d.rs1])); break;
        case Op::kFmvWX: f[d.rd] = fpu::box(static_cast<u32>(x[d.rs1])); break;
        case Op::kFmvXD: x[d.rd] = f[d.rs1]; break;
        case Op::kFmvDX:
          f[d.rd] = x[d.rs1];
          break;

          // Float to integer: always in integer code (RISC-V saturates where x86 does not).
#define HPM_FTOI(OP, FN, READ)                            \
  case Op::OP: {                                          \
    HPM_FP_RM                                             \
    x[d.rd] = sf::FN(READ(f[d.rs1]), softRm(rm), fflags); \
    break;                                                \
  }
#define HPM_READ32(v) fpu::unbox(v)
#define HPM_READ64(v) (v)
          HPM_FTOI(kFcvtWS, f32ToI32, HPM_READ32)
          HPM_FTOI(kFcvtWuS, f32ToU32, HPM_READ32)
          HPM_FTOI(kFcvtLS, f32ToI64, HPM_READ32)
          HPM_FTOI(kFcvtLuS, f32ToU64, HPM_READ32)
          HPM_FTOI(kFcvtWD, f64ToI32, HPM_READ64)
          HPM_FTOI(kFcvtWuD, f64ToU32, HPM_READ64)
          HPM_FTOI(kFcvtLD, f64ToI64, HPM_READ64)
          HPM_FTOI(kFcvtLuD, f64ToU64, HPM_READ64)
#undef HPM_FTOI
#undef HPM_READ32
#undef HPM_READ64

        // Integer to float: the host rounds exactly in round-to-nearest-even.
        case Op::kFcvtSW: {
          HPM_FP_RM
          const i32 v = static_cast<i32>(x[d.rs1]);
          f[d.rd] = fpu::box(rm == 0 ? fpu::i64ToF32(v) : sf::i32ToF32(v, softRm(rm), fflags));
          break;
        }
        case Op::kFcvtSWu: {
          HPM_FP_RM
          const u32 v = static_cast<u32>(x[d.rs1]);
          f[d.rd] = fpu::box(rm == 0 ? fpu::i64ToF32(v) : sf::u32ToF32(v, softRm(rm), fflags));
          break;
        }
        case Op::kFcvtSL: {
          HPM_FP_RM
          const i64 v = static_cast<i64>(x[d.rs1]);
          f[d.rd] = fpu::box(rm == 0 ? fpu::i64ToF32(v) : sf::i64ToF32(v, softRm(rm), fflags));
          break;
        }
        case Op::kFcvtSLu: {
          HPM_FP_RM
          const u64 v = x[d.rs1];
          f[d.rd] = fpu::box(rm == 0 ? fpu::u64ToF32(v) : sf::u64ToF32(v, softRm(rm), fflags));
          break;
        }
        case Op::kFcvtDW: {
          HPM_FP_RM
          f[d.rd] = fpu::i64ToF64(static_cast<i32>(x[d.rs1]));  // exact in every mode
          break;
        }
        case Op::kFcvtDWu: {
          HPM_FP_RM
          f[d.rd] = fpu::i64ToF64(static_cast<u32>(x[d.rs1]));  // exact in every mode
          break;
        }
        case Op::kFcvtDL: {
          HPM_FP_RM
          const i64 v = static_cast<i64>(x[d.rs1]);
          f[d.rd] = rm == 0 ? fpu::i64ToF64(v) : sf::i64ToF64(v, softRm(rm), fflags);
          break;
        }
        case Op::kFcvtDLu: {
          HPM_FP_RM
          const u64 v = x[d.rs1];
          f[d.rd] = rm == 0 ? fpu::u64ToF64(v) : sf::u64ToF64(v, softRm(rm), fflags);
          break;
        }
        case Op::kFcvtSD: {
          HPM_FP_RM
          const u64 a = f[d.rs1];
          f[d.rd] = fpu::box(rm == 0 ? fpu::f64ToF32(a) : sf::f64ToF32(a, softRm(rm), fflags));
          break;
        }
        case Op::kFcvtDS: {
          HPM_FP_RM
          f[d.rd] = fpu::f32ToF64(fpu::unbox(f[d.rs1]));  // exact in every mode
          break;
        }
#undef HPM_FP_RM

        case Op::kCount:
        default: __builtin_unreachable();  // decode() only produces valid operations
      }
      if constexpr (Observer::kActive) observer.retire(d, pc, next, ea);
      pc = next;
    }
    retired = retired_after_block;
  }
  stop = {StopReason::kBudget, 0};
  in = nullptr;

stopped:
  if (in != nullptr) retired = block_retired + static_cast<u64>(in - block->insts);
  s.pc = pc;
  s.instret += retired;
  if constexpr (!Observer::kActive) s.cycle += retired;
  s.fflags = fflags | fpu::HostFlags::take();
  return stop;
}

}  // namespace hpm
