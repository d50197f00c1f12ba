// The IOUnit's message-unit events on every node of a many-node run (seed 001's
// PEVT_MU_PKT_INJ, PEVT_MU_MSG_INJ, PEVT_MU_FIFO_PKT_RCV): each counter, programmed by the host
// from cycle 0, equals the message unit's own count (the event's ground truth), and those
// counts agree across the nodes: every packet one node's unit stored for the network, another's
// stored to its reception FIFO.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "net/cluster.h"
#include "node/monitor.h"

namespace hpm::net {
namespace {

const std::string kCollectives = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mpi_collectives";

TEST(MessageUnitCounters, EveryNodesIoUnitCountsWhatItsMessageUnitDid) {
  for (const char* mode : {"timing", "warmup"}) {
    MachineConfig machine = loadMachine("bgq", {"network.shape=2x2x1x1x1"});
    RunOptions options;
    options.mode = *parseRunMode(mode);
    options.root = std::filesystem::temp_directory_path().string();
    ClusterOptions co;
    co.out_fd = co.err_fd = -1;  // (the guest's output is not needed: its checks are counted)
    Cluster cluster(machine, options, co);
    const std::vector<std::string> names = {"PEVT_MU_PKT_INJ", "PEVT_MU_MSG_INJ",
                                            "PEVT_MU_FIFO_PKT_RCV"};
    for (u32 n = 0; n < cluster.nodes(); ++n) {
      Monitor* m = cluster.node(n).monitor();
      ASSERT_NE(m, nullptr);
      std::vector<const NativeEvent*> events;
      for (const std::string& name : names) {
        events.push_back(m->find(name));
        ASSERT_NE(events.back(), nullptr) << name;
      }
      m->programHost(events);
    }
    cluster.exec(kCollectives, {kCollectives, "100"}, {});
    cluster.run();
    ASSERT_EQ(cluster.exitStatus(), 0) << cluster.reports();
    u64 injected = 0, received = 0;
    for (u32 n = 0; n < cluster.nodes(); ++n) {
      Simulation& sim = cluster.node(n);
      const MessageUnitStats& s = cluster.messageUnit(n).stats();
      const std::map<std::string, u64> truth = {{"PEVT_MU_PKT_INJ", s.packets_injected},
                                                {"PEVT_MU_MSG_INJ", s.descriptors},
                                                {"PEVT_MU_FIFO_PKT_RCV", s.packets_received}};
      const std::map<std::string, probe::Event> event = {
          {"PEVT_MU_PKT_INJ", probe::Event::kMuPacketsInjected},
          {"PEVT_MU_MSG_INJ", probe::Event::kMuMessagesInjected},
          {"PEVT_MU_FIFO_PKT_RCV", probe::Event::kMuFifoPacketsReceived}};
      for (const ProgrammedCounter& c : sim.monitor()->readHost(sim.elapsedCycles())) {
        EXPECT_EQ(c.value, truth.at(c.event)) << mode << " node " << n << " " << c.event;
        EXPECT_EQ(sim.groundTruth(event.at(c.event), 0), truth.at(c.event)) << c.event;
        EXPECT_GT(c.value, 0u) << c.event;
      }
      injected += s.packets_injected;
      received += s.packets_received;
    }
    EXPECT_EQ(injected, received) << mode;
  }
}

}  // namespace
}  // namespace hpm::net
