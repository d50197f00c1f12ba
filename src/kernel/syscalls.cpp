// System call dispatch (the table of kernel/syscall_table.h), and the calls of a process's
// identity, limits and system information.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "base/bits.h"
#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr u64 kPid = 1;  // guest thread ids are 1, 2, ...; the process is its main thread

}  // namespace

i64 Kernel::dispatch(Thread& t, u64 number, const SyscallArgs& a) {
  // Every row's handler by number (null: no row), as dense as the switch it replaces: one
  // bounds check and one indirect call.
  static constexpr auto kHandlers = [] {
    std::array<SyscallHandler, abi::kSyscallLimit> handlers{};
#define HPM_SYSCALL_HANDLER(id, number, name, category, handler) \
  handlers[number] = &Kernel::handler;
    HPM_SYSCALL_TABLE(HPM_SYSCALL_HANDLER)
#undef HPM_SYSCALL_HANDLER
    return handlers;
  }();
  if (number < kHandlers.size() && kHandlers[number] != nullptr) [[likely]] {
    return (this->*kHandlers[number])(t, number, a);
  }
  return unknownSyscall(number);
}

i64 Kernel::sysUnsupported(Thread& /*t*/, u64 number, const SyscallArgs& /*a*/) {
  return unknownSyscall(number);
}

// ---- process and thread identity ----

i64 Kernel::sysExit(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  threadExit(t, static_cast<int>(a[0] & 0xff));
  return kBlocked;
}

i64 Kernel::sysExitGroup(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  for (auto& th : threads_) th->exited = true;
  terminate(Termination{static_cast<int>(a[0] & 0xff), false, 0, {}, false});
  return kBlocked;
}

i64 Kernel::sysGetpid(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return kPid;  // and getpgid, getsid: the process leads its group and session
}

i64 Kernel::sysGetppid(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return 0;
}

i64 Kernel::sysGettid(Thread& t, u64 /*number*/, const SyscallArgs& /*a*/) {
  return t.tid();
}

i64 Kernel::sysGetuid(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return ::getuid();
}

i64 Kernel::sysGeteuid(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return ::geteuid();
}

i64 Kernel::sysGetgid(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return ::getgid();
}

i64 Kernel::sysGetegid(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return ::getegid();
}

i64 Kernel::sysSetTidAddress(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  t.clear_child_tid = a[0];
  return t.tid();
}

i64 Kernel::sysSetRobustList(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (!config_.params.robust_futex_lists) return -abi::kENOSYS;
  if (a[1] != 24) return -abi::kEINVAL;  // sizeof(struct robust_list_head)
  t.robust_list = a[0];
  t.robust_list_len = a[1];
  return 0;
}

i64 Kernel::sysClone3(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return -abi::kENOSYS;  // glibc falls back to clone
}

i64 Kernel::sysUmask(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const u32 old = umask_;
  umask_ = a[0] & 0777;
  return old;
}

i64 Kernel::sysPrctl(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  return -abi::kEINVAL;
}

i64 Kernel::sysSchedYield(Thread& /*t*/, u64 /*number*/, const SyscallArgs& /*a*/) {
  // Every system call ends the thread's slice anyway. A thread parked while it polled
  // (functional mode) is given the processor as Linux would give it a waiting thread: the
  // yielding thread may be waiting for it.
  if (!parked_.empty()) wakeParkedPolls();
  return 0;
}

i64 Kernel::sysAffinity(Thread& t, u64 number, const SyscallArgs& a) {
  // The thread (0: the caller; the process id 1 is the main thread's id).
  Thread* target = &t;
  if (static_cast<i32>(a[0]) != 0) {
    target = nullptr;
    for (const auto& th : threads_) {
      if (th->tid() == static_cast<i32>(a[0]) && !th->exited) target = th.get();
    }
    if (target == nullptr) return -abi::kESRCH;
  }
  const u32 n = config_.hardwareThreads();
  if (number == abi::kSchedGetaffinity) {
    const u64 bytes = alignUp((n + 7) / 8, 8);
    if (a[1] < bytes || (a[1] & 7)) return -abi::kEINVAL;
    std::vector<u8> mask(bytes, 0);
    for (u32 i = 0; i < n; ++i) {
      if (Scheduler::allows(target->affinity, i)) mask[i / 8] |= static_cast<u8>(1u << (i % 8));
    }
    if (!memory_.write(a[2], mask.data(), mask.size())) return -abi::kEFAULT;
    return static_cast<i64>(bytes);
  }
  // The mask is kept (limited to the machine's hardware threads); the thread stays where it
  // is if the mask allows it, or moves to the least loaded hardware thread it allows.
  const u64 bytes = std::min<u64>(a[1], 1024);
  std::vector<u8> given(bytes);
  if (!memory_.read(a[2], given.data(), given.size())) return -abi::kEFAULT;
  std::vector<u8> mask((n + 7) / 8, 0);
  bool any = false;
  for (u32 cpu = 0; cpu < n && cpu / 8 < bytes; ++cpu) {
    if (given[cpu / 8] & (1u << (cpu % 8))) {
      mask[cpu / 8] |= static_cast<u8>(1u << (cpu % 8));
      any = true;
    }
  }
  if (!any) return -abi::kEINVAL;
  target->affinity = std::move(mask);
  if (!Scheduler::allows(target->affinity, target->slot)) {
    const u32 cpu = scheduler_.pickHardwareThread(threads_, target->affinity);
    scheduler_.unschedule(*target);
    if (cpu != target->slot) {
      ++stats_.migrations;
      // CNK hands it to its new hardware thread by an interrupt from the caller's (the caller's
      // old one when it moves itself).
      interProcessorInterrupt(t.slot, cpu);
    }
    target->place(cpu);
    if (target->wait == WaitKind::kNone && !target->exited) scheduler_.schedule(*target);
  }
  return 0;
}

i64 Kernel::sysGetcpu(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u32 cpu = t.slot;
  const u32 node = 0;
  if (a[0] != 0 && !memory_.write(a[0], &cpu, 4)) return -abi::kEFAULT;
  if (a[1] != 0 && !memory_.write(a[1], &node, 4)) return -abi::kEFAULT;
  return 0;
}

// ---- system information and limits ----

i64 Kernel::sysUname(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  abi::Utsname u{};
  std::snprintf(u.sysname, sizeof u.sysname, "Linux");
  std::snprintf(u.nodename, sizeof u.nodename, "hpmsim-%s", config_.node_name.c_str());
  std::snprintf(u.release, sizeof u.release, "6.1.0-hpmsim");
  std::snprintf(u.version, sizeof u.version, "#1 SMP hpmsim compute-node kernel");
  std::snprintf(u.machine, sizeof u.machine, "riscv64");
  std::snprintf(u.domainname, sizeof u.domainname, "(none)");
  if (!memory_.write(a[0], &u, sizeof u)) return -abi::kEFAULT;
  return 0;
}

i64 Kernel::sysSysinfo(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  abi::Sysinfo info{};
  info.uptime = static_cast<i64>(nanosAt(t.hart().state().cycle) / 1'000'000'000);
  u64 mapped = 0;
  for (const auto& [start, vma] : space_.vmas().areas()) mapped += vma.end - vma.start;
  info.totalram = config_.memory_bytes;
  info.freeram = config_.memory_bytes > mapped ? config_.memory_bytes - mapped : 0;
  info.procs = static_cast<u16>(
      std::count_if(threads_.begin(), threads_.end(), [](const auto& th) { return !th->exited; }));
  info.mem_unit = 1;
  if (!memory_.write(a[0], &info, sizeof info)) return -abi::kEFAULT;
  return 0;
}

i64 Kernel::sysRlimit(Thread& /*t*/, u64 number, const SyscallArgs& a) {
  const bool is_prlimit = number == abi::kPrlimit64;
  if (is_prlimit && a[0] != 0 && a[0] != kPid) return -abi::kESRCH;
  const u64 resource = is_prlimit ? a[1] : a[0];
  const u64 new_addr = is_prlimit ? a[2] : (number == abi::kSetrlimit ? a[1] : 0);
  const u64 old_addr = is_prlimit ? a[3] : (number == abi::kGetrlimit ? a[1] : 0);
  if (resource >= rlimits_.size()) return -abi::kEINVAL;
  abi::Rlimit old = rlimits_[resource];
  if (new_addr != 0) {
    abi::Rlimit next{};
    if (!memory_.read(new_addr, &next, sizeof next)) return -abi::kEFAULT;
    if (next.cur > next.max) return -abi::kEINVAL;
    rlimits_[resource] = next;
  }
  if (old_addr != 0 && !memory_.write(old_addr, &old, sizeof old)) return -abi::kEFAULT;
  return 0;
}

i64 Kernel::sysGetrandom(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  if (a[2] & ~u64{0x7}) return -abi::kEINVAL;  // GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE
  const u64 n = std::min<u64>(a[1], 33554431);
  std::vector<u8> bytes(n);
  fillRandom(bytes.data(), bytes.size());
  if (!memory_.write(a[0], bytes.data(), bytes.size())) return -abi::kEFAULT;
  return static_cast<i64>(n);
}

}  // namespace hpm
