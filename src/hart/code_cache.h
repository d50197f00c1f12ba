// Predecoded guest code: straight-line blocks of decoded instructions, looked up by start PC.
//
// A block ends after the first control transfer (branch, jump, ecall, ebreak, fence.i, an
// illegal instruction) or at the end of a page, so the executor checks for stops and time only
// between blocks. Writes to x0 are redirected at decode time to a sink register (index 32), so
// the executor never tests rd == 0. The cache is flushed whole by fence.i, the icache-flush
// system call, and unmapping or re-protecting executable memory; flushes are rare. It also
// starts again empty when the decoded code would pass its capacity (kernel.code_cache_mib), so
// a program's host footprint does not grow with the code it executes; a flush only costs the
// host the blocks' rebuilding, and simulated results never depend on it.
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

  // `capacity_bytes`: the most decoded code (blocks and their index) kept before the cache
  // starts again empty; the host memory it takes stays below that plus one chunk (1 MiB).
  CodeCache(const GuestMemory& memory, u64 capacity_bytes);

  // The block starting at `pc`, or nullptr when the instruction at `pc` cannot be fetched
  // (not mapped executable); then `fault_addr` holds the first inaccessible byte.
  const Block* lookup(u64 pc, u64& fault_addr) {
    const Block* b = table_[(pc >> 1) & kTableMask];
    if (b != nullptr && b->pc == pc) [[likely]]
      return b;
    return lookupSlow(pc, fault_addr);
  }

  void flush();
  // Every flush, whatever its cause: a block found before a flush is stale after it.
  u64 flushCount() const { return flushes_; }
  // ... of which the cache's capacity caused.
  u64 capacityFlushCount() const { return capacity_flushes_; }
  u64 blocksBuilt() const { return built_; }
  // Host bytes the decoded code takes now: its chunks and an estimate of its index's entries.
  u64 bytesInUse() const;

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
  u64 capacity_bytes_;
  u64 flushes_ = 0;
  u64 capacity_flushes_ = 0;
  u64 built_ = 0;
};

}  // namespace hpm
