// The functional mode's polling threads (KernelParams::park_polls).
//
// In the functional mode every hardware thread runs one instruction per cycle, so a thread
// that spins until another writes a word (an OpenMP barrier with libgomp's active waiting, a
// spin lock, a flag loop) retires as many instructions while it waits as the threads that work.
// Every poll_probe_interval instructions of a slice, a few run under a PollProbe (most code
// stores within a few instructions, which ends the probe); when they are a poll (a loop that loads
// a few words and does nothing else), the thread is parked (WaitKind:: kPoll) with the words'
// values. Its run is then exactly the run of a thread that the scheduler took off its hardware
// thread at that point, which a poll cannot tell from spinning: its loop would have loaded the same
// values and done nothing else until one of them changed.
//
// A parked thread runs again, at the time it is woken (its clock moves there, as after a futex
// wait), when
//   - a polled word holds another value (checked after every slice and event: any write, by a
//     thread, the kernel or a device, is seen) — it starts with a probe, so that a loop which
//     read a changed word but still waits parks again at once;
//   - no other thread can run: the write it waits for cannot come from a parked or blocked
//     thread, so it goes on spinning (its loop may count down to a futex wait, as libgomp's
//     does); it runs poll_probe_interval instructions before it is probed again, so every round
//     makes progress. A thread that calls sched_yield wakes them the same way: it may be
//     waiting for one of them;
//   - a signal comes for it (it is in no system call: it runs on, to the handler);
//   - poll_park_cycles passed (doubling for each park in a row that ends so, up to 64 times):
//     a loop that was not a wait on others, or one that waits for its own count to run out
//     while other threads run, still goes on.
// Results stay deterministic: parks depend only on the guest's own instructions and memory.
// What changes is the number of instructions spin loops retire (and with it the functional
// mode's cycle counts and timings): the spinning a real machine would have done is not run.
#include <algorithm>

#include "hart/interpreter.h"
#include "kernel/kernel.h"

namespace hpm {

Stop Kernel::runPolling(SliceRunner& runner, Thread& t, u64 limit) {
  HartState& s = t.hart().state();
  if (!othersLive()) return runner.runSlice(t, limit);
  if (t.probe_first) {
    t.probe_first = false;
    const Stop stop = probe(t, limit);
    if (stop.reason != StopReason::kObserver || t.wait != WaitKind::kNone || s.cycle >= limit) {
      return stop;
    }
  }
  // Every poll_probe_interval instructions, a probe.
  const u64 interval = config_.params.poll_probe_interval;
  for (;;) {
    const bool whole = limit > s.cycle && limit - s.cycle > interval;
    Stop stop = runner.runSlice(t, whole ? s.cycle + interval : limit);
    if (stop.reason != StopReason::kBudget || s.cycle >= limit) return stop;
    stop = probe(t, limit);
    const bool ran_on = stop.reason == StopReason::kObserver || stop.reason == StopReason::kBudget;
    if (!ran_on || t.wait != WaitKind::kNone || s.cycle >= limit) return stop;
  }
}

Stop Kernel::probe(Thread& t, u64 limit) {
  HartState& s = t.hart().state();
  // Most code has an effect within its next block, where a probe would stop at once: that is
  // seen without running it (the block runs whole, so its first effect would end the probe).
  for (const isa::DecodedInst& d : t.hart().nextInstructions()) {
    if (PollProbe::hasEffect(d)) return Stop{StopReason::kBudget, 0};
  }
  PollProbe probe(s.pc);
  const u64 instret_before = s.instret;
  const u64 budget = limit > s.cycle ? std::min(limit - s.cycle, PollProbe::kMaxRun) : 1;
  const Stop stop = t.hart().run(budget, probe);
  s.cycle += s.instret - instret_before;  // (an observed run leaves the clock to its observer)
  if (stop.reason != StopReason::kObserver || !probe.isPoll()) return stop;

  // The words as memory holds them now (what the loop loaded: no other thread ran since).
  // A word of a device's registers is not memory: its value can change without a write.
  std::array<PolledWord, PollProbe::kMaxWords> words{};
  for (std::size_t i = 0; i < probe.wordCount(); ++i) {
    PolledWord w = probe.word(i);
    if ((memory_.pagePerm(w.addr) & GuestMemory::kDevice) ||
        !memory_.read(w.addr, &w.value, w.size)) {
      return stop;
    }
    words[i] = w;
  }
  const bool same_as_before =
      t.polled_count == probe.wordCount() &&
      std::equal(words.begin(), words.begin() + probe.wordCount(), t.polled.begin(),
                 [](const PolledWord& a, const PolledWord& b) {
                   return a.addr == b.addr && a.size == b.size && a.value == b.value;
                 });
  // A park in a row on unchanged words lasts as long as the last one's timeout made it.
  if (!same_as_before || t.park_cycles == 0) t.park_cycles = config_.params.poll_park_cycles;
  t.polled = words;
  t.polled_count = static_cast<u8>(probe.wordCount());
  t.parked_at = s.cycle;
  ++stats_.poll_parks;
  parked_.push_back(&t);
  block(t, WaitKind::kPoll, cyclesAfter(s.cycle, t.park_cycles));
  return stop;
}

// Whether a word of a parked thread no longer holds its value (or can no longer be read).
static bool pollChanged(const Thread& t, const GuestMemory& memory) {
  for (std::size_t i = 0; i < t.polled_count; ++i) {
    const PolledWord& w = t.polled[i];
    u64 value = 0;
    if (!memory.read(w.addr, &value, w.size) || value != w.value) return true;
  }
  return false;
}

void Kernel::wakeChangedPolls(u64 when) {
  // (wake() takes the thread out of parked_, keeping the others' order.)
  for (std::size_t i = 0; i < parked_.size();) {
    Thread& t = *parked_[i];
    if (!pollChanged(t, memory_)) {
      ++i;
      continue;
    }
    ++stats_.poll_wakes_changed;
    t.probe_first = true;
    t.park_cycles = 0;
    wake(t, kBlocked, when);
  }
}

void Kernel::wakeParkedPolls() {
  while (!parked_.empty()) {
    Thread& t = *parked_.front();
    ++stats_.poll_wakes_idle;
    t.park_cycles = 0;
    wake(t, kBlocked, t.clock());
  }
}

}  // namespace hpm
