#include "tools/hpmsim/lib/profile_csv.h"

#include <fmt/core.h>

#include <algorithm>

namespace hpm::tools {

std::string profileSamplesCsv(const std::vector<ProfileSample>& samples, u32 integer_pipes) {
  std::string csv = "core,cycle";
  u32 pipes = 0;
  for (const ProfileSample& s : samples) pipes = std::max<u32>(pipes, s.pipe_ipc.size());
  for (u32 p = 0; p < pipes; ++p) {
    csv += p < integer_pipes ? fmt::format(",xu{}_ipc", p)
                             : fmt::format(",axu{}_ipc", p - integer_pipes);
  }
  csv += ",lmq_full_share,sq_full_share\n";
  for (const ProfileSample& s : samples) {
    csv += fmt::format("{},{}", s.core, s.cycle);
    for (u32 p = 0; p < pipes; ++p) {
      csv += fmt::format(",{:.4f}", p < s.pipe_ipc.size() ? s.pipe_ipc[p] : 0.0);
    }
    csv += fmt::format(",{:.4f},{:.4f}\n", s.lmq_full_share, s.sq_full_share);
  }
  return csv;
}

std::string profileFunctionsCsv(const std::vector<FunctionProfile>& functions) {
  std::string csv = "function,instructions,cycles";
  for (std::size_t i = 0; i < timing::kStallCount; ++i) {
    csv += fmt::format(",stall_{}", timing::stallName(static_cast<timing::Stall>(i)));
  }
  csv += "\n";
  for (const FunctionProfile& f : functions) {
    csv += fmt::format("\"{}\",{},{}", f.name, f.instructions, f.cycles);
    for (u64 s : f.stalls) csv += fmt::format(",{}", s);
    csv += "\n";
  }
  return csv;
}

std::string profileTopText(const std::vector<FunctionProfile>& functions, u32 top) {
  u64 total = 0;
  for (const FunctionProfile& f : functions) total += f.cycles;
  std::string text = fmt::format("{:>8} {:>14} {:>14} {:>8}  {}\n", "cycles%", "cycles",
                                 "instructions", "CPI", "function");
  for (std::size_t i = 0; i < functions.size() && i < top; ++i) {
    const FunctionProfile& f = functions[i];
    text += fmt::format(
        "{:>7.2f}% {:>14} {:>14} {:>8.2f}  {}\n",
        total ? 100.0 * static_cast<double>(f.cycles) / static_cast<double>(total) : 0.0, f.cycles,
        f.instructions,
        f.instructions ? static_cast<double>(f.cycles) / static_cast<double>(f.instructions) : 0.0,
        f.name);
  }
  return text;
}

}  // namespace hpm::tools
