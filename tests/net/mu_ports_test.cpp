// The message unit's ports (net/mu_ports.h): how an access is cut into BG/Q's master-port
// requests (reads of 32, 64 and 128 bytes, 16-byte writes), which port takes it, how long its
// requests are pending, the slave port's requests, and Blue Gene/P's DMA signals, one a cycle.
#include "net/mu_ports.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

namespace hpm::net {
namespace {

using Reads = std::vector<std::pair<u64, u64>>;  // (address, size)

Reads readsOf(u64 addr, u64 bytes) {
  Reads out;
  readRequests(addr, bytes, [&](u64 a, u64 size) { out.emplace_back(a, size); });
  return out;
}

std::vector<u64> writesOf(u64 addr, u64 bytes) {
  std::vector<u64> out;
  writeRequests(addr, bytes, [&](u64 a) { out.push_back(a); });
  return out;
}

TEST(MuPortRequests, AnAlignedRunIsReadByTheLargestAlignedRequestsThatFit) {
  EXPECT_EQ(readsOf(0x1000, 512),
            (Reads{{0x1000, 128}, {0x1080, 128}, {0x1100, 128}, {0x1180, 128}}));
  EXPECT_EQ(readsOf(0x1000, 64), (Reads{{0x1000, 64}}));  // a descriptor
  EXPECT_EQ(readsOf(0x1040, 64), (Reads{{0x1040, 64}}));
  EXPECT_EQ(readsOf(0x1000, 96), (Reads{{0x1000, 64}, {0x1040, 32}}));
  // From a 32-byte boundary: 32, then 64, then 128 as alignment allows.
  EXPECT_EQ(readsOf(0x1020, 224), (Reads{{0x1020, 32}, {0x1040, 64}, {0x1080, 128}}));
}

TEST(MuPortRequests, AReadCoversTheWholeThirtyTwoByteBlocksItsBytesTouch) {
  EXPECT_EQ(readsOf(0x1010, 100), (Reads{{0x1000, 128}}));  // 0x1000..0x1080
  EXPECT_EQ(readsOf(0x101f, 2), (Reads{{0x1000, 64}}));     // two blocks: one 64-byte read
  EXPECT_EQ(readsOf(0x1007, 1), (Reads{{0x1000, 32}}));
  EXPECT_TRUE(readsOf(0x1000, 0).empty());
}

TEST(MuPortRequests, AWriteIsOneRequestPerSixteenByteGranuleItTouches) {
  EXPECT_EQ(writesOf(0x2000, 8), (std::vector<u64>{0x2000}));  // a tail word or a counter
  EXPECT_EQ(writesOf(0x2008, 16), (std::vector<u64>{0x2000, 0x2010}));
  EXPECT_EQ(writesOf(0x2000, 544).size(), 34u);  // a 512-byte packet and its 32-byte header
  EXPECT_TRUE(writesOf(0x2000, 0).empty());
}

// One line's times, as the memory system gives them.
std::vector<MuPorts::Line> line(u64 addr, Cycle taken, Cycle done) {
  return {{addr, taken, done}};
}

// A MuPorts with no bus whose scheduled actions run when `run` says.
struct Harness {
  std::multimap<Cycle, std::function<void(Cycle)>> due;
  MuPorts ports;
  explicit Harness(MuPorts::Family family)
      : ports(
            family, [] { return nullptr; },
            [this](Cycle t, std::function<void(Cycle)> action) {
              due.emplace(t, std::move(action));
            }) {}
  void run() {
    for (auto& [t, action] : due) action(t);
    due.clear();
  }
};

TEST(MuPorts, ReadsAndWritesAreDealtToTheThreeMasterPortsInTurn) {
  Harness h(MuPorts::Family::kMessageUnit);
  for (int i = 0; i < 4; ++i) h.ports.access(0x1000, 128, 10, false, MuAccess::kData, {});
  for (int i = 0; i < 2; ++i) h.ports.access(0x2000, 32, 10, true, MuAccess::kData, {});
  EXPECT_EQ(h.ports.port(0).reads128, 2u);  // the 1st and the 4th read
  EXPECT_EQ(h.ports.port(1).reads128, 1u);
  EXPECT_EQ(h.ports.port(2).reads128, 1u);
  EXPECT_EQ(h.ports.port(0).writes, 2u);  // writes have their own turn: the 1st on port 0
  EXPECT_EQ(h.ports.port(1).writes, 2u);
  EXPECT_EQ(h.ports.port(2).writes, 0u);
}

TEST(MuPorts, EachRequestIsPendingFromItsIssueToItsLinesCompletion) {
  Harness h(MuPorts::Family::kMessageUnit);
  // 256 bytes over two 128-byte lines: one hit ready at 110, one miss at 400.
  const std::vector<MuPorts::Line> lines = {{0x1000, 100, 110}, {0x1080, 100, 400}};
  h.ports.access(0x1000, 256, 100, false, MuAccess::kData, lines);
  EXPECT_EQ(h.ports.port(0).reads128, 2u);
  EXPECT_EQ(h.ports.port(0).pending_reads, (110u - 100) + (400 - 100));
  // Three 16-byte writes into the first line, done at 150.
  h.ports.access(0x1000, 48, 100, true, MuAccess::kData, line(0x1000, 100, 150));
  EXPECT_EQ(h.ports.port(0).writes, 3u);
  EXPECT_EQ(h.ports.port(0).pending_writes, 3u * 50);
  // Untimed (no lines): requests complete at once.
  h.ports.access(0x1000, 256, 100, false, MuAccess::kData, {});
  EXPECT_EQ(h.ports.port(1).reads128, 2u);
  EXPECT_EQ(h.ports.port(1).pending_reads, 0u);
}

TEST(MuPorts, TheSlavePortCountsTheCoresRegisterAccessesOnly) {
  Harness h(MuPorts::Family::kMessageUnit);
  h.ports.signal(MuSignal::kRegisterRead, 5);
  h.ports.signal(MuSignal::kRegisterRead, 5);
  h.ports.signal(MuSignal::kRegisterWrite, 6);
  h.ports.signal(MuSignal::kFifoPacket, 7);  // (the IOUnit's own packet events count these)
  EXPECT_EQ(h.ports.slaveReads(), 2u);
  EXPECT_EQ(h.ports.slaveWrites(), 1u);
  EXPECT_EQ(h.ports.dma().fifo_packets, 0u);
  EXPECT_EQ(h.ports.groundTruth(probe::Event::kMuSlaveReads, 0), 2u);
}

TEST(DmaSignals, SeveralInOneCycleArePublishedOneACycleAtTheirOwnCycles) {
  Harness h(MuPorts::Family::kDma);
  std::vector<Cycle> at;
  // Two reads of two lines each in cycle 50: four line requests, at 50, 51, 52, 53.
  h.ports.access(0x1000, 256, 50, false, MuAccess::kData, {});
  h.ports.access(0x2000, 256, 50, false, MuAccess::kData, {});
  for (const auto& [t, action] : h.due) at.push_back(t);
  h.run();
  EXPECT_EQ(h.ports.dma().read_requests, 4u);
  EXPECT_EQ(h.ports.dma().reads_acked, 4u);
  EXPECT_EQ(h.ports.dma().reads_returned, 4u);
  // Three signals per line, each signal's at 50..53.
  std::map<Cycle, int> per_cycle;
  for (Cycle t : at) ++per_cycle[t];
  EXPECT_EQ(per_cycle, (std::map<Cycle, int>{{50, 3}, {51, 3}, {52, 3}, {53, 3}}));
  // Two packets landing in one cycle: the second a cycle later; a descriptor read alone.
  h.ports.signal(MuSignal::kFifoPacket, 90);
  h.ports.signal(MuSignal::kFifoPacket, 90);
  h.ports.access(0x3000, 64, 90, false, MuAccess::kDescriptor, {});
  std::vector<Cycle> fifo;
  for (const auto& [t, action] : h.due) fifo.push_back(t);
  EXPECT_EQ(fifo, (std::vector<Cycle>{90, 90, 91}));
  h.run();
  EXPECT_EQ(h.ports.dma().fifo_packets, 2u);
  EXPECT_EQ(h.ports.dma().descriptors, 1u);
  EXPECT_EQ(h.ports.dma().read_requests, 4u);  // (a descriptor is not a payload read)
}

TEST(DmaSignals, WriteActiveCyclesAreTheUnionOfTheWritesPendingIntervals) {
  Harness h(MuPorts::Family::kDma);
  h.ports.access(0x1000, 128, 100, true, MuAccess::kData, line(0x1000, 100, 180));
  h.ports.access(0x2000, 128, 120, true, MuAccess::kData, line(0x2000, 120, 200));  // overlaps
  h.ports.access(0x3000, 128, 150, true, MuAccess::kData, line(0x3000, 150, 170));  // inside
  h.ports.access(0x4000, 128, 300, true, MuAccess::kData, line(0x4000, 300, 310));  // apart
  h.run();
  EXPECT_EQ(h.ports.dma().write_active_cycles, (200u - 100) + (310 - 300));
  EXPECT_EQ(h.ports.dma().write_requests, 4u);
}

}  // namespace
}  // namespace hpm::net
