// Statistics carried between processes: a Recorder keeps the visits it receives as bytes, and
// replay() makes the same visits, in the same order with the same values and measures, on another
// visitor.
// A many-node run over several host processes (cluster/cluster.h) records each node's statistics
// where the node ran and replays them where they are written, so the files are those of a run
// in one process, byte for byte.
#pragma once

#include <string>
#include <string_view>

#include "base/wire.h"
#include "stats/stats.h"

namespace hpm::stats {

class Recorder final : public Visitor {
 public:
  using Visitor::counter;
  using Visitor::real;
  using Visitor::text;
  void counter(std::string_view name, u64 value, Measure m, std::string_view doc) override;
  void real(std::string_view name, double value, Measure m, std::string_view doc) override;
  void text(std::string_view name, std::string_view value, std::string_view doc) override;
  void beginGroup(std::string_view name) override;
  void endGroup() override;
  void beginList(std::string_view name) override;
  void endList() override;

  std::string take() { return w_.take(); }

 private:
  wire::Writer w_;
};

// Makes the recorded visits on `v`; throws hpm::Error if `bytes` is not a recording.
void replay(std::string_view bytes, Visitor& v);

}  // namespace hpm::stats
