// The memory-management calls: the address space (address_space.h) does the work.
#include <sys/mman.h>

#include "kernel/kernel.h"

namespace hpm {

i64 Kernel::sysBrk(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return space_.brk(a[0]);
}

i64 Kernel::sysMmap(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const FdEntry* file = (a[3] & MAP_ANONYMOUS) ? nullptr : fds_.get(static_cast<i32>(a[4]));
  return space_.mmap(a[0], a[1], a[2], a[3], file, a[5]);
}

i64 Kernel::sysMunmap(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return space_.munmap(a[0], a[1]);
}

i64 Kernel::sysMprotect(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return space_.mprotect(a[0], a[1], a[2]);
}

i64 Kernel::sysMremap(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return space_.mremap(a[0], a[1], a[2], a[3], a[4]);
}

i64 Kernel::sysMadvise(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return space_.madvise(a[0], a[1], a[2]);
}

i64 Kernel::sysMsync(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return 0;
}

i64 Kernel::sysFlushIcache(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  code_.flush();
  return 0;
}

i64 Kernel::sysMembarrier(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return 0;  // one hart runs at a time: always ordered
}

}  // namespace hpm
