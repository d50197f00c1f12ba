// The scheduler loop (Kernel::run) and blocking: which hardware thread runs next and for how
// long, timed events, waits and their ends. The state it works on is the Scheduler's
// (scheduler.h); its steps are inlined into the loop, which runs them about once per
// instruction in the timing modes with many threads.
#include <signal.h>

#include <algorithm>
#include <functional>

#include "base/error.h"
#include "kernel/kernel.h"

namespace hpm {

void Kernel::at(u64 when, std::function<void(u64)> action) {
  const u64 key = next_outside_key_++;
  outside_actions_.emplace(key, std::move(action));
  scheduler_.addEvent(Event{when, 0, Event::Kind::kOutside, nullptr, key, 0});
}

void Kernel::endRun(int status, std::string report) {
  if (finished()) return;
  Termination term;
  term.refused = true;
  term.status = status;
  term.report = std::move(report);
  terminate(std::move(term));
}

void Kernel::setTimedHook(u64 first, std::function<u64(u64)> hook) {
  next_hook_ = hook ? first : ~u64{0};
  timed_hook_ = std::move(hook);
}

void Kernel::block(Thread& t, WaitKind kind, std::optional<u64> deadline) {
  t.wait = kind;
  ++t.wait_generation;
  t.wait_has_deadline = deadline.has_value();
  t.wait_deadline = deadline.value_or(0);
  scheduler_.unschedule(t);
  if (deadline) {
    scheduler_.addEvent(Event{*deadline, 0, Event::Kind::kThreadTimeout, &t, t.wait_generation, 0});
  }
  if (kind == WaitKind::kFdReadable || kind == WaitKind::kFdWritable) fd_waiters_.push_back(&t);
}

void Kernel::wake(Thread& t, i64 result, u64 when) {
  if (t.wait == WaitKind::kFutex) futexes_.remove(t);
  if (t.wait == WaitKind::kFdReadable || t.wait == WaitKind::kFdWritable) {
    fd_waiters_.erase(std::remove(fd_waiters_.begin(), fd_waiters_.end(), &t), fd_waiters_.end());
  }
  if (t.wait == WaitKind::kPoll) {
    parked_.erase(std::remove(parked_.begin(), parked_.end(), &t), parked_.end());
    stats_.poll_parked_cycles += when > t.parked_at ? when - t.parked_at : 0;
  }
  t.wait = WaitKind::kNone;
  ++t.wait_generation;  // a pending timeout event of this wait is now stale
  HartState& s = t.hart().state();
  s.cycle = std::max(s.cycle, when);
  if (result != kBlocked) s.x[10] = static_cast<u64>(result);
  // A call that replaced the signal mask for its wait (ppoll) and ends without a signal gets
  // its mask back now; one ended by a signal keeps it until the handler's frame is built.
  if (t.saved_mask && result != kBlocked && result != -abi::kEINTR) {
    t.blocked = *t.saved_mask;
    t.saved_mask.reset();
  }
  scheduler_.schedule(t);
}

void Kernel::fireEvent(const Event& e) {
  switch (e.kind) {
    case Event::Kind::kThreadTimeout: {
      Thread& t = *e.thread;
      if (t.exited || t.wait == WaitKind::kNone || t.wait_generation != e.generation) return;
      switch (t.wait) {
        case WaitKind::kFutex: wake(t, -abi::kETIMEDOUT, e.when); break;
        case WaitKind::kSigwait: wake(t, -abi::kEAGAIN, e.when); break;
        case WaitKind::kFdReadable:
        case WaitKind::kFdWritable: wake(t, 0, e.when); break;  // ppoll timeout: nothing ready
        case WaitKind::kPoll:
          ++stats_.poll_wakes_timeout;
          t.park_cycles = std::min(t.park_cycles * 2, config_.params.poll_park_cycles * 64);
          wake(t, kBlocked, e.when);
          break;
        default: wake(t, 0, e.when); break;  // a sleep that ran its course
      }
      return;
    }
    case Event::Kind::kItimerReal: {
      IntervalTimer& timer = timers_.interval(0);
      if (!timer.armed || timer.generation != e.generation) return;
      SigInfo info;
      ++stats_.timer_expirations;
      HPM_PROBE(bus_, kTimerExpirations, 0, 1);
      info.signo = SIGALRM;
      info.code = 0x80;  // SI_KERNEL
      sendToProcess(info, e.when, nullptr);
      if (timer.interval != 0) {
        timer.value = cyclesAfter(e.when, timer.interval);
        scheduler_.addEvent(
            Event{timer.value, 0, Event::Kind::kItimerReal, nullptr, timer.generation, 0});
      } else {
        timer.armed = false;
      }
      return;
    }
    case Event::Kind::kOutside: {
      auto it = outside_actions_.find(e.generation);
      std::function<void(u64)> action = std::move(it->second);
      outside_actions_.erase(it);
      action(e.when);
      return;
    }
    case Event::Kind::kPosixTimer: {
      if (e.timer < 0 || static_cast<std::size_t>(e.timer) >= timers_.posix().size()) return;
      PosixTimer& pt = timers_.posix()[e.timer];
      if (!pt.in_use || !pt.timer.armed || pt.timer.generation != e.generation) return;
      expirePosixTimer(static_cast<std::size_t>(e.timer), 1, e.when);
      if (pt.timer.interval != 0) {
        pt.timer.value = cyclesAfter(e.when, pt.timer.interval);
        scheduler_.addEvent(Event{pt.timer.value, 0, Event::Kind::kPosixTimer, nullptr,
                                  pt.timer.generation, e.timer});
      } else {
        pt.timer.armed = false;
      }
      return;
    }
  }
}

// (The scheduler loop's steps, inlined into it: it runs them about once per instruction with
// many threads.)
[[gnu::always_inline]] inline bool Kernel::isCut(const Stop& stop, const Thread& t, u64 limit,
                                                 u64 own) const {
  // (A slice that reached its limit stops before an instruction that issues after it, at
  // whose cycle the thread's clock then stands.)
  return limit < own && !finished() && !t.exited && t.wait == WaitKind::kNone &&
         (stop.reason == StopReason::kBudget || stop.reason == StopReason::kObserver) &&
         t.hart().state().cycle > limit;
}

[[gnu::always_inline]] inline void Kernel::endSlice(const Thread& t, u64 instret_start) {
  ++stats_.slices;
  if (t.hart().state().instret == instret_start) ++stats_.empty_slices;
}

[[gnu::always_inline]] inline Stop Kernel::runSlice(SliceRunner& runner, u32 index, Thread& t,
                                                    u64 limit, bool polls) {
  HardwareThread& slot = scheduler_.slots()[index];
  HartState& s = t.hart().state();
  const u64 before = s.cycle;
  const Stop stop = polls ? runPolling(runner, t, limit) : runner.runSlice(t, limit);
  t.busy_cycles += s.cycle - before;
  scheduler_.addBusy(s.cycle - before);
  slot.clock = s.cycle;
  if (stop.reason != StopReason::kBudget && stop.reason != StopReason::kObserver) {
    handleStop(t, stop);
  }
  if (timers_.cpuArmed()) checkCpuTimers(s.cycle);
  // (Threads park only in picks that poll: with none parked this is what `polls` said, and
  // parked threads are still woken by a slice in cycle order, SliceRunner::cycleOrder.)
  if (!parked_.empty()) wakeChangedPolls(s.cycle);
  return stop;
}

bool Kernel::resumeCut(SliceRunner& runner, u64 best_start, u64 next_event) {
  // The hook or the pause comes first (every thread is at its cycle or later).
  if (next_hook_ <= best_start && next_hook_ <= next_event) return false;
  if (pause_at_ <= best_start && pause_at_ <= next_event) return false;
  const CutSlice cut = *cut_;
  cut_.reset();
  Thread& t = *cut.thread;
  // Unless its thread must now take a signal (a counter interrupt raised at the cut): the slice
  // ends there, as one that stopped for it, and the thread is picked again. (Only the hook or
  // the pause ran since the cut: the thread is still its hardware thread's running one.)
  if (!t.pending.empty() || signals_.anyProcessPending() || t.exited || t.wait != WaitKind::kNone ||
      scheduler_.slots()[cut.index].front != &t) {
    endSlice(t, cut.instret_start);
    if (scheduler_.slots()[cut.index].front == &t) scheduler_.placeSlot(cut.index, t, true);
    return false;
  }
  // (Bounded by what may have come since: an event, such as another node's packet arriving
  // during a pause.)
  const u64 own = std::min(cut.limit, next_event);
  const u64 limit = std::min({own, next_hook_ - 1, pause_at_ - 1});
  const Stop stop = runSlice(runner, cut.index, t, limit, false);
  const bool cut_again = isCut(stop, t, limit, own);
  if (cut_again) {
    cut_ = cut;
  } else {
    endSlice(t, cut.instret_start);
  }
  scheduler_.placeSlot(cut.index, t, !cut_again);
  return true;
}

void Kernel::run(SliceRunner& runner, Interleaving interleaving, const ProgressFn& progress) {
  const u64 quantum = config_.params.quantum;
  const u64 lookahead = config_.params.lookahead;
  const bool may_poll = interleaving == Interleaving::kQuantum && config_.params.park_polls;
  u64 rounds = 0;
  const MinTree& ready = scheduler_.ready();
  std::vector<HardwareThread>& slots = scheduler_.slots();
  pollInterrupt();  // once before the first round: a short run might never reach a poll
  waiting_outside_ = false;
  while (!finished()) {
    if ((++rounds & 1023) == 0) {
      if (progress) progress();
      if (pollInterrupt()) break;
    }
    const u32 best_index = ready.min();
    const u64 best_start = best_index == MinTree::kNone ? ~u64{0} : ready.key(best_index).time;
    const u64 next_event = scheduler_.nextEventTime();
    if (cut_) [[unlikely]] {
      if (resumeCut(runner, best_start, next_event)) continue;
    }
    if (!fd_waiters_.empty() && !cut_) {
      // Threads waiting on a guest pipe that another thread has since written (or read).
      const u64 now =
          best_index != MinTree::kNone ? best_start : std::min(next_event, elapsedCycles());
      if (pollFileWaits(now)) continue;
    }
    if (best_index == MinTree::kNone && !parked_.empty()) {
      // Polling threads wait for a write that no running thread can make now: they run on.
      wakeParkedPolls();
      continue;
    }
    if (best_index == MinTree::kNone && next_event == ~u64{0} && outside_wakes_) {
      // Only another node can wake it: the timed hook's calls before the pause point come first
      // (a sampled node is sampled while it waits).
      if (next_hook_ >= pause_at_) {
        waiting_outside_ = true;
        break;
      }
    } else if (best_index == MinTree::kNone && next_event == ~u64{0}) {
      Termination term;
      term.refused = true;
      term.status = static_cast<int>(ExitCode::kGuestFault);
      term.report = "hpmsim: deadlock: every guest thread is blocked and nothing can wake them\n";
      terminate(std::move(term));
      break;
    }
    if (next_hook_ <= best_start && next_hook_ <= next_event) {
      // Every thread is at B or later and has done nothing at B (slices end before it).
      const u64 at = next_hook_;
      const u64 next = timed_hook_(at);
      next_hook_ = next == ~u64{0} ? next : std::max(next, at + 1);
      continue;
    }
    if (pause_at_ <= best_start && pause_at_ <= next_event) break;
    if (best_index == MinTree::kNone || next_event <= best_start) {
      const Event e = scheduler_.popEvent();
      fireEvent(e);
      if (!parked_.empty()) wakeChangedPolls(e.when);
      continue;
    }
    HardwareThread& slot = slots[best_index];
    Thread& t = *slot.front;
    HartState& s = t.hart().state();
    if (s.cycle < slot.clock) {
      s.cycle = slot.clock;  // it waited for its hardware thread
    } else {
      slot.idle_cycles += s.cycle - slot.clock;
    }
    slot.clock = s.cycle;
    slot.last_run = scheduler_.nextRun();
    stats_.core_switches += scheduler_.switchTo(slot.core);
    if (!t.pending.empty() || signals_.anyProcessPending()) {
      deliverSignals(t);
      if (finished()) break;
    }
    if (t.exited || t.wait != WaitKind::kNone) continue;
    // (The quantum's runner may ask for cycle order now and then: SliceRunner::cycleOrder.)
    const bool earliest_first = interleaving == Interleaving::kEarliestFirst || runner.cycleOrder();
    const bool polls = may_poll && !earliest_first;
    // The slice's limit: `own` without the timed hook and the pause point.
    u64 own = next_event;
    u64 others = ~u64{0};  // the earliest clock of another ready hardware thread
    if (earliest_first) {
      // Hardware threads of the same core share its pipes cycle by cycle: strict order among
      // them. Other cores interact through the memory system, where the lookahead applies.
      const u32 tpc = config_.threads_per_core;
      u64 siblings = ~u64{0}, other_cores = ~u64{0};
      if ((tpc & (tpc - 1)) == 0) {
        const MinTree::Around around = ready.minAround(best_index, tpc);
        siblings = around.in_block.time;
        other_cores = around.outside.time;
        // With many hardware threads their states no longer stay in the host's L1: the likely
        // next pick's most used fields (the first two lines of its Thread) are fetched while
        // this slice runs.
        scheduler_.setNextHint(around.next);
        if (around.next != MinTree::kNone && slots[around.next].front != nullptr) {
          const auto* next = reinterpret_cast<const char*>(slots[around.next].front);
          __builtin_prefetch(next);
          __builtin_prefetch(next + 64);
        }
      } else {
        scheduler_.setNextHint(MinTree::kNone);
        const u32 core_first = best_index / tpc * tpc;
        for (u32 i = core_first; i < core_first + tpc; ++i) {
          if (i != best_index) siblings = std::min(siblings, ready.key(i).time);
        }
        other_cores = ready.minExcept(best_index).time;
      }
      const u64 relaxed = other_cores > ~u64{0} - lookahead ? other_cores : other_cores + lookahead;
      own = std::min({own, siblings, relaxed});
      others = std::min(siblings, other_cores);
    }
    own = std::min(own, s.cycle + quantum);
    if (timers_.cpuArmed()) {
      const u64 cpu_budget = cpuTimerBudget();
      if (cpu_budget != ~u64{0}) own = std::min(own, s.cycle + std::max<u64>(cpu_budget, 1));
    }
    const u64 limit = std::min({own, next_hook_ - 1, pause_at_ - 1});
    const u64 instret_start = s.instret;
    // A slice the hook or the pause cuts, when it can come next (every other thread is past the
    // limit), goes on after it (CutSlice). (Otherwise, as with a lookahead or in the quantum
    // order, other threads run before the hook: the slice ends there.)
    if (limit < own && earliest_first && others > limit) [[unlikely]] {
      const Stop stop = runSlice(runner, best_index, t, limit, polls);
      if (isCut(stop, t, limit, own)) {
        cut_ = CutSlice{best_index, &t, own, instret_start};
        scheduler_.placeSlot(best_index, t, false);
        continue;
      }
    } else {
      runSlice(runner, best_index, t, limit, polls);
    }
    endSlice(t, instret_start);
    scheduler_.placeSlot(best_index, t, true);
  }
}

void Kernel::runFunctional(const ProgressFn& progress) {
  // One instruction per cycle: the budget in instructions is the distance to the limit.
  struct FunctionalRunner final : SliceRunner {
    Stop runSlice(Thread& t, u64 limit) override {
      const u64 now = t.hart().state().cycle;
      return t.hart().run(limit > now ? limit - now : 1);
    }
  } runner;
  run(runner, Interleaving::kQuantum, progress);
}

}  // namespace hpm
