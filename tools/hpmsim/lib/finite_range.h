// CLI11 checks for numeric options, and the one check of every interval option (-I and its
// kin). CLI::Range lets NaN through (every comparison with it is false) and prints its bounds
// with six decimals; these refuse NaN and infinities and name the value as the user wrote it.
#pragma once

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/types.h"

namespace hpm::tools {

// `text` as a double, or why it is not a finite number (empty: it is).
inline std::string parseFinite(const std::string& text, double& v) {
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) return fmt::format("'{}' is not a number", text);
  if (!std::isfinite(v)) return fmt::format("'{}' is not a finite number", text);
  return "";
}

inline CLI::Validator finiteRange(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        if (std::string why = parseFinite(text, v); !why.empty()) return why;
        if (v < lo || v > hi) return fmt::format("{} is not between {:g} and {:g}", text, lo, hi);
        return "";
      },
      fmt::format("NUMBER in [{:g}, {:g}]", lo, hi));
}

// What an interval option counts in.
enum class IntervalUnit {
  kCycles,        // a whole number of cycles, 1 to 2^64 - 1
  kMilliseconds,  // simulated milliseconds: a finite number > 0 (its cycles: intervalCycles)
};

// A whole number of `what` from 1 to `max`: anything else (0, a sign, a fraction, too large)
// is refused with the reason.
inline CLI::Validator positiveWhole(std::string_view what, u64 max = ~u64{0}) {
  return CLI::Validator(
      [what = std::string(what), max](std::string& text) -> std::string {
        const std::string_view digits =
            !text.empty() && text[0] == '+' ? std::string_view(text).substr(1) : text;
        u64 v = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec == std::errc::result_out_of_range || (ec == std::errc{} && v > max)) {
          return fmt::format("{} {} are too many (at most {})", text, what, max);
        }
        if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
          return fmt::format("'{}' is not a whole number of {} (at least 1)", text, what);
        }
        if (v == 0) return fmt::format("0 {}: give at least 1", what);
        return "";
      },
      fmt::format("{} (>= 1)", what));
}

// The check of every interval option (stat's -I, --interval-cycles and --mux-interval-ms, the
// interconnect tools' -I): a value that is not a number, is 0, negative, NaN or infinite, or
// (cycles) does not fit in 64 bits is refused with the reason.
inline CLI::Validator positiveInterval(IntervalUnit unit) {
  if (unit == IntervalUnit::kCycles) return positiveWhole("cycles");
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (std::string why = parseFinite(text, v); !why.empty()) return why;
        if (v <= 0) return fmt::format("{} is not a positive interval", text);
        return "";
      },
      "MSECS (> 0)");
}

// The cycles of `ms` simulated milliseconds at `clock_mhz` (rounded to the nearest cycle), or
// Error (ExitCode::kUsage) naming `option` when they are fewer than one or do not fit in 64 bits.
inline u64 intervalCycles(double ms, double clock_mhz, std::string_view option) {
  const double cycles = std::round(ms * clock_mhz * 1000);
  if (!(cycles < 18446744073709551616.0)) {  // 2^64 (and NaN)
    fail(ExitCode::kUsage, "{} {}: {} cycles at {} MHz do not fit in 64 bits", option, ms, cycles,
         clock_mhz);
  }
  if (cycles < 1) {
    fail(ExitCode::kUsage, "{} {} is less than one cycle at {} MHz", option, ms, clock_mhz);
  }
  return static_cast<u64>(cycles);
}

// The cycles of an interval given as -I MSECS or --interval-cycles N, whichever was given (0 for
// neither); both are a usage error naming `tool`.
inline u64 intervalOptionCycles(double ms, u64 cycles, double clock_mhz, std::string_view tool) {
  if (ms != 0 && cycles != 0) {
    fail(ExitCode::kUsage, "{}: give -I (milliseconds) or --interval-cycles, not both", tool);
  }
  if (ms != 0) return intervalCycles(ms, clock_mhz, fmt::format("{}: -I", tool));
  return cycles;
}

}  // namespace hpm::tools
