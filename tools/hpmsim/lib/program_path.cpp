#include "tools/hpmsim/lib/program_path.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

namespace hpm::tools {

namespace {

bool isFile(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace

std::string resolveProgram(const std::string& program) {
  if (program.empty() || program.find('/') != std::string::npos || isFile(program)) return program;
  std::string dirs;
  if (const char* path = std::getenv("HPMSIM_GUEST_PATH"); path != nullptr) dirs = path;
  dirs += std::string(dirs.empty() ? "" : ":") + HPMSIM_GUEST_TOOLS_DIR;
  std::istringstream in(dirs);
  for (std::string dir; std::getline(in, dir, ':');) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / program;
    if (isFile(candidate)) return candidate.string();
  }
  return program;
}

}  // namespace hpm::tools
