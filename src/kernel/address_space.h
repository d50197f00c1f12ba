// The guest process's address space: its mappings (the VMA map), the program break, the mmap
// area, and the counter devices' register windows mapped into it. It implements the memory
// calls (brk, mmap, munmap, mprotect, mremap, madvise) on guest memory, keeping the map, the
// pages and the decoded code in step, and refuses what would exceed the node's memory.
#pragma once

#include <map>
#include <string>

#include "base/types.h"
#include "hart/code_cache.h"
#include "hart/memory.h"
#include "kernel/device.h"
#include "kernel/files.h"
#include "kernel/vma.h"
#include "stats/probe.h"

namespace hpm {

class AddressSpace {
 public:
  // Over `memory` (whose decoded `code` is flushed when code changes), within a node of
  // `node_bytes` of memory; each refusal for lack of it is counted in `refusals` (and published
  // as MemoryRefusals).
  AddressSpace(GuestMemory& memory, CodeCache& code, u64 node_bytes, u64& refusals)
      : memory_(memory), code_(code), node_bytes_(node_bytes), refusals_(refusals) {}

  // The program's layout, as exec placed it: the break starts at `brk_start`, the mmap area
  // grows down from `mmap_base`, the stack ends at `stack_top`.
  void setLayout(u64 brk_start, u64 mmap_base, u64 stack_top) {
    brk_start_ = brk_current_ = brk_start;
    mmap_base_ = mmap_base;
    stack_top_ = stack_top;
  }
  const VmaMap& vmas() const { return vmas_; }
  VmaMap& vmas() { return vmas_; }
  // The counter devices (for their windows' sizes) and the probe bus (null: none).
  void setDevices(DeviceProvider* devices) { devices_ = devices; }
  void setProbe(probe::Bus* bus) { bus_ = bus; }

  // The system calls, with Linux's arguments and results (-errno on failure). `file` is the
  // descriptor mmap names (null if it names none), a device's to map its register window.
  i64 brk(u64 addr);
  i64 mmap(u64 addr, u64 length, u64 prot, u64 flags, const FdEntry* file, u64 offset);
  i64 munmap(u64 addr, u64 length);
  i64 mprotect(u64 addr, u64 length, u64 prot);
  i64 mremap(u64 old_addr, u64 old_length, u64 new_length, u64 flags, u64 new_addr);
  i64 madvise(u64 addr, u64 length, u64 advice);

  // Maps [start, start + length) with `perm` as mapping `name`; unmaps a range (device windows
  // inside it go whole; decoded code in it is dropped).
  void mapRange(u64 start, u64 length, u8 perm, std::string name);
  void unmapRange(u64 start, u64 length);
  // Whether the committed memory (VmaMap::committedBytes) stays within the node's when a
  // change adds `added` committed bytes and releases `released`: a compute node has no swap and
  // CNK does not overcommit, so a request past it fails with ENOMEM. A refusal is counted.
  bool fitsNodeMemory(u64 added, u64 released);

  // The size (log2 of its bytes) of the page holding `addr` in CNK's static mapping of the
  // process, which covers it with large pages (1 MiB, 16 MiB, 1 GiB: kStaticPageBits) and no page
  // tables: the largest whose aligned page around `addr` the process's mappings fill, block by
  // 1 MiB block (CNK rounds its regions to its smallest page); at least 1 MiB.
  static constexpr u32 kStaticPageBits[] = {30, 24, 20};
  u32 staticPageBits(u64 addr) const;

  // A counter device's register window mapped at [start, start + length).
  struct DeviceWindow {
    u64 start, length;
    int device;
  };
  // The device window holding [addr, addr + size), or null.
  const DeviceWindow* deviceWindow(u64 addr, unsigned size) const;

 private:
  i64 mapDevice(const FdEntry& entry, u64 addr, u64 length, u64 prot, u64 flags, u64 offset);

  GuestMemory& memory_;
  CodeCache& code_;
  u64 node_bytes_;
  u64& refusals_;
  probe::Bus* bus_ = nullptr;
  DeviceProvider* devices_ = nullptr;
  VmaMap vmas_;
  u64 brk_start_ = 0;
  u64 brk_current_ = 0;
  u64 mmap_base_ = 0;
  u64 stack_top_ = 0;
  std::map<u64, DeviceWindow> device_windows_;  // by start; non-overlapping
};

}  // namespace hpm
