// Output files of the hpmsim command.
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "base/error.h"

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

}  // namespace hpm::tools
