// Recognising a thread that polls memory (the functional mode's parking of spinning threads).
//
// A thread that spins until another thread writes a word (libgomp's barriers and locks, a
// flag loop) runs, in the functional mode, for its whole quantum and retires as many
// instructions as the threads doing the work. Every kernel.poll_probe_interval instructions the
// kernel watches a few through this observer: a short run that loops back to where it started,
// loads only a few words and has no other effect (no store, atomic, system call or counter read)
// can only go on differently once one of those words changes. The kernel then parks the thread
// until a word changes (kernel/polling.cpp); its instructions in between would all have been the
// same.
#pragma once

#include <array>

#include "base/types.h"
#include "hart/hart.h"
#include "isa/decode.h"
#include "isa/ops.h"

namespace hpm {

// A word a polling thread loads: its address and size in bytes (1, 2, 4 or 8).
struct PolledWord {
  u64 addr = 0;
  u8 size = 0;
  u64 value = 0;  // what memory held when the thread was parked
};

// The observer of a probe run (Hart::run). It stops the run before the first instruction that
// has an effect other than loading a register (or lets it run when it is the first: a run must
// make progress), and once the run has come back to its first pc kLoops times.
class PollProbe {
 public:
  static constexpr bool kActive = true;
  // Distinct words a poll may load: a loop reading more is treated as work.
  static constexpr std::size_t kMaxWords = 4;
  // Times the run comes back to its first pc before it counts as a loop.
  static constexpr u32 kLoops = 4;
  // Instructions a probe runs at most: a poll's loop body is shorter than kMaxRun / kLoops.
  static constexpr u64 kMaxRun = 256;

  explicit PollProbe(u64 start_pc) : start_pc_(start_pc) {}

  // Whether an instruction does more than a poll does: anything but loading registers and
  // computing. (A fence has no effect here: harts run one at a time. A load-reserved starts an
  // update.)
  static bool hasEffect(const isa::DecodedInst& d) {
    const isa::OpMix mix = isa::opMix(d.op);
    return mix.store_bytes != 0 || mix.lr || mix.sc || mix.amo || mix.ecall || mix.csr ||
           d.op == isa::Op::kFenceI || d.op == isa::Op::kEbreak || d.op == isa::Op::kIllegal;
  }

  bool beforeIssue(const isa::DecodedInst& d, u64 pc, const HartState&) {
    if (rejected_) return false;
    if (pc == start_pc_ && issued_ != 0 && ++returns_ == kLoops) return false;
    if (hasEffect(d)) {
      rejected_ = true;
      return issued_++ == 0;
    }
    ++issued_;
    return true;
  }

  void retire(const isa::DecodedInst& d, u64 /*pc*/, u64 /*next_pc*/, u64 addr) {
    const u8 bytes = isa::opMix(d.op).load_bytes;
    if (bytes == 0 || rejected_) return;
    for (std::size_t i = 0; i < count_; ++i) {
      if (words_[i].addr == addr && words_[i].size == bytes) return;
    }
    if (count_ == kMaxWords) {
      rejected_ = true;
      return;
    }
    words_[count_++] = PolledWord{addr, bytes, 0};
  }

  // Whether the run was a poll: it looped back to its start kLoops times, loading at least one
  // word and doing nothing else. (The run must have stopped for this observer.)
  bool isPoll() const { return !rejected_ && returns_ == kLoops && count_ != 0; }
  std::size_t wordCount() const { return count_; }
  const PolledWord& word(std::size_t i) const { return words_[i]; }

 private:
  u64 start_pc_;
  u64 issued_ = 0;
  u32 returns_ = 0;
  bool rejected_ = false;
  std::size_t count_ = 0;
  std::array<PolledWord, kMaxWords> words_{};
};

}  // namespace hpm
