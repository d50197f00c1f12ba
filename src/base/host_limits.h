// What the host allows this process: the facts hpmsim's messages about host resources cite.
#pragma once

#include <sys/resource.h>

#include <optional>

#include "base/types.h"

namespace hpm {

// The address-space limit (`ulimit -v`, RLIMIT_AS) in bytes, or nothing when there is none. It
// counts reserved address space, which costs no memory: the usual reason a host refuses hpmsim.
inline std::optional<u64> addressSpaceLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<u64>(limit.rlim_cur);
}

}  // namespace hpm
