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

// The NWUnit on every node (seed 001: 6 counters on each of 11 links): each link counter of
// PEVT_NW_USER_PP_SENT, _RECV and _RECV_FIFO equals the link's ground truth, and the truth
// equals the network's own account of the cable: chunks a node sent on its port k crossed link
// (node, k); packets it received on port k crossed the neighbour's link the other way; packets
// received for the node are the ones the other nodes' message units sent it. The I/O link
// (the last port) carries nothing. On a 3x2 torus (a dimension of 3: distinct neighbours each
// way) in the timing and warm-up modes.
TEST(NetworkUnitCounters, EveryLinkCounterCountsWhatCrossedItsCable) {
  for (const char* mode : {"timing", "warmup"}) {
    MachineConfig machine = loadMachine("bgq", {"network.shape=3x2x1x1x1"});
    RunOptions options;
    options.mode = *parseRunMode(mode);
    options.root = std::filesystem::temp_directory_path().string();
    ClusterOptions co;
    co.out_fd = co.err_fd = -1;
    Cluster cluster(machine, options, co);
    const std::map<std::string, probe::Event> names = {
        {"PEVT_NW_USER_PP_SENT", probe::Event::kNwChunksSent},
        {"PEVT_NW_USER_PP_RECV", probe::Event::kNwPacketsReceived},
        {"PEVT_NW_USER_PP_RECV_FIFO", probe::Event::kNwPacketsToNode}};
    for (u32 n = 0; n < cluster.nodes(); ++n) {
      Monitor* m = cluster.node(n).monitor();
      ASSERT_NE(m, nullptr);
      std::vector<const NativeEvent*> events;
      for (const auto& [name, e] : names) {
        events.push_back(m->find(name));
        ASSERT_NE(events.back(), nullptr) << name;
      }
      m->programHost(events);
    }
    cluster.exec(kCollectives, {kCollectives, "60"}, {});
    cluster.run();
    ASSERT_EQ(cluster.exitStatus(), 0) << cluster.reports();
    const Torus& torus = cluster.network().torus();
    const u32 ports = 2 * torus.dimensions();
    const auto& links = cluster.network().links();
    for (u32 n = 0; n < cluster.nodes(); ++n) {
      Simulation& sim = cluster.node(n);
      std::map<std::string, u64> summed;
      std::map<std::pair<std::string, u32>, u64> per_port;
      u32 read = 0;
      for (const ProgrammedCounter& c : sim.monitor()->readHost(sim.elapsedCycles())) {
        ASSERT_GE(c.port, 0) << c.event;
        const u32 port = static_cast<u32>(c.port);
        const probe::Event e = names.at(c.event);
        EXPECT_EQ(sim.groundTruth(e, port), c.value) << mode << " node " << n << " " << c.event;
        u64 expected = 0;
        // (Counter port p is BG/Q's link p: 2 x dimension for minus, + 1 for plus; the
        // network's link 2 x dimension + 0 is the plus one, so the node's cable of port p is
        // its network link p ^ 1, and the neighbour's end of it is the neighbour's link p.)
        if (port < ports && e == probe::Event::kNwChunksSent) {
          expected = links[n * ports + (port ^ 1)].chunks;
        } else if (port < ports && e == probe::Event::kNwPacketsReceived) {
          const u32 neighbour = torus.linkTarget(n * ports + (port ^ 1));
          expected = links[neighbour * ports + port].packets;
        }
        if (e != probe::Event::kNwPacketsToNode || port >= ports) {
          EXPECT_EQ(c.value, expected)
              << mode << " node " << n << " port " << port << " " << c.event;
        }
        per_port[{c.event, port}] = c.value;
        summed[c.event] += c.value;
        ++read;
      }
      EXPECT_EQ(read, 3 * (ports + 1)) << "every link's counters, the I/O link's included";
      // (Per port, the packets for the node are some of those received there; their sum over
      // the ports is checked against the message units below.)
      for (u32 port = 0; port < ports; ++port) {
        const u64 for_node = per_port[std::make_pair("PEVT_NW_USER_PP_RECV_FIFO", port)];
        const u64 received = per_port[std::make_pair("PEVT_NW_USER_PP_RECV", port)];
        EXPECT_LE(for_node, received) << mode << " node " << n << " port " << port;
      }
      u64 sent_here = 0;
      for (u32 m = 0; m < cluster.nodes(); ++m) {
        if (m != n) sent_here += cluster.messageUnit(m).stats().packets_to[n];
      }
      EXPECT_EQ(summed["PEVT_NW_USER_PP_RECV_FIFO"], sent_here) << mode << " node " << n;
      EXPECT_GT(summed["PEVT_NW_USER_PP_SENT"], 0u) << mode << " node " << n;
    }
  }
}

}  // namespace
}  // namespace hpm::net
