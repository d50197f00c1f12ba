// The message unit's ports' events on every node of a many-node run (net/mu_ports.h): BG/Q's
// IOUnit PEVT_MU_PORT<p>_... and PEVT_MU_SLV_PORT_..., Blue Gene/P's UPC-P DMA_..., programmed
// by the host from cycle 0, on both counting paths (from the statistics, and from every
// published event). Each counter equals what the bus delivered and its ground truth (the ports'
// own counts); whatever is counted, every node retires the same instructions in the same cycles;
// and the counts agree with the message unit's own: the bytes its ports read and wrote cover
// what it injected and stored, and Blue Gene/P's one-bit signals come one a cycle.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "../node/counter_truth.h"
#include "cluster/cluster.h"
#include "node/monitor.h"
#include "quiet_cluster.h"

namespace hpm::net {
namespace {

// Direct puts, remote gets and memory-FIFO messages (guest/mpi/mu_put.c).
const std::string kMuPut = std::string(HPM_TEST_GUEST_BIN_DIR) + "/mu_put";

struct NodeCounts {
  std::map<std::string, u64> counts;
  Cycle cycles = 0;
  u64 instructions = 0;
  MessageUnitStats unit;
};

// Runs mu_put on a torus of `shape` of `machine_name` with every node counting the events whose
// names start with one of `prefixes` (and count here), checks every counter against the bus and
// the ground truth, and returns each node's counts. `one_bit`: every input is also traced, and
// must be high at most once a cycle.
std::vector<NodeCounts> runCounting(const std::string& machine_name, const std::string& shape,
                                    Counting counting, RunMode mode,
                                    const std::vector<std::string>& prefixes, bool one_bit) {
  MachineConfig machine = loadMachine(machine_name, {"network.shape=" + shape});
  machine.monitor.counting = counting;
  const std::unique_ptr<Cluster> owned = test::quietCluster(machine, mode);
  Cluster& cluster = *owned;
  std::vector<u32> traced;
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Monitor* m = cluster.node(n).monitor();
    EXPECT_NE(m, nullptr);
    if (m == nullptr) return {};
    std::vector<const NativeEvent*> events;
    for (const NativeEvent& e : m->catalogue()) {
      for (const std::string& p : prefixes) {
        if (e.name.starts_with(p) && e.never.empty()) events.push_back(&e);
      }
    }
    EXPECT_FALSE(events.empty());
    m->programHost(events);
    if (!one_bit) continue;
    for (const NativeEvent* e : events) {
      for (const NativeEvent::Instance& i : e->instances) {
        for (u32 input : i.feeds) {
          m->traceInput(input);
          if (n == 0) traced.push_back(input);
        }
      }
    }
  }
  cluster.exec(kMuPut, {kMuPut, "4096"}, {});
  cluster.run();
  EXPECT_EQ(cluster.exitStatus(), 0) << cluster.reports();
  std::vector<NodeCounts> out(cluster.nodes());
  for (u32 n = 0; n < cluster.nodes(); ++n) {
    Simulation& sim = cluster.node(n);
    for (const ProgrammedCounter& c :
         test::expectCountersEqualBusAndTruth(sim, machine, *sim.monitor(), sim.elapsedCycles())) {
      out[n].counts[c.event] = c.value;
    }
    out[n].cycles = sim.elapsedCycles();
    out[n].instructions = sim.retiredInstructions();
    out[n].unit = cluster.messageUnit(n).stats();
    for (u32 input : traced) {
      const Monitor::InputTrace& t = sim.monitor()->trace(input);
      Cycle last = 0;
      bool first = true;
      for (const auto& [cycle, count] : t.pulses) {
        EXPECT_EQ(count, 1u) << "node " << n << " input " << input << " at " << cycle;
        EXPECT_TRUE(first || cycle > last)
            << "node " << n << " input " << input << " twice at " << cycle;
        last = cycle;
        first = false;
      }
    }
  }
  return out;
}

u64 at(const NodeCounts& n, const std::string& name) {
  const auto it = n.counts.find(name);
  EXPECT_NE(it, n.counts.end()) << name;
  return it == n.counts.end() ? 0 : it->second;
}

TEST(MessageUnitPorts, EveryPortCounterEqualsItsGroundTruthOnBothCountingPaths) {
  const std::vector<std::string> prefixes = {"PEVT_MU_PORT", "PEVT_MU_SLV_PORT"};
  const auto stats =
      runCounting("bgq", "2x2x1x1x1", Counting::kStatistics, RunMode::kTiming, prefixes, false);
  const auto events =
      runCounting("bgq", "2x2x1x1x1", Counting::kEvents, RunMode::kTiming, prefixes, false);
  ASSERT_EQ(stats.size(), 4u);
  ASSERT_EQ(events.size(), stats.size());
  for (u32 n = 0; n < stats.size(); ++n) {
    const NodeCounts& s = stats[n];
    EXPECT_EQ(s.counts.size(), 20u) << n;
    // Counting does not perturb the run, and both paths count the same.
    EXPECT_EQ(s.cycles, events[n].cycles) << n;
    EXPECT_EQ(s.instructions, events[n].instructions) << n;
    EXPECT_EQ(s.counts, events[n].counts) << n;
    u64 read = 0, written = 0, pending_reads = 0, pending_writes = 0;
    for (int p = 0; p < 3; ++p) {
      const std::string port = "PEVT_MU_PORT" + std::to_string(p) + "_";
      read +=
          32 * at(s, port + "32B_RD") + 64 * at(s, port + "64B_RD") + 128 * at(s, port + "128B_RD");
      written += 16 * at(s, port + "16B_WRT");
      // (The accesses spread over the three ports.)
      EXPECT_GT(at(s, port + "16B_WRT"), 0u) << n << " " << port;
      EXPECT_GT(at(s, port + "32B_RD") + at(s, port + "64B_RD") + at(s, port + "128B_RD"), 0u)
          << n << " " << port;
      pending_reads += at(s, port + "PEND_RD");
      pending_writes += at(s, port + "PEND_WRT");
    }
    // The reads cover every payload byte injected; the writes every packet stored to the
    // reception FIFO (its 32-byte header and its payload) and every put's payload.
    EXPECT_GE(read, s.unit.bytes_injected) << n;
    EXPECT_GE(written, 32 * s.unit.packets_received + s.unit.bytes_received + s.unit.put_bytes)
        << n;
    // Each request is pending at least a cycle in the L2 (a hit's latency); the cores polled
    // and drove the unit through its registers.
    EXPECT_GT(pending_reads, read / 128) << n;
    EXPECT_GT(pending_writes, written / 16) << n;
    EXPECT_GT(at(s, "PEVT_MU_SLV_PORT_RD"), 0u) << n;
    EXPECT_GT(at(s, "PEVT_MU_SLV_PORT_WRT"), 0u) << n;
  }
}

// In the warm-up mode the caches take the unit's lines untimed: the same requests, none pending.
TEST(MessageUnitPorts, UntimedRequestsAreTheSameAndNeverPending) {
  const std::vector<std::string> prefixes = {"PEVT_MU_PORT"};
  const auto timed =
      runCounting("bgq", "2x1x1x1x1", Counting::kEvents, RunMode::kTiming, prefixes, false);
  const auto untimed =
      runCounting("bgq", "2x1x1x1x1", Counting::kEvents, RunMode::kWarmup, prefixes, false);
  ASSERT_EQ(timed.size(), 2u);
  ASSERT_EQ(untimed.size(), 2u);
  for (u32 n = 0; n < 2; ++n) {
    u64 requests = 0;
    for (const auto& [name, count] : untimed[n].counts) {
      if (name.find("_PEND_") != std::string::npos) {
        EXPECT_EQ(count, 0u) << n << " " << name;
        EXPECT_GT(timed[n].counts.at(name), 0u) << n << " " << name;
      } else {
        requests += count;
      }
    }
    EXPECT_GT(requests, 0u) << n;
  }
}

// Blue Gene/P's DMA events: each counter equals its ground truth on both counting paths, each
// input high at most once a cycle; the packets received by type are the unit's, every payload
// line read was taken and returned, and the reception side's writes kept it active.
TEST(DmaPortCounters, EveryDmaSignalCountsOneACycleAndAgreesWithTheUnit) {
  for (Counting counting : {Counting::kStatistics, Counting::kEvents}) {
    const auto nodes = runCounting("bgp", "2x2x1", counting, RunMode::kTiming, {"DMA_"}, true);
    ASSERT_EQ(nodes.size(), 4u);
    for (u32 n = 0; n < nodes.size(); ++n) {
      const NodeCounts& c = nodes[n];
      EXPECT_EQ(c.counts.size(), 10u) << n;
      EXPECT_EQ(at(c, "DMA_FIFO_PACKETS_RECEIVED"), c.unit.packets_received) << n;
      EXPECT_EQ(at(c, "DMA_COUNTER_PACKETS_RECEIVED"), c.unit.put_packets) << n;
      EXPECT_EQ(at(c, "DMA_REMOTE_GET_PACKETS_RECEIVED"), c.unit.remote_gets) << n;
      EXPECT_GT(at(c, "DMA_COUNTER_PACKETS_RECEIVED"), 0u) << n;
      EXPECT_GT(at(c, "DMA_DESCRIPTORS_READ_FROM_L3"), 0u) << n;
      const u64 reads = at(c, "DMA_IDPU_READ_REQUESTS_TO_L3");
      EXPECT_GE(reads * 128, c.unit.bytes_injected) << n;
      EXPECT_EQ(at(c, "DMA_ACKED_READ_REQUESTS"), reads) << n;
      EXPECT_EQ(at(c, "DMA_READ_VALID_RETURNED"), reads) << n;
      EXPECT_GE(at(c, "DMA_WRITE_REQUESTS_TO_L3"), c.unit.packets_received + c.unit.put_packets)
          << n;
      EXPECT_GT(at(c, "DMA_CYCLES_RDPU_WRITE_ACTIVE"), at(c, "DMA_WRITE_REQUESTS_TO_L3")) << n;
    }
  }
}

}  // namespace
}  // namespace hpm::net
