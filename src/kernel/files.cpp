#include "kernel/files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "base/error.h"

namespace hpm {
namespace {

int openInRoot(int root_fd, const std::string& guest_path, int flags, unsigned mode) {
  open_how how{};
  how.flags = static_cast<u64>(flags) | O_CLOEXEC;  // guest exec never reaches the host
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  // Resolution starts at the root for relative and absolute paths alike.
  const char* rel = guest_path.c_str();
  while (*rel == '/') ++rel;
  if (*rel == 0) rel = ".";
  for (;;) {
    const long fd = ::syscall(SYS_openat2, root_fd, rel, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename, retry. EINTR (opening a FIFO waits for its other end): the
    // caller sees it, and the kernel interrupts the run if the tool was interrupted.
    if (errno == EAGAIN) continue;
    return -errno;
  }
}

}  // namespace

FdTable::~FdTable() {
  for (auto& e : entries_) {
    if (e && e->host_fd >= 0) ::close(e->host_fd);
  }
}

int FdTable::install(FdEntry entry, int min) {
  for (int fd = std::max(min, 0); fd < kMaxFds; ++fd) {
    if (static_cast<std::size_t>(fd) >= entries_.size()) entries_.resize(fd + 1);
    if (!entries_[fd]) {
      entries_[fd] = std::move(entry);
      return fd;
    }
  }
  if (entry.host_fd >= 0) ::close(entry.host_fd);
  return -EMFILE;
}

void FdTable::installAt(int fd, FdEntry entry) {
  if (static_cast<std::size_t>(fd) >= entries_.size()) entries_.resize(fd + 1);
  close(fd);
  entries_[fd] = std::move(entry);
}

FdEntry* FdTable::get(int fd) {
  if (fd < 0 || static_cast<std::size_t>(fd) >= entries_.size() || !entries_[fd]) return nullptr;
  return &*entries_[fd];
}

bool FdTable::close(int fd) {
  FdEntry* e = get(fd);
  if (e == nullptr) return false;
  if (e->host_fd >= 0) ::close(e->host_fd);
  entries_[fd].reset();
  return true;
}

std::optional<FdEntry> FdTable::duplicate(int fd) {
  FdEntry* e = get(fd);
  if (e == nullptr) return std::nullopt;
  FdEntry copy = *e;
  copy.cloexec = false;
  if (e->host_fd >= 0) {
    copy.host_fd = ::fcntl(e->host_fd, F_DUPFD_CLOEXEC, 0);
    if (copy.host_fd < 0) return std::nullopt;
  }
  return copy;
}

FileSystem::FileSystem(const std::string& root) {
  root_fd_ = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) {
    fail(ExitCode::kUsage, "--root '{}': {}", root,
         errno == ENOTDIR ? "not a directory" : std::strerror(errno));
  }
  char buf[4096];
  host_root_ = ::realpath(root.c_str(), buf) ? buf : root;
}

FileSystem::~FileSystem() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

std::string FileSystem::normalize(const std::string& base, const std::string& path) {
  std::vector<std::string> parts;
  auto push = [&parts](const std::string& text) {
    std::size_t i = 0;
    while (i <= text.size()) {
      std::size_t j = text.find('/', i);
      if (j == std::string::npos) j = text.size();
      const std::string part = text.substr(i, j - i);
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      i = j + 1;
    }
  };
  if (path.empty() || path[0] != '/') push(base);
  push(path);
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

int FileSystem::open(const std::string& guest_path, int flags, unsigned mode) const {
  return openInRoot(root_fd_, guest_path, flags, mode);
}

int FileSystem::openParent(const std::string& guest_path, std::string& last) const {
  // Split off the last component without folding "..": the host resolves the rest.
  std::string path = guest_path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.rfind('/');
  std::string parent = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  last = slash == std::string::npos ? path : path.substr(slash + 1);
  if (last.empty() || last == "/") last = ".";
  if (last == "..") {  // resolve the whole path as a directory instead
    parent = path;
    last = ".";
  }
  return openInRoot(root_fd_, parent, O_PATH | O_DIRECTORY, 0);
}

int FileSystem::chdir(const std::string& guest_path) {
  const int fd = openInRoot(root_fd_, guest_path, O_PATH | O_DIRECTORY, 0);
  if (fd < 0) return fd;
  // The directory as resolved (a symlink to "/.." leads to "/"), as getcwd reports it.
  cwd_ = guestPathOf(fd, normalize("/", guest_path));
  ::close(fd);
  return 0;
}

std::string FileSystem::guestPathOf(int host_fd, const std::string& fallback) const {
  char buf[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(host_fd);
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return fallback;
  const std::string host(buf, static_cast<std::size_t>(n));
  if (host_root_ == "/") return host.starts_with("/") ? host : fallback;
  if (host == host_root_) return "/";
  if (host.size() > host_root_.size() && host.starts_with(host_root_) &&
      host[host_root_.size()] == '/') {
    return host.substr(host_root_.size());
  }
  return fallback;
}

}  // namespace hpm
