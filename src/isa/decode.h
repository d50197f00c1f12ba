// Decoding of RV64IMAFDC instruction words into a compact, execution-ready form.
#pragma once

#include <string>

#include "base/types.h"
#include "isa/ops.h"

namespace hpm::isa {

// A decoded instruction. Compressed forms are expanded to their base instruction, so an
// executor only handles base operations; `length` tells 2 from 4 bytes.
struct DecodedInst {
  Op op = Op::kIllegal;
  u8 rd = 0;
  u8 rs1 = 0;
  u8 rs2 = 0;
  u8 rs3 = 0;
  u8 length = 4;
  u8 rm = 0;    // FP rounding-mode field; for AMOs the aq/rl bits; for fence the pred/succ
  i32 imm = 0;  // sign-extended immediate; CSR number for CSR instructions
  u32 raw = 0;  // the instruction word (16-bit forms in the low half)

  const OpInfo& info() const { return opInfo(op); }
};
static_assert(sizeof(DecodedInst) == 16);

// Number of bytes of the instruction whose low 16 bits are `low`: 2 or 4. Longer encodings
// (48-bit and up) are reported as 4 and decode as illegal.
constexpr unsigned instLength(u16 low) {
  return (low & 3) == 3 ? 4 : 2;
}

// Decodes one instruction. `raw` holds 4 bytes starting at the instruction (for a 2-byte
// instruction the upper half is ignored). Reserved and unsupported encodings give kIllegal.
DecodedInst decode(u32 raw);

// Textual form in the style of objdump, e.g. "addi a0, sp, 16". `pc` resolves branch targets.
std::string disassemble(const DecodedInst& inst, u64 pc);

// ABI names of the integer and floating-point registers.
std::string_view intRegName(unsigned r);
std::string_view fpRegName(unsigned r);

}  // namespace hpm::isa
