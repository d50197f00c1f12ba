// Output files of the hpmsim command.
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/types.h"
#include "tools/hpmsim/interrupt.h"

namespace hpm::tools {

// Fails (ExitCode::kIo) unless `path` can be written, before a simulation whose results would
// go there starts: a run of minutes must not end with its results lost to a typo. Creates the
// file if it does not exist (it is written in full later).
inline void requireWritable(const std::string& path) {
  std::ofstream out(path, std::ios::app);
  if (!out) fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(errno));
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
  // Fails (ExitCode::kUsage for two uses of one file, kIo for an unwritable one).
  void check() const {
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      for (const auto& [path, what] : inputs_) {
        if (same(outputs_[i].first, path)) {
          fail(ExitCode::kUsage, "{} '{}' is {}: the run would overwrite it", outputs_[i].second,
               outputs_[i].first, what);
        }
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (same(outputs_[i].first, outputs_[j].first)) {
          fail(ExitCode::kUsage, "{} and {} name the same file '{}': one would overwrite the other",
               outputs_[j].second, outputs_[i].second, outputs_[i].first);
        }
      }
    }
    for (const auto& [path, option] : outputs_) requireWritable(path);
  }

 private:
  // Whether two paths name one file: the same path once resolved, or (for files that exist)
  // the same file under two names.
  static bool same(const std::string& a, const std::string& b) {
    std::error_code ea, eb, e;
    const auto ca = std::filesystem::weakly_canonical(a, ea);
    const auto cb = std::filesystem::weakly_canonical(b, eb);
    if (!ea && !eb && ca == cb) return true;
    return std::filesystem::equivalent(a, b, e) && !e;
  }
  std::vector<std::pair<std::string, std::string>> inputs_, outputs_;
};

// Writes `text` to `path` in full, or fails (ExitCode::kIo) naming the problem. The stream is
// closed before it is checked: a small text stays in the buffer until then, so a full disk
// (or /dev/full) only shows at the close. A forced stop (interrupt.h) waits for its end.
inline void writeTextFile(const std::string& path, const std::string& text) {
  const ResultsWriting writing;
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(errno));
}

// 1234567 -> "1,234,567", as perf prints counts.
inline std::string withCommas(u64 v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
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
