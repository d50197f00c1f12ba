// The guest's virtual address space: a flat host reservation plus a page-permission table.
//
// Guest address A lives at host address base + A, so a load is one bounds/permission check and a
// host load. The reservation covers the guest's address space, by default the Sv39 user range
// (2^38 bytes; kernel.address_space_gib makes it smaller, for hosts under `ulimit -v`, which
// counts reserved address space although it costs no memory); pages become host-readable
// and writable when the guest maps them, and the guest-visible permissions (read, write,
// execute) are enforced in software by the permission table, so the kernel can still fill
// read-only pages and a guest access never faults the host.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "base/bits.h"
#include "base/types.h"

namespace hpm {

// Memory-mapped device registers (the counter units' windows). Accesses to pages mapped with
// GuestMemory::kDevice reach it instead of memory; it answers false to fault the access.
class MemoryDevice {
 public:
  virtual ~MemoryDevice() = default;
  virtual bool read(u64 addr, unsigned size, u64& value) = 0;
  virtual bool write(u64 addr, unsigned size, u64 value) = 0;
};

// Told of each page's first touch (GuestMemory::translate): the kernel, which counts it as an
// event of its own, as Linux takes a page fault there.
class TouchListener {
 public:
  virtual ~TouchListener() = default;
  virtual void firstTouch(u64 page) = 0;
};

class GuestMemory {
 public:
  // The largest address space: Sv39's user half, as Linux gives a riscv64 process.
  static constexpr u64 kMaxVaLimit = u64{1} << 38;
  static constexpr unsigned kPageBits = 12;
  static constexpr u64 kPageSize = u64{1} << kPageBits;

  // kDevice pages hold device registers: loads and stores go to the MemoryDevice (their R and W
  // bits stay clear, so the fast path never touches them).
  enum Perm : u8 { kNone = 0, kRead = 1, kWrite = 2, kExec = 4, kDevice = 8 };

  void setDevice(MemoryDevice* device) { device_ = device; }
  void setTouchListener(TouchListener* listener) { touch_listener_ = listener; }

  // An address space of `limit` bytes (a multiple of kPageSize, at most kMaxVaLimit): guest
  // addresses 0 to limit - 1. Throws Error (ExitCode::kHost) when the host refuses the
  // reservation, saying what `ulimit -v` would need.
  explicit GuestMemory(u64 limit = kMaxVaLimit);
  ~GuestMemory();
  GuestMemory(const GuestMemory&) = delete;
  GuestMemory& operator=(const GuestMemory&) = delete;

  // The end of the address space: every guest address is below it.
  u64 limit() const { return limit_; }
  // Whether [addr, addr + length) lies inside the address space, without wrapping around. Every
  // range a system call hands to the memory map must pass: guest arguments can be anything.
  bool inRange(u64 addr, u64 length) const { return length <= limit_ && addr <= limit_ - length; }

  // Page-granular mapping operations; ranges must be page aligned and below limit().
  // map() zero-fills the range and sets its permissions; unmap() discards contents.
  void map(u64 addr, u64 length, u8 perm);
  void unmap(u64 addr, u64 length);
  void protect(u64 addr, u64 length, u8 perm);
  // Moves the contents and permissions of [from, from+length) to `to` (non-overlapping).
  void move(u64 from, u64 to, u64 length);

  // The page table itself, one byte per page of kPageSize up to limit() (a kDevice bit marks
  // device pages: the timing model reads it to treat their accesses as uncached).
  const u8* pageTable() const { return perm_; }
  u8 pagePerm(u64 addr) const { return addr < limit_ ? perm_[addr >> kPageBits] & kPermMask : 0; }
  // Whether the page holding `addr` is mapped and has been touched since it was mapped.
  bool touched(u64 addr) const {
    return pagePerm(addr) != 0 && (perm_[addr >> kPageBits] & kUntouched) == 0;
  }
  bool isMapped(u64 addr, u64 length) const;    // every page of the range has some permission
  bool isUnmapped(u64 addr, u64 length) const;  // no page of the range is mapped

  // True when every byte of [addr, addr+size) is accessible with `need`.
  bool accessible(u64 addr, u64 size, u8 need) const;

  // The host pointer for a guest instruction's data access (a load, store or atomic) of `size`
  // bytes needing `need` (kRead and/or kWrite), or nullptr if any byte is not accessible. The
  // hot path: one bound check and one table load unless the access straddles a page or touches
  // one for the first time since it was mapped, which is counted (firstTouches) and told to the
  // touch listener: every page is mapped untouched, and the hot path's mask sends it here.
  u8* translate(u64 addr, unsigned size, u8 need) {
    // (An access within one page that starts below the page-aligned limit ends below it.)
    const u64 last = addr + size - 1;
    if (addr < limit_ && (addr >> kPageBits) == (last >> kPageBits)) [[likely]] {
      if ((perm_[addr >> kPageBits] & (need | kUntouched)) == need) [[likely]]
        return base_ + addr;
    }
    return translateSlow(addr, size, need);
  }
  // The host pointer for `size` bytes needing `need`, or nullptr: for instruction fetch and the
  // kernel's reads, which touch no page.
  const u8* view(u64 addr, unsigned size, u8 need) const {
    return accessible(addr, size, need) ? base_ + addr : nullptr;
  }
  // Pages touched for the first time since they were mapped, over the run (the ground truth of
  // the kernel's PageFirstTouches event).
  const u64& firstTouches() const { return first_touches_; }

  template <class T>
  bool load(u64 addr, T& out) {
    const u8* p = translate(addr, sizeof(T), kRead);
    if (p == nullptr) [[unlikely]]
      return loadDevice(addr, out);
    out = loadUnaligned<T>(p);
    return true;
  }
  template <class T>
  bool store(u64 addr, T value) {
    u8* p = translate(addr, sizeof(T), kWrite);
    if (p == nullptr) [[unlikely]]
      return storeDevice(addr, value);
    storeUnaligned<T>(p, value);
    return true;
  }

  // Checked bulk copies for the kernel (system call buffers). They fail without partial effect
  // on the guest when any byte is inaccessible.
  bool read(u64 addr, void* dst, std::size_t n) const;
  bool write(u64 addr, const void* src, std::size_t n);
  // Copies a NUL-terminated string of at most `max` bytes; false on a fault or no terminator.
  bool readString(u64 addr, std::string& out, std::size_t max = 4096) const;

  // Raw host view for the loader and kernel, bypassing guest permissions (the range must be
  // mapped). Used to fill read-only segments.
  u8* hostUnchecked(u64 addr) const { return base_ + addr; }

 private:
  // A page-table bit beside the permissions: mapped, and no guest data access reached it yet.
  static constexpr u8 kUntouched = 16;
  static constexpr u8 kPermMask = kRead | kWrite | kExec | kDevice;
  u8* translateSlow(u64 addr, unsigned size, u8 need);
  void setPerm(u64 addr, u64 length, u8 perm);
  bool isDevice(u64 addr, unsigned size) const {
    return device_ != nullptr && (pagePerm(addr) & kDevice) &&
           (pagePerm(addr + size - 1) & kDevice);
  }
  template <class T>
  bool loadDevice(u64 addr, T& out) const {
    if (!isDevice(addr, sizeof(T))) return false;
    u64 value = 0;
    if (!device_->read(addr, sizeof(T), value)) return false;
    out = static_cast<T>(value);
    return true;
  }
  template <class T>
  bool storeDevice(u64 addr, T value) {
    if (!isDevice(addr, sizeof(T))) return false;
    return device_->write(addr, sizeof(T), static_cast<u64>(value));
  }

  u64 limit_ = 0;
  u8* base_ = nullptr;
  u8* perm_ = nullptr;  // one byte per page: its Perm bits and kUntouched; zero until mapped
  MemoryDevice* device_ = nullptr;
  TouchListener* touch_listener_ = nullptr;
  u64 first_touches_ = 0;
};

}  // namespace hpm
