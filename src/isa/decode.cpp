#include "isa/decode.h"

#include "base/bits.h"

namespace hpm::isa {
namespace {

constexpr u32 bits(u32 v, unsigned hi, unsigned lo) {
  return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr u32 bit(u32 v, unsigned b) {
  return (v >> b) & 1;
}

DecodedInst make(Op op, u32 raw, unsigned length, unsigned rd = 0, unsigned rs1 = 0,
                 unsigned rs2 = 0, i64 imm = 0) {
  DecodedInst d;
  d.op = op;
  d.raw = raw;
  d.length = static_cast<u8>(length);
  d.rd = static_cast<u8>(rd);
  d.rs1 = static_cast<u8>(rs1);
  d.rs2 = static_cast<u8>(rs2);
  d.imm = static_cast<i32>(imm);
  return d;
}

DecodedInst illegal(u32 raw, unsigned length) {
  return make(Op::kIllegal, raw, length);
}

// Rounding-mode fields 5 and 6 are reserved; 7 (dynamic) is checked against frm at run time.
constexpr bool validRm(u32 rm) {
  return rm != 5 && rm != 6;
}

DecodedInst decodeOpFp(u32 raw) {
  const unsigned rd = bits(raw, 11, 7), rs1 = bits(raw, 19, 15), rs2 = bits(raw, 24, 20);
  const u32 rm = bits(raw, 14, 12);
  const u32 funct7 = bits(raw, 31, 25);
  const bool dbl = (funct7 & 3) == 1;
  if ((funct7 & 3) > 1) return illegal(raw, 4);  // half and quad precision are not implemented
  auto fp = [&](Op s, Op d, bool uses_rm) {
    if (uses_rm && !validRm(rm)) return illegal(raw, 4);
    DecodedInst inst = make(dbl ? d : s, raw, 4, rd, rs1, rs2);
    inst.rm = static_cast<u8>(rm);
    return inst;
  };
  switch (funct7 >> 2) {
    case 0x00: return fp(Op::kFaddS, Op::kFaddD, true);
    case 0x01: return fp(Op::kFsubS, Op::kFsubD, true);
    case 0x02: return fp(Op::kFmulS, Op::kFmulD, true);
    case 0x03: return fp(Op::kFdivS, Op::kFdivD, true);
    case 0x0b:
      if (rs2 != 0) return illegal(raw, 4);
      return fp(Op::kFsqrtS, Op::kFsqrtD, true);
    case 0x04:
      if (rm == 0) return fp(Op::kFsgnjS, Op::kFsgnjD, false);
      if (rm == 1) return fp(Op::kFsgnjnS, Op::kFsgnjnD, false);
      if (rm == 2) return fp(Op::kFsgnjxS, Op::kFsgnjxD, false);
      return illegal(raw, 4);
    case 0x05:
      if (rm == 0) return fp(Op::kFminS, Op::kFminD, false);
      if (rm == 1) return fp(Op::kFmaxS, Op::kFmaxD, false);
      return illegal(raw, 4);
    case 0x08:  // fcvt.s.d (fmt S, rs2 = D) and fcvt.d.s (fmt D, rs2 = S)
      if (!dbl && rs2 == 1) return fp(Op::kFcvtSD, Op::kFcvtSD, true);
      if (dbl && rs2 == 0) return fp(Op::kFcvtDS, Op::kFcvtDS, true);
      return illegal(raw, 4);
    case 0x14:
      if (rm == 0) return fp(Op::kFleS, Op::kFleD, false);
      if (rm == 1) return fp(Op::kFltS, Op::kFltD, false);
      if (rm == 2) return fp(Op::kFeqS, Op::kFeqD, false);
      return illegal(raw, 4);
    case 0x18:  // fcvt.{w,wu,l,lu}.fmt
      switch (rs2) {
        case 0: return fp(Op::kFcvtWS, Op::kFcvtWD, true);
        case 1: return fp(Op::kFcvtWuS, Op::kFcvtWuD, true);
        case 2: return fp(Op::kFcvtLS, Op::kFcvtLD, true);
        case 3: return fp(Op::kFcvtLuS, Op::kFcvtLuD, true);
        default: return illegal(raw, 4);
      }
    case 0x1a:  // fcvt.fmt.{w,wu,l,lu}
      switch (rs2) {
        case 0: return fp(Op::kFcvtSW, Op::kFcvtDW, true);
        case 1: return fp(Op::kFcvtSWu, Op::kFcvtDWu, true);
        case 2: return fp(Op::kFcvtSL, Op::kFcvtDL, true);
        case 3: return fp(Op::kFcvtSLu, Op::kFcvtDLu, true);
        default: return illegal(raw, 4);
      }
    case 0x1c:
      if (rs2 != 0) return illegal(raw, 4);
      if (rm == 0) return fp(Op::kFmvXW, Op::kFmvXD, false);
      if (rm == 1) return fp(Op::kFclassS, Op::kFclassD, false);
      return illegal(raw, 4);
    case 0x1e:
      if (rs2 != 0 || rm != 0) return illegal(raw, 4);
      return fp(Op::kFmvWX, Op::kFmvDX, false);
    default: return illegal(raw, 4);
  }
}

DecodedInst decodeAmo(u32 raw) {
  const unsigned rd = bits(raw, 11, 7), rs1 = bits(raw, 19, 15), rs2 = bits(raw, 24, 20);
  const u32 funct3 = bits(raw, 14, 12);
  if (funct3 != 2 && funct3 != 3) return illegal(raw, 4);
  const bool dbl = funct3 == 3;
  Op op;
  switch (bits(raw, 31, 27)) {
    case 0x02:
      if (rs2 != 0) return illegal(raw, 4);
      op = dbl ? Op::kLrD : Op::kLrW;
      break;
    case 0x03: op = dbl ? Op::kScD : Op::kScW; break;
    case 0x01: op = dbl ? Op::kAmoswapD : Op::kAmoswapW; break;
    case 0x00: op = dbl ? Op::kAmoaddD : Op::kAmoaddW; break;
    case 0x04: op = dbl ? Op::kAmoxorD : Op::kAmoxorW; break;
    case 0x0c: op = dbl ? Op::kAmoandD : Op::kAmoandW; break;
    case 0x08: op = dbl ? Op::kAmoorD : Op::kAmoorW; break;
    case 0x10: op = dbl ? Op::kAmominD : Op::kAmominW; break;
    case 0x14: op = dbl ? Op::kAmomaxD : Op::kAmomaxW; break;
    case 0x18: op = dbl ? Op::kAmominuD : Op::kAmominuW; break;
    case 0x1c: op = dbl ? Op::kAmomaxuD : Op::kAmomaxuW; break;
    default: return illegal(raw, 4);
  }
  DecodedInst d = make(op, raw, 4, rd, rs1, rs2);
  d.rm = static_cast<u8>(bits(raw, 26, 25));
  return d;
}

DecodedInst decode32(u32 raw) {
  const unsigned rd = bits(raw, 11, 7), rs1 = bits(raw, 19, 15), rs2 = bits(raw, 24, 20);
  const u32 funct3 = bits(raw, 14, 12);
  const u32 funct7 = bits(raw, 31, 25);
  const i64 imm_i = signExtend(raw >> 20, 12);
  const i64 imm_s = signExtend((bits(raw, 31, 25) << 5) | bits(raw, 11, 7), 12);
  const i64 imm_b = signExtend((bit(raw, 31) << 12) | (bit(raw, 7) << 11) |
                                   (bits(raw, 30, 25) << 5) | (bits(raw, 11, 8) << 1),
                               13);
  const i64 imm_u = signExtend(raw & 0xfffff000u, 32);
  const i64 imm_j = signExtend((bit(raw, 31) << 20) | (bits(raw, 19, 12) << 12) |
                                   (bit(raw, 20) << 11) | (bits(raw, 30, 21) << 1),
                               21);
  auto r = [&](Op op) { return make(op, raw, 4, rd, rs1, rs2); };
  auto i = [&](Op op) { return make(op, raw, 4, rd, rs1, 0, imm_i); };

  switch (raw & 0x7f) {
    case 0x37: return make(Op::kLui, raw, 4, rd, 0, 0, imm_u);
    case 0x17: return make(Op::kAuipc, raw, 4, rd, 0, 0, imm_u);
    case 0x6f: return make(Op::kJal, raw, 4, rd, 0, 0, imm_j);
    case 0x67:
      if (funct3 != 0) break;
      return i(Op::kJalr);
    case 0x63: {
      static constexpr Op kBranch[8] = {Op::kBeq, Op::kBne, Op::kIllegal, Op::kIllegal,
                                        Op::kBlt, Op::kBge, Op::kBltu,    Op::kBgeu};
      if (kBranch[funct3] == Op::kIllegal) break;
      return make(kBranch[funct3], raw, 4, 0, rs1, rs2, imm_b);
    }
    case 0x03: {
      static constexpr Op kLoad[8] = {Op::kLb,  Op::kLh,  Op::kLw,  Op::kLd,
                                      Op::kLbu, Op::kLhu, Op::kLwu, Op::kIllegal};
      if (kLoad[funct3] == Op::kIllegal) break;
      return i(kLoad[funct3]);
    }
    case 0x23: {
      static constexpr Op kStore[4] = {Op::kSb, Op::kSh, Op::kSw, Op::kSd};
      if (funct3 > 3) break;
      return make(kStore[funct3], raw, 4, 0, rs1, rs2, imm_s);
    }
    case 0x13:
      switch (funct3) {
        case 0: return i(Op::kAddi);
        case 2: return i(Op::kSlti);
        case 3: return i(Op::kSltiu);
        case 4: return i(Op::kXori);
        case 6: return i(Op::kOri);
        case 7: return i(Op::kAndi);
        case 1:
          if (bits(raw, 31, 26) != 0) break;
          return make(Op::kSlli, raw, 4, rd, rs1, 0, bits(raw, 25, 20));
        case 5:
          if (bits(raw, 31, 26) == 0x00)
            return make(Op::kSrli, raw, 4, rd, rs1, 0, bits(raw, 25, 20));
          if (bits(raw, 31, 26) == 0x10)
            return make(Op::kSrai, raw, 4, rd, rs1, 0, bits(raw, 25, 20));
          break;
      }
      break;
    case 0x1b:
      if (funct3 == 0) return i(Op::kAddiw);
      if (funct3 == 1 && funct7 == 0) return make(Op::kSlliw, raw, 4, rd, rs1, 0, rs2);
      if (funct3 == 5 && funct7 == 0) return make(Op::kSrliw, raw, 4, rd, rs1, 0, rs2);
      if (funct3 == 5 && funct7 == 0x20) return make(Op::kSraiw, raw, 4, rd, rs1, 0, rs2);
      break;
    case 0x33:
      if (funct7 == 0) {
        static constexpr Op kOp[8] = {Op::kAdd, Op::kSll, Op::kSlt, Op::kSltu,
                                      Op::kXor, Op::kSrl, Op::kOr,  Op::kAnd};
        return r(kOp[funct3]);
      }
      if (funct7 == 0x20) {
        if (funct3 == 0) return r(Op::kSub);
        if (funct3 == 5) return r(Op::kSra);
        break;
      }
      if (funct7 == 1) {
        static constexpr Op kMul[8] = {Op::kMul, Op::kMulh, Op::kMulhsu, Op::kMulhu,
                                       Op::kDiv, Op::kDivu, Op::kRem,    Op::kRemu};
        return r(kMul[funct3]);
      }
      break;
    case 0x3b:
      if (funct7 == 0) {
        if (funct3 == 0) return r(Op::kAddw);
        if (funct3 == 1) return r(Op::kSllw);
        if (funct3 == 5) return r(Op::kSrlw);
        break;
      }
      if (funct7 == 0x20) {
        if (funct3 == 0) return r(Op::kSubw);
        if (funct3 == 5) return r(Op::kSraw);
        break;
      }
      if (funct7 == 1) {
        static constexpr Op kMulW[8] = {Op::kMulw, Op::kIllegal, Op::kIllegal, Op::kIllegal,
                                        Op::kDivw, Op::kDivuw,   Op::kRemw,    Op::kRemuw};
        if (kMulW[funct3] == Op::kIllegal) break;
        return r(kMulW[funct3]);
      }
      break;
    case 0x0f:
      if (funct3 == 0) {
        DecodedInst d = make(Op::kFence, raw, 4);
        d.rm = static_cast<u8>(bits(raw, 27, 20));  // pred (high nibble) and succ (low nibble)
        return d;
      }
      if (funct3 == 1) return make(Op::kFenceI, raw, 4);
      break;
    case 0x73:
      if (raw == 0x00000073) return make(Op::kEcall, raw, 4);
      if (raw == 0x00100073) return make(Op::kEbreak, raw, 4);
      switch (funct3) {
        case 1: return make(Op::kCsrrw, raw, 4, rd, rs1, 0, raw >> 20);
        case 2: return make(Op::kCsrrs, raw, 4, rd, rs1, 0, raw >> 20);
        case 3: return make(Op::kCsrrc, raw, 4, rd, rs1, 0, raw >> 20);
        case 5: return make(Op::kCsrrwi, raw, 4, rd, rs1, 0, raw >> 20);
        case 6: return make(Op::kCsrrsi, raw, 4, rd, rs1, 0, raw >> 20);
        case 7: return make(Op::kCsrrci, raw, 4, rd, rs1, 0, raw >> 20);
        default: break;  // privileged instructions (wfi, sret, ...) trap in user mode
      }
      break;
    case 0x2f: return decodeAmo(raw);
    case 0x07:
      if (funct3 == 2) return i(Op::kFlw);
      if (funct3 == 3) return i(Op::kFld);
      break;
    case 0x27:
      if (funct3 == 2) return make(Op::kFsw, raw, 4, 0, rs1, rs2, imm_s);
      if (funct3 == 3) return make(Op::kFsd, raw, 4, 0, rs1, rs2, imm_s);
      break;
    case 0x43:
    case 0x47:
    case 0x4b:
    case 0x4f: {
      const u32 fmt = bits(raw, 26, 25);
      const u32 rm = funct3;
      if (fmt > 1 || !validRm(rm)) break;
      static constexpr Op kS[4] = {Op::kFmaddS, Op::kFmsubS, Op::kFnmsubS, Op::kFnmaddS};
      static constexpr Op kD[4] = {Op::kFmaddD, Op::kFmsubD, Op::kFnmsubD, Op::kFnmaddD};
      const unsigned which = ((raw & 0x7f) - 0x43) >> 2;
      DecodedInst d = make(fmt ? kD[which] : kS[which], raw, 4, rd, rs1, rs2);
      d.rs3 = static_cast<u8>(bits(raw, 31, 27));
      d.rm = static_cast<u8>(rm);
      return d;
    }
    case 0x53: return decodeOpFp(raw);
    default: break;
  }
  return illegal(raw, 4);
}

DecodedInst decode16(u32 raw) {
  const u32 c = raw & 0xffff;
  const u32 funct3 = bits(c, 15, 13);
  const unsigned rd_full = bits(c, 11, 7);  // rd / rs1 in CR, CI forms
  const unsigned rs2_full = bits(c, 6, 2);  // rs2 in CR, CSS forms
  const unsigned rd_short = 8 + bits(c, 4, 2);
  const unsigned rs1_short = 8 + bits(c, 9, 7);
  const i64 ci_imm = signExtend((bit(c, 12) << 5) | bits(c, 6, 2), 6);
  auto m = [&](Op op, unsigned rd, unsigned rs1, unsigned rs2, i64 imm) {
    return make(op, c, 2, rd, rs1, rs2, imm);
  };

  switch (c & 3) {
    case 0:
      switch (funct3) {
        case 0: {  // c.addi4spn
          const u32 imm =
              (bits(c, 12, 11) << 4) | (bits(c, 10, 7) << 6) | (bit(c, 6) << 2) | (bit(c, 5) << 3);
          if (imm == 0) break;  // includes the all-zero instruction
          return m(Op::kAddi, rd_short, 2, 0, imm);
        }
        case 1:  // c.fld
          return m(Op::kFld, rd_short, rs1_short, 0, (bits(c, 12, 10) << 3) | (bits(c, 6, 5) << 6));
        case 2:  // c.lw
          return m(Op::kLw, rd_short, rs1_short, 0,
                   (bits(c, 12, 10) << 3) | (bit(c, 6) << 2) | (bit(c, 5) << 6));
        case 3:  // c.ld
          return m(Op::kLd, rd_short, rs1_short, 0, (bits(c, 12, 10) << 3) | (bits(c, 6, 5) << 6));
        case 5:  // c.fsd
          return m(Op::kFsd, 0, rs1_short, rd_short, (bits(c, 12, 10) << 3) | (bits(c, 6, 5) << 6));
        case 6:  // c.sw
          return m(Op::kSw, 0, rs1_short, rd_short,
                   (bits(c, 12, 10) << 3) | (bit(c, 6) << 2) | (bit(c, 5) << 6));
        case 7:  // c.sd
          return m(Op::kSd, 0, rs1_short, rd_short, (bits(c, 12, 10) << 3) | (bits(c, 6, 5) << 6));
        default: break;
      }
      break;
    case 1:
      switch (funct3) {
        case 0: return m(Op::kAddi, rd_full, rd_full, 0, ci_imm);  // c.addi, c.nop, hints
        case 1:                                                    // c.addiw
          if (rd_full == 0) break;
          return m(Op::kAddiw, rd_full, rd_full, 0, ci_imm);
        case 2: return m(Op::kAddi, rd_full, 0, 0, ci_imm);  // c.li
        case 3:
          if (rd_full == 2) {  // c.addi16sp
            const i64 imm = signExtend((bit(c, 12) << 9) | (bit(c, 6) << 4) | (bit(c, 5) << 6) |
                                           (bits(c, 4, 3) << 7) | (bit(c, 2) << 5),
                                       10);
            if (imm == 0) break;
            return m(Op::kAddi, 2, 2, 0, imm);
          } else {  // c.lui
            const i64 imm = signExtend((bit(c, 12) << 17) | (bits(c, 6, 2) << 12), 18);
            if (imm == 0) break;
            return m(Op::kLui, rd_full, 0, 0, imm);
          }
        case 4: {
          const unsigned rd = rs1_short;
          const u32 shamt = (bit(c, 12) << 5) | bits(c, 6, 2);
          switch (bits(c, 11, 10)) {
            case 0: return m(Op::kSrli, rd, rd, 0, shamt);
            case 1: return m(Op::kSrai, rd, rd, 0, shamt);
            case 2: return m(Op::kAndi, rd, rd, 0, ci_imm);
            case 3: {
              static constexpr Op kOps[8] = {Op::kSub,  Op::kXor,  Op::kOr,      Op::kAnd,
                                             Op::kSubw, Op::kAddw, Op::kIllegal, Op::kIllegal};
              const Op op = kOps[(bit(c, 12) << 2) | bits(c, 6, 5)];
              if (op == Op::kIllegal) break;
              return m(op, rd, rd, rd_short, 0);
            }
          }
          break;
        }
        case 5: {  // c.j
          const i64 imm = signExtend(
              (bit(c, 12) << 11) | (bit(c, 11) << 4) | (bits(c, 10, 9) << 8) | (bit(c, 8) << 10) |
                  (bit(c, 7) << 6) | (bit(c, 6) << 7) | (bits(c, 5, 3) << 1) | (bit(c, 2) << 5),
              12);
          return m(Op::kJal, 0, 0, 0, imm);
        }
        case 6:
        case 7: {  // c.beqz, c.bnez
          const i64 imm =
              signExtend((bit(c, 12) << 8) | (bits(c, 11, 10) << 3) | (bits(c, 6, 5) << 6) |
                             (bits(c, 4, 3) << 1) | (bit(c, 2) << 5),
                         9);
          return m(funct3 == 6 ? Op::kBeq : Op::kBne, 0, rs1_short, 0, imm);
        }
      }
      break;
    case 2:
      switch (funct3) {
        case 0: return m(Op::kSlli, rd_full, rd_full, 0, (bit(c, 12) << 5) | bits(c, 6, 2));
        case 1:  // c.fldsp
          return m(Op::kFld, rd_full, 2, 0,
                   (bit(c, 12) << 5) | (bits(c, 6, 5) << 3) | (bits(c, 4, 2) << 6));
        case 2:  // c.lwsp
          if (rd_full == 0) break;
          return m(Op::kLw, rd_full, 2, 0,
                   (bit(c, 12) << 5) | (bits(c, 6, 4) << 2) | (bits(c, 3, 2) << 6));
        case 3:  // c.ldsp
          if (rd_full == 0) break;
          return m(Op::kLd, rd_full, 2, 0,
                   (bit(c, 12) << 5) | (bits(c, 6, 5) << 3) | (bits(c, 4, 2) << 6));
        case 4:
          if (bit(c, 12) == 0) {
            if (rs2_full == 0) {  // c.jr
              if (rd_full == 0) break;
              return m(Op::kJalr, 0, rd_full, 0, 0);
            }
            return m(Op::kAdd, rd_full, 0, rs2_full, 0);  // c.mv
          }
          if (rs2_full == 0) {
            if (rd_full == 0) return make(Op::kEbreak, c, 2);  // c.ebreak
            return m(Op::kJalr, 1, rd_full, 0, 0);             // c.jalr
          }
          return m(Op::kAdd, rd_full, rd_full, rs2_full, 0);  // c.add
        case 5:                                               // c.fsdsp
          return m(Op::kFsd, 0, 2, rs2_full, (bits(c, 12, 10) << 3) | (bits(c, 9, 7) << 6));
        case 6:  // c.swsp
          return m(Op::kSw, 0, 2, rs2_full, (bits(c, 12, 9) << 2) | (bits(c, 8, 7) << 6));
        case 7:  // c.sdsp
          return m(Op::kSd, 0, 2, rs2_full, (bits(c, 12, 10) << 3) | (bits(c, 9, 7) << 6));
      }
      break;
  }
  return illegal(c, 2);
}

}  // namespace

DecodedInst decode(u32 raw) {
  if ((raw & 3) != 3) return decode16(raw);
  if ((raw & 0x1f) == 0x1f) return illegal(raw, 4);  // 48-bit and longer encodings
  return decode32(raw);
}

}  // namespace hpm::isa
