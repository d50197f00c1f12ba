// Interconnect transactions: the records an interconnect monitor (pmu/imon, seed 004) filters and
// traces. The memory system publishes one for every request that crosses the node's interconnect
// (bgq: the crossbar between the cores' L1P and the L2 slices, and the L2's requests to DDR), on
// the probe bus's transaction channel (probe::Bus::transaction), and keeps their counts by type
// and snoop result whatever is monitored: the ground truth a filtering counter is held against.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "base/types.h"

namespace hpm::stats {
class Visitor;
}

namespace hpm::probe {

// The transaction namespace, in the order of the type mask's bits (bit t: type t).
// X(Name, "mnemonic", "description")
#define HPM_TRANSACTION_TYPES(X)                                                                \
  X(Read, "RD", "Demand read of a line: a load that missed the L1D and the L1P")                \
  X(Fetch, "IF", "Instruction fetch of a line: a fetch that missed the L1I")                    \
  X(Prefetch, "PF", "Prefetch read of a line by the L1P's stream prefetcher")                   \
  X(Write, "WR", "Write: a store-queue entry drained into the L2")                              \
  X(Atomic, "AT", "Atomic operation performed at the L2 (LR, SC, AMO)")                         \
  X(Invalidate, "INV",                                                                          \
    "Invalidation of a line's private copies by its L2 slice (another core's store or atomic, " \
    "or the L2's eviction of the line)")                                                        \
  X(MemRead, "MRD", "Line read from DDR by an L2 slice (an L2 miss)")                           \
  X(MemWrite, "MWB", "Line written back to DDR by an L2 slice (a dirty L2 eviction)")           \
  X(IoRead, "IORD", "Uncached load from a device's registers")                                  \
  X(IoWrite, "IOWR", "Uncached store to a device's registers")

enum class TransactionType : u8 {
#define HPM_X(name, mnemonic, doc) k##name,
  HPM_TRANSACTION_TYPES(HPM_X)
#undef HPM_X
      kCount
};
inline constexpr u32 kTransactionTypes = static_cast<u32>(TransactionType::kCount);

struct TransactionTypeInfo {
  std::string_view name;      // "Read"
  std::string_view mnemonic;  // "RD"
  std::string_view description;
};
inline constexpr TransactionTypeInfo kTransactionTypeInfo[] = {
#define HPM_X(name, mnemonic, doc) {#name, mnemonic, doc},
    HPM_TRANSACTION_TYPES(HPM_X)
#undef HPM_X
};

// "MemRead" -> "mem_read": the form statistics and event names take.
std::string snakeCase(std::string_view name);

// Who supplied a read's data, or where a write found its line: the snoop result the transaction
// carries (a unary mask over these is a filter term).
#define HPM_SNOOP_RESULTS(X)                                     \
  X(None, "no data moved to the requester (invalidations, DDR)") \
  X(Memory, "memory: the line was not in the L2 (or cache)")     \
  X(L2, "the shared L2: the line was there")

enum class Snoop : u8 {
#define HPM_X(name, doc) k##name,
  HPM_SNOOP_RESULTS(HPM_X)
#undef HPM_X
      kCount
};
inline constexpr u32 kSnoopResults = static_cast<u32>(Snoop::kCount);

struct SnoopInfo {
  std::string_view name;
  std::string_view description;
};
inline constexpr SnoopInfo kSnoopInfo[] = {
#define HPM_X(name, doc) {#name, doc},
    HPM_SNOOP_RESULTS(HPM_X)
#undef HPM_X
};

// Agents (a transaction's source): hardware thread t is agent t; L2 slice s is kSliceAgent + s.
inline constexpr u32 kSliceAgent = 0x4000;
// Transaction ids are a per-agent sequence number of this many bits (it wraps).
inline constexpr u32 kTransactionIdBits = 9;

struct Transaction {
  Cycle cycle = 0;  // the cycle of the instruction that caused it (the bus's now())
  u64 address = 0;  // the line's address (the guest's memory addresses are physical)
  u32 source = 0;   // the requesting agent
  u32 id = 0;       // per-agent sequence number, kTransactionIdBits wide
  TransactionType type = TransactionType::kRead;
  Snoop snoop = Snoop::kNone;
};

// Transactions counted by type and snoop result: the ground truth.
struct TransactionCounts {
  std::array<std::array<u64, kSnoopResults>, kTransactionTypes> n{};

  void add(TransactionType t, Snoop s) { ++n[static_cast<u32>(t)][static_cast<u32>(s)]; }
  // The transactions whose type is in `types` (bit t) and snoop result in `snoops` (bit s).
  u64 count(u32 types, u32 snoops) const {
    u64 sum = 0;
    for (u32 t = 0; t < kTransactionTypes; ++t) {
      for (u32 s = 0; s < kSnoopResults; ++s) {
        if ((types >> t & 1) != 0 && (snoops >> s & 1) != 0) sum += n[t][s];
      }
    }
    return sum;
  }
  void visit(stats::Visitor& v) const;
};

}  // namespace hpm::probe
