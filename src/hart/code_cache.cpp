#include "hart/code_cache.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>

namespace hpm {
namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
// An index entry: an unordered_map node (next pointer, key, value, cached hash) and its bucket.
constexpr std::size_t kIndexEntryBytes = 40;

std::size_t blockBytes(u32 count) {
  return sizeof(Block) + sizeof(isa::DecodedInst) * count;
}

bool endsBlock(const isa::DecodedInst& d) {
  using isa::Op;
  switch (d.info().cls) {
    case isa::InstClass::kBranch:
    case isa::InstClass::kJump: return true;
    default:
      return d.op == Op::kEcall || d.op == Op::kEbreak || d.op == Op::kFenceI ||
             d.op == Op::kIllegal;
  }
}

}  // namespace

CodeCache::CodeCache(const GuestMemory& memory, u64 capacity_bytes)
    : memory_(memory), table_(kTableSize, nullptr), capacity_bytes_(capacity_bytes) {}

u64 CodeCache::bytesInUse() const {
  const u64 chunks = chunks_.empty() ? 0 : (chunks_.size() - 1) * kChunkBytes + chunk_used_;
  return chunks + blocks_.size() * kIndexEntryBytes;
}

void CodeCache::flush() {
  std::fill(table_.begin(), table_.end(), nullptr);
  blocks_.clear();
  // Keep the first chunk for reuse; blocks are trivially destructible.
  if (chunks_.size() > 1) chunks_.resize(1);
  chunk_used_ = 0;
  ++flushes_;
}

Block* CodeCache::allocate(u32 count) {
  const std::size_t bytes = (blockBytes(count) + alignof(Block) - 1) & ~(alignof(Block) - 1);
  if (chunks_.empty() || chunk_used_ + bytes > kChunkBytes) {
    if (!chunks_.empty() || chunks_.capacity() == 0) {
      chunks_.push_back(std::make_unique<u8[]>(kChunkBytes));
    }
    chunk_used_ = 0;
  }
  u8* where = chunks_.back().get() + chunk_used_;
  chunk_used_ += bytes;
  return new (where) Block();
}

const Block* CodeCache::lookupSlow(u64 pc, u64& fault_addr) {
  Block* b = nullptr;
  if (auto it = blocks_.find(pc); it != blocks_.end()) {
    b = it->second;
  } else {
    // Before building, so that no block the caller holds can go stale: callers keep a block
    // only until their next lookup (and compare flushCount() to resume in one).
    if (bytesInUse() + blockBytes(kMaxBlockInstructions) + kIndexEntryBytes > capacity_bytes_) {
      flush();
      ++capacity_flushes_;
    }
    b = build(pc, fault_addr);
    if (b == nullptr) return nullptr;
    blocks_.emplace(pc, b);
  }
  table_[(pc >> 1) & kTableMask] = b;
  return b;
}

Block* CodeCache::build(u64 pc, u64& fault_addr) {
  isa::DecodedInst insts[kMaxBlockInstructions];
  u32 count = 0;
  u64 addr = pc;
  const u64 page_end = (pc | (GuestMemory::kPageSize - 1)) + 1;
  while (count < kMaxBlockInstructions && addr < page_end) {
    const u8* low = memory_.view(addr, 2, GuestMemory::kExec);
    if (low == nullptr) {
      fault_addr = addr;
      break;
    }
    u32 raw = loadUnaligned<u16>(low);
    if (isa::instLength(static_cast<u16>(raw)) == 4) {
      const u8* high = memory_.view(addr + 2, 2, GuestMemory::kExec);
      if (high == nullptr) {
        fault_addr = addr + 2;
        break;
      }
      raw |= static_cast<u32>(loadUnaligned<u16>(high)) << 16;
    }
    isa::DecodedInst d = isa::decode(raw);
    if (isa::writesIntRd(d.info().format) && d.rd == 0) d.rd = kSinkRegister;
    insts[count++] = d;
    addr += d.length;
    if (endsBlock(d)) break;
  }
  if (count == 0) return nullptr;
  Block* b = allocate(count);
  b->pc = pc;
  b->count = count;
  b->bytes = static_cast<u32>(addr - pc);
  auto* storage = reinterpret_cast<isa::DecodedInst*>(reinterpret_cast<u8*>(b) + sizeof(Block));
  std::uninitialized_copy(insts, insts + count, storage);
  b->insts = storage;
  ++built_;
  return b;
}

}  // namespace hpm
