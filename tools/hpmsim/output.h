// Output files of the hpmsim command.
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/types.h"

namespace hpm::tools {

// Fails (ExitCode::kIo) unless `path` can be written, before a simulation whose results would
// go there starts: a run of minutes must not end with its results lost to a typo. Creates the
// file if it does not exist (it is written in full later).
inline void requireWritable(const std::string& path) {
  std::ofstream out(path, std::ios::app);
  if (!out) fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(errno));
}

// Writes `text` to `path` in full, or fails (ExitCode::kIo) naming the problem. The stream is
// closed before it is checked: a small text stays in the buffer until then, so a full disk
// (or /dev/full) only shows at the close.
inline void writeTextFile(const std::string& path, const std::string& text) {
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
