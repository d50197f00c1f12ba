// Text files compiled into the binary by cmake/Embed.cmake (machine presets, schemas).
#pragma once

#include <span>
#include <string_view>

namespace hpm {

struct EmbeddedFile {
  std::string_view name;
  std::string_view text;
};

}  // namespace hpm
