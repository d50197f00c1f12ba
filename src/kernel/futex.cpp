#include "kernel/futex.h"

#include <algorithm>

namespace hpm {

void FutexQueues::add(Thread& t, u64 addr) {
  t.futex_addr = addr;
  queues_[addr].push_back(&t);
}

void FutexQueues::remove(Thread& t) {
  auto it = queues_.find(t.futex_addr);
  if (it == queues_.end()) return;
  auto& list = it->second;
  list.erase(std::remove(list.begin(), list.end(), &t), list.end());
  if (list.empty()) queues_.erase(it);
}

std::vector<Thread*> FutexQueues::wakeable(u64 addr, u32 count, u32 bitset) const {
  std::vector<Thread*> woken;
  auto it = queues_.find(addr);
  if (it == queues_.end()) return woken;
  for (Thread* w : it->second) {
    if (woken.size() >= count) break;
    if (w->futex_bitset & bitset) woken.push_back(w);
  }
  return woken;
}

u64 FutexQueues::requeue(u64 from, u64 to, u64 limit) {
  auto it = queues_.find(from);
  if (it == queues_.end()) return 0;
  std::vector<Thread*> taken;
  auto& list = it->second;
  while (!list.empty() && taken.size() < limit) {
    taken.push_back(list.front());
    list.erase(list.begin());
  }
  if (list.empty() && to != from) queues_.erase(it);
  for (Thread* w : taken) add(*w, to);
  return taken.size();
}

std::vector<Thread*> FutexQueues::waiters(u64 addr) const {
  auto it = queues_.find(addr);
  return it == queues_.end() ? std::vector<Thread*>{} : it->second;
}

}  // namespace hpm
