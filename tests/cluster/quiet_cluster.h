// The start the many-node counter tests share (mu_counters_test, col_counters_test): a cluster of
// `machine` in `mode` whose nodes' output is dropped (the guests' checks are counted, not read).
#pragma once

#include <filesystem>
#include <memory>

#include "cluster/cluster.h"

namespace hpm::test {

inline std::unique_ptr<net::Cluster> quietCluster(const MachineConfig& machine, RunMode mode) {
  RunOptions options;
  options.mode = mode;
  options.root = std::filesystem::temp_directory_path().string();
  net::ClusterOptions co;
  co.out_fd = co.err_fd = -1;
  return std::make_unique<net::Cluster>(machine, options, co);
}

}  // namespace hpm::test
