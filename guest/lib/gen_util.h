// Shared by the guest libraries' host generator tools (hpmctr_gen, bgpm_gen, papi_gen), which
// turn the simulator's own catalogue (`hpmsim events --json`) into C tables at build time.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace hpm::gen {

// The standard output of a shell command; throws naming it when it cannot run or fails.
inline std::string capture(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  if (pclose(pipe) != 0) throw std::runtime_error("command failed: " + command);
  return out;
}

// `s` as a C string literal.
inline std::string cString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Writes `text` to `path` unless the file holds it already, so that a rebuild of hpmsim that
// leaves the catalogue as it was rebuilds no guest code.
inline void writeIfChanged(const std::string& path, const std::string& text) {
  std::ifstream old(path);
  std::stringstream existing;
  existing << old.rdbuf();
  if (old && existing.str() == text) return;
  std::ofstream file(path);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + path);
}

}  // namespace hpm::gen
