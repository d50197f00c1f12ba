// `hpmsim sweep`'s plan: the parameters swept and their values (each --set KEY=V1,V2,...), and
// the points, the cross product of the values. Pure functions of the command line: the tests
// check them without a guest.
#pragma once

#include <string>
#include <vector>

namespace hpm::tools {

// A parameter swept and its values, in the order given.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// One axis per --set KEY=V1,V2,..., in order. Fails (ExitCode::kUsage) on a setting without a
// key or without values ("KEY=", "=V", "KEY") and on an empty value ("KEY=1,,2", "KEY=,1"); a
// trailing comma ends the list ("KEY=1," is "KEY=1").
// Nothing here knows the machine's parameters: loadMachine checks the keys and values.
std::vector<SweepAxis> parseAxes(const std::vector<std::string>& sets);

// The points: one value per axis each, every combination once, the first axis varying slowest
// (its first value's points first) and the last fastest. No axes: one point with no values.
std::vector<std::vector<std::string>> crossProduct(const std::vector<SweepAxis>& axes);

// A point's machine overrides, "KEY=VALUE" per axis in the axes' order: what its `hpmsim run`
// is given as --set, and what the sweep checks with loadMachine before any point runs.
std::vector<std::string> pointSettings(const std::vector<SweepAxis>& axes,
                                       const std::vector<std::string>& values);

}  // namespace hpm::tools
