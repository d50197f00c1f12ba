// The scheduler's state: the node's hardware threads, each with its queue of runnable guest
// threads; the ready tree that orders them by (start time, last run); and the queue of timed
// events (timeouts, timers, actions from outside). Kernel::run (kernel/run.cpp) makes the
// decisions; what it calls at every pick is inline here, so that the split costs no call.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/min_tree.h"
#include "base/types.h"
#include "kernel/thread.h"

namespace hpm {

// A hardware thread of the node: the guest threads bound to it share it in turns. (A line of
// the host's cache each: the scheduler reads the picked one's at every pick.)
struct alignas(64) HardwareThread {
  u64 clock = 0;               // time up to which it has been used
  u64 idle_cycles = 0;         // time it had nothing to run
  u64 last_run = 0;            // scheduling sequence number of its latest slice (for ties)
  std::vector<Thread*> queue;  // runnable threads, the next to run first
  Thread* front = nullptr;     // queue.front(), null when it is empty (one load less per pick)
  u32 core = 0;                // the core it belongs to
};

// How the scheduler interleaves hardware threads.
enum class Interleaving : u8 {
  // Each pick runs a slice of KernelParams::quantum cycles (functional mode).
  kQuantum,
  // Each pick runs only until the thread's clock passes the next-earliest hardware thread's
  // (timing modes): instructions of all hardware threads execute in the order of their cycles,
  // ties round-robin.
  kEarliestFirst,
};

// (Aligned: the fields every pick reads fill two lines of the host's cache, as they did when
// they were Kernel's and started a line.)
class alignas(64) Scheduler {
 public:
  // A timed event. Events fire in (when, seq) order: insertion order breaks ties.
  struct Event {
    u64 when;
    u64 seq;  // set by addEvent
    // kOutside: an action of Kernel::at(); its generation is the action's key.
    enum class Kind : u8 { kThreadTimeout, kItimerReal, kPosixTimer, kOutside } kind;
    Thread* thread;
    u64 generation;
    int timer;
    bool operator>(const Event& o) const { return when != o.when ? when > o.when : seq > o.seq; }
  };

  // `hardware_threads` hardware threads, `threads_per_core` to a core, all idle.
  Scheduler(u32 hardware_threads, u32 threads_per_core);

  // ---- hardware threads and their queues ----
  std::vector<HardwareThread>& slots() { return slots_; }
  const std::vector<HardwareThread>& slots() const { return slots_; }
  // The runnable hardware threads by (start time, last run): min() is the next pick.
  const MinTree& ready() const { return ready_; }
  // (These are inline, as they were in the one file of the loop, blocking and waking.)
  // Makes `t` runnable on its hardware thread (t.slot), at the back of its queue; or removes it.
  void schedule(Thread& t) {
    auto& queue = slots_[t.slot].queue;
    if (std::find(queue.begin(), queue.end(), &t) == queue.end()) queue.push_back(&t);
    refreshSlot(t.slot);
  }
  void unschedule(Thread& t) {
    auto& queue = slots_[t.slot].queue;
    queue.erase(std::remove(queue.begin(), queue.end(), &t), queue.end());
    refreshSlot(t.slot);
  }
  // Recomputes hardware thread i's place in the order.
  void refreshSlot(u32 i) {
    HardwareThread& slot = slots_[i];
    if (slot.queue.empty()) {
      slot.front = nullptr;
      ready_.clear(i);
    } else {
      slot.front = slot.queue.front();
      ready_.set(i, SlotKey{std::max(slot.clock, slot.front->clock()), slot.last_run});
    }
  }
  // Hardware thread `index`'s place in the order after `t` ran on it; `turn_ends`: a thread
  // sharing it with others goes to the back of its queue.
  // (Forced inline, as it was in the loop: it runs at the end of every slice.)
  [[gnu::always_inline]] void placeSlot(u32 index, Thread& t, bool turn_ends) {
    HardwareThread& slot = slots_[index];
    auto& queue = slot.queue;
    if (queue.size() == 1 && slot.front == &t) {
      // (refreshSlot without reading the queue, whose front is the same: the common case.)
      ready_.set(index, SlotKey{std::max(slot.clock, t.clock()), slot.last_run});
    } else {
      // Guest threads sharing a hardware thread take turns.
      if (turn_ends && queue.size() > 1 && queue.front() == &t) {
        queue.erase(queue.begin());
        queue.push_back(&t);
      }
      refreshSlot(index);
    }
  }
  // The hardware thread for a new or moved guest thread among those `affinity` allows: the one
  // with the fewest live threads of `threads`, lowest index first.
  u32 pickHardwareThread(std::span<const std::unique_ptr<Thread>> threads,
                         const std::vector<u8>& affinity = {}) const;
  // Whether `affinity` (a bit per hardware thread; empty: all) allows hardware thread `cpu`.
  static bool allows(const std::vector<u8>& affinity, u32 cpu) {
    return affinity.empty() || (cpu / 8 < affinity.size() && (affinity[cpu / 8] >> (cpu % 8)) & 1);
  }

  // ---- the bookkeeping of a pick ----
  // The sequence number of a new slice (HardwareThread::last_run).
  u64 nextRun() { return ++run_seq_; }
  // Notes that the pick ran on `core`; returns 1 if the pick before ran on another, else 0.
  u64 switchTo(u32 core) {
    const u64 switched = core != last_core_;
    last_core_ = core;
    return switched;
  }
  // See Kernel::nextHint.
  u32 nextHint() const { return next_hint_; }
  void setNextHint(u32 hint) { next_hint_ = hint; }
  // Cycles the process's threads have run, over every hardware thread (its CPU time).
  u64 busyCycles() const { return process_busy_cycles_; }
  void addBusy(u64 cycles) { process_busy_cycles_ += cycles; }

  // ---- timed events ----
  void addEvent(Event e) {
    e.seq = event_seq_++;
    events_.push_back(e);
    std::push_heap(events_.begin(), events_.end(), std::greater<>());
  }
  // The earliest event's time, ~0 if none.
  u64 nextEventTime() const { return events_.empty() ? ~u64{0} : events_.front().when; }
  // Removes and returns the earliest event (there is one).
  Event popEvent() {
    std::pop_heap(events_.begin(), events_.end(), std::greater<>());
    const Event e = events_.back();
    events_.pop_back();
    return e;
  }

 private:
  // (In this order, as they were in Kernel: the fields of a pick share two lines.)
  std::vector<HardwareThread> slots_;
  MinTree ready_;
  u32 next_hint_ = MinTree::kNone;
  u64 run_seq_ = 0;
  u32 last_core_ = 0;            // the core of the latest pick (KernelStats::core_switches)
  u64 process_busy_cycles_ = 0;  // sum of every thread's busy_cycles
  std::vector<Event> events_;    // a min-heap on (when, seq)
  u64 event_seq_ = 0;
};

}  // namespace hpm
