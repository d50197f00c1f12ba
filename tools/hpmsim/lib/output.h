// Output files of the hpmsim command.
#pragma once

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/types.h"
#include "tools/hpmsim/interrupt.h"

namespace hpm::tools {

// What an output path names: a symlink to a regular file is that file (written, the link kept);
// any other path is itself (a device or a pipe, such as /dev/stdout, is written in place).
inline std::filesystem::path outputTarget(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec)) || !fs::is_regular_file(fs::status(path, ec))) {
    return path;
  }
  const fs::path target = fs::canonical(path, ec);
  return ec ? fs::path(path) : target;
}

// Fails (ExitCode::kIo) unless `path` can be written, before a simulation whose results would
// go there starts: a run of minutes must not end with its results lost to a typo. Leaves no
// file behind: it checks that the path is not a folder, that its folder exists and may be
// written (writeTextFile makes the file there), and that a file already there may be written.
inline void requireWritable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target = outputTarget(path);
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status) || (!path.empty() && path.back() == '/')) {
    fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(EISDIR));
  }
  if (fs::exists(status) && ::access(target.c_str(), W_OK) != 0) {
    fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(errno));
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) return;  // a device, a FIFO: as it is
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(errno));
  }
  if (!fs::is_directory(folder, ec)) {
    fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(ENOTDIR));
  }
}

// The files one command reads and writes, checked before its simulation starts: every output
// writable and none of them the same file as another output or as an input (the program, a
// machine or configuration file), so that no result overwrites what the run needs or another
// result. An output option given an empty path is an error, not silence.
class RunFiles {
 public:
  // `path` is read by the run (`what`: "the program", "the machine file", ...); "" is ignored.
  void input(const std::string& path, std::string what) {
    if (!path.empty()) inputs_.push_back({path, std::move(what)});
  }
  // `path` is written by option `option` ("--stats-json"); `given` false: the option was not
  // given (nothing written), true with an empty path: an error.
  void output(const std::string& path, std::string option, bool given = true) {
    if (!given) return;
    if (path.empty()) fail(ExitCode::kUsage, "{}: an empty path", option);
    outputs_.push_back({path, std::move(option)});
  }
  // Folder `dir` is created by check() when it is missing (the outputs in it are given apart).
  void folder(const std::string& dir) { folders_.push_back(dir); }
  // Fails (ExitCode::kUsage for two uses of one file, kIo for an unwritable one or a folder
  // that cannot be made). Each path is resolved once: a run of 4096 nodes has 8192 outputs.
  void check() const {
    std::map<std::string, std::size_t> by_path;                        // resolved path -> its file
    std::map<std::pair<dev_t, ino_t>, std::size_t> by_file;            // files that exist
    std::vector<std::pair<std::string, std::string>> files = inputs_;  // inputs, then outputs
    files.insert(files.end(), outputs_.begin(), outputs_.end());
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::optional<std::size_t> earlier;
      std::error_code ec;
      const auto resolved = std::filesystem::weakly_canonical(files[i].first, ec);
      if (!ec) {
        const auto [it, added] = by_path.try_emplace(resolved.string(), i);
        if (!added) earlier = it->second;
      }
      struct stat st {};
      if (::stat(files[i].first.c_str(), &st) == 0) {
        const auto [it, added] = by_file.try_emplace({st.st_dev, st.st_ino}, i);
        if (!added && !earlier) earlier = it->second;
      }
      if (!earlier || i < inputs_.size()) continue;  // (an input read twice is no harm)
      const auto& [path, option] = files[i];
      const auto& [other, what] = files[*earlier];
      if (*earlier < inputs_.size()) {
        fail(ExitCode::kUsage, "{} '{}' is {}: the run would overwrite it", option, path, what);
      }
      fail(ExitCode::kUsage, "{} and {} name the same file '{}': one would overwrite the other",
           what, option, path);
    }
    for (const std::string& dir : folders_) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) fail(ExitCode::kIo, "cannot make the folder '{}': {}", dir, ec.message());
    }
    for (const auto& [path, option] : outputs_) requireWritable(path);
  }

 private:
  std::vector<std::pair<std::string, std::string>> inputs_, outputs_;
  std::vector<std::string> folders_;
};

// A result file written whole or not at all, possibly in pieces as a run goes (intervals as
// they end, so that memory does not grow with them): what write() gives goes to a new file in
// the same folder, which commit() renames to `path` (replacing a file there at once); one never
// committed is removed. So a run that fails, is killed or is interrupted twice never leaves an
// empty or half-written file where its results belong (at most a hidden `.NAME.PID-X.tmp` beside
// it when killed). A symlink's target is written (the link kept); a path that is not a regular
// file (/dev/stdout, a FIFO) is written in place. Each fails (ExitCode::kIo) naming the problem.
class ResultFile {
 public:
  explicit ResultFile(const std::string& path);
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;
  ~ResultFile();
  void write(std::string_view text);
  // The file is complete: in place at `path`. A forced stop (interrupt.h) waits for its end.
  void commit();

 private:
  [[noreturn]] void failed(int error);
  std::string path_;
  std::filesystem::path target_;
  std::string temporary_;  // empty: written in place
  int fd_ = -1;
};

// A command's report: on stderr (the guest owns stdout), or in the file `path` (-o) written
// whole or not at all (ResultFile), so a script's JSON never mixes with the guest's stderr.
class ReportStream {
 public:
  explicit ReportStream(const std::string& path) {
    if (!path.empty()) file_.emplace(path);
  }
  void write(std::string_view text) {
    if (file_) {
      file_->write(text);
    } else {
      fmt::print(stderr, "{}", text);
    }
  }
  // The report is complete (its file in place).
  void commit() {
    if (file_) file_->commit();
  }

 private:
  std::optional<ResultFile> file_;
};

// Writes `text` to `path` whole or not at all (ResultFile), or fails (ExitCode::kIo).
inline void writeTextFile(const std::string& path, const std::string& text) {
  const ResultsWriting writing;
  ResultFile file(path);
  file.write(text);
  file.commit();
}

// Rows of JSON kept in a temporary file as they come, not in memory (the intervals of -I, whose
// number has no bound), then written inside a JSON object at the end.
class JsonRowSpool {
 public:
  JsonRowSpool();
  JsonRowSpool(const JsonRowSpool&) = delete;
  JsonRowSpool& operator=(const JsonRowSpool&) = delete;
  ~JsonRowSpool();
  void add(const nlohmann::json& row);
  u64 rows() const { return rows_; }
  // Writes `object` through `write` as jsonText(object, 2) does, with member `key` the array of
  // the rows (one a line), and a newline.
  void print(const std::function<void(std::string_view)>& write, nlohmann::json object,
             const std::string& key);

 private:
  std::FILE* file_ = nullptr;
  u64 rows_ = 0;
};

// 1234567 -> "1,234,567", as perf prints counts.
// (Built by appending: g++ 12 warns, -Wrestrict, on string::insert inlined here.)
inline std::string withCommas(u64 v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

// The names of options given as comma-separated lists, possibly repeated ("-e a,b -e c").
inline std::vector<std::string> splitList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    std::stringstream ss(item);
    for (std::string name; std::getline(ss, name, ',');) {
      if (!name.empty()) out.push_back(name);
    }
  }
  return out;
}

}  // namespace hpm::tools
