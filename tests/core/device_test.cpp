// Device registers (docs/timing.md "Device registers"): a counter unit's register window is
// uncached and guarded, as on Blue Gene. A load's value comes device_latency cycles after it
// issues; a store is posted; neither takes a cache, the load-miss queue, the store queue or the
// L2, and no statistic of those counts them.
#include <vector>

#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

constexpr u64 kWindow = 0x40000000;  // the device's pages: [kWindow, kWindow + 4 pages)

// A page table of 2^20 pages of 4 KiB in which the four pages at kWindow are device pages.
struct Pages {
  std::vector<u8> table = std::vector<u8>(u64{1} << 20, 0);
  Pages() {
    for (u64 p = 0; p < 4; ++p) table[(kWindow >> 12) + p] = 8;
  }
  NodeTiming::DevicePages view() const { return {table.data(), table.size(), 12, 8}; }
};

// A chase of `n` dependent device loads (ld x5, 0(x5)) and the loop branch.
Stream deviceChase(u32 n, u64 iterations) {
  Loop l;
  for (u32 i = 0; i < n; ++i) l.body.push_back(ld(5, 5, 0));
  l.body.push_back(bne(30, 0, -4 * static_cast<i32>(n)));
  l.addr = [](u64, u32) { return kWindow; };
  l.iterations = iterations;
  return unroll(l);
}

TEST(DeviceRegisters, ALoadsValueArrivesDeviceLatencyCyclesAfterItIssues) {
  for (u32 latency : {40u, 17u}) {
    TimingParams p = oneThread();
    p.core.ibuffer_entries = 16;
    p.core.device_latency = latency;
    NodeTiming m(p);
    const Pages pages;
    m.setDevicePages(pages.view());
    const Stream s = deviceChase(8, 72);
    const std::vector<Cycle> at = runOne(m, 0, s.steps);
    // Every iteration, from the first: no cache warms up for a device.
    EXPECT_EQ(span(s, at, 1, 71), 70u * 8 * latency) << latency;
    EXPECT_EQ(span(s, at, 0, 1), 8u * latency) << latency;
  }
}

TEST(DeviceRegisters, AccessesTakeNoCacheNoQueueAndNoL2) {
  TimingParams p = oneThread();
  NodeTiming m(p);
  const Pages pages;
  m.setDevicePages(pages.view());
  // 40 device stores in a row (more than the store queue's 20 entries: none stalls) and 40
  // device loads (more than the load-miss queue's 8), each of its own register.
  std::vector<Step> steps;
  u64 pc = 0x10000;
  for (u32 i = 0; i < 40; ++i, pc += 4)
    steps.push_back({dec(sd(6, 7, 0)), pc, pc + 4, kWindow + 8 * i});
  for (u32 i = 0; i < 40; ++i, pc += 4)
    steps.push_back({dec(ld(6, 7, 0)), pc, pc + 4, kWindow + 8 * i});
  const std::vector<Cycle> at = runOne(m, 0, steps);
  // They issue as the same code without memory accesses does, limited by its fetch only: no
  // queue holds any of them.
  NodeTiming fetch_only(p);
  std::vector<Step> adds = steps;
  for (Step& s : adds) s = {dec(addi(6, 7, 0)), s.pc, s.next_pc, 0};
  EXPECT_EQ(at, runOne(fetch_only, 0, adds));
  const auto j = statsJson(m);
  const auto& core = j["cores"][0];
  EXPECT_EQ(core["device_accesses"].get<u64>(), 80u);
  EXPECT_EQ(core["sq_allocations"].get<u64>(), 0u);
  EXPECT_EQ(core["lmq_allocations"].get<u64>(), 0u);
  for (const char* cache : {"l1d", "l1p"}) {
    for (const auto& [key, value] : core[cache].items()) {
      EXPECT_EQ(value.get<u64>(), 0u) << cache << "." << key;
    }
  }
  // The L2 and the DDR see only the instruction fetches, as for the code without memory
  // accesses.
  const auto f = statsJson(fetch_only);
  EXPECT_EQ(core["traffic"], f["cores"][0]["traffic"]);
  u64 requests = 0, fetch_requests = 0;
  for (const auto& slice : j["l2_slices"]) requests += slice["requests"].get<u64>();
  for (const auto& slice : f["l2_slices"]) fetch_requests += slice["requests"].get<u64>();
  EXPECT_EQ(requests, fetch_requests);
  EXPECT_GT(fetch_requests, 0u);
  // The same accesses to memory would have used them all.
  NodeTiming plain(p);
  runOne(plain, 0, steps);
  const auto k = statsJson(plain);
  EXPECT_EQ(k["cores"][0]["device_accesses"].get<u64>(), 0u);
  EXPECT_EQ(k["cores"][0]["sq_allocations"].get<u64>() + k["cores"][0]["sq_combined"].get<u64>(),
            40u);
  EXPECT_EQ(k["cores"][0]["l1d"]["accesses"].get<u64>(), 80u);
}

TEST(DeviceRegisters, WarmupModeTouchesNoCacheEither) {
  NodeTiming m(oneThread());
  const Pages pages;
  m.setDevicePages(pages.view());
  u64 pc = 0x10000;
  for (u32 i = 0; i < 10; ++i, pc += 4) m.warmup(0, dec(ld(6, 7, 0)), pc, kWindow);
  const auto j = statsJson(m);
  EXPECT_EQ(j["cores"][0]["device_accesses"].get<u64>(), 10u);
  EXPECT_EQ(j["cores"][0]["l1d"]["accesses"].get<u64>(), 0u);
}

}  // namespace
}  // namespace hpm::timing::test
