// Checks of a statistics JSON's measures (stats/measure.h): its values (a JsonWriter's result(),
// a run's --stats-json) against its "units" ({path: {"kind", "unit"}}).
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace hpm::test {

// The statistics of `values` as the paths "units" writes: names joined with '.', a list's
// elements as '*'.
inline void statisticPaths(const nlohmann::json& values, const std::string& prefix,
                           std::set<std::string>& out) {
  const auto child = [&prefix](const std::string& name) {
    return prefix.empty() ? name : prefix + "." + name;
  };
  if (values.is_object()) {
    for (const auto& [key, value] : values.items()) statisticPaths(value, child(key), out);
  } else if (values.is_array()) {
    for (const nlohmann::json& element : values) statisticPaths(element, child("*"), out);
  } else {
    out.insert(prefix);
  }
}
inline std::set<std::string> statisticPaths(const nlohmann::json& values) {
  std::set<std::string> out;
  statisticPaths(values, "", out);
  return out;
}

// What is wrong with `units` as the measures of `values`, one line each (none: nothing): a
// statistic without a measure, a measure without a statistic, a total or level without a unit,
// a label or text with one.
inline std::vector<std::string> measureProblems(const nlohmann::json& values,
                                                const nlohmann::json& units) {
  std::vector<std::string> out;
  const std::set<std::string> paths = statisticPaths(values);
  for (const std::string& path : paths) {
    if (!units.contains(path)) out.push_back(path + ": no measure");
  }
  for (const auto& [path, m] : units.items()) {
    if (!paths.contains(path)) out.push_back(path + ": a measure of no statistic");
    const std::string kind = m.value("kind", "");
    const std::string unit = m.value("unit", "?");
    const bool quantity = kind == "total" || kind == "level";
    if (!quantity && kind != "label" && kind != "text") out.push_back(path + ": kind " + kind);
    if (quantity && unit.empty()) out.push_back(path + ": a " + kind + " without a unit");
    if (!quantity && !unit.empty()) out.push_back(path + ": a " + kind + " with unit " + unit);
  }
  return out;
}

}  // namespace hpm::test
