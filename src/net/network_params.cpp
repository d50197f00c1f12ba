#include "net/network_params.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>

namespace hpm {

u64 TorusShape::nodes() const {
  u64 nodes = 1;
  for (const u32 d : dims) nodes *= d;  // (valid shapes: at most kMaxNodes)
  return nodes;
}

std::string TorusShape::text() const {
  std::string text;
  for (const u32 d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

std::string parseTorusShape(std::string_view text, TorusShape& shape) {
  std::vector<u32> dims;
  u64 nodes = 1;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('x', pos), text.size());
    const std::string_view size = text.substr(pos, end - pos);
    u64 n = 0;
    const auto [ptr, ec] = std::from_chars(size.data(), size.data() + size.size(), n);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc{} && ptr == size.data() + size.size() && n > kMaxTorusSize)) {
      return fmt::format(
          "'{}': a dimension of size {} (at most {}: the message unit's SHAPE and COORDS "
          "registers hold 8 bits per dimension)",
          text, size, kMaxTorusSize);
    }
    if (ec != std::errc{} || ptr != size.data() + size.size() || n == 0) {
      return fmt::format("'{}' is not a torus shape such as 2x2x1 (sizes 1 to {} joined by 'x')",
                         text, kMaxTorusSize);
    }
    dims.push_back(static_cast<u32>(n));
    nodes *= n;  // (at most 255^9 before the checks below: fits)
    if (dims.size() > kMaxTorusDimensions) {
      return fmt::format(
          "'{}' has more than {} dimensions (the message unit's SHAPE and COORDS registers "
          "describe at most {})",
          text, kMaxTorusDimensions, kMaxTorusDimensions);
    }
    pos = end + 1;
  }
  if (nodes > kMaxNodes) {
    return fmt::format("'{}' is {} nodes: at most {}", text, nodes, kMaxNodes);
  }
  shape.dims = std::move(dims);
  return "";
}

std::string torusShapeFor(u64 nodes, u32 dimensions, TorusShape& shape) {
  if (nodes == 0 || nodes > kMaxNodes) {
    return fmt::format("a run has 1 to {} nodes, not {}", kMaxNodes, nodes);
  }
  std::vector<u32> dims(std::max<u32>(dimensions, 1), 1);
  // Each prime factor, largest first, goes to the smallest dimension so far (the first of
  // equals): the most balanced shape the factors allow, and the same one every time.
  std::vector<u32> factors;
  for (u64 p = 2, n = nodes; n > 1;) {
    if (n % p == 0) {
      factors.push_back(static_cast<u32>(p));
      n /= p;
    } else {
      p = p * p > n ? n : p + 1;
    }
  }
  std::sort(factors.rbegin(), factors.rend());
  for (const u32 f : factors) *std::min_element(dims.begin(), dims.end()) *= f;
  std::sort(dims.rbegin(), dims.rend());
  if (dims.front() > kMaxTorusSize) {
    return fmt::format(
        "the most balanced torus of {} dimensions for {} nodes ({}) has a size over {} (the "
        "message unit's 8 bits per dimension)",
        dimensions, nodes, TorusShape{dims}.text(), kMaxTorusSize);
  }
  shape.dims = std::move(dims);
  return "";
}

}  // namespace hpm
