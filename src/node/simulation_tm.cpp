// The driver's part of transactional memory (node/speculation.h, docs/timing.md "Transactional
// memory"): the device on BG/Q's node, the check of each access while a transaction runs, and
// the registers' checkpoint and rollback, which BG/Q's CNK and TM runtime kept in software.
#include <algorithm>
#include <array>

#include "core/timing_params.h"
#include "node/simulation_impl.h"

namespace hpm {

namespace {

// What each operation's access is to the L2's speculation: its bytes (0: none) and whether it
// writes (stores, store-conditionals, atomics; load-reserved reads).
struct TmAccess {
  u8 bytes = 0;
  bool write = false;
};

std::array<TmAccess, isa::kOpCount> makeTmAccesses() {
  std::array<TmAccess, isa::kOpCount> table{};
  for (u32 i = 0; i < isa::kOpCount; ++i) {
    const isa::Op op = static_cast<isa::Op>(i);
    const isa::OpInfo& info = isa::opInfo(op);
    const isa::OpMix& m = driver::kOpMix[i];
    switch (info.cls) {
      case isa::InstClass::kLoad:
      case isa::InstClass::kFpLoad: table[i] = {m.load_bytes, false}; break;
      case isa::InstClass::kStore:
      case isa::InstClass::kFpStore: table[i] = {m.store_bytes, true}; break;
      case isa::InstClass::kAtomic:
        table[i] = {static_cast<u8>(info.mnemonic.find(".w") != std::string_view::npos ? 4 : 8),
                    !m.lr};
        break;
      default: break;
    }
  }
  return table;
}

const std::array<TmAccess, isa::kOpCount> kTmAccesses = makeTmAccesses();

}  // namespace

void Simulation::Impl::createSpeculation() {
  // (Its device is added by exec, after the L1P's.)
  // BG/Q's node: the one whose counting units are UPC-Q's (only its L2 versions lines).
  const u32 threads = machine.hardwareThreads();
  if (machine.monitor.unit != "upcq" || threads > Speculation::kMaxThreads) return;
  const mem::MemParams mp = timingParamsFor(machine).memParams();
  Speculation::Params p;
  p.threads = threads;
  p.slices = mp.l2Instances();
  p.line_bytes = mp.lineBytes();
  // (BG/Q: 30 of the 32 MB may be speculative, 15 of 16 ways: an estimate of the division.)
  p.versions_per_set = std::max<u32>(1, mp.l2.ways - mp.l2.ways / 16);
  const timing::NodeTiming* model_ptr = model.get();
  const u32 sets = mp.l2SetsPerInstance();
  p.set_of = [model_ptr](u64 addr) { return model_ptr->l2Block(addr); };
  p.slice_of = [model_ptr, sets](u64 addr) { return model_ptr->l2Block(addr) / sets; };
  speculation = std::make_unique<Speculation>(std::move(p), nullptr);
  speculation->setBus(bus.get());
  tm_threads.assign(threads, TmThread{});
}

void Simulation::Impl::began(u32 hw) {
  TmThread& t = tm_threads[hw];
  t.thread = running_thread;
  t.checkpoint_pending = true;
  tm_watch = true;
}

void Simulation::Impl::rolledBack(u32 hw, u64 code) {
  if (hw == running_hw && tm_threads[hw].thread == running_thread) {
    // The running thread's own abort, in the middle of its instruction: the run stops before
    // the next one (tmCheck), then its registers go back.
    tm_threads[hw].pending_code = code;
    tm_pending |= u64{1} << hw;
    tm_watch = true;
  } else {
    tmRestore(hw, code);
  }
}

bool Simulation::Impl::tmCheck(u32 hw, const isa::DecodedInst& d, u64 pc, const HartState& s,
                               u64 addr) {
  TmThread& me = tm_threads[hw];
  if (me.checkpoint_pending) {
    // The state after the begin's load: what a rollback restores.
    me.checkpoint = s;
    me.checkpoint.pc = pc;
    me.checkpoint_pending = false;
  }
  if ((tm_pending >> hw & 1) != 0) return false;
  if (!speculation->active()) {
    tm_watch = tm_pending != 0;
    return true;
  }
  const auto op = static_cast<std::size_t>(d.op);
  if (driver::kOpMix[op].ecall && speculation->speculating(hw)) {
    // A system call cannot be rolled back: the transaction is, and the runtime runs it
    // irrevocably (BG/Q's CNK did the same for speculative system calls).
    speculation->rollback(hw, tmreg::kSystemCall);
    rolledBack(hw, tmreg::kSystemCall);
    return false;
  }
  const TmAccess a = kTmAccesses[op];
  // (Device registers are not memory: the L2 never sees them.)
  if (a.bytes == 0 || (kernel->memory().pagePerm(addr) & GuestMemory::kDevice) != 0) return true;
  const Speculation::Outcome out = speculation->access(hw, addr, a.bytes, a.write);
  for (u64 v = out.victims; v != 0; v &= v - 1)
    tmRestore(static_cast<u32>(std::countr_zero(v)), tmreg::kConflict);
  if (out.own_abort != 0) {
    rolledBack(hw, out.own_abort);
    return false;
  }
  return true;
}

void Simulation::Impl::tmRestore(u32 hw, u64 code) {
  TmThread& tm = tm_threads[hw];
  if (tm.thread == nullptr) return;
  HartState& s = tm.thread->hart().state();
  if (tm.checkpoint_pending) {
    // Rolled back before its first instruction after the begin (another guest thread took the
    // hardware thread): its registers are the checkpoint's.
    tm.checkpoint_pending = false;
    s.x[10] = code;
    return;
  }
  // Time and retired instructions go on (the rolled-back ones did run); accrued FP flags stay.
  const Cycle cycle = s.cycle;
  const u64 instret = s.instret;
  const u8 fflags = s.fflags;
  s = tm.checkpoint;
  s.cycle = cycle;
  s.instret = instret;
  s.fflags = static_cast<u8>(s.fflags | fflags);
  s.reserved = false;
  s.x[10] = code;  // a0: the begin's result (tmreg::kBegin)
}

void Simulation::Impl::tmApplyPending(u32 hw) {
  if ((tm_pending >> hw & 1) == 0) return;
  tm_pending &= ~(u64{1} << hw);
  tmRestore(hw, tm_threads[hw].pending_code);
  tm_watch = tm_pending != 0 || speculation->active();
}

}  // namespace hpm
