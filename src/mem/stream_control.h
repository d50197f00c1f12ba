// A core's L1P stream prefetcher as its user control register sets it: BG/Q's L1P_CFG_PF_USR
// (hwi/include/bqc/l1p_mmio.h: the user-mode register at L1P base + 0x108), reached by the guest
// through the L1P's register window (node/l1p_device.h) and BG/Q's SPI calls of
// spi/include/l1p/sprefetch.h (guest/include/l1p/sprefetch.h). docs/timing.md "The stream
// prefetcher" gives the rules the fields drive.
//
// Facts from l1p_mmio.h and sprefetch.h: dfetch_depth (3 bits) holds the depth a stream is
// established with, less one (1 to 8 lines); dfetch_max_footprint (4 bits) the lines the stream
// prefetcher may use in all, less one (1 to 16); pf_stream_prefetch_enable,
// pf_stream_establish_enable, pf_stream_optimistic and pf_stream_est_on_dcbt make the policy
// (disable clears the first two; optimistic sets the third; confirmed_or_dcbt the fourth);
// pf_adaptive_enable turns the depth adaptation on. BG/Q's firmware (fw_l1p_init) starts each
// core with depth 3, 8 lines in all, est_on_dcbt, prefetch, establish and adaptive enabled,
// ifetch_max_footprint 2 and pf_adaptive_throttle 0xF.
#pragma once

#include <algorithm>

#include "base/types.h"
#include "mem/mem_params.h"

namespace hpm::mem {

// The register's contract (guest/include/hpm/l1p.h restates it for guest code;
// tests/mem/stream_prefetcher_test.cpp holds the two equal). IBM's bit b of the 64-bit register
// is bit 63 - b here.
namespace l1pcfg {
inline constexpr u64 kPfUsr = 0x108;    // the register's offset in the L1P window
inline constexpr u32 kDepthShift = 21;  // dfetch_depth, _B3(42): initial depth - 1
inline constexpr u64 kDepthMask = 0x7;
inline constexpr u32 kTotalShift = 17;  // dfetch_max_footprint, _B4(46): total depth - 1
inline constexpr u64 kTotalMask = 0xf;
inline constexpr u32 kIfetchDepthShift = 14;          // ifetch_depth, _B3(49) (kept, not modelled)
inline constexpr u32 kIfetchTotalShift = 10;          // ifetch_max_footprint, _B4(53) (kept)
inline constexpr u64 kEstOnDcbt = u64{1} << 9;        // pf_stream_est_on_dcbt, bit 54
inline constexpr u64 kOptimistic = u64{1} << 8;       // pf_stream_optimistic, bit 55
inline constexpr u64 kPrefetchEnable = u64{1} << 7;   // pf_stream_prefetch_enable, bit 56
inline constexpr u64 kEstablishEnable = u64{1} << 6;  // pf_stream_establish_enable, bit 57
inline constexpr u64 kListEnable = u64{1} << 5;       // pf_list_enable, bit 58 (kept)
inline constexpr u64 kAdaptiveEnable = u64{1} << 4;   // pf_adaptive_enable, bit 59
inline constexpr u64 kThrottleMask = 0xf;             // pf_adaptive_throttle, _B4(63) (kept)
// Bits 40 to 63 (IBM) are the register's; those above are reserved: they read as zero and a
// write leaves them so, as in the project's other register windows.
inline constexpr u64 kDefined = (u64{1} << 24) - 1;
// The fields the model keeps only so that they read back as written.
inline constexpr u64 kKept = (kDepthMask << kIfetchDepthShift) | (kTotalMask << kIfetchTotalShift) |
                             kEstOnDcbt | kListEnable | kThrottleMask;
// ... as BG/Q's firmware sets them: ifetch_max_footprint 2, est_on_dcbt, throttle 0xF.
inline constexpr u64 kFirmwareKept = (u64{2} << kIfetchTotalShift) | kEstOnDcbt | kThrottleMask;
inline constexpr u32 kMaxDepth = kDepthMask + 1;  // the field's largest initial depth
inline constexpr u32 kMaxTotal = kTotalMask + 1;  // ... and total depth
}  // namespace l1pcfg

struct StreamControl {
  bool prefetch = false;    // established streams prefetch (pf_stream_prefetch_enable)
  bool establish = false;   // misses establish new streams (pf_stream_establish_enable)
  bool optimistic = false;  // ... every miss that continues none (pf_stream_optimistic)
  bool adaptive = false;    // depth adaptation (pf_adaptive_enable)
  u32 depth = 1;            // lines a stream runs ahead when it is established
  u32 total = 1;            // the adaptation's budget of lines, and one stream's most
  u64 kept = 0;             // the other fields (l1pcfg::kKept), as written

  // A core's register at the start: the machine's parameters, the other fields the firmware's.
  static StreamControl fromParams(const L1pParams& p) {
    StreamControl c;
    c.prefetch = c.establish = p.prefetch;
    c.optimistic = p.stream_policy == StreamPolicy::kOptimistic;
    c.adaptive = p.adaptive;
    c.depth = p.prefetch_depth;
    c.total = p.total_depth;
    c.kept = l1pcfg::kFirmwareKept;
    return c;
  }
  // The register's value. Parameters beyond the fields' ranges (an exploration's) read as the
  // largest value each field holds.
  u64 read() const {
    using namespace l1pcfg;
    return (u64{std::min(depth, kMaxDepth) - 1} << kDepthShift) |
           (u64{std::min(total, kMaxTotal) - 1} << kTotalShift) | kept |
           (prefetch ? kPrefetchEnable : 0) | (establish ? kEstablishEnable : 0) |
           (optimistic ? kOptimistic : 0) | (adaptive ? kAdaptiveEnable : 0);
  }
  void write(u64 value) {
    using namespace l1pcfg;
    depth = static_cast<u32>((value >> kDepthShift) & kDepthMask) + 1;
    total = static_cast<u32>((value >> kTotalShift) & kTotalMask) + 1;
    prefetch = (value & kPrefetchEnable) != 0;
    establish = (value & kEstablishEnable) != 0;
    optimistic = (value & kOptimistic) != 0;
    adaptive = (value & kAdaptiveEnable) != 0;
    kept = value & kKept;
  }
};

}  // namespace hpm::mem
