#include "tools/hpmsim/lib/sweep_plan.h"

#include <sstream>

#include "base/error.h"

namespace hpm::tools {

std::vector<SweepAxis> parseAxes(const std::vector<std::string>& sets) {
  std::vector<SweepAxis> axes;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      fail(ExitCode::kUsage, "sweep: --set expects KEY=V1,V2,..., got '{}'", s);
    }
    // (A trailing comma too: std::getline finds no field after it, and "1,2," would pass as
    // "1,2" while ",1" and "1,,2" are refused.)
    if (s.back() == ',') fail(ExitCode::kUsage, "sweep: empty value in '{}'", s);
    SweepAxis axis{s.substr(0, eq), {}};
    std::stringstream values(s.substr(eq + 1));
    for (std::string v; std::getline(values, v, ',');) {
      if (v.empty()) fail(ExitCode::kUsage, "sweep: empty value in '{}'", s);
      axis.values.push_back(v);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::vector<std::vector<std::string>> crossProduct(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> points(1);
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& p : points) {
      for (const std::string& v : axis.values) {
        next.push_back(p);
        next.back().push_back(v);
      }
    }
    points = std::move(next);
  }
  return points;
}

std::vector<std::string> pointSettings(const std::vector<SweepAxis>& axes,
                                       const std::vector<std::string>& values) {
  std::vector<std::string> settings;
  for (std::size_t a = 0; a < axes.size(); ++a) settings.push_back(axes[a].key + "=" + values[a]);
  return settings;
}

}  // namespace hpm::tools
