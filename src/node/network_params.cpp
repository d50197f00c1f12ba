#include "node/network_params.h"

#include <algorithm>
#include <charconv>

namespace hpm {

std::vector<u32> parseTorusShape(const std::string& shape) {
  std::vector<u32> dims;
  std::size_t pos = 0;
  while (pos <= shape.size()) {
    const std::size_t end = std::min(shape.find('x', pos), shape.size());
    u32 n = 0;
    const auto [ptr, ec] = std::from_chars(shape.data() + pos, shape.data() + end, n);
    if (ec != std::errc{} || ptr != shape.data() + end || n == 0) return {};
    dims.push_back(n);
    pos = end + 1;
  }
  return dims;
}

u32 torusNodes(const std::string& shape) {
  u32 nodes = 1;
  for (const u32 d : parseTorusShape(shape)) nodes *= d;
  return nodes;
}

std::string torusShapeFor(u32 nodes, u32 dimensions) {
  std::vector<u32> dims(std::max<u32>(dimensions, 1), 1);
  // Each prime factor, largest first, goes to the smallest dimension so far (the first of
  // equals): the most balanced shape the factors allow, and the same one every time.
  std::vector<u32> factors;
  for (u32 p = 2, n = nodes; n > 1;) {
    if (n % p == 0) {
      factors.push_back(p);
      n /= p;
    } else {
      p = p * p > n ? n : p + 1;
    }
  }
  std::sort(factors.rbegin(), factors.rend());
  for (const u32 f : factors) *std::min_element(dims.begin(), dims.end()) *= f;
  std::sort(dims.rbegin(), dims.rend());
  std::string text;
  for (const u32 d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

}  // namespace hpm
