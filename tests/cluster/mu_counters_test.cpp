// The IOUnit's message-unit events on every node of a many-node run (seed 001's
// PEVT_MU_PKT_INJ, PEVT_MU_MSG_INJ, PEVT_MU_FIFO_PKT_RCV): each counter, programmed by the host
// from cycle 0, equals the message unit's own count (the event's ground truth), and those
// counts agree across the nodes: every packet one node's unit stored for the network, another's
// stored to its reception FIFO.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "node/monitor.h"
#include "quiet_cluster.h"

namespace hpm::net {
namespace {

const std::string kCollectives = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mpi_collectives";

TEST(MessageUnitCounters, EveryNodesIoUnitCountsWhatItsMessageUnitDid) {
  for (const char* mode : {"timing", "warmup"}) {
    // (Point-to-point collectives: every packet injected is received once. On bgq's collective
    // classes the routers combine packets, and torus_coll_test checks those.)
    MachineConfig machine =
        loadMachine("bgq", {"network.shape=2x2x1x1x1", "network.collective_mpi=false"});
    const std::unique_ptr<Cluster> owned = test::quietCluster(machine, *parseRunMode(mode));
    Cluster& cluster = *owned;
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
// Runs `argv` on `shape` with every node's NWUnit counting `names` on every link, and checks
// each counter against its ground truth and the network's account of the cable; returns the
// counts summed over all nodes by event.
std::map<std::string, u64> checkLinkCounters(const char* mode, const std::string& shape,
                                             const std::vector<std::string>& argv,
                                             const std::map<std::string, probe::Event>& names,
                                             Channel channel, bool only_channel) {
  MachineConfig machine = loadMachine("bgq", {"network.shape=" + shape});
  const std::unique_ptr<Cluster> owned = test::quietCluster(machine, *parseRunMode(mode));
  Cluster& cluster = *owned;
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Monitor* m = cluster.node(n).monitor();
    EXPECT_NE(m, nullptr);
    std::vector<const NativeEvent*> events;
    for (const auto& [name, e] : names) {
      events.push_back(m->find(name));
      EXPECT_NE(events.back(), nullptr) << name;
    }
    m->programHost(events);
  }
  cluster.exec(argv[0], argv, {});
  cluster.run();
  EXPECT_EQ(cluster.exitStatus(), 0) << cluster.reports();
  const Torus& torus = cluster.network().torus();
  const u32 ports = 2 * torus.dimensions();
  const auto& links = cluster.network().links();
  // The channel of each probe event (its name says it: Dynamic, Escape, Priority, System).
  const auto channelOf = [](probe::Event e) {
    const std::string_view name = probe::info(e).name;
    return name.find("Dynamic") != std::string_view::npos     ? Channel::kDynamic
           : name.find("Priority") != std::string_view::npos  ? Channel::kPriority
           : name.find("System") != std::string_view::npos    ? Channel::kSystem
           : name.find("UserWorld") != std::string_view::npos ? Channel::kUserWorld
           : name.find("Subcomm") != std::string_view::npos   ? Channel::kUserSubcomm
           : name.find("SysColl") != std::string_view::npos   ? Channel::kSystemCollective
                                                              : Channel::kEscape;
  };
  std::map<std::string, u64> total;
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Simulation& sim = cluster.node(n);
    std::map<std::string, u64> summed;
    std::map<std::pair<std::string, u32>, u64> per_port;
    u32 read = 0;
    for (const ProgrammedCounter& c : sim.monitor()->readHost(sim.elapsedCycles())) {
      EXPECT_GE(c.port, 0) << c.event;
      const u32 port = static_cast<u32>(c.port);
      const probe::Event e = names.at(c.event);
      const u32 ch = static_cast<u32>(channelOf(e));
      EXPECT_EQ(sim.groundTruth(e, port), c.value) << mode << " node " << n << " " << c.event;
      // (Counter port p is BG/Q's link p: 2 x dimension for minus, + 1 for plus; the
      // network's link 2 x dimension + 0 is the plus one, so the node's cable of port p is
      // its network link p ^ 1, and the neighbour's end of it is the neighbour's link p.)
      const bool sent = c.event.find("_SENT") != std::string::npos;
      const bool fifo = c.event.find("_FIFO") != std::string::npos;
      if (port >= ports) {
        EXPECT_EQ(c.value, 0u) << "the I/O link carries nothing";
      } else if (sent) {
        EXPECT_EQ(c.value, links[n * ports + (port ^ 1)].channel_chunks[ch])
            << mode << " node " << n << " port " << port << " " << c.event;
      } else if (!fifo) {
        const u32 neighbour = torus.linkTarget(n * ports + (port ^ 1));
        EXPECT_EQ(c.value, links[neighbour * ports + port].channel_packets[ch])
            << mode << " node " << n << " port " << port << " " << c.event;
      }
      per_port[{c.event, port}] = c.value;
      summed[c.event] += c.value;
      ++read;
    }
    EXPECT_EQ(read, names.size() * (ports + 1)) << "every link's counters, the I/O link's included";
    // (Per port, the packets for the node are some of those received there.)
    for (const auto& [key, count] : per_port) {
      if (key.first.find("_RECV_FIFO") == std::string::npos) continue;
      const std::string received = key.first.substr(0, key.first.size() - 5);
      if (per_port.contains({received, key.second})) {
        EXPECT_LE(count, per_port.at({received, key.second})) << n << " " << key.second;
      }
    }
    // With all traffic on the channel, the packets for the node over all its links are those
    // the other nodes' message units sent it.
    u64 sent_here = 0;
    for (u32 m = 0; m < cluster.nodes(); ++m) {
      if (m != n) sent_here += cluster.messageUnit(m).stats().packets_to[n];
    }
    for (const auto& [event, count] : summed) {
      if (only_channel && channelOf(names.at(event)) == channel &&
          event.find("_RECV_FIFO") != std::string::npos) {
        EXPECT_EQ(count, sent_here) << mode << " node " << n << " " << event;
      }
    }
    for (const auto& [event, count] : summed) total[event] += count;
  }
  return total;
}

// The NWUnit on every node (seed 001: 6 counters on each of 11 links): each link counter of
// PEVT_NW_USER_PP_SENT, _RECV and _RECV_FIFO equals the link's ground truth, and the truth
// equals the network's own account of the cable: chunks a node sent on its port k crossed link
// (node, k); packets it received on port k crossed the neighbour's link the other way; packets
// received for the node are the ones the other nodes' message units sent it. The I/O link
// (the last port) carries nothing. On a 3x2 torus (a dimension of 3: distinct neighbours each
// way) in the timing and warm-up modes; MPI's packets all travel on the escape channel.
TEST(NetworkUnitCounters, EveryLinkCounterCountsWhatCrossedItsCable) {
  for (const char* mode : {"timing", "warmup"}) {
    const std::map<std::string, probe::Event> names = {
        {"PEVT_NW_USER_PP_SENT", probe::Event::kNwEscapeChunksSent},
        {"PEVT_NW_USER_ESC_PP_RECV", probe::Event::kNwEscapePacketsReceived},
        {"PEVT_NW_USER_ESC_PP_RECV_FIFO", probe::Event::kNwEscapePacketsToNode},
        {"PEVT_NW_USER_DYN_PP_SENT", probe::Event::kNwDynamicChunksSent}};
    const auto total =
        checkLinkCounters(mode, "3x2x1x1x1", {kCollectives, "60"}, names, Channel::kEscape, true);
    EXPECT_GT(total.at("PEVT_NW_USER_PP_SENT"), 0u);
    EXPECT_GT(total.at("PEVT_NW_USER_ESC_PP_RECV_FIFO"), 0u);
    EXPECT_EQ(total.at("PEVT_NW_USER_DYN_PP_SENT"), 0u);  // MPI routes deterministically
  }
}

// Dynamic, priority and system packets (guest/mpi/mu_put: direct puts routed dynamically,
// remote gets on the priority channel, the last messages on the system channel) are counted on
// their own channels, link by link, on a 4x2 torus.
TEST(NetworkUnitCounters, DynamicPriorityAndSystemChannelsAreCountedApart) {
  const std::string program = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mu_put";
  const auto dyn =
      checkLinkCounters("timing", "4x2x1x1x1", {program, "4096"},
                        {{"PEVT_NW_USER_DYN_PP_RECV", probe::Event::kNwDynamicPacketsReceived},
                         {"PEVT_NW_USER_DYN_PP_RECV_FIFO", probe::Event::kNwDynamicPacketsToNode}},
                        Channel::kDynamic, false);
  EXPECT_GT(dyn.at("PEVT_NW_USER_DYN_PP_RECV"), 0u);
  EXPECT_GT(dyn.at("PEVT_NW_USER_DYN_PP_RECV_FIFO"), 0u);
  const auto pri =
      checkLinkCounters("timing", "4x2x1x1x1", {program, "4096"},
                        {{"PEVT_NW_USER_PRI_PP_RECV", probe::Event::kNwPriorityPacketsReceived},
                         {"PEVT_NW_USER_PRI_PP_SENT", probe::Event::kNwPriorityChunksSent}},
                        Channel::kPriority, false);
  // Each node's remote get is one 64-byte descriptor: a 3-chunk packet, to the next node.
  EXPECT_GT(pri.at("PEVT_NW_USER_PRI_PP_RECV"), 0u);
  EXPECT_EQ(pri.at("PEVT_NW_USER_PRI_PP_SENT"), 3 * pri.at("PEVT_NW_USER_PRI_PP_RECV"));
  // Each node's last messages (header only: one chunk) go on the system channel.
  const auto sys =
      checkLinkCounters("timing", "4x2x1x1x1", {program, "4096"},
                        {{"PEVT_NW_SYS_PP_SENT", probe::Event::kNwSystemChunksSent},
                         {"PEVT_NW_SYS_PP_RECV", probe::Event::kNwSystemPacketsReceived},
                         {"PEVT_NW_SYS_PP_RECV_FIFO", probe::Event::kNwSystemPacketsToNode}},
                        Channel::kSystem, false);
  EXPECT_EQ(sys.at("PEVT_NW_SYS_PP_RECV_FIFO"), 8u * 7);  // every node to every other
  EXPECT_EQ(sys.at("PEVT_NW_SYS_PP_SENT"), sys.at("PEVT_NW_SYS_PP_RECV"));
}

// Blue Gene/Q's collective channels (guest/mu_coll: all-reduces, a broadcast and a reduce on
// the world's class): PEVT_NW_USER_WORLD_COL_SENT, _RECV and _RECV_FIFO count each link's
// collective chunks and packets, link by link, on a 4x2 torus; every collective packet goes up
// one tree link and comes down it, so the chunks sent equal 32 x the packets received, and the
// sub-communicator and system channels carry nothing.
TEST(NetworkUnitCounters, CollectiveChannelsAreCountedOnTheirLinks) {
  const std::string program = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mu_coll";
  for (const char* mode : {"timing", "warmup"}) {
    const auto world = checkLinkCounters(
        mode, "4x2x1x1x1", {program},
        {{"PEVT_NW_USER_WORLD_COL_SENT", probe::Event::kNwUserWorldChunksSent},
         {"PEVT_NW_USER_WORLD_COL_RECV", probe::Event::kNwUserWorldPacketsReceived},
         {"PEVT_NW_USER_WORLD_COL_RECV_FIFO", probe::Event::kNwUserWorldPacketsToNode},
         {"PEVT_NW_SYS_COL_SENT", probe::Event::kNwSysCollChunksSent},
         {"PEVT_NW_USER_SUBC_COL_RECV", probe::Event::kNwSubcommPacketsReceived}},
        Channel::kUserWorld, false);
    EXPECT_GT(world.at("PEVT_NW_USER_WORLD_COL_RECV"), 0u) << mode;
    EXPECT_GT(world.at("PEVT_NW_USER_WORLD_COL_RECV_FIFO"), 0u) << mode;
    EXPECT_LT(world.at("PEVT_NW_USER_WORLD_COL_RECV_FIFO"), world.at("PEVT_NW_USER_WORLD_COL_RECV"))
        << mode << ": packets going up land nowhere";
    EXPECT_EQ(world.at("PEVT_NW_SYS_COL_SENT"), 0u) << mode;
    EXPECT_EQ(world.at("PEVT_NW_USER_SUBC_COL_RECV"), 0u) << mode;
  }
}

// The sub-communicator channel (guest/mpi/mpi_subcomm: libmpi's collectives on communicators
// that are boxes of the torus, each on a class of its own): PEVT_NW_USER_SUBC_COL_SENT, _RECV
// and _RECV_FIFO count each link's packets on it, link by link, on a 4x2 torus.
TEST(NetworkUnitCounters, SubCommunicatorChannelIsCountedOnItsLinks) {
  const std::string program = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mpi_subcomm";
  const auto subc = checkLinkCounters(
      "timing", "4x2x1x1x1", {program},
      {{"PEVT_NW_USER_SUBC_COL_SENT", probe::Event::kNwSubcommChunksSent},
       {"PEVT_NW_USER_SUBC_COL_RECV", probe::Event::kNwSubcommPacketsReceived},
       {"PEVT_NW_USER_SUBC_COL_RECV_FIFO", probe::Event::kNwSubcommPacketsToNode}},
      Channel::kUserSubcomm, false);
  EXPECT_GT(subc.at("PEVT_NW_USER_SUBC_COL_RECV"), 0u);
  EXPECT_GT(subc.at("PEVT_NW_USER_SUBC_COL_RECV_FIFO"), 0u);
  EXPECT_GE(subc.at("PEVT_NW_USER_SUBC_COL_SENT"), subc.at("PEVT_NW_USER_SUBC_COL_RECV"));
}

// Blue Gene/P's UPC-P (one 256-counter unit per node): TORUS_<dim><dir>_PACKETS counts the
// packets the node sent on that link, DMA_PACKETS_INJECTED the packets its message unit stored
// for the network, each equal to the network's and the unit's own counts, on a 3x2x1 torus.
TEST(NetworkUnitCounters, BlueGenePsTorusEventsCountEachLinksPacketsSent) {
  MachineConfig machine = loadMachine("bgp", {"network.shape=3x2x1"});
  const std::unique_ptr<Cluster> owned = test::quietCluster(machine, RunMode::kTiming);
  Cluster& cluster = *owned;
  // (hpmsim's ports: 2 x dimension for the minus link, + 1 for the plus link.)
  const std::map<std::string, u32> ports = {{"TORUS_XM_PACKETS", 0}, {"TORUS_XP_PACKETS", 1},
                                            {"TORUS_YM_PACKETS", 2}, {"TORUS_YP_PACKETS", 3},
                                            {"TORUS_ZM_PACKETS", 4}, {"TORUS_ZP_PACKETS", 5}};
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Monitor* m = cluster.node(n).monitor();
    ASSERT_NE(m, nullptr);
    std::vector<const NativeEvent*> events = {m->find("DMA_PACKETS_INJECTED")};
    for (const auto& [name, port] : ports) events.push_back(m->find(name));
    for (const NativeEvent* e : events) ASSERT_NE(e, nullptr);
    m->programHost(events);
  }
  cluster.exec(kCollectives, {kCollectives, "40"}, {});
  cluster.run();
  ASSERT_EQ(cluster.exitStatus(), 0) << cluster.reports();
  const auto& links = cluster.network().links();
  u64 sent = 0;
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Simulation& sim = cluster.node(n);
    u32 read = 0;
    for (const ProgrammedCounter& c : sim.monitor()->readHost(sim.elapsedCycles())) {
      ++read;
      if (c.event == "DMA_PACKETS_INJECTED") {
        EXPECT_EQ(c.value, cluster.messageUnit(n).stats().packets_injected) << n;
        EXPECT_GT(c.value, 0u) << n;
        continue;
      }
      const u32 port = ports.at(c.event);
      EXPECT_EQ(c.value, links[n * 6 + (port ^ 1)].packets) << n << " " << c.event;
      EXPECT_EQ(sim.groundTruth(probe::Event::kNwPacketsSent, port), c.value) << c.event;
      sent += c.value;
    }
    EXPECT_EQ(read, 7u) << n;
  }
  u64 crossed = 0;
  for (const LinkStats& l : links) crossed += l.packets;
  EXPECT_EQ(sent, crossed);
  EXPECT_GT(sent, 0u);
}

// Blue Gene/P's network bus (docs/timing.md "Device buses"): libmpi drives the message unit,
// BG/P's DMA and torus FIFOs, through its registers, so each node's core 0 reads and writes the
// network bus (its polling: seed 002's Table 1 has NETBUS_READ_REQUESTS at 334M of BT's 414M L2
// reads) and never the device bus. UPC-P's PU0_L2_NETBUS_READ_REQUESTS and PU0_L2_NETWORK_WRITES,
// programmed by the host from cycle 0, equal the memory system's counts on every node.
TEST(NetworkBus, UpcPCountsEachNodesMessageUnitAccessesOnTheNetworkBus) {
  MachineConfig machine = loadMachine("bgp", {"network.shape=2x1x1"});
  const std::unique_ptr<Cluster> owned = test::quietCluster(machine, RunMode::kTiming);
  Cluster& cluster = *owned;
  const std::map<std::string, std::pair<probe::Event, probe::DeviceBus>> names = {
      {"PU0_L2_NETBUS_READ_REQUESTS", {probe::Event::kDeviceBusReads, probe::DeviceBus::kNetwork}},
      {"PU0_L2_NETWORK_WRITES", {probe::Event::kDeviceBusWrites, probe::DeviceBus::kNetwork}},
      {"PU0_L2_DEVBUS_READ_REQUESTS", {probe::Event::kDeviceBusReads, probe::DeviceBus::kDevice}},
      {"PU0_L2_DEVBUS_WRITES", {probe::Event::kDeviceBusWrites, probe::DeviceBus::kDevice}}};
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Monitor* m = cluster.node(n).monitor();
    ASSERT_NE(m, nullptr);
    std::vector<const NativeEvent*> events;
    for (const auto& [name, source] : names) events.push_back(m->find(name));
    for (const NativeEvent* e : events) ASSERT_NE(e, nullptr);
    m->programHost(events);
  }
  cluster.exec(kCollectives, {kCollectives, "20"}, {});
  cluster.run();
  ASSERT_EQ(cluster.exitStatus(), 0) << cluster.reports();
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Simulation& sim = cluster.node(n);
    std::map<std::string, u64> counted;
    for (const ProgrammedCounter& c : sim.monitor()->readHost(sim.elapsedCycles())) {
      const auto& [event, bus] = names.at(c.event);
      // (Core 0's instance of the bus.)
      EXPECT_EQ(sim.groundTruth(event, static_cast<u32>(bus)), c.value) << n << " " << c.event;
      counted[c.event] = c.value;
    }
    ASSERT_EQ(counted.size(), names.size()) << n;
    EXPECT_GT(counted.at("PU0_L2_NETBUS_READ_REQUESTS"), 0u) << n;
    EXPECT_GT(counted.at("PU0_L2_NETWORK_WRITES"), 0u) << n;
    EXPECT_EQ(counted.at("PU0_L2_DEVBUS_READ_REQUESTS"), 0u) << n;
    EXPECT_EQ(counted.at("PU0_L2_DEVBUS_WRITES"), 0u) << n;
  }
}

}  // namespace
}  // namespace hpm::net
