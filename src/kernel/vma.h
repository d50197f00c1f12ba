// The process's mappings (virtual memory areas): which ranges exist, with what protection, for
// mmap placement, munmap/mprotect splitting and /proc/self/maps. Page permissions for access
// checks live in GuestMemory; this map records which ranges are taken, and how much of them the
// guest may back with memory (the node's memory limit is enforced against committedBytes()).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "base/types.h"

namespace hpm {

struct Vma {
  u64 start = 0;
  u64 end = 0;  // exclusive
  u8 perm = 0;
  std::string name;  // "[heap]", "[stack]", a file path, or empty for anonymous
};

class VmaMap {
 public:
  // Adds [start, end), replacing whatever overlapped it.
  void insert(u64 start, u64 end, u8 perm, std::string name = {});
  // Removes [start, end) (splitting areas that straddle its ends).
  void remove(u64 start, u64 end);
  // Sets the protection of the mapped parts of [start, end).
  void protect(u64 start, u64 end, u8 perm);

  // Bytes the guest can read, write or execute: what its mappings may back with memory. Areas
  // with no access (PROT_NONE reservations) and device windows take none, as under Linux's
  // strict overcommit accounting, where only accessible private memory is charged.
  u64 committedBytes() const { return committed_; }
  // The committed bytes inside [start, end).
  u64 committedIn(u64 start, u64 end) const;
  // Whether an area with `perm` commits memory.
  static bool commits(u8 perm);

  bool isFree(u64 start, u64 end) const;
  bool isFullyMapped(u64 start, u64 end) const;
  const Vma* find(u64 addr) const;
  // The highest address A with [A, A+length) free and floor <= A, A+length <= ceiling, or
  // nullopt.
  std::optional<u64> findFreeTopDown(u64 length, u64 floor, u64 ceiling) const;

  const std::map<u64, Vma>& areas() const { return areas_; }

 private:
  std::map<u64, Vma> areas_;  // keyed by start; non-overlapping
  u64 committed_ = 0;         // committedIn over every area, kept as areas come and go
};

}  // namespace hpm
