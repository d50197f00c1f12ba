// Predecoded guest code: straight-line blocks of decoded instructions, looked up by start PC.
//
// A block ends after the first control transfer (branch, jump, ecall, ebreak, fence.i, an
// illegal instruction) or at the end of a page, so the executor checks for stops and time only
// between blocks. Writes to x0 are redirected at decode time to a sink register (index 32), so
// the executor never tests rd == 0. The cache is flushed whole by fence.i, the icache-flush
// system call, and unmapping or re-protecting executable memory; flushes are rare.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "base/types.h"
#include "hart/memory.h"
#include "isa/decode.h"

namespace hpm {

inline constexpr u8 kSinkRegister = 32;

struct Block {
  u64 pc = 0;                               // address of the first instruction
  u32 count = 0;                            // number of instructions
  u32 bytes = 0;                            // total encoded length
  const isa::DecodedInst* insts = nullptr;  // `count` entries, stored right after the block
};

class CodeCache {
 public:
  static constexpr u32 kMaxBlockInstructions = 64;

  explicit CodeCache(const GuestMemory& memory);

  // The block starting at `pc`, or nullptr when the instruction at `pc` cannot be fetched
  // (not mapped executable); then `fault_addr` holds the first inaccessible byte.
  const Block* lookup(u64 pc, u64& fault_addr) {
    const Block* b = table_[(pc >> 1) & kTableMask];
    if (b != nullptr && b->pc == pc) [[likely]]
      return b;
    return lookupSlow(pc, fault_addr);
  }

  void flush();
  u64 flushCount() const { return flushes_; }
  u64 blocksBuilt() const { return built_; }

 private:
  static constexpr u64 kTableSize = u64{1} << 16;
  static constexpr u64 kTableMask = kTableSize - 1;

  const Block* lookupSlow(u64 pc, u64& fault_addr);
  Block* build(u64 pc, u64& fault_addr);
  Block* allocate(u32 count);

  const GuestMemory& memory_;
  std::vector<const Block*> table_;
  std::unordered_map<u64, Block*> blocks_;
  std::vector<std::unique_ptr<u8[]>> chunks_;
  std::size_t chunk_used_ = 0;
  u64 flushes_ = 0;
  u64 built_ = 0;
};

}  // namespace hpm
