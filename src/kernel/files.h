// The guest's files: a sandboxed view of one host directory, and the descriptor table.
//
// Every guest path, absolute or relative, resolves inside the root directory: resolution is done
// by the host kernel with openat2(RESOLVE_IN_ROOT), which treats the root as "/" for absolute
// paths, "..", and symlinks (including ones the guest creates), so nothing escapes it. Device
// and /proc or /sys files that our kernel provides are matched on the lexically normalised path
// before the host is asked.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/types.h"

namespace hpm {

// What a guest descriptor refers to.
enum class FdKind : u8 {
  kHost,    // a host descriptor (file, directory, pipe, terminal, /dev/null, generated file)
  kRandom,  // /dev/urandom and /dev/random: the kernel's deterministic generator
  kDevice,  // a counter unit's register window (device.h), to be mmapped
};

struct FdEntry {
  FdKind kind = FdKind::kHost;
  int host_fd = -1;  // owned; closed when the last guest descriptor to it closes
  bool cloexec = false;
  std::string guest_path;   // absolute guest path when opened by name, for *at() and readlink
  bool guest_pipe = false;  // an end of a pipe the guest created (only the guest writes it)
  int device = -1;          // kDevice: the provider's device number
};

class FdTable {
 public:
  static constexpr int kMaxFds = 1024;  // RLIMIT_NOFILE

  FdTable() = default;
  ~FdTable();
  FdTable(const FdTable&) = delete;
  FdTable& operator=(const FdTable&) = delete;

  // Installs an entry at the lowest free descriptor >= `min`; returns it or -EMFILE.
  int install(FdEntry entry, int min = 0);
  // Installs at exactly `fd`, closing what was there.
  void installAt(int fd, FdEntry entry);
  FdEntry* get(int fd);
  // Closes a descriptor; false if it was not open.
  bool close(int fd);
  // Duplicates the host descriptor of `fd` into a new entry (shares the open file description).
  std::optional<FdEntry> duplicate(int fd);

 private:
  std::vector<std::optional<FdEntry>> entries_;
};

// Guest path resolution inside the sandbox root.
class FileSystem {
 public:
  // Opens `root` (which must be an existing directory) as the guest's "/".
  explicit FileSystem(const std::string& root);
  ~FileSystem();
  FileSystem(const FileSystem&) = delete;
  FileSystem& operator=(const FileSystem&) = delete;

  const std::string& cwd() const { return cwd_; }
  const std::string& hostRoot() const { return host_root_; }

  // The absolute guest path of `path` taken relative to `base` (a guest directory path),
  // lexically normalised ("." and ".." folded, never above "/").
  static std::string normalize(const std::string& base, const std::string& path);

  // Opens a guest path (absolute guest path, already joined with the right base) with host
  // open flags; returns a host descriptor or -errno.
  int open(const std::string& guest_path, int flags, unsigned mode) const;
  // Opens the parent directory of `guest_path` (O_PATH) and returns it with the last
  // component, for the *at() family. Returns -errno on failure. A path that ends in "/" or
  // names the root yields the directory itself and ".".
  int openParent(const std::string& guest_path, std::string& last) const;

  // Changes the working directory; returns 0 or -errno.
  int chdir(const std::string& guest_path);

  // The guest path of what a host descriptor opened inside the root refers to, with symlinks
  // and ".." resolved as the host resolved them; `fallback` if it cannot be found.
  std::string guestPathOf(int host_fd, const std::string& fallback) const;

 private:
  int root_fd_ = -1;
  std::string host_root_;
  std::string cwd_ = "/";
};

}  // namespace hpm
