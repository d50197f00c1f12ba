// The names of Blue Gene/P's 1024 UPC inputs (bgp_names.cpp).
#pragma once

#include <span>
#include <string_view>

namespace hpm::upc {

// By input (mode x 256 + counter).
std::span<const std::string_view> bgpUpcNames();

}  // namespace hpm::upc
