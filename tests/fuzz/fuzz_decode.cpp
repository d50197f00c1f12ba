// Fuzzes the decoder and disassembler: any 32-bit word decodes to a valid form without crashing,
// and the decoded operands are within the register file.
#include <cstdlib>
#include <cstring>

#include "isa/decode.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size < 4) return 0;
  hpm::u32 raw = 0;
  std::memcpy(&raw, data, 4);
  const hpm::isa::DecodedInst d = hpm::isa::decode(raw);
  if (d.length != hpm::isa::instLength(static_cast<hpm::u16>(raw))) std::abort();
  if (d.rd > 31 || d.rs1 > 31 || d.rs2 > 31 || d.rs3 > 31) std::abort();
  if (static_cast<std::size_t>(d.op) >= hpm::isa::kOpCount) std::abort();
  const std::string text = hpm::isa::disassemble(d, 0x10000);
  if (text.empty()) std::abort();
  return 0;
}
