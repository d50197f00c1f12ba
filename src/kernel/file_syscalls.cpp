// File-related system calls: every path goes through the sandbox (files.h).
#include <fcntl.h>
#include <linux/stat.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cstdio>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/core.h>

#include "base/bits.h"
#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr int kGuestAtFdcwd = -100;
constexpr u64 kAtSymlinkNofollow = 0x100;
constexpr u64 kAtRemovedir = 0x200;
constexpr u64 kAtEmptyPath = 0x1000;

i64 hostResult(long r) {
  return r < 0 ? -static_cast<i64>(errno) : r;
}

// Closes a host descriptor when it goes out of scope.
struct HostFd {
  int fd;
  explicit HostFd(int f) : fd(f) {}
  ~HostFd() {
    if (fd >= 0) ::close(fd);
  }
  HostFd(const HostFd&) = delete;
  HostFd& operator=(const HostFd&) = delete;
};

abi::Stat guestStat(const struct stat& st) {
  abi::Stat g{};
  g.dev = st.st_dev;
  g.ino = st.st_ino;
  g.mode = st.st_mode;
  g.nlink = static_cast<u32>(st.st_nlink);
  g.uid = st.st_uid;
  g.gid = st.st_gid;
  g.rdev = st.st_rdev;
  g.size = st.st_size;
  g.blksize = static_cast<i32>(st.st_blksize);
  g.blocks = st.st_blocks;
  g.atime_sec = st.st_atim.tv_sec;
  g.atime_nsec = static_cast<u64>(st.st_atim.tv_nsec);
  g.mtime_sec = st.st_mtim.tv_sec;
  g.mtime_nsec = static_cast<u64>(st.st_mtim.tv_nsec);
  g.ctime_sec = st.st_ctim.tv_sec;
  g.ctime_nsec = static_cast<u64>(st.st_ctim.tv_nsec);
  return g;
}

// A read-only host descriptor holding `text` (memfd), for generated /proc and /sys files.
int textFile(const std::string& name, const std::string& text) {
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return -errno;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      return -EIO;
    }
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace

i64 Kernel::readPath(u64 addr, std::string& out) const {
  constexpr std::size_t kPathMax = 4096;  // PATH_MAX, the terminator included
  if (memory_.readString(addr, out, kPathMax)) return 0;
  // readString keeps the bytes it read: all kPathMax of them when none was the terminator.
  return out.size() == kPathMax ? -abi::kENAMETOOLONG : -abi::kEFAULT;
}

std::string Kernel::guestPath(i64 dirfd, const std::string& path, i64* error) const {
  *error = 0;
  if (path.empty()) {
    *error = -abi::kENOENT;
    return {};
  }
  if (path[0] == '/') return path;
  if (dirfd == kGuestAtFdcwd) return fs_->cwd() + "/" + path;
  const FdEntry* e = const_cast<FdTable&>(fds_).get(static_cast<int>(dirfd));
  if (e == nullptr) {
    *error = -abi::kEBADF;
    return {};
  }
  if (e->guest_path.empty()) {
    *error = -abi::kENOTDIR;
    return {};
  }
  return e->guest_path + "/" + path;
}

int Kernel::pagemapFile() const {
  // Linux's layout (Documentation/admin-guide/mm/pagemap.rst): 8 bytes per virtual page. A node
  // that maps memory 1:1 (as CNK does) gives a present page its page number as frame number, a
  // page being present once touched; a node with a frame source (sunfire) gives the frame the
  // memory system placed the page in, a page being present once it has one. Bit 61: a page of a
  // file mapping (the program's segments, a mapped file); bit 56: mapped exclusively (every other
  // present page: private, one process). A sparse memfd of the whole address space: pages never
  // written read as zero, as absent ones.
  const int fd = ::memfd_create("/proc/self/pagemap", MFD_CLOEXEC);
  if (fd < 0) return -errno;
  constexpr u64 kPresent = u64{1} << 63, kFile = u64{1} << 61, kExclusive = u64{1} << 56;
  if (::ftruncate(fd, static_cast<off_t>(memory_.limit() / GuestMemory::kPageSize * 8)) != 0) {
    ::close(fd);
    return -EIO;
  }
  std::vector<u64> run;
  for (const auto& [start, vma] : space_.vmas().areas()) {
    const bool file = !vma.name.empty() && !vma.name.starts_with("[");
    u64 first = start;  // the first page of `run`
    auto flush = [&] {
      if (run.empty()) return true;
      const auto bytes = static_cast<ssize_t>(run.size() * 8);
      const bool ok = ::pwrite(fd, run.data(), static_cast<std::size_t>(bytes),
                               static_cast<off_t>(first / GuestMemory::kPageSize * 8)) == bytes;
      run.clear();
      return ok;
    };
    for (u64 page = start; page < vma.end; page += GuestMemory::kPageSize) {
      std::optional<u64> frame;
      if (frame_source_) {
        if (const auto pa = frame_source_(page)) frame = *pa / GuestMemory::kPageSize;
      } else if (memory_.touched(page)) {
        frame = page / GuestMemory::kPageSize;
      }
      if (!frame) {
        if (!flush()) break;
        first = page + GuestMemory::kPageSize;
        continue;
      }
      run.push_back(kPresent | (file ? kFile : kExclusive) | *frame);
    }
    if (!flush()) {
      ::close(fd);
      return -EIO;
    }
  }
  return fd;
}

std::string Kernel::procFileText(const std::string& path) const {
  const u32 cpus = config_.hardwareThreads();
  if (path == "/sys/devices/system/cpu/possible" || path == "/sys/devices/system/cpu/online" ||
      path == "/sys/devices/system/cpu/present") {
    return cpus == 1 ? "0\n" : fmt::format("0-{}\n", cpus - 1);
  }
  // /sys/devices/system/cpu/cpu<N>/cache/index<i>/<field>: the cache geometry, as Linux gives it.
  if (constexpr std::string_view kCpu = "/sys/devices/system/cpu/cpu"; path.starts_with(kCpu)) {
    u32 cpu = 0, index = 0;
    char field[32] = {};
    const std::string rest = path.substr(kCpu.size());
    if (std::sscanf(rest.c_str(), "%u/cache/index%u/%31s", &cpu, &index, field) == 3 &&
        cpu < cpus && index < config_.caches.size() &&
        rest == fmt::format("{}/cache/index{}/{}", cpu, index, field)) {
      const CacheDescription& c = config_.caches[index];
      const std::string_view f = field;
      if (f == "level") return fmt::format("{}\n", c.level);
      if (f == "type") return c.type + "\n";
      if (f == "size") return fmt::format("{}K\n", c.size_bytes >> 10);
      if (f == "coherency_line_size") return fmt::format("{}\n", c.line_bytes);
      if (f == "ways_of_associativity") return fmt::format("{}\n", c.ways);
      if (f == "number_of_sets") {
        return fmt::format("{}\n", c.size_bytes / (u64{c.line_bytes} * c.ways));
      }
    }
  }
  if (path == "/proc/cpuinfo") {
    std::string text;
    for (u32 i = 0; i < cpus; ++i) {
      text += fmt::format(
          "processor\t: {}\nhart\t\t: {}\nisa\t\t: rv64imafdc_zicntr_zicsr_zifencei\n"
          "mmu\t\t: sv39\nuarch\t\t: hpmsim,{}\ncore\t\t: {}\nthread\t\t: {}\n"
          "clock\t\t: {} MHz\n\n",
          i, i, config_.node_name, i / config_.threads_per_core, i % config_.threads_per_core,
          config_.clock_hz / 1'000'000);
    }
    return text;
  }
  if (path == "/proc/hpmsim/mode" && !config_.run_mode.empty()) return config_.run_mode + "\n";
  if (path == "/proc/meminfo") {
    return fmt::format("MemTotal:       {} kB\nMemFree:        {} kB\nMemAvailable:   {} kB\n",
                       config_.memory_bytes / 1024, config_.memory_bytes / 1024,
                       config_.memory_bytes / 1024);
  }
  if (path == "/proc/stat") {
    std::string text = "cpu  0 0 0 0 0 0 0 0 0 0\n";
    for (u32 i = 0; i < cpus; ++i) text += fmt::format("cpu{} 0 0 0 0 0 0 0 0 0 0\n", i);
    return text;
  }
  if (path == "/proc/self/maps") {
    std::string text;
    for (const auto& [start, vma] : space_.vmas().areas()) {
      text += fmt::format("{:08x}-{:08x} {}{}{}p 00000000 00:00 0", vma.start, vma.end,
                          vma.perm & GuestMemory::kRead ? 'r' : '-',
                          vma.perm & GuestMemory::kWrite ? 'w' : '-',
                          vma.perm & GuestMemory::kExec ? 'x' : '-');
      text += vma.name.empty() ? "\n" : fmt::format("                          {}\n", vma.name);
    }
    return text;
  }
  return {};
}

i64 Kernel::openVirtual(const std::string& path, int flags, bool* handled) {
  *handled = true;
  const int access = flags & O_ACCMODE;
  const bool cloexec = (flags & O_CLOEXEC) != 0;
  if (path == "/dev/null" || path == "/dev/zero") {
    const int host = ::open(path.c_str(), (flags & (O_ACCMODE | O_NONBLOCK)) | O_CLOEXEC);
    if (host < 0) return -errno;
    return fds_.install(FdEntry{FdKind::kHost, host, cloexec, path});
  }
  if (devices_ != nullptr && path.starts_with("/dev/hpm/")) {
    const int device = devices_->findDevice(path);
    if (device < 0) return -abi::kENOENT;
    FdEntry entry{FdKind::kDevice, -1, cloexec, path};
    entry.device = device;
    return fds_.install(std::move(entry));
  }
  if (path == "/dev/urandom" || path == "/dev/random") {
    return fds_.install(FdEntry{FdKind::kRandom, -1, cloexec, path});
  }
  if (path == "/dev/tty") {
    if (!::isatty(STDIN_FILENO)) return -6;  // ENXIO: no controlling terminal
    const int host = ::open("/dev/tty", (flags & (O_ACCMODE | O_NONBLOCK)) | O_CLOEXEC);
    if (host < 0) return -errno;
    return fds_.install(FdEntry{FdKind::kHost, host, cloexec, path});
  }
  if (path == "/proc/self/exe") {
    if (access != O_RDONLY) return -abi::kEACCES;
    const int host = ::open(exe_guest_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (host < 0) return -errno;
    return fds_.install(FdEntry{FdKind::kHost, host, cloexec, path});
  }
  if (path == "/proc/self/pagemap") {
    if (access != O_RDONLY) return -abi::kEACCES;
    const int host = pagemapFile();
    if (host < 0) return host;
    return fds_.install(FdEntry{FdKind::kHost, host, cloexec, path});
  }
  const std::string text = procFileText(path);
  if (!text.empty()) {
    if (access != O_RDONLY) return -abi::kEACCES;
    const int host = textFile(path, text);
    if (host < 0) return host;
    return fds_.install(FdEntry{FdKind::kHost, host, cloexec, path});
  }
  *handled = false;
  return 0;
}

i64 Kernel::sysOpenat(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  i64 dirfd = static_cast<i32>(a[0]);
  u64 path_addr = a[1], flags = a[2], mode = a[3];
  std::string path;
  if (i64 e = readPath(path_addr, path)) return e;
  i64 error = 0;
  const std::string guest = guestPath(dirfd, path, &error);
  if (error) return error;
  const std::string normalized = FileSystem::normalize("/", guest);
  bool handled = false;
  const i64 virtual_fd = openVirtual(normalized, static_cast<int>(flags), &handled);
  if (handled) {
    if (virtual_fd >= 0) {
      ++stats_.opens;
      HPM_PROBE(bus_, kIoOpens, 0, 1);
    }
    return virtual_fd;
  }
  const int host_flags = static_cast<int>(flags) & ~O_CLOEXEC;
  int host = 0;
  do {  // opening a FIFO waits for its other end, until the run is interrupted
    host = fs_->open(guest, host_flags, static_cast<unsigned>(mode) & ~umask_ & 07777);
  } while (host == -EINTR && !pollInterrupt());
  if (host < 0) {
    noteMissingPath(path, host);
    return host;
  }
  // The path as the host resolved it (symlinks, ".."), so that *at() calls and fchdir on a
  // directory descriptor start where it really is.
  ++stats_.opens;
  HPM_PROBE(bus_, kIoOpens, 0, 1);
  return fds_.install(
      FdEntry{FdKind::kHost, host, (flags & O_CLOEXEC) != 0, fs_->guestPathOf(host, normalized)});
}

i64 Kernel::sysFstat(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  return statFd(static_cast<i32>(a[0]), a[1]);
}

i64 Kernel::statFd(i64 fd, u64 stat_addr) {
  FdEntry* e = fds_.get(static_cast<int>(fd));
  if (e == nullptr) return -abi::kEBADF;
  struct stat st {};
  if (e->kind == FdKind::kDevice) {
    st.st_mode = S_IFCHR | 0666;
    st.st_rdev = makedev(10, 240 + static_cast<unsigned>(e->device));
    st.st_size = static_cast<off_t>(devices_->windowBytes(e->device));
    st.st_blksize = 4096;
  } else if (e->kind == FdKind::kRandom) {
    if (::stat("/dev/urandom", &st) < 0) {
      st = {};
      st.st_mode = S_IFCHR | 0666;
      st.st_rdev = makedev(1, 9);
    }
  } else if (::fstat(e->host_fd, &st) < 0) {
    return -static_cast<i64>(errno);
  }
  const abi::Stat g = guestStat(st);
  return memory_.write(stat_addr, &g, sizeof g) ? 0 : -abi::kEFAULT;
}

i64 Kernel::sysStat(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  i64 dirfd = static_cast<i32>(a[0]);
  u64 path_addr = a[1], stat_addr = a[2], flags = a[3];
  if (flags & ~(kAtSymlinkNofollow | kAtEmptyPath | 0x800 /*AT_NO_AUTOMOUNT*/)) {
    return -abi::kEINVAL;
  }
  std::string path;
  if (i64 e = readPath(path_addr, path)) return e;
  if (path.empty() && (flags & kAtEmptyPath)) {
    if (dirfd == kGuestAtFdcwd)
      path = ".";
    else
      return statFd(dirfd, stat_addr);
  }
  i64 error = 0;
  const std::string guest = guestPath(dirfd, path, &error);
  if (error) return error;
  const std::string normalized = FileSystem::normalize("/", guest);
  struct stat st {};
  if (normalized == "/dev/urandom" || normalized == "/dev/random" || normalized == "/dev/null" ||
      normalized == "/dev/zero" || normalized == "/dev/tty") {
    if (::stat(normalized.c_str(), &st) < 0) return -static_cast<i64>(errno);
  } else if (!procFileText(normalized).empty()) {
    st.st_mode = S_IFREG | 0444;
    st.st_nlink = 1;
    st.st_blksize = 1024;
  } else {
    const int opath = fs_->open(guest, O_PATH | ((flags & kAtSymlinkNofollow) ? O_NOFOLLOW : 0), 0);
    if (opath < 0) {
      noteMissingPath(path, opath);
      return opath;
    }
    HostFd holder(opath);
    if (::fstat(opath, &st) < 0) return -static_cast<i64>(errno);
  }
  const abi::Stat g = guestStat(st);
  return memory_.write(stat_addr, &g, sizeof g) ? 0 : -abi::kEFAULT;
}

i64 Kernel::sysStatx(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  i64 dirfd = static_cast<i32>(a[0]);
  u64 path_addr = a[1], flags = a[2], mask = a[3], statx_addr = a[4];
  std::string path;
  if (i64 e = readPath(path_addr, path)) return e;
  int host = -1;
  int owned = -1;
  if (path.empty() && (flags & kAtEmptyPath) && dirfd != kGuestAtFdcwd) {
    FdEntry* e = fds_.get(static_cast<int>(dirfd));
    if (e == nullptr) return -abi::kEBADF;
    if (e->kind == FdKind::kRandom) {
      owned = ::open("/dev/urandom", O_PATH | O_CLOEXEC);
      host = owned;
    } else {
      host = e->host_fd;
    }
  } else {
    if (path.empty() && (flags & kAtEmptyPath)) path = ".";
    i64 error = 0;
    const std::string guest = guestPath(dirfd, path, &error);
    if (error) return error;
    owned = fs_->open(guest, O_PATH | ((flags & kAtSymlinkNofollow) ? O_NOFOLLOW : 0), 0);
    if (owned < 0) {
      noteMissingPath(path, owned);
      return owned;
    }
    host = owned;
  }
  HostFd holder(owned);
  struct statx sx {};
  const long r = ::syscall(SYS_statx, host, "", AT_EMPTY_PATH | (flags & 0x6000 /*sync*/),
                           static_cast<unsigned>(mask), &sx);
  if (r < 0) return -static_cast<i64>(errno);
  return memory_.write(statx_addr, &sx, sizeof sx) ? 0 : -abi::kEFAULT;
}

i64 Kernel::sysPathOp(Thread& /*t*/, u64 number, const SyscallArgs& a) {
  // Reads the path argument at `addr` and resolves it against `dirfd`.
  auto resolve = [this](i64 dirfd, u64 addr, std::string& out) -> i64 {
    std::string path;
    if (i64 e = readPath(addr, path)) return e;
    i64 error = 0;
    out = guestPath(dirfd, path, &error);
    return error;
  };
  std::string guest, last;
  switch (number) {
    case abi::kMkdirat: {
      if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
      const int parent = fs_->openParent(guest, last);
      if (parent < 0) return parent;
      HostFd holder(parent);
      return hostResult(
          ::mkdirat(parent, last.c_str(), static_cast<mode_t>(a[2] & ~umask_ & 07777)));
    }
    case abi::kUnlinkat: {
      if (a[2] & ~kAtRemovedir) return -abi::kEINVAL;
      if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
      const int parent = fs_->openParent(guest, last);
      if (parent < 0) return parent;
      HostFd holder(parent);
      return hostResult(::unlinkat(parent, last.c_str(), (a[2] & kAtRemovedir) ? AT_REMOVEDIR : 0));
    }
    case abi::kRenameat:
    case abi::kRenameat2: {
      std::string to, to_last;
      if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
      if (i64 e = resolve(static_cast<i32>(a[2]), a[3], to)) return e;
      const int from_dir = fs_->openParent(guest, last);
      if (from_dir < 0) return from_dir;
      HostFd h1(from_dir);
      const int to_dir = fs_->openParent(to, to_last);
      if (to_dir < 0) return to_dir;
      HostFd h2(to_dir);
      const unsigned rflags = number == abi::kRenameat2 ? static_cast<unsigned>(a[4]) : 0;
      return hostResult(
          ::syscall(SYS_renameat2, from_dir, last.c_str(), to_dir, to_last.c_str(), rflags));
    }
    case abi::kLinkat: {
      if (a[4] & ~u64{AT_SYMLINK_FOLLOW | AT_EMPTY_PATH}) return -abi::kEINVAL;
      std::string to, to_last;
      if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
      if (i64 e = resolve(static_cast<i32>(a[2]), a[3], to)) return e;
      const int to_dir = fs_->openParent(to, to_last);
      if (to_dir < 0) return to_dir;
      HostFd h2(to_dir);
      if (a[4] & AT_SYMLINK_FOLLOW) {
        // Link what the path leads to: resolved inside the root (a symlink whose target is
        // outside it leads nowhere: ENOENT), then linked through the descriptor's /proc entry
        // (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
        const int target = fs_->open(guest, O_PATH, 0);
        if (target < 0) return target;
        HostFd h1(target);
        const std::string proc = "/proc/self/fd/" + std::to_string(target);
        return hostResult(
            ::linkat(AT_FDCWD, proc.c_str(), to_dir, to_last.c_str(), AT_SYMLINK_FOLLOW));
      }
      const int from_dir = fs_->openParent(guest, last);
      if (from_dir < 0) return from_dir;
      HostFd h1(from_dir);
      // Without AT_SYMLINK_FOLLOW a symlink is linked itself, as Linux does.
      return hostResult(::linkat(from_dir, last.c_str(), to_dir, to_last.c_str(), 0));
    }
    case abi::kSymlinkat: {
      std::string target;
      if (i64 e = readPath(a[0], target)) return e;
      if (i64 e = resolve(static_cast<i32>(a[1]), a[2], guest)) return e;
      const int parent = fs_->openParent(guest, last);
      if (parent < 0) return parent;
      HostFd holder(parent);
      // The target is stored as written; resolution later stays inside the root.
      return hostResult(::symlinkat(target.c_str(), parent, last.c_str()));
    }
    case abi::kFaccessat:
    case abi::kFaccessat2: {
      const u64 flags = number == abi::kFaccessat2 ? a[3] : 0;
      if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
      const std::string normalized = FileSystem::normalize("/", guest);
      bool is_virtual = !procFileText(normalized).empty() || normalized == "/dev/null" ||
                        normalized == "/dev/zero" || normalized == "/dev/urandom" ||
                        normalized == "/dev/random";
      if (is_virtual) return (a[2] & W_OK) && normalized.starts_with("/proc") ? -abi::kEACCES : 0;
      const int opath =
          fs_->open(guest, O_PATH | ((flags & kAtSymlinkNofollow) ? O_NOFOLLOW : 0), 0);
      if (opath < 0) return opath;
      HostFd holder(opath);
      return hostResult(::syscall(SYS_faccessat2, opath, "", static_cast<int>(a[2]),
                                  AT_EMPTY_PATH | ((flags & 0x200) ? AT_EACCESS : 0)));
    }
    case abi::kFchmodat: {
      if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
      const int opath = fs_->open(guest, O_PATH, 0);
      if (opath < 0) return opath;
      HostFd holder(opath);
      const std::string proc = fmt::format("/proc/self/fd/{}", opath);
      return hostResult(::chmod(proc.c_str(), static_cast<mode_t>(a[2] & 07777)));
    }
    case abi::kUtimensat: {
      timespec times[2];
      const timespec* tp = nullptr;
      if (a[2] != 0) {
        abi::Timespec g[2];
        if (!memory_.read(a[2], g, sizeof g)) return -abi::kEFAULT;
        for (int i = 0; i < 2; ++i) times[i] = {g[i].sec, g[i].nsec};
        tp = times;
      }
      int host = -1;
      int owned = -1;
      if (a[1] == 0) {  // futimens: operate on the descriptor itself
        FdEntry* e = fds_.get(static_cast<i32>(a[0]));
        if (e == nullptr || e->host_fd < 0) return -abi::kEBADF;
        host = e->host_fd;
      } else {
        if (i64 e = resolve(static_cast<i32>(a[0]), a[1], guest)) return e;
        owned = fs_->open(guest, O_PATH | ((a[3] & kAtSymlinkNofollow) ? O_NOFOLLOW : 0), 0);
        if (owned < 0) return owned;
        host = owned;
      }
      HostFd holder(owned);
      const std::string proc = fmt::format("/proc/self/fd/{}", host);
      return hostResult(::utimensat(AT_FDCWD, proc.c_str(), tp, 0));
    }
    case abi::kTruncate: {
      if (i64 e = resolve(kGuestAtFdcwd, a[0], guest)) return e;
      const int fd = fs_->open(guest, O_WRONLY, 0);
      if (fd < 0) return fd;
      HostFd holder(fd);
      return hostResult(::ftruncate(fd, static_cast<off_t>(a[1])));
    }
    default: return unknownSyscall(number);
  }
}

i64 Kernel::sysReadlinkat(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  i64 dirfd = static_cast<i32>(a[0]);
  u64 path_addr = a[1], buf = a[2], size = a[3];
  if (static_cast<i64>(size) <= 0) return -abi::kEINVAL;
  std::string path;
  if (i64 e = readPath(path_addr, path)) return e;
  i64 error = 0;
  const std::string guest = guestPath(dirfd, path, &error);
  if (error) return error;
  std::string target;
  if (FileSystem::normalize("/", guest) == "/proc/self/exe") {
    // The program's canonical path as the guest sees it when it lies in the guest's file system
    // ("/bin/prog" under --root), else its host path (as under qemu-user). So a run does not
    // depend on where the file system's directory is on the host.
    char real[4096], root[4096];
    target = ::realpath(exe_guest_path_.c_str(), real) ? real : exe_guest_path_;
    if (::realpath(fs_->hostRoot().c_str(), root) != nullptr) {
      const std::string base = std::string(root) == "/" ? "" : std::string(root);
      if (target.size() > base.size() && target.compare(0, base.size(), base) == 0 &&
          target[base.size()] == '/') {
        target = target.substr(base.size());
      }
    }
  } else {
    std::string last;
    const int parent = fs_->openParent(guest, last);
    if (parent < 0) return parent;
    HostFd holder(parent);
    char out[4096];
    const ssize_t n = ::readlinkat(parent, last.c_str(), out, sizeof out);
    if (n < 0) return -static_cast<i64>(errno);
    target.assign(out, static_cast<std::size_t>(n));
  }
  const u64 n = std::min<u64>(size, target.size());
  if (!memory_.write(buf, target.data(), n)) return -abi::kEFAULT;
  return static_cast<i64>(n);
}

}  // namespace hpm
