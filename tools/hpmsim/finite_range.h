// A CLI11 check for floating-point options: the value must be a finite number within [lo, hi].
// CLI::Range lets NaN through (every comparison with it is false) and prints its bounds with six
// decimals; this one refuses NaN and infinities and names the value as the user wrote it.
#pragma once

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

namespace hpm::tools {

inline CLI::Validator finiteRange(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        std::size_t used = 0;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return fmt::format("'{}' is not a number", text);
        if (!std::isfinite(v)) return fmt::format("'{}' is not a finite number", text);
        if (v < lo || v > hi) return fmt::format("{} is not between {:g} and {:g}", text, lo, hi);
        return "";
      },
      fmt::format("NUMBER in [{:g}, {:g}]", lo, hi));
}

}  // namespace hpm::tools
