// JSON text as every hpmsim writer makes it (statistics, stat --json, sweep --json, reports,
// traces, the catalogue and configuration listings).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hpm {

// `j` as JSON text (`indent` < 0: one line). Strings hold what programs gave us: paths,
// arguments, environment values, region names, and they need not be UTF-8, which JSON text
// must be. Each invalid UTF-8 sequence (a byte that cannot start a character, or a character
// cut short) is written as U+FFFD, the replacement character, in its UTF-8 bytes; valid UTF-8
// passes unchanged (docs/commands/hpmsim-run.md, "Output files"). Never throws for a string's
// bytes.
inline std::string jsonText(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hpm
