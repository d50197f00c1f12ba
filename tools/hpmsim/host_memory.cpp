#include "tools/hpmsim/host_memory.h"

#include <sys/resource.h>

namespace hpm::tools {

u64 hostPeakRssKib() {
  rusage usage{};
  return ::getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<u64>(usage.ru_maxrss) : 0;
}

}  // namespace hpm::tools
