#include "hart/memory.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/host_limits.h"

namespace hpm {
namespace {

void* reserve(u64 bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    const int error = errno;
    // The usual cause is `ulimit -v`, which counts address space, not memory: say so, since
    // the reservation itself costs none (docs/kernel.md, "Memory").
    std::string hint;
    if (const auto limit = addressSpaceLimit()) {
      hint = fmt::format(
          "; the address-space limit (ulimit -v) is {} MiB: hpmsim needs the guest's address "
          "space ({} MiB, kernel.address_space_gib), which costs no memory, plus its own "
          "(docs/kernel.md, \"Memory\"); make the guest's space smaller or raise the limit",
          *limit >> 20, bytes >> 20);
    }
    fail(ExitCode::kHost, "cannot reserve {} MiB of host address space for the guest: {}{}",
         bytes >> 20, std::strerror(error), hint);
  }
  return p;
}

void checkRange(u64 addr, u64 length, u64 limit) {
  if ((addr | length) & (GuestMemory::kPageSize - 1) || addr + length > limit ||
      addr + length < addr) {
    fail(ExitCode::kInternal, "guest range [{:#x}, +{:#x}) is not page aligned or out of range",
         addr, length);
  }
}

}  // namespace

GuestMemory::GuestMemory(u64 limit) : limit_(limit) {
  if (limit == 0 || limit > kMaxVaLimit || (limit & (kPageSize - 1)) != 0) {
    fail(ExitCode::kInternal, "guest address space of {:#x} bytes: not a page multiple up to {:#x}",
         limit, kMaxVaLimit);
  }
  base_ = static_cast<u8*>(reserve(limit_));
  perm_ = static_cast<u8*>(::mmap(nullptr, limit_ >> kPageBits, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  if (perm_ == MAP_FAILED) {
    const int error = errno;
    ::munmap(base_, limit_);
    fail(ExitCode::kHost, "cannot allocate the guest page table ({} MiB of address space): {}",
         (limit_ >> kPageBits) >> 20, std::strerror(error));
  }
}

GuestMemory::~GuestMemory() {
  ::munmap(base_, limit_);
  ::munmap(perm_, limit_ >> kPageBits);
}

void GuestMemory::setPerm(u64 addr, u64 length, u8 perm) {
  std::memset(perm_ + (addr >> kPageBits), perm, length >> kPageBits);
}

void GuestMemory::map(u64 addr, u64 length, u8 perm) {
  checkRange(addr, length, limit_);
  if (length == 0) return;
  // A fresh anonymous mapping replaces whatever was there, which also zero-fills it.
  void* p = ::mmap(base_ + addr, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED) {
    fail(ExitCode::kInternal, "host mmap for guest range [{:#x}, +{:#x}) failed: {}", addr, length,
         std::strerror(errno));
  }
  setPerm(addr, length, perm | kUntouched);
}

void GuestMemory::unmap(u64 addr, u64 length) {
  checkRange(addr, length, limit_);
  if (length == 0) return;
  ::mmap(base_ + addr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
         -1, 0);
  setPerm(addr, length, kNone);
}

void GuestMemory::protect(u64 addr, u64 length, u8 perm) {
  checkRange(addr, length, limit_);
  // (A page keeps whether it was touched: mprotect leaves its contents where they are.)
  for (u64 page = addr >> kPageBits; page < (addr + length) >> kPageBits; ++page) {
    perm_[page] = static_cast<u8>(perm | (perm_[page] & kUntouched));
  }
}

void GuestMemory::move(u64 from, u64 to, u64 length) {
  checkRange(from, length, limit_);
  checkRange(to, length, limit_);
  if (length == 0) return;
  // mremap moves the host pages without copying their contents.
  void* p = ::mremap(base_ + from, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, base_ + to);
  if (p == MAP_FAILED) {
    fail(ExitCode::kInternal, "host mremap of guest range failed: {}", std::strerror(errno));
  }
  std::memmove(perm_ + (to >> kPageBits), perm_ + (from >> kPageBits), length >> kPageBits);
  // The source is now a hole in the host reservation; put the reservation back.
  ::mmap(base_ + from, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
         -1, 0);
  setPerm(from, length, kNone);
}

bool GuestMemory::isMapped(u64 addr, u64 length) const {
  if (addr >= limit_ || length > limit_ - addr) return false;
  for (u64 page = addr >> kPageBits, end = (addr + length + kPageSize - 1) >> kPageBits; page < end;
       ++page) {
    if ((perm_[page] & kPermMask) == kNone) return false;
  }
  return true;
}

bool GuestMemory::isUnmapped(u64 addr, u64 length) const {
  if (addr >= limit_ || length > limit_ - addr) return false;
  for (u64 page = addr >> kPageBits, end = (addr + length + kPageSize - 1) >> kPageBits; page < end;
       ++page) {
    if ((perm_[page] & kPermMask) != kNone) return false;
  }
  return true;
}

bool GuestMemory::accessible(u64 addr, u64 size, u8 need) const {
  if (size == 0) return true;
  const u64 last = addr + size - 1;
  if (last < addr || last >= limit_) return false;
  for (u64 page = addr >> kPageBits; page <= (last >> kPageBits); ++page) {
    if ((perm_[page] & need) != need) return false;
  }
  return true;
}

u8* GuestMemory::translateSlow(u64 addr, unsigned size, u8 need) {
  if (!accessible(addr, size, need)) return nullptr;
  for (u64 page = addr >> kPageBits; page <= (addr + size - 1) >> kPageBits; ++page) {
    if ((perm_[page] & kUntouched) == 0) continue;
    perm_[page] &= static_cast<u8>(~kUntouched);
    ++first_touches_;
    if (touch_listener_ != nullptr) touch_listener_->firstTouch(page);
  }
  return base_ + addr;
}

bool GuestMemory::read(u64 addr, void* dst, std::size_t n) const {
  if (!accessible(addr, n, kRead)) return false;
  if (n != 0) std::memcpy(dst, base_ + addr, n);
  return true;
}

bool GuestMemory::write(u64 addr, const void* src, std::size_t n) {
  if (!accessible(addr, n, kWrite)) return false;
  if (n != 0) std::memcpy(base_ + addr, src, n);
  return true;
}

bool GuestMemory::readString(u64 addr, std::string& out, std::size_t max) const {
  out.clear();
  for (std::size_t i = 0; i < max; ++i) {
    const u8* p = view(addr + i, 1, kRead);
    if (p == nullptr) return false;
    if (*p == 0) return true;
    out.push_back(static_cast<char>(*p));
  }
  return false;
}

}  // namespace hpm
