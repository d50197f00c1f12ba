// System calls on open descriptors: reading and writing, duplicating, pipes, control, polling;
// and the working directory.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "base/bits.h"
#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr int kGuestAtFdcwd = -100;
constexpr u64 kMaxIo = 0x7ffff000;  // Linux's MAX_RW_COUNT

i64 hostResult(long r) {
  return r < 0 ? -static_cast<i64>(errno) : r;
}

}  // namespace

i64 Kernel::sysClose(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return fds_.close(static_cast<i32>(a[0])) ? 0 : -abi::kEBADF;
}

i64 Kernel::sysLseek(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  FdEntry* e = fds_.get(static_cast<i32>(a[0]));
  if (e == nullptr) return -abi::kEBADF;
  if (e->kind == FdKind::kRandom) return 0;
  return hostResult(::lseek(e->host_fd, static_cast<off_t>(a[1]), static_cast<int>(a[2])));
}

i64 Kernel::sysDup(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  auto copy = fds_.duplicate(static_cast<i32>(a[0]));
  if (!copy) return -abi::kEBADF;
  return fds_.install(std::move(*copy));
}

i64 Kernel::sysDup3(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const i64 fd = static_cast<i32>(a[0]);
  const int newfd = static_cast<i32>(a[1]);
  if (newfd == fd) return -abi::kEINVAL;
  if (a[2] & ~static_cast<u64>(O_CLOEXEC)) return -abi::kEINVAL;
  if (newfd < 0 || newfd >= FdTable::kMaxFds) return -abi::kEBADF;
  auto copy = fds_.duplicate(static_cast<int>(fd));
  if (!copy) return -abi::kEBADF;
  copy->cloexec = (a[2] & O_CLOEXEC) != 0;
  fds_.installAt(newfd, std::move(*copy));
  return newfd;
}

i64 Kernel::sysPipe2(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  if (a[1] & ~static_cast<u64>(O_CLOEXEC | O_NONBLOCK | O_DIRECT)) return -abi::kEINVAL;
  int host[2];
  if (::pipe2(host, static_cast<int>(a[1] & (O_NONBLOCK | O_DIRECT)) | O_CLOEXEC) < 0) {
    return -static_cast<i64>(errno);
  }
  const bool cloexec = (a[1] & O_CLOEXEC) != 0;
  const int r = fds_.install(FdEntry{FdKind::kHost, host[0], cloexec, "", true});
  if (r < 0) {
    ::close(host[1]);
    return r;
  }
  const int w = fds_.install(FdEntry{FdKind::kHost, host[1], cloexec, "", true});
  if (w < 0) {
    fds_.close(r);
    return w;
  }
  const i32 pair[2] = {r, w};
  if (!memory_.write(a[0], pair, sizeof pair)) {
    fds_.close(r);
    fds_.close(w);
    return -abi::kEFAULT;
  }
  return 0;
}

i64 Kernel::sysGetcwd(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const std::string& cwd = fs_->cwd();
  if (a[1] < cwd.size() + 1) return -abi::kERANGE;
  if (!memory_.write(a[0], cwd.c_str(), cwd.size() + 1)) return -abi::kEFAULT;
  return static_cast<i64>(cwd.size() + 1);
}

i64 Kernel::sysChdir(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  std::string path;
  if (i64 e = readPath(a[0], path)) return e;
  i64 error = 0;
  const std::string guest = guestPath(kGuestAtFdcwd, path, &error);
  if (error) return error;
  return fs_->chdir(guest);
}

i64 Kernel::sysFchdir(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  FdEntry* e = fds_.get(static_cast<i32>(a[0]));
  if (e == nullptr) return -abi::kEBADF;
  if (e->guest_path.empty()) return -abi::kENOTDIR;
  return fs_->chdir(e->guest_path);
}

i64 Kernel::sysFtruncate(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  FdEntry* e = fds_.get(static_cast<i32>(a[0]));
  if (e == nullptr || e->host_fd < 0) return -abi::kEBADF;
  return hostResult(::ftruncate(e->host_fd, static_cast<off_t>(a[1])));
}

i64 Kernel::sysFsync(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  FdEntry* e = fds_.get(static_cast<i32>(a[0]));
  return e == nullptr ? -abi::kEBADF : 0;
}

i64 Kernel::sysFchmod(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  FdEntry* e = fds_.get(static_cast<i32>(a[0]));
  if (e == nullptr || e->host_fd < 0) return -abi::kEBADF;
  return hostResult(::fchmod(e->host_fd, static_cast<mode_t>(a[1] & 07777)));
}

i64 Kernel::sysReadWrite(Thread& t, u64 number, const SyscallArgs& a) {
  FdEntry* e = fds_.get(static_cast<i32>(a[0]));
  if (e == nullptr) return -abi::kEBADF;
  const bool is_write = number == abi::kWrite || number == abi::kWritev ||
                        number == abi::kPwrite64 || number == abi::kPwritev;
  const bool vectored = number == abi::kReadv || number == abi::kWritev || number == abi::kPreadv ||
                        number == abi::kPwritev;
  const bool positioned = number == abi::kPread64 || number == abi::kPwrite64 ||
                          number == abi::kPreadv || number == abi::kPwritev;
  const u8 need = is_write ? GuestMemory::kRead : GuestMemory::kWrite;

  // The guest buffers as host iovecs; each must be wholly accessible.
  std::vector<iovec> iov;
  if (vectored) {
    const u64 count = a[2];
    if (count > 1024) return -abi::kEINVAL;
    std::vector<abi::Iovec> guest(count);
    if (!memory_.read(a[1], guest.data(), count * sizeof(abi::Iovec))) return -abi::kEFAULT;
    u64 total = 0;
    for (const abi::Iovec& v : guest) {
      if (v.len > kMaxIo || total + v.len > kMaxIo) return -abi::kEINVAL;
      total += v.len;
      if (v.len == 0) continue;
      if (!memory_.accessible(v.base, v.len, need)) return -abi::kEFAULT;
      iov.push_back({memory_.hostUnchecked(v.base), v.len});
    }
  } else {
    const u64 len = std::min(a[2], kMaxIo);
    if (len != 0) {
      if (!memory_.accessible(a[1], len, need)) return -abi::kEFAULT;
      iov.push_back({memory_.hostUnchecked(a[1]), len});
    }
  }
  const off_t offset = static_cast<off_t>(vectored ? a[3] : a[3]);

  if (e->kind == FdKind::kDevice) return -abi::kEINVAL;  // registers are reached by mmap
  if (e->kind == FdKind::kRandom) {
    if (is_write) {
      u64 total = 0;
      for (const iovec& v : iov) total += v.iov_len;
      return static_cast<i64>(total);
    }
    u64 total = 0;
    for (const iovec& v : iov) {
      fillRandom(static_cast<u8*>(v.iov_base), v.iov_len);
      total += v.iov_len;
    }
    return static_cast<i64>(total);
  }
  // A pipe between guest threads may be empty (or full): the thread then waits in our kernel
  // while the others run, and the call completes when the pipe is ready. Every other descriptor
  // (files, terminals, pipes from outside) is used as qemu-user does, with the host blocking
  // until it is ready: simulated time does not pass meanwhile, so outside input behaves as if
  // it had been there from the start, and runs stay deterministic.
  if (e->guest_pipe) {
    pollfd p{e->host_fd, static_cast<short>(is_write ? POLLOUT : POLLIN), 0};
    const int flags = ::fcntl(e->host_fd, F_GETFL);
    if (::poll(&p, 1, 0) == 0 && !(flags & O_NONBLOCK)) {
      t.wait_fd = e->host_fd;
      block(t, is_write ? WaitKind::kFdWritable : WaitKind::kFdReadable, std::nullopt);
      return kBlocked;
    }
  }
  if (iov.empty()) {
    // A zero-length transfer still reports errors of the descriptor (e.g. wrong direction).
    const ssize_t r = is_write ? ::write(e->host_fd, nullptr, 0) : ::read(e->host_fd, nullptr, 0);
    return hostResult(r);
  }
  if (is_write && before_console_write_ && (a[0] == 1 || a[0] == 2)) before_console_write_();
  ssize_t r;
  do {
    if (positioned) {
      r = is_write ? ::pwritev(e->host_fd, iov.data(), static_cast<int>(iov.size()), offset)
                   : ::preadv(e->host_fd, iov.data(), static_cast<int>(iov.size()), offset);
    } else {
      r = is_write ? ::writev(e->host_fd, iov.data(), static_cast<int>(iov.size()))
                   : ::readv(e->host_fd, iov.data(), static_cast<int>(iov.size()));
    }
  } while (r < 0 && errno == EINTR && !pollInterrupt());
  if (r < 0 && errno == EPIPE && is_write) {
    // The reader is gone: Linux raises SIGPIPE (by default fatal) and the call fails with EPIPE.
    SigInfo info;
    info.signo = SIGPIPE;
    info.code = 0x80;  // SI_KERNEL
    sendToThread(t, info, t.clock(), &t);
    return -32;
  }
  if (r > 0) {
    const u64 n = static_cast<u64>(r);
    const int guest_fd = static_cast<i32>(a[0]);
    if (is_write) {
      ++stats_.io_writes;
      stats_.io_bytes_written += n;
      HPM_PROBE(bus_, kIoWrites, 0, 1);
      HPM_PROBE(bus_, kIoBytesWritten, 0, n);
      if (guest_fd == 1 || guest_fd == 2) {
        ++stats_.console_writes;
        stats_.console_bytes += n;
        HPM_PROBE(bus_, kIoConsoleWrites, 0, 1);
        HPM_PROBE(bus_, kIoConsoleBytes, 0, n);
      }
    } else {
      ++stats_.io_reads;
      stats_.io_bytes_read += n;
      HPM_PROBE(bus_, kIoReads, 0, 1);
      HPM_PROBE(bus_, kIoBytesRead, 0, n);
    }
  }
  return hostResult(r);
}

i64 Kernel::sysIoctl(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  i64 fd = static_cast<i32>(a[0]);
  u64 request = a[1], arg = a[2];
  FdEntry* e = fds_.get(static_cast<int>(fd));
  if (e == nullptr) return -abi::kEBADF;
  if (e->kind == FdKind::kDevice) {
    if (request != kHpmIoctlSetSignal) return -abi::kENOTTY;
    const i64 signo = static_cast<i64>(arg);
    if (signo < 0 || signo > 64) return -abi::kEINVAL;
    devices_->setInterruptTarget(e->device, t.tid(), static_cast<int>(signo));
    return 0;
  }
  switch (request) {
    case TCGETS:
    case TIOCGWINSZ: {
      if (e->host_fd < 0 || !::isatty(e->host_fd)) return -abi::kENOTTY;
      // The kernel's termios (36 bytes) and winsize (8 bytes) are the same on riscv64.
      u8 buffer[64] = {};
      if (::ioctl(e->host_fd, request, buffer) < 0) return -static_cast<i64>(errno);
      const std::size_t n = request == TCGETS ? 36 : 8;
      return memory_.write(arg, buffer, n) ? 0 : -abi::kEFAULT;
    }
    case FIOCLEX: e->cloexec = true; return 0;
    case FIONCLEX: e->cloexec = false; return 0;
    case FIONBIO: {
      i32 on = 0;
      if (!memory_.read(arg, &on, 4)) return -abi::kEFAULT;
      if (e->host_fd < 0) return 0;
      const int flags = ::fcntl(e->host_fd, F_GETFL);
      return hostResult(
          ::fcntl(e->host_fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK));
    }
    default: return -abi::kENOTTY;
  }
}

i64 Kernel::sysFcntl(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  i64 fd = static_cast<i32>(a[0]);
  u64 cmd = a[1], arg = a[2];
  FdEntry* e = fds_.get(static_cast<int>(fd));
  if (e == nullptr) return -abi::kEBADF;
  switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC: {
      if (arg >= FdTable::kMaxFds) return -abi::kEINVAL;
      auto copy = fds_.duplicate(static_cast<int>(fd));
      if (!copy) return -abi::kEMFILE;
      copy->cloexec = cmd == F_DUPFD_CLOEXEC;
      return fds_.install(std::move(*copy), static_cast<int>(arg));
    }
    case F_GETFD: return e->cloexec ? FD_CLOEXEC : 0;
    case F_SETFD: e->cloexec = (arg & FD_CLOEXEC) != 0; return 0;
    case F_GETFL:
      if (e->kind == FdKind::kRandom) return O_RDWR;
      return hostResult(::fcntl(e->host_fd, F_GETFL));
    case F_SETFL:
      if (e->kind == FdKind::kRandom) return 0;
      return hostResult(::fcntl(e->host_fd, F_SETFL, static_cast<int>(arg)));
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW: {
      if (e->host_fd < 0) return -abi::kEINVAL;
      struct flock lock {};  // same layout on riscv64 and x86-64
      static_assert(sizeof(struct flock) == 32);
      if (!memory_.read(arg, &lock, sizeof lock)) return -abi::kEFAULT;
      // One process: locks never conflict, but the host may hold others' locks; never wait.
      const int r = ::fcntl(e->host_fd, cmd == F_SETLKW ? F_SETLK : static_cast<int>(cmd), &lock);
      if (r < 0) return -static_cast<i64>(errno);
      if (cmd == F_GETLK && !memory_.write(arg, &lock, sizeof lock)) return -abi::kEFAULT;
      return 0;
    }
    case F_GETPIPE_SZ:
      if (e->host_fd < 0) return -abi::kEINVAL;
      return hostResult(::fcntl(e->host_fd, F_GETPIPE_SZ));
    default: return -abi::kEINVAL;
  }
}

i64 Kernel::sysGetdents(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  i64 fd = static_cast<i32>(a[0]);
  u64 buf = a[1], size = a[2];
  FdEntry* e = fds_.get(static_cast<int>(fd));
  if (e == nullptr || e->host_fd < 0) return -abi::kEBADF;
  const u64 len = std::min<u64>(size, 1 << 20);
  if (!memory_.accessible(buf, len, GuestMemory::kWrite)) return -abi::kEFAULT;
  // struct linux_dirent64 is architecture independent.
  return hostResult(::syscall(SYS_getdents64, e->host_fd, memory_.hostUnchecked(buf), len));
}

i64 Kernel::sysPpoll(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  // ppoll(fds, nfds, timeout, sigmask, sigsetsize); poll() and pause() are built on it.
  const u64 nfds = a[1];
  if (nfds > FdTable::kMaxFds) return -abi::kEINVAL;
  std::vector<pollfd> polled(nfds);
  if (nfds != 0 && !memory_.read(a[0], polled.data(), nfds * sizeof(pollfd))) {
    return -abi::kEFAULT;
  }
  std::optional<u64> timeout;
  if (a[2] != 0) {
    abi::Timespec ts{};
    if (!memory_.read(a[2], &ts, sizeof ts)) return -abi::kEFAULT;
    if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1'000'000'000) return -abi::kEINVAL;
    timeout = cyclesFor(spanNanos(ts.sec, ts.nsec));
  }
  u64 mask = 0;
  if (a[3] != 0) {
    if (a[4] != 8) return -abi::kEINVAL;
    if (!memory_.read(a[3], &mask, 8)) return -abi::kEFAULT;
  }
  // Readiness now: host descriptors are asked without waiting; the random device is always
  // ready; a descriptor that is not open is POLLNVAL; a negative one is skipped.
  std::vector<pollfd> host(nfds);
  bool waitable = false, outside = false;
  for (u64 i = 0; i < nfds; ++i) {
    host[i] = pollfd{-1, polled[i].events, 0};
    polled[i].revents = 0;
    if (polled[i].fd < 0) continue;
    FdEntry* e = fds_.get(polled[i].fd);
    if (e == nullptr) {
      polled[i].revents = POLLNVAL;
    } else if (e->kind == FdKind::kRandom) {
      polled[i].revents =
          static_cast<short>(polled[i].events & (POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM));
    } else {
      host[i].fd = e->host_fd;
      waitable = true;
      outside = outside || !e->guest_pipe;
    }
  }
  if (waitable) {
    int r = 0;
    do {
      r = ::poll(host.data(), nfds, 0);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return -static_cast<i64>(errno);
  }
  const auto finish = [&] {
    i64 ready = 0;
    for (u64 i = 0; i < nfds; ++i) {
      if (host[i].fd >= 0) polled[i].revents = host[i].revents;
      if (polled[i].revents != 0) ++ready;
    }
    if (nfds != 0 && !memory_.write(a[0], polled.data(), nfds * sizeof(pollfd))) {
      return -abi::kEFAULT;
    }
    return ready;
  };
  const i64 ready = finish();
  if (ready != 0 || (timeout && *timeout == 0)) return ready;
  if (outside && !timeout) {
    // Only descriptors from outside can end the wait and there is no timeout: the host waits,
    // as for a read (simulated time does not pass meanwhile; see sysReadWrite).
    int r = 0;
    do {
      r = ::poll(host.data(), nfds, -1);
    } while (r < 0 && errno == EINTR && !pollInterrupt());
    if (r < 0) return -static_cast<i64>(errno);
    return finish();
  }
  // Wait in simulated time, with the call's signal mask in force (as sigsuspend), until a
  // descriptor is ready (checked between slices, see pollFileWaits), the timeout, or a signal.
  if (a[3] != 0) {
    if (!t.saved_mask) t.saved_mask = t.blocked;
    t.blocked = mask & ~((u64{1} << (SIGKILL - 1)) | (u64{1} << (SIGSTOP - 1)));
    if (signalPendingFor(t)) return -abi::kEINTR;
  }
  const std::optional<u64> deadline =
      timeout ? std::optional<u64>(cyclesAfter(t.clock(), *timeout)) : std::nullopt;
  if (!waitable) {
    t.sleep_remaining_addr = 0;
    block(t, WaitKind::kSleep, deadline);  // ends only by the timeout or a signal
  } else {
    t.wait_fd = -1;  // pollFileWaits reads the descriptors from the call's arguments
    block(t, WaitKind::kFdReadable, deadline);
  }
  return kBlocked;
}

}  // namespace hpm
