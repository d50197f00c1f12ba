// Blue Gene/Q's L2 speculation as transactional memory (docs/timing.md "Transactional memory"):
// versioned lines, conflict detection at line granularity and rollback, for the transactions
// guest code runs through the device /dev/hpm/tm (node/tm_device.h, guest/lib/tm).
//
// Facts (cited in docs/timing.md): the L2 keeps speculative versions of lines, tagged with one
// of 128 speculation IDs, in the ways of the line's set; up to 30 MB of the 32 MB L2 can hold
// speculative state (Ohmacht et al., IBM J. Res. & Dev. 57(1/2), 2013); it detects conflicts in
// its directory lookup, from each line's set of speculative readers and writer (Ahn, Ohmacht et
// al., US patents on BG/Q's speculation-ID pool and reader-set encoding); a conflict is a write
// to a line another transaction read or wrote, or a read of a line another wrote; the kernel
// resolves it by invalidating a speculation ID, and the TM runtime (Wang et al., PACT 2012)
// restores the registers saved at the transaction's start and retries, and after too many
// rollbacks, or an action that cannot be rolled back (a system call), runs it irrevocably.
//
// The model's rules (estimates where no source says, marked so in docs/timing.md):
//  - granularity: the L2 line (128 bytes), the coarsest of BG/Q's conflict granularities;
//  - versioning: eager here, lazy on BG/Q. A speculative store writes guest memory in place and
//    the model keeps the line's committed bytes, which a rollback writes back. Conflicts are
//    detected before the access that makes them, and resolved before it is performed, so no
//    other hardware thread ever reads a speculative value: what each thread reads is what BG/Q's
//    versions would give it. (Accesses by the kernel on behalf of a system call are not checked:
//    a deviation, docs/timing.md.)
//  - resolution: an access of a thread that is not speculating always wins (it cannot be rolled
//    back); between two transactions the older (the one begun first) wins. The loser is rolled
//    back before the access is performed; when the loser makes the access, the access is not
//    performed at all.
//  - capacity: at most `versions_per_set` speculatively written lines in one L2 set (BG/Q: 30 of
//    32 MB, 15 of 16 ways, an estimate of how the 30 MB divide); one more rolls back the writer.
//
// Counts every transaction's begin, commit, rollback and conflict on its hardware thread, and
// the lines whose speculative state each end clears on their slice: the ground truth of the
// TmBegun .. TmLinesCleaned events (stats/probe.h).
#pragma once

#include <array>
#include <functional>
#include <unordered_map>
#include <vector>

#include "base/types.h"

namespace hpm {

namespace probe {
class Bus;
}

// The device's register window, as guest code sees it (guest/include/hpm/tm.h says the same
// facts for C; tests/node/speculation_test.cpp holds it to these).
namespace tmreg {
// A load begins a transaction: it returns 0, and when the transaction rolls back, execution
// resumes after that load with every register as it was then but a0, which holds the abort code
// (the load must write a0: hpmsim's small ABI, as guest/lib/tm does it).
inline constexpr u64 kBegin = 0x00;
inline constexpr u64 kCommit = 0x08;  // a store commits
inline constexpr u64 kAbort = 0x10;   // a store rolls back, with code kExplicit | value << 8
inline constexpr u64 kStatus = 0x18;  // a load: 1 while the thread's transaction runs
inline constexpr u64 kWindowBytes = 4096;
// Abort codes (the low 8 bits; kExplicit carries the guest's value above them).
inline constexpr u64 kConflict = 1;
inline constexpr u64 kSystemCall = 2;
inline constexpr u64 kExplicit = 3;
inline constexpr u64 kCapacity = 4;
inline constexpr u64 kPreempted = 5;  // another guest thread took the hardware thread
}  // namespace tmreg

class Speculation {
 public:
  static constexpr u32 kIds = 128;  // BG/Q's speculation IDs
  static constexpr u32 kMaxThreads = 64;

  // Guest memory, where the lines' committed bytes are saved from and written back to.
  class LineMemory {
   public:
    virtual ~LineMemory() = default;
    virtual bool readLine(u64 addr, u8* out, u32 bytes) = 0;
    virtual bool writeLine(u64 addr, const u8* in, u32 bytes) = 0;
  };

  struct Params {
    u32 threads = 64;      // hardware threads (at most kMaxThreads)
    u32 slices = 16;       // L2 slices (the instances of TmLinesCleaned)
    u32 line_bytes = 128;  // the L2 line: the conflict granularity
    u32 versions_per_set = 15;
    std::function<u32(u64)> slice_of;  // the slice of an address's line
    std::function<u32(u64)> set_of;    // the L2 set (node-wide number) of an address's line
  };

  struct ThreadStats {
    u64 begun = 0, committed = 0, rolled_back = 0, conflicts = 0;
  };

  // What an access made happen: the transactions it rolled back (a mask of hardware threads),
  // and the code the accessing thread's own transaction rolls back with (0: none; the access is
  // then not performed).
  struct Outcome {
    u64 victims = 0;
    u64 own_abort = 0;
  };

  Speculation(Params p, LineMemory* memory);

  void setBus(probe::Bus* bus) { bus_ = bus; }
  void setMemory(LineMemory* memory) { memory_ = memory; }

  // Whether some transaction runs (the driver checks accesses only then).
  bool active() const { return running_ != 0; }
  bool speculating(u32 hw) const { return (running_ >> hw & 1) != 0; }

  // Begins hw's transaction (one per hardware thread: a begin inside one is flattened into it,
  // as BG/Q's runtime flattens nesting). False when no speculation ID is free.
  bool begin(u32 hw);
  // An access by hw to [addr, addr + bytes) (any thread's, while active()), before it is made.
  Outcome access(u32 hw, u64 addr, u32 bytes, bool write);
  // Ends hw's transaction: its lines' versions become the committed ones.
  void commit(u32 hw);
  // Ends hw's transaction: writes its lines' committed bytes back.
  void rollback(u32 hw, u64 code);

  const ThreadStats& stats(u32 hw) const { return stats_[hw]; }
  const u64& linesCleaned(u32 slice) const { return lines_cleaned_[slice]; }
  u32 threads() const { return p_.threads; }
  u32 slices() const { return p_.slices; }

 private:
  struct LineState {
    u64 readers = 0;  // hardware threads whose transactions read the line
    u64 writers = 0;  // ... and wrote it (at most one: a second writer conflicts)
  };
  struct Saved {
    u64 line;
    std::vector<u8> bytes;  // the committed bytes
  };
  struct Transaction {
    u64 order = 0;             // begin order: smaller is older
    std::vector<u64> lines;    // its footprint (lines read or written)
    std::vector<Saved> saved;  // lines it wrote, with their committed bytes
  };

  // Clears hw's transaction from its lines (counting them cleaned) and ends it.
  void finish(u32 hw);

  Params p_;
  LineMemory* memory_;
  probe::Bus* bus_ = nullptr;
  u32 line_shift_;
  u64 running_ = 0;  // hardware threads with a transaction
  u64 next_order_ = 0;
  std::unordered_map<u64, LineState> lines_;
  std::unordered_map<u32, u32> versions_;  // speculatively written lines per L2 set
  std::vector<Transaction> tx_;
  std::vector<ThreadStats> stats_;
  std::vector<u64> lines_cleaned_;
};

}  // namespace hpm
