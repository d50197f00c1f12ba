#include <fmt/core.h>

#include "isa/decode.h"

namespace hpm::isa {
namespace {

constexpr std::string_view kIntNames[32] = {"zero", "ra", "sp",  "gp",  "tp", "t0", "t1", "t2",
                                            "s0",   "s1", "a0",  "a1",  "a2", "a3", "a4", "a5",
                                            "a6",   "a7", "s2",  "s3",  "s4", "s5", "s6", "s7",
                                            "s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
constexpr std::string_view kFpNames[32] = {
    "ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0",  "fs1", "fa0",
    "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3",  "fs4", "fs5",
    "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
constexpr std::string_view kRmNames[8] = {"rne", "rtz", "rdn", "rup", "rmm", "", "", "dyn"};

std::string csrName(u32 csr) {
  switch (csr) {
    case 0x001: return "fflags";
    case 0x002: return "frm";
    case 0x003: return "fcsr";
    case 0xc00: return "cycle";
    case 0xc01: return "time";
    case 0xc02: return "instret";
    default:
      if (csr >= 0xc03 && csr <= 0xc1f) return fmt::format("hpmcounter{}", csr - 0xc00);
      return fmt::format("0x{:03x}", csr);
  }
}

// The rounding mode is shown only when it is not the dynamic default, as objdump does.
std::string rmSuffix(const DecodedInst& d) {
  return d.rm == 7 ? std::string() : fmt::format(", {}", kRmNames[d.rm & 7]);
}

bool usesRm(Op op) {
  const InstClass cls = opInfo(op).cls;
  return cls == InstClass::kFpAdd || cls == InstClass::kFpMul || cls == InstClass::kFpFma ||
         cls == InstClass::kFpDiv || cls == InstClass::kFpSqrt || cls == InstClass::kFpCvt;
}

}  // namespace

std::string_view intRegName(unsigned r) {
  return kIntNames[r & 31];
}
std::string_view fpRegName(unsigned r) {
  return kFpNames[r & 31];
}

std::string_view instClassName(InstClass cls) {
  static constexpr std::string_view kNames[] = {
      "int_alu", "int_mul", "int_div", "branch",   "jump",   "load",
      "store",   "atomic",  "fp_load", "fp_store", "fp_add", "fp_mul",
      "fp_fma",  "fp_div",  "fp_sqrt", "fp_misc",  "fp_cvt", "system"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(InstClass::kCount));
  return kNames[static_cast<std::size_t>(cls)];
}

std::string disassemble(const DecodedInst& d, u64 pc) {
  const OpInfo& info = d.info();
  const std::string_view m = info.mnemonic;
  auto x = [](unsigned r) { return intRegName(r); };
  auto f = [](unsigned r) { return fpRegName(r); };
  const std::string rm = usesRm(d.op) ? rmSuffix(d) : std::string();
  switch (info.format) {
    case Format::kNone:
      if (d.op == Op::kIllegal) {
        return d.length == 2 ? fmt::format("illegal 0x{:04x}", d.raw & 0xffff)
                             : fmt::format("illegal 0x{:08x}", d.raw);
      }
      return std::string(m);
    case Format::kFence: return std::string(m);
    case Format::kR: return fmt::format("{} {}, {}, {}", m, x(d.rd), x(d.rs1), x(d.rs2));
    case Format::kI: return fmt::format("{} {}, {}, {}", m, x(d.rd), x(d.rs1), d.imm);
    case Format::kShift: return fmt::format("{} {}, {}, {}", m, x(d.rd), x(d.rs1), d.imm);
    case Format::kU: return fmt::format("{} {}, 0x{:x}", m, x(d.rd), static_cast<u32>(d.imm) >> 12);
    case Format::kJ: return fmt::format("{} {}, 0x{:x}", m, x(d.rd), pc + d.imm);
    case Format::kJalr: return fmt::format("{} {}, {}({})", m, x(d.rd), d.imm, x(d.rs1));
    case Format::kB: return fmt::format("{} {}, {}, 0x{:x}", m, x(d.rs1), x(d.rs2), pc + d.imm);
    case Format::kLoad: return fmt::format("{} {}, {}({})", m, x(d.rd), d.imm, x(d.rs1));
    case Format::kStore: return fmt::format("{} {}, {}({})", m, x(d.rs2), d.imm, x(d.rs1));
    case Format::kCsr:
      return fmt::format("{} {}, {}, {}", m, x(d.rd), csrName(static_cast<u32>(d.imm) & 0xfff),
                         x(d.rs1));
    case Format::kCsrI:
      return fmt::format("{} {}, {}, {}", m, x(d.rd), csrName(static_cast<u32>(d.imm) & 0xfff),
                         d.rs1);
    case Format::kLr: return fmt::format("{} {}, ({})", m, x(d.rd), x(d.rs1));
    case Format::kAmo: return fmt::format("{} {}, {}, ({})", m, x(d.rd), x(d.rs2), x(d.rs1));
    case Format::kFLoad: return fmt::format("{} {}, {}({})", m, f(d.rd), d.imm, x(d.rs1));
    case Format::kFStore: return fmt::format("{} {}, {}({})", m, f(d.rs2), d.imm, x(d.rs1));
    case Format::kFR: return fmt::format("{} {}, {}, {}{}", m, f(d.rd), f(d.rs1), f(d.rs2), rm);
    case Format::kFR1: return fmt::format("{} {}, {}{}", m, f(d.rd), f(d.rs1), rm);
    case Format::kFR4:
      return fmt::format("{} {}, {}, {}, {}{}", m, f(d.rd), f(d.rs1), f(d.rs2), f(d.rs3), rm);
    case Format::kFCmp: return fmt::format("{} {}, {}, {}", m, x(d.rd), f(d.rs1), f(d.rs2));
    case Format::kFToX: return fmt::format("{} {}, {}{}", m, x(d.rd), f(d.rs1), rm);
    case Format::kXToF: return fmt::format("{} {}, {}{}", m, f(d.rd), x(d.rs1), rm);
  }
  return std::string(m);
}

}  // namespace hpm::isa
