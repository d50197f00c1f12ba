// A functional RV64IMAFDC hart: architectural state and the run loop.
//
// The run loop executes predecoded blocks (code_cache.h) until a budget of instructions is
// used or something needs the kernel (ecall, a fault, an illegal instruction). It is a template
// over an Observer, chosen per run mode at compile time, through which the timing model and the
// monitoring units see every retired instruction. The functional mode's NoObserver compiles to
// nothing, so plain functional simulation pays nothing for those hooks.
#pragma once

#include <array>
#include <span>

#include "base/types.h"
#include "hart/code_cache.h"
#include "hart/memory.h"
#include "isa/decode.h"

namespace hpm {

struct HartState {
  // (The fields every run touches, first: with many hardware threads a hart's state is often
  // not in the host's cache when the scheduler picks it, and each line is a miss.)
  u64 pc = 0;
  u64 cycle = 0;    // this hart's clock (functional mode: one instruction per cycle)
  u64 instret = 0;  // instructions retired
  u8 fflags = 0;    // accrued exceptions (NX=1, UF=2, OF=4, DZ=8, NV=16)
  u8 frm = 0;       // dynamic rounding mode

  // LR/SC: a reservation holds the address and the value LR loaded. SC succeeds when the
  // reservation is live for the same address and memory still holds that value. Harts run one
  // at a time, so this is the same guarantee qemu-user gives (a compare-and-swap).
  bool reserved = false;
  u8 reserved_size = 0;
  u64 reserved_addr = 0;
  u64 reserved_value = 0;

  std::array<u64, 33> x{};  // x0..x31; x[32] absorbs writes to x0 (see kSinkRegister)
  std::array<u64, 32> f{};  // FP registers; single-precision values are NaN-boxed
};

enum class StopReason : u8 {
  kBudget,              // the instruction budget is used up
  kEcall,               // system call; pc is past the ecall, which has retired
  kEbreak,              // breakpoint; pc is at the ebreak, which has not retired
  kIllegalInstruction,  // pc at the instruction; `addr` holds its encoding
  kFetchFault,          // no executable memory at `addr`
  kLoadFault,           // unreadable `addr`; pc at the load
  kStoreFault,          // unwritable `addr`; pc at the store or AMO
  kMisalignedAtomic,    // LR/SC/AMO at a misaligned `addr` (Linux gives SIGBUS)
  kObserver,            // the observer stopped before the instruction at pc
};

struct Stop {
  StopReason reason = StopReason::kBudget;
  u64 addr = 0;
};

// The observer interface the run loop is instantiated with; NoObserver is the functional mode.
// With kActive false the hooks are never called, so the functional loop carries no trace of them.
struct NoObserver {
  static constexpr bool kActive = false;
  // Before each instruction executes: the instruction, its pc and the architectural state
  // before it (for effective addresses). Returning false stops the run before the instruction
  // (StopReason::kObserver, pc at the instruction); the observer must let at least the first
  // instruction of a run go, so every run makes progress.
  bool beforeIssue(const isa::DecodedInst&, u64 /*pc*/, const HartState&) { return true; }
  // After each retired instruction, in program order: the instruction, its pc, the pc of the
  // next instruction and, for memory instructions, the effective address.
  void retire(const isa::DecodedInst&, u64 /*pc*/, u64 /*next_pc*/, u64 /*addr*/) {}
};

class Hart {
 public:
  Hart(GuestMemory& memory, CodeCache& code) : memory_(memory), code_(code) {}

  HartState& state() { return state_; }
  const HartState& state() const { return state_; }

  // Runs until at least `budget` instructions have retired (stopping only between blocks, so
  // at most CodeCache::kMaxBlockInstructions - 1 more) or until a stop. Deterministic.
  Stop run(u64 budget) {
    NoObserver none;
    return run(budget, none);
  }
  template <class Observer>
  Stop run(u64 budget, Observer& observer);

  // The instruction run() would execute next, found (its block built if need be) exactly as
  // run() finds it; null when the pc cannot be fetched (run() then stops with kFetchFault). A
  // driver may look at it, for instance to decide that the hart cannot go on yet, without the
  // cost of entering and leaving the run loop.
  const isa::DecodedInst* nextInstruction() {
    const std::span<const isa::DecodedInst> next = nextInstructions();
    return next.empty() ? nullptr : next.data();
  }
  // The instructions run() would execute next, to the end of their block (built if need be): a
  // straight line, which runs whole unless one of them stops the run. Empty when the pc cannot
  // be fetched.
  std::span<const isa::DecodedInst> nextInstructions() {
    if (resumable()) {
      return {resume_in_,
              static_cast<std::size_t>(resume_block_->insts + resume_block_->count - resume_in_)};
    }
    u64 fault_addr = 0;
    const Block* block = code_.lookup(state_.pc, fault_addr);
    if (block == nullptr) return {};
    return {block->insts, block->count};
  }

 private:
  // Whether the next run continues where the last one stopped for its observer: the pc is the
  // instruction it stopped before, and the code cache was not flushed since.
  bool resumable() const {
    return state_.pc == resume_pc_ && code_.flushCount() == resume_flushes_;
  }

  GuestMemory& memory_;
  CodeCache& code_;
  // Where the last run stopped for its observer: before `resume_in_`, in `resume_block_`, at
  // `resume_pc_`. In the timing modes a hart stops for its observer about once per instruction
  // when threads share a core, mostly in the middle of a block: the next run continues in that
  // block instead of looking up (and, the first time, building) a block that starts there.
  // (Before the state, whose first fields every run reads too: one line of the host's cache.)
  const Block* resume_block_ = nullptr;
  const isa::DecodedInst* resume_in_ = nullptr;
  u64 resume_pc_ = 1;  // (no instruction is at an odd address)
  u64 resume_flushes_ = 0;
  HartState state_;
};

// The functional mode's loop is compiled once, in hart.cpp: a translation unit that includes the
// run loop's body for its own observer (interpreter.h) calls that one rather than a copy of its
// own, which the compiler would optimise differently.
extern template Stop Hart::run<NoObserver>(u64 budget, NoObserver& observer);

}  // namespace hpm
