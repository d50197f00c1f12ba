// The futex wait queues: for each guest address, the threads blocked in FUTEX_WAIT on it, in
// arrival order. Kernel's futex calls (threads.cpp) decide; this keeps the queues.
#pragma once

#include <map>
#include <vector>

#include "base/types.h"
#include "kernel/thread.h"

namespace hpm {

class FutexQueues {
 public:
  // `t` waits on `addr` (t.futex_addr), at the back of its queue.
  void add(Thread& t, u64 addr);
  // `t` waits no more (its wait ended): it leaves the queue of t.futex_addr.
  void remove(Thread& t);
  // The waiters a wake of at most `count` threads whose bitset meets `bitset` takes on `addr`,
  // first come first (they stay queued until each is removed).
  std::vector<Thread*> wakeable(u64 addr, u32 count, u32 bitset) const;
  // Moves the first `limit` waiters of `from` to the back of the queue of `to` (the same queue
  // when the two are one, as Linux requeues onto the same futex); returns how many moved.
  u64 requeue(u64 from, u64 to, u64 limit);
  // The threads waiting on `addr`, first first.
  std::vector<Thread*> waiters(u64 addr) const;

 private:
  std::map<u64, std::vector<Thread*>> queues_;  // by address; no empty queue is kept
};

}  // namespace hpm
