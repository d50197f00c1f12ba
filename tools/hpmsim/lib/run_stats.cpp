#include "tools/hpmsim/lib/run_stats.h"

#include "tools/hpmsim/lib/host_memory.h"

namespace hpm::tools::run_stat {

void visitTotals(stats::Visitor& v, const Totals& t) {
  const double mips = t.host_seconds > 0 ? t.instructions / t.host_seconds / 1e6 : 0.0;
  v.counter(kInstructions, t.instructions,
            t.many_nodes ? kNodesInstructionsDoc : kInstructions.doc);
  v.counter(kCycles, t.cycles, t.many_nodes ? kNodesCyclesDoc : kCycles.doc);
  v.real(kHostSeconds, t.host_seconds);
  v.real(kMips, mips);
  v.counter(kHostPeakRssKib, hostPeakRssKib());
  v.text(kMode, t.mode);
  v.counter(kExitStatus, t.exit_status, t.many_nodes ? kNodesExitStatusDoc : kExitStatus.doc);
}

}  // namespace hpm::tools::run_stat
