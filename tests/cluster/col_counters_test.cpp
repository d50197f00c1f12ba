// Blue Gene/P's collective network events (UPC-P's COL_*) on every node of a many-node run:
// each counter, programmed by the host from cycle 0, equals what the bus delivered and the
// ground truth (the routers' signals as the cluster counted them, the devices' own counts), in
// each UPC-P mode that has them; and the counts agree with the tree: what a link's sender sent,
// the far end's receiver received, and every node took from its reception FIFO what reached it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../node/counter_truth.h"
#include "cluster/cluster.h"
#include "node/monitor.h"
#include "quiet_cluster.h"

namespace hpm::net {
namespace {

const std::string kColRaw = std::string(HPM_TEST_GUEST_BIN_DIR) + "/col_raw";
const std::string kRing = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mpi_ring";

// The events named `prefix`... of UPC-P mode `mode` that count on this machine.
std::vector<const NativeEvent*> eventsOf(const Monitor& m, std::string_view prefix, i32 mode) {
  std::vector<const NativeEvent*> out;
  for (const NativeEvent& e : m.catalogue()) {
    if (e.name.starts_with(prefix) && e.never.empty() && e.select == mode) out.push_back(&e);
  }
  return out;
}

// Runs `argv` on a bgp torus of `shape` with every node counting mode `mode`'s events named
// `prefix`...; returns each event's count summed over the nodes, having checked every counter.
std::map<std::string, u64> runCounting(const std::string& shape, std::string_view prefix, i32 mode,
                                       const std::vector<std::string>& argv) {
  MachineConfig machine = loadMachine("bgp", {"network.shape=" + shape});
  const std::unique_ptr<Cluster> owned = test::quietCluster(machine, RunMode::kTiming);
  Cluster& cluster = *owned;
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Monitor* m = cluster.node(n).monitor();
    EXPECT_NE(m, nullptr);
    if (m == nullptr) return {};
    const std::vector<const NativeEvent*> events = eventsOf(*m, prefix, mode);
    EXPECT_GT(events.size(), 5u) << prefix << " mode " << mode;
    m->programHost(events);
  }
  cluster.exec(argv.at(0), argv, {});
  cluster.run();
  EXPECT_EQ(cluster.exitStatus(), 0) << cluster.reports();
  std::map<std::string, u64> total;
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Simulation& sim = cluster.node(n);
    for (const ProgrammedCounter& c :
         test::expectCountersEqualBusAndTruth(sim, machine, *sim.monitor(), sim.elapsedCycles())) {
      total[c.event] += c.value;
    }
  }
  return total;
}

TEST(CollectiveCounters, EveryNodesColEventsEqualTheirGroundTruthInEveryMode) {
  const std::map<std::string, u64> mode0 = runCounting("5x1x1", "COL_", 0, {kColRaw});
  const std::map<std::string, u64> mode1 = runCounting("5x1x1", "COL_", 1, {kColRaw});
  const std::map<std::string, u64> mode2 = runCounting("5x1x1", "COL_", 2, {kColRaw});
  const std::map<std::string, u64> mode3 = runCounting("5x1x1", "COL_", 3, {kColRaw});
  // Each link carries as many packets each way as its far end receives: sent on the parent link
  // (port 0) = received on the children's links (ports 1, 2), and the other way round.
  for (const char* vc : {"VC0", "VC1"}) {
    const auto at = [&](const std::string& name) {
      const auto it = mode0.find(name);
      return it == mode0.end() ? u64{0} : it->second;
    };
    const std::string v(vc);
    EXPECT_EQ(at("COL_AS0_" + v + "_DATA_PACKETS_SENT"),
              at("COL_AR1_" + v + "_DATA_PACKETS_RECEIVED") +
                  at("COL_AR2_" + v + "_DATA_PACKETS_RECEIVED"));
    EXPECT_EQ(
        at("COL_AR0_" + v + "_DATA_PACKETS_RECEIVED"),
        at("COL_AS1_" + v + "_DATA_PACKETS_SENT") + at("COL_AS2_" + v + "_DATA_PACKETS_SENT"));
  }
  // The program used the tree on both channels: packets went up and down every link.
  EXPECT_GT(mode0.at("COL_AS0_VC0_DATA_PACKETS_SENT"), 0u);
  EXPECT_GT(mode0.at("COL_RECEPTION_VC0_PACKET_ADDED"), 0u);
  // Every packet added to a reception FIFO had its header and 16 quadwords taken (the program
  // reads every packet), and every injected packet was taken by an arbiter.
  EXPECT_EQ(mode1.at("COL_RECEPTION_VC0_HEADER_TAKEN"), mode0.at("COL_RECEPTION_VC0_PACKET_ADDED"));
  EXPECT_EQ(mode1.at("COL_RECEPTION_VC0_PAYLOAD_TAKEN"),
            16 * mode0.at("COL_RECEPTION_VC0_PACKET_ADDED"));
  EXPECT_EQ(mode1.at("COL_INJECT_VC0_PAYLOAD_ADDED"), 16 * mode0.at("COL_INJECT_VC0_HEADER"));
  EXPECT_EQ(mode1.at("COL_INJECT_VC0_PACKET_TAKEN"), mode0.at("COL_INJECT_VC0_HEADER"));
  // Class route 0 (the world's) routed every packet at every router; no other class was used.
  EXPECT_GT(mode3.at("COL_ACLS0_WINS"), 0u);
  EXPECT_GT(mode0.at("COL_AS0_VC1_DATA_PACKETS_SENT"), 0u);
  // Busy cycles: each link's sender is busy a link time per packet.
  EXPECT_GT(mode3.at("COL_ALU_BUSY"), 0u);
  EXPECT_EQ(mode3.at("COL_ACLS1_WINS"), 0u);
  // The levels (net/collective.h's states): mode 3's _UM3 inputs count mode 2's signals; a
  // sender is empty most of the run, and the arbiters had packets from every source.
  for (const auto& [name, count] : mode3) {
    if (!name.ends_with("_FULL_UM3") && !name.ends_with("_EMPTY_UM3")) continue;
    const std::string base = name.substr(0, name.size() - 4);
    EXPECT_EQ(count, mode2.at(base)) << name;
  }
  EXPECT_GT(mode2.at("COL_AS0_VC0_EMPTY"), 0u);
  EXPECT_GT(mode3.at("COL_A_INJECT_VC0_HAVE"), 0u);
  EXPECT_GT(mode3.at("COL_A_CH1_VC0_HAVE"), 0u);
}

// The torus links' chunk events (TORUS_<link>_32BCHUNKS and by channel): each chunk counted
// as it leaves, one a cycle at most, equal to the ground truth; every chunk is on one of the
// channels, and each link's chunks are at least its packets (a packet is whole chunks).
TEST(TorusChunkCounters, EveryLinksChunksCountAsTheyLeaveAndAddUpOverTheChannels) {
  const std::map<std::string, u64> mode0 = runCounting("3x2x1", "TORUS_", 0, {kRing, "2"});
  const std::map<std::string, u64> mode2 = runCounting("3x2x1", "TORUS_", 2, {kRing, "2"});
  u64 all = 0, by_channel = 0, packets = 0;
  for (const auto& [name, count] : mode0) {
    if (name.ends_with("_32BCHUNKS")) all += count;
    if (name.ends_with("_PACKETS")) packets += count;
  }
  for (const auto& [name, count] : mode2) {
    if (name.ends_with("_32BCHUNKS")) by_channel += count;
  }
  EXPECT_GT(packets, 0u);
  EXPECT_GE(all, packets);
  EXPECT_EQ(by_channel, all);
}

// Blue Gene/P's two dynamic channels (network.dynamic_channels = 2 on bgp): dynamic direct puts
// (guest/mpi/mu_put) go on both; TORUS_<link>_VCD0_32BCHUNKS and _VCD1_32BCHUNKS each count
// their chunks as they leave (equal to the ground truth), and with the other channels add up to
// every chunk but the system channel's, which has no event of its own: mu_put's last messages,
// one chunk from every node to every other, 7 hops per node on a 3x2x1 torus (2 nodes 1 hop away
// in X, 1 in Y, 2 nodes 2 hops away), 42 in all.
TEST(TorusChunkCounters, BothDynamicChannelsCountTheirChunks) {
  const std::string put = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mu_put";
  const std::map<std::string, u64> mode0 = runCounting("3x2x1", "TORUS_", 0, {put, "4096"});
  const std::map<std::string, u64> mode2 = runCounting("3x2x1", "TORUS_", 2, {put, "4096"});
  u64 all = 0, by_channel = 0, vcd0 = 0, vcd1 = 0;
  for (const auto& [name, count] : mode0) {
    if (name.ends_with("_32BCHUNKS")) all += count;
  }
  for (const auto& [name, count] : mode2) {
    if (name.ends_with("_32BCHUNKS")) by_channel += count;
    if (name.ends_with("_VCD0_32BCHUNKS")) vcd0 += count;
    if (name.ends_with("_VCD1_32BCHUNKS")) vcd1 += count;
  }
  EXPECT_GT(vcd0, 0u);
  EXPECT_GT(vcd1, 0u);
  EXPECT_EQ(all - by_channel, 42u);
}

// The links' token and acknowledgement protocol's events (TORUS_<link>_TOKEN_ACK_PACKETS, _ACKS,
// _NO_TOKENS and by channel; network.link_protocol, bgp): each equal to its ground truth (the
// network's protocol signals as the cluster counted them); every packet a link sent is
// acknowledged once over the reverse link, some in token/ack packets (a ring's traffic goes one
// way round), and a channel waits for tokens only within the cycles some channel does.
TEST(TorusProtocolCounters, EveryPacketIsAcknowledgedOnceAndEachEventEqualsItsGroundTruth) {
  const std::map<std::string, u64> mode0 = runCounting("3x2x1", "TORUS_", 0, {kRing, "2"});
  const std::map<std::string, u64> mode2 = runCounting("3x2x1", "TORUS_", 2, {kRing, "2"});
  u64 packets = 0, acks = 0, token_acks = 0, no_tokens = 0, by_channel = 0;
  for (const auto& [name, count] : mode0) {
    if (name.ends_with("_PACKETS")) packets += count;
  }
  for (const auto& [name, count] : mode2) {
    if (name.ends_with("_ACKS")) acks += count;
    if (name.ends_with("_TOKEN_ACK_PACKETS")) token_acks += count;
    if (name.ends_with("_NO_TOKENS")) no_tokens += count;
    if (name.find("_NO_VC") != std::string::npos) by_channel += count;
  }
  EXPECT_GT(packets, 0u);
  EXPECT_EQ(acks, packets);
  EXPECT_GT(token_acks, 0u);
  EXPECT_LE(token_acks, acks);
  EXPECT_LE(by_channel, 3 * no_tokens);
}

}  // namespace
}  // namespace hpm::net
