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

// The interconnects a node can have; each has its own transaction namespace (below).
enum class Interconnect : u8 {
  kCrossbar,   // bgq, bgp: the cores' L1P to the shared L2 slices, the L2 to DDR
  kFireplane,  // sunfire: a snooping address bus between private write-back caches and memory
};
std::string_view interconnectName(Interconnect ic);

// Every interconnect's transaction types, one namespace after the other; a monitor's type mask
// covers its own interconnect's (bit i: the namespace's i-th type, kTransactionNamespace below).
// X(Name, "mnemonic", Interconnect, "description")
#define HPM_TRANSACTION_TYPES(X)                                                                 \
  X(Read, "RD", Crossbar, "Demand read of a line: a load that missed the L1D and the L1P")       \
  X(Fetch, "IF", Crossbar, "Instruction fetch of a line: a fetch that missed the L1I")           \
  X(Prefetch, "PF", Crossbar, "Prefetch read of a line by the L1P's stream prefetcher")          \
  X(Write, "WR", Crossbar, "Write: a store-queue entry drained into the L2")                     \
  X(Atomic, "AT", Crossbar, "Atomic operation performed at the L2 (LR, SC, AMO)")                \
  X(Invalidate, "INV", Crossbar,                                                                 \
    "Invalidation of a line's private copies by its L2 slice (another core's store or atomic, "  \
    "or the L2's eviction of the line)")                                                         \
  X(MemRead, "MRD", Crossbar, "Line read from DDR by an L2 slice (an L2 miss)")                  \
  X(MemWrite, "MWB", Crossbar, "Line written back to DDR by an L2 slice (a dirty L2 eviction)")  \
  X(IoRead, "IORD", Crossbar, "Uncached load from a device's registers")                         \
  X(IoWrite, "IOWR", Crossbar, "Uncached store to a device's registers")                         \
  X(ReadToShare, "RTS", Fireplane,                                                               \
    "ReadToShare: a data load or prefetch that missed the external cache asks for a readable "   \
    "copy (the line arrives Exclusive when no other cache holds it, else Shared)")               \
  X(ReadToShareAlways, "RTSA", Fireplane,                                                        \
    "ReadToShareAlways: an instruction fetch that missed the external cache (the line arrives "  \
    "Shared, never Exclusive)")                                                                  \
  X(ReadToShareRemote, "RTSR", Fireplane,                                                        \
    "ReadToShare from another domain over Fire Link (never here: one domain)")                   \
  X(ReadToShareMtag, "RTSM", Fireplane,                                                          \
    "ReadToShare with a memory-tag check of a shared-memory domain (never here: one domain)")    \
  X(ReadToOwn, "RTO", Fireplane,                                                                 \
    "ReadToOwn: a store or atomic that missed the external cache asks for the line and its "     \
    "ownership; every other copy is invalidated")                                                \
  X(ReadToOwnRemote, "RTOR", Fireplane,                                                          \
    "ReadToOwn from another domain over Fire Link (never here: one domain)")                     \
  X(ReadToOwnUpgrade, "RTOU", Fireplane,                                                         \
    "ReadToOwn of a line the requester holds Shared or Owned: no data moves, every other copy "  \
    "is invalidated")                                                                            \
  X(ReadStream, "RS", Fireplane,                                                                 \
    "ReadStream: a block load that bypasses the caches (never here: RV64GC has no block loads)") \
  X(ReadStreamRemote, "RSR", Fireplane, "ReadStream from another domain (never here)")           \
  X(WriteStream, "WS", Fireplane,                                                                \
    "WriteStream: a block store of a whole line (never here: RV64GC has no block stores)")       \
  X(WriteStreamRemote, "WSR", Fireplane, "WriteStream from another domain (never here)")         \
  X(WriteBack, "WB", Fireplane,                                                                  \
    "WriteBack: the external cache evicts a Modified or Owned line to its home memory (the "     \
    "address is the evicted line's)")                                                            \
  X(WriteBackRemote, "WBR", Fireplane, "WriteBack to another domain (never here)")               \
  X(ReadIO, "RIO", Fireplane, "ReadIO: an uncached load from a device's registers")              \
  X(WriteIO, "WIO", Fireplane, "WriteIO: an uncached store to a device's registers")             \
  X(ReadBlockIO, "RBIO", Fireplane,                                                              \
    "ReadBlockIO: a block read of device space (never here: no block loads)")                    \
  X(WriteBlockIO, "WBIO", Fireplane,                                                             \
    "WriteBlockIO: a block write of device space (never here: no block stores)")                 \
  X(Interrupt, "INT", Fireplane,                                                                 \
    "Interrupt: a processor-to-processor interrupt (never here: the kernel wakes threads "       \
    "without one)")                                                                              \
  X(Flush, "FLS", Fireplane,                                                                     \
    "Flush of a line from every cache by address (never here: RV64GC has no cache-management "   \
    "instructions)")

enum class TransactionType : u8 {
#define HPM_X(name, mnemonic, ic, doc) k##name,
  HPM_TRANSACTION_TYPES(HPM_X)
#undef HPM_X
      kCount
};
inline constexpr u32 kTransactionTypes = static_cast<u32>(TransactionType::kCount);

struct TransactionTypeInfo {
  std::string_view name;      // "Read"
  std::string_view mnemonic;  // "RD"
  Interconnect interconnect;
  std::string_view description;
};
inline constexpr TransactionTypeInfo kTransactionTypeInfo[] = {
#define HPM_X(name, mnemonic, ic, doc) {#name, mnemonic, Interconnect::k##ic, doc},
    HPM_TRANSACTION_TYPES(HPM_X)
#undef HPM_X
};

// An interconnect's namespace: its types are contiguous in TransactionType, from `first`.
struct TransactionNamespace {
  u32 first = 0;
  u32 size = 0;
  // The mask bit of `t` in this namespace, or `size` when t is another interconnect's.
  u32 bitOf(TransactionType t) const {
    const u32 i = static_cast<u32>(t) - first;  // wraps for types before `first`
    return i < size ? i : size;
  }
  TransactionType type(u32 bit) const { return static_cast<TransactionType>(first + bit); }
  // A namespace mask (bit i: type first + i) as a mask over every type (bit t: type t).
  u64 global(u64 mask) const { return (mask & ((u64{1} << size) - 1)) << first; }
  u64 local(u64 global_mask) const { return global_mask >> first & ((u64{1} << size) - 1); }
};
constexpr TransactionNamespace transactionNamespace(Interconnect ic) {
  TransactionNamespace ns{kTransactionTypes, 0};
  for (u32 t = 0; t < kTransactionTypes; ++t) {
    if (kTransactionTypeInfo[t].interconnect != ic) continue;
    if (ns.size == 0) ns.first = t;
    ++ns.size;
  }
  return ns;
}
static_assert(transactionNamespace(Interconnect::kFireplane).size == 19,
              "seed 004: Fireplane's namespace has 19 transaction types");
static_assert(kTransactionTypes <= 32, "type masks of every namespace fit a u32 (Preset::types)");

// "MemRead" -> "mem_read": the form statistics and event names take.
std::string snakeCase(std::string_view name);

// Who supplied a read's data, or where a write found its line: the snoop result the transaction
// carries (a unary mask over these is a filter term).
// Crossbar: None, Memory, L2. Fireplane: None, Memory, Shared, Owned, Modified.
#define HPM_SNOOP_RESULTS(X)                                                          \
  X(None, "no data moved to the requester (invalidations, writebacks, DDR, I/O)")     \
  X(Memory,                                                                           \
    "memory supplied the line, and no cache held it (the L2 on the crossbar, any "    \
    "other cache on the Fireplane bus)")                                              \
  X(L2, "the shared L2 supplied the line (crossbar)")                                 \
  X(Shared,                                                                           \
    "memory supplied the line; other caches hold it clean (Shared or Exclusive) and " \
    "keep a Shared copy (Fireplane)")                                                 \
  X(Owned,                                                                            \
    "another cache holding the line Owned supplied it (a cache-to-cache transfer; "   \
    "Fireplane)")                                                                     \
  X(Modified,                                                                         \
    "another cache holding the line Modified supplied it (a cache-to-cache "          \
    "transfer; it keeps the line Owned after a ReadToShare; Fireplane)")

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

// Agents (a transaction's source): hardware thread t is agent t (on Fireplane, CPU t's external
// cache: one thread per CPU); L2 slice s is kSliceAgent + s.
inline constexpr u32 kSliceAgent = 0x4000;
// Transaction ids are a per-agent sequence number of this many bits (it wraps).
inline constexpr u32 kTransactionIdBits = 9;
// A transaction's supplier when no agent supplied its data: memory, or no data moved.
inline constexpr u32 kNoSupplier = 0x7fff;

struct Transaction {
  Cycle cycle = 0;  // the cycle of the instruction that caused it (the bus's now())
  u64 address = 0;  // the line's physical address (bgq maps memory 1:1, sunfire by page frames)
  u32 source = 0;   // the requesting agent
  u32 id = 0;       // per-agent sequence number, kTransactionIdBits wide
  // The agent that supplied the line (an L2 slice on the crossbar, the CPU whose cache held it
  // Modified or Owned on Fireplane), or kNoSupplier: part of the coherence information a FIFO
  // record keeps, not a filter term.
  u32 supplier = kNoSupplier;
  TransactionType type = TransactionType::kRead;
  Snoop snoop = Snoop::kNone;
};

// Whether an interconnect's transactions can carry snoop result `s` (see HPM_SNOOP_RESULTS).
constexpr bool snoopApplies(Interconnect ic, Snoop s) {
  return ic == Interconnect::kCrossbar ? s <= Snoop::kL2 : s != Snoop::kL2;
}

// Transactions counted by type and snoop result: the ground truth.
struct TransactionCounts {
  std::array<std::array<u64, kSnoopResults>, kTransactionTypes> n{};
  Interconnect interconnect = Interconnect::kCrossbar;  // whose namespace visit() shows

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
