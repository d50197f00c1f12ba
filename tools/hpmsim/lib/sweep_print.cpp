#include "tools/hpmsim/lib/sweep_print.h"

#include <fmt/core.h>

#include <optional>

namespace hpm::tools {
namespace {

// The point's cycles in region `id` (its first entry of that id), if it has the region.
std::optional<u64> regionCycles(const PointFigures& figures, u64 id) {
  for (const RegionCycles& r : figures.regions) {
    if (r.id == id) return r.cycles;
  }
  return std::nullopt;
}

}  // namespace

std::map<u64, std::string> sweepRegions(const SweepResult& result) {
  std::map<u64, std::string> regions;
  for (const SweepPoint& p : result.points) {
    if (!p.figures) continue;
    for (const RegionCycles& r : p.figures->regions) regions[r.id] = r.name;
  }
  return regions;
}

double sweepSpeedup(const SweepResult& result, const PointFigures& figures) {
  const SweepPoint& first = result.points.front();
  const double base = first.figures ? static_cast<double>(first.figures->cycles) : 0.0;
  return base / static_cast<double>(figures.cycles);
}

std::string sweepText(const SweepResult& result) {
  const std::map<u64, std::string> regions = sweepRegions(result);
  std::string text;
  for (const SweepAxis& a : result.axes) text += fmt::format("{:>24} ", a.key);
  text += fmt::format("{:>16} ", "cycles");
  for (const auto& [id, name] : regions) text += fmt::format("{:>16} ", name);
  text += fmt::format("{:>8}\n", "speedup");
  for (const SweepPoint& p : result.points) {
    for (const std::string& v : p.values) text += fmt::format("{:>24} ", v);
    if (p.failed()) {
      text += fmt::format("failed (status {}): {}\n", p.status, p.error.substr(0, 200));
      continue;
    }
    text += fmt::format("{:>16} ", p.figures->cycles);
    for (const auto& [id, name] : regions) {
      const auto c = regionCycles(*p.figures, id);
      text += c ? fmt::format("{:>16} ", *c) : fmt::format("{:>16} ", "-");
    }
    text += fmt::format("{:>8.3f}\n", sweepSpeedup(result, *p.figures));
  }
  return text;
}

nlohmann::json sweepJson(const SweepResult& result) {
  const std::map<u64, std::string> regions = sweepRegions(result);
  nlohmann::json out = nlohmann::json::array();
  for (const SweepPoint& p : result.points) {
    nlohmann::json row;
    for (std::size_t a = 0; a < result.axes.size(); ++a) {
      row["config"][result.axes[a].key] = p.values[a];
    }
    row["status"] = p.status;
    if (!p.error.empty()) row["error"] = p.error;
    if (p.figures) {
      const PointFigures& f = *p.figures;
      row["cycles"] = f.cycles;
      row["instructions"] = f.instructions;
      if (f.guest_inputs) row["guest_inputs"] = *f.guest_inputs;
      for (const auto& [id, name] : regions) {
        if (const auto c = regionCycles(f, id)) row["regions"][name] = *c;
      }
      row["speedup"] = sweepSpeedup(result, f);
    }
    out.push_back(row);
  }
  return out;
}

std::size_t sweepFailures(const SweepResult& result) {
  std::size_t failures = 0;
  for (const SweepPoint& p : result.points) failures += p.failed() ? 1 : 0;
  return failures;
}

}  // namespace hpm::tools
