// The address space's calls (address_space.h): brk, mmap and its kin over the VMA map and
// guest memory, and the counter devices' register windows.
#include "kernel/address_space.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "base/bits.h"
#include "kernel/abi.h"

namespace hpm {
namespace {

// A length rounded up to whole pages; 0 when the rounding would wrap around (a length within a
// page of 2^64), which every caller treats as out of range, as Linux's PAGE_ALIGN does.
u64 pageLength(u64 length) {
  return length > ~u64{0} - (GuestMemory::kPageSize - 1) ? 0
                                                         : alignUp(length, GuestMemory::kPageSize);
}

u8 protToPerm(u64 prot) {
  u8 perm = 0;
  if (prot & PROT_READ) perm |= GuestMemory::kRead;
  if (prot & PROT_WRITE) perm |= GuestMemory::kRead | GuestMemory::kWrite;  // W implies R
  if (prot & PROT_EXEC) perm |= GuestMemory::kExec;
  return perm;
}

}  // namespace

void AddressSpace::mapRange(u64 start, u64 length, u8 perm, std::string name) {
  memory_.map(start, length, perm);
  vmas_.insert(start, start + length, perm, std::move(name));
}

bool AddressSpace::fitsNodeMemory(u64 added, u64 released) {
  const u64 after = vmas_.committedBytes() - released + added;
  if (after <= node_bytes_) return true;
  ++refusals_;
  HPM_PROBE(bus_, kMemoryRefusals, 0, 1);
  return false;
}

void AddressSpace::unmapRange(u64 start, u64 length) {
  // Device windows inside the range go with it (a window is unmapped whole).
  auto w = device_windows_.lower_bound(start);
  if (w != device_windows_.begin() &&
      std::prev(w)->second.start + std::prev(w)->second.length > start) {
    --w;
  }
  while (w != device_windows_.end() && w->first < start + length) w = device_windows_.erase(w);
  bool had_code = false;
  for (u64 page = start; page < start + length && !had_code; page += GuestMemory::kPageSize) {
    had_code = (memory_.pagePerm(page) & GuestMemory::kExec) != 0;
  }
  memory_.unmap(start, length);
  vmas_.remove(start, start + length);
  if (had_code) code_.flush();
}

const AddressSpace::DeviceWindow* AddressSpace::deviceWindow(u64 addr, unsigned size) const {
  auto it = device_windows_.upper_bound(addr);
  if (it == device_windows_.begin()) return nullptr;
  const DeviceWindow& w = std::prev(it)->second;
  return addr + size <= w.start + w.length ? &w : nullptr;
}

i64 AddressSpace::brk(u64 addr) {
  if (addr == 0 || addr < brk_start_ || addr > mmap_base_) return static_cast<i64>(brk_current_);
  const u64 old_end = alignUp(brk_current_, GuestMemory::kPageSize);
  const u64 new_end = alignUp(addr, GuestMemory::kPageSize);
  if (new_end > old_end) {
    if (new_end > mmap_base_ || !vmas_.isFree(old_end, new_end) ||
        !fitsNodeMemory(new_end - old_end, 0)) {
      return static_cast<i64>(brk_current_);  // Linux's failed brk: the break stays
    }
    mapRange(old_end, new_end - old_end, GuestMemory::kRead | GuestMemory::kWrite, "[heap]");
  } else if (new_end < old_end) {
    unmapRange(new_end, old_end - new_end);
  }
  brk_current_ = addr;
  return static_cast<i64>(brk_current_);
}

i64 AddressSpace::mmap(u64 addr, u64 length, u64 prot, u64 flags, const FdEntry* entry,
                       u64 offset) {
  if (length == 0 || (offset & (GuestMemory::kPageSize - 1))) return -abi::kEINVAL;
  if (length > memory_.limit()) return -abi::kENOMEM;
  // Linux's vm.max_map_count: every mapping counts (device windows as much as memory).
  if (vmas_.count() >= kMaxMapCount) return -abi::kENOMEM;
  const u64 len = alignUp(length, GuestMemory::kPageSize);
  const u64 type = flags & MAP_TYPE;
  if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE) {
    return -abi::kEINVAL;
  }
  const bool anonymous = (flags & MAP_ANONYMOUS) != 0;
  const FdEntry* file = nullptr;
  if (!anonymous) {
    if (entry != nullptr && entry->kind == FdKind::kDevice) {
      return mapDevice(*entry, addr, length, prot, flags, offset);
    }
    file = entry;
    if (file == nullptr || file->host_fd < 0) return -abi::kEBADF;
    struct stat st {};
    if (::fstat(file->host_fd, &st) < 0 || S_ISDIR(st.st_mode)) return -abi::kENODEV;
    // A writable shared file mapping would need write-back to the file: not supported.
    if (type != MAP_PRIVATE && (prot & PROT_WRITE)) return -abi::kEINVAL;
  }
  u64 where = 0;
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
    if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
    if (!memory_.inRange(addr, len)) return -abi::kENOMEM;
    if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) && !vmas_.isFree(addr, addr + len)) {
      return -abi::kEEXIST;
    }
    where = addr;
  } else {
    const u64 hint = alignDown(addr, GuestMemory::kPageSize);
    if (hint != 0 && hint >= brk_start_ && len <= mmap_base_ && hint <= mmap_base_ - len &&
        vmas_.isFree(hint, hint + len)) {
      where = hint;
    } else {
      auto found = vmas_.findFreeTopDown(
          len, alignUp(brk_current_, GuestMemory::kPageSize) + (u64{64} << 20), mmap_base_);
      if (!found) return -abi::kENOMEM;
      where = *found;
    }
  }
  const u8 perm = protToPerm(prot);
  if (!fitsNodeMemory(VmaMap::commits(perm) ? len : 0, vmas_.committedIn(where, where + len))) {
    return -abi::kENOMEM;  // (a MAP_FIXED request leaves what was there in place)
  }
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) unmapRange(where, len);
  mapRange(where, len, perm, file ? file->guest_path : std::string());
  if (file != nullptr) {
    // Private file mappings are copies: read the file's bytes in; past its end reads zero.
    u8* dst = memory_.hostUnchecked(where);
    u64 done = 0;
    while (done < length) {
      const ssize_t n =
          ::pread(file->host_fd, dst + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<u64>(n);
    }
  }
  if (perm & GuestMemory::kExec) code_.flush();
  return static_cast<i64>(where);
}

i64 AddressSpace::munmap(u64 addr, u64 length) {
  if ((addr & (GuestMemory::kPageSize - 1)) || length == 0) return -abi::kEINVAL;
  const u64 len = pageLength(length);
  if (len == 0 || !memory_.inRange(addr, len)) return -abi::kEINVAL;
  unmapRange(addr, len);
  return 0;
}

i64 AddressSpace::mprotect(u64 addr, u64 length, u64 prot) {
  if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
  if (prot & ~u64{PROT_READ | PROT_WRITE | PROT_EXEC | PROT_GROWSDOWN | PROT_GROWSUP}) {
    return -abi::kEINVAL;
  }
  if (length == 0) return 0;
  const u64 len = pageLength(length);
  if (len == 0 || !memory_.inRange(addr, len) || !vmas_.isFullyMapped(addr, addr + len)) {
    return -abi::kENOMEM;
  }
  const u8 perm = protToPerm(prot);
  bool has_device = false;
  for (u64 page = addr; page < addr + len && !has_device; page += GuestMemory::kPageSize) {
    has_device = (memory_.pagePerm(page) & GuestMemory::kDevice) != 0;
  }
  // A device window is never executable: mprotect refuses PROT_EXEC on it as mmap does, and
  // other protections leave it the device's (its loads and stores go to the device).
  if (has_device && (prot & PROT_EXEC)) return -abi::kEACCES;
  if (!fitsNodeMemory(VmaMap::commits(perm) ? len : 0, vmas_.committedIn(addr, addr + len))) {
    return -abi::kENOMEM;
  }
  bool touches_code = (perm & GuestMemory::kExec) != 0;
  for (u64 page = addr; page < addr + len && !touches_code; page += GuestMemory::kPageSize) {
    touches_code = (memory_.pagePerm(page) & GuestMemory::kExec) != 0;
  }
  if (has_device) {
    for (u64 page = addr; page < addr + len; page += GuestMemory::kPageSize) {
      if (!(memory_.pagePerm(page) & GuestMemory::kDevice)) {
        memory_.protect(page, GuestMemory::kPageSize, perm);
        vmas_.protect(page, page + GuestMemory::kPageSize, perm);
      }
    }
    if (touches_code) code_.flush();
    return 0;
  }
  memory_.protect(addr, len, perm);
  vmas_.protect(addr, addr + len, perm);
  if (touches_code) code_.flush();
  return 0;
}

i64 AddressSpace::mremap(u64 old_addr, u64 old_length, u64 new_length, u64 flags, u64 new_addr) {
  if ((old_addr & (GuestMemory::kPageSize - 1)) || new_length == 0) return -abi::kEINVAL;
  if (flags & ~u64{MREMAP_MAYMOVE | MREMAP_FIXED}) return -abi::kEINVAL;
  if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE)) return -abi::kEINVAL;
  const u64 old_len = pageLength(old_length);
  const u64 new_len = pageLength(new_length);
  if (old_len == 0 || new_len == 0) return -abi::kEINVAL;
  if (!memory_.inRange(old_addr, old_len)) return -abi::kEFAULT;
  if (new_len > memory_.limit()) return -abi::kENOMEM;
  const Vma* vma = vmas_.find(old_addr);
  if (vma == nullptr || !vmas_.isFullyMapped(old_addr, old_addr + old_len)) return -abi::kEFAULT;
  const u8 perm = vma->perm;
  const std::string name = vma->name;
  // Growing commits the new part (a move releases the old range as it takes the new one).
  const u64 growth = VmaMap::commits(perm) && new_len > old_len ? new_len - old_len : 0;
  if (!(flags & MREMAP_FIXED)) {
    if (new_len <= old_len) {
      if (new_len < old_len) unmapRange(old_addr + new_len, old_len - new_len);
      return static_cast<i64>(old_addr);
    }
    const u64 growth_limit = stack_top_ - (u64{8} << 20);  // the stack's reserved 8 MiB below
    if (!fitsNodeMemory(growth, 0)) return -abi::kENOMEM;
    if (new_len <= growth_limit && old_addr <= growth_limit - new_len &&
        vmas_.isFree(old_addr + old_len, old_addr + new_len)) {
      mapRange(old_addr + old_len, new_len - old_len, perm, name);
      return static_cast<i64>(old_addr);
    }
    if (!(flags & MREMAP_MAYMOVE)) return -abi::kENOMEM;
    auto found = vmas_.findFreeTopDown(
        new_len, alignUp(brk_current_, GuestMemory::kPageSize) + (u64{64} << 20), mmap_base_);
    if (!found) return -abi::kENOMEM;
    new_addr = *found;
  } else {
    if (new_addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
    if (!memory_.inRange(new_addr, new_len)) return -abi::kEINVAL;
    if (new_addr < old_addr + old_len && old_addr < new_addr + new_len) return -abi::kEINVAL;
    if (!fitsNodeMemory(growth, vmas_.committedIn(new_addr, new_addr + new_len))) {
      return -abi::kENOMEM;
    }
    unmapRange(new_addr, new_len);
  }
  const u64 moved = std::min(old_len, new_len);
  memory_.move(old_addr, new_addr, moved);
  vmas_.remove(old_addr, old_addr + old_len);
  if (old_len > moved) unmapRange(old_addr + moved, old_len - moved);
  vmas_.insert(new_addr, new_addr + moved, perm, name);
  if (new_len > moved) mapRange(new_addr + moved, new_len - moved, perm, name);
  if (perm & GuestMemory::kExec) code_.flush();
  return static_cast<i64>(new_addr);
}

i64 AddressSpace::mapDevice(const FdEntry& entry, u64 addr, u64 length, u64 prot, u64 flags,
                            u64 offset) {
  // The whole register window, shared (all threads see the same registers), never executable.
  const u64 window = devices_->windowBytes(entry.device);
  const u64 len = alignUp(length, GuestMemory::kPageSize);
  if (offset != 0 || len > window) return -abi::kEINVAL;
  if ((flags & MAP_TYPE) != MAP_SHARED && (flags & MAP_TYPE) != MAP_SHARED_VALIDATE) {
    return -abi::kEINVAL;
  }
  if (prot & PROT_EXEC) return -abi::kEACCES;
  u64 where = 0;
  if (flags & MAP_FIXED) {
    if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
    if (!memory_.inRange(addr, len)) return -abi::kENOMEM;
    where = addr;
    unmapRange(where, len);
  } else {
    auto found = vmas_.findFreeTopDown(
        len, alignUp(brk_current_, GuestMemory::kPageSize) + (u64{64} << 20), mmap_base_);
    if (!found) return -abi::kENOMEM;
    where = *found;
  }
  mapRange(where, len, GuestMemory::kDevice, entry.guest_path);
  device_windows_.emplace(where, DeviceWindow{where, len, entry.device});
  devices_->windowMapped(entry.device);
  return static_cast<i64>(where);
}

i64 AddressSpace::madvise(u64 addr, u64 length, u64 advice) {
  if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
  if (advice == MADV_DONTNEED) {
    // Private anonymous pages read back as zero after MADV_DONTNEED.
    const u64 len = pageLength(length);
    if ((length != 0 && len == 0) || addr + len < addr) return -abi::kEINVAL;  // wraps around
    if (len == 0) return 0;
    if (!memory_.inRange(addr, len) || !vmas_.isFullyMapped(addr, addr + len)) {
      return -abi::kENOMEM;
    }
    // One host call per run of pages with the same protection (map() zero-fills).
    for (u64 run = addr; run < addr + len;) {
      const u8 perm = memory_.pagePerm(run);
      u64 end = run + GuestMemory::kPageSize;
      while (end < addr + len && memory_.pagePerm(end) == perm) end += GuestMemory::kPageSize;
      if (!(perm & GuestMemory::kDevice)) memory_.map(run, end - run, perm);
      run = end;
    }
  }
  return 0;
}

u32 AddressSpace::staticPageBits(u64 addr) const {
  constexpr u32 kSmallest = kStaticPageBits[std::size(kStaticPageBits) - 1];
  for (const u32 bits : kStaticPageBits) {
    const u64 base = addr & ~((u64{1} << bits) - 1);
    if (bits == kSmallest || vmas_.coversBlocks(base, base + (u64{1} << bits), u64{1} << kSmallest))
      return bits;
  }
  return kSmallest;
}

}  // namespace hpm
