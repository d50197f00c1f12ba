// The message unit's ports to the memory system: the transactions the hardware makes of the
// unit's memory accesses (MessageUnit::onMemory) and the cores' accesses to its registers
// (MessageUnit::onSignal), published as probe events (docs/network.md, "The message unit's
// ports").
//
// Blue Gene/Q (the MU): three master ports to the crossbar switch and one slave port (BG/Q's MU
// DCRs reset and report "master port 0/1/2" and the "slave port" apart: bgq-driver
// hwi/include/bqc/mu_dcr.h; BGPM's MU event tips, bgpm/docs/bgpm_event_tips.h). A port reads in
// requests of 32, 64 or 128 bytes ("three load data sizes that the MU supports") and writes in
// 16-byte requests ("the number of 16B writes from the MU over the crossbar switch to the shared
// L2 caches"); the slave port takes the cores' loads and stores of the unit's registers (BGPM:
// "Slave port has received a read request"). Which of the 16 injection and 16 reception
// engines uses which master port no public source says [E]: the model deals the unit's accesses
// to the ports in turn (its reads in one rotation, its writes in another), as the hardware's
// engines, working in parallel, spread over the three. A read covers the 32-byte blocks its
// bytes touch, each aligned run of them read by the largest aligned request that fits; a write
// is one request per 16-byte granule it touches (readRequests, writeRequests). "Pending"
// requests (BGPM: "Number of read requests pending in master port 0") count, per cycle, the
// requests issued and not completed: each request adds its cycles from its issue to its line's
// completion in the node's L2 (mem::DeviceLineTimes: the model's latencies as the caches see
// the access; none untimed), counted at its issue, as the L2's busy cycles are per request.
// The model's cycles are the cores'; BG/Q's MU runs at half their clock (BGPM's tips), which
// the model does not model (its pending counts are in core cycles).
//
// Blue Gene/P (the DMA): its UPC-P events are one-bit inputs, so each signal is published one
// a cycle, as the DMA's port serializes them: the k-th of a cycle at that cycle + k, after the
// signal's previous one (as the torus's chunks, Cluster NwDynamicChunkLeft...); and since the
// bus counts a pulse at its own clock, which may be past the cycle the signal was due, one that
// would fall in the cycle of the signal's previous one waits a cycle more. Descriptors read
// (DMA_DESCRIPTORS_READ_FROM_L3), packets received by type (FIFO, counter = direct put, remote
// get), and the L3 line requests of the injection side's payload reads (DMA_IDPU_READ_REQUESTS_
// TO_L3 at the read, _ACKED_ when the L3 took it, _READ_VALID_RETURNED_ at its data) and of the
// reception side's writes (DMA_WRITE_REQUESTS_TO_L3; DMA_CYCLES_RDPU_WRITE_ACTIVE, the cycles
// some write is pending: from its request to its line's completion). The DMA's requests go to
// the L3 line by line (its R2 read port and W0 write port, docs/timing.md) [E: the DMA's request
// size is not public]. Each signal's statistic grows when the signal is published: the events'
// ground truth (truthTable).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <span>

#include "base/types.h"
#include "net/message_unit.h"
#include "stats/probe.h"

namespace hpm::net {

// BG/Q's master ports, and the sizes of their requests.
inline constexpr u32 kMuMasterPorts = 3;
inline constexpr u64 kMuReadBlock = 32, kMuLargestRead = 128, kMuWriteGranule = 16;

// Calls f(address, size) for each read request a master port makes to read [addr, addr +
// bytes), in address order: sizes 32, 64 or 128, each aligned to its size.
template <class F>
void readRequests(u64 addr, u64 bytes, F&& f) {
  if (bytes == 0) return;
  u64 at = addr / kMuReadBlock * kMuReadBlock;
  const u64 end = (addr + bytes + kMuReadBlock - 1) / kMuReadBlock * kMuReadBlock;
  while (at < end) {
    u64 size = kMuLargestRead;
    while (size > kMuReadBlock && (at % size != 0 || at + size > end)) size /= 2;
    f(at, size);
    at += size;
  }
}

// Calls f(address) for each 16-byte write request of [addr, addr + bytes), in address order.
template <class F>
void writeRequests(u64 addr, u64 bytes, F&& f) {
  if (bytes == 0) return;
  const u64 end = addr + bytes;
  for (u64 at = addr / kMuWriteGranule * kMuWriteGranule; at < end; at += kMuWriteGranule) f(at);
}

// What one master port did (the PEVT_MU_PORT<p>_... events' ground truth).
struct MuPortStats {
  u64 writes = 0;   // 16-byte write requests
  u64 reads32 = 0;  // read requests by size
  u64 reads64 = 0;
  u64 reads128 = 0;
  u64 pending_writes = 0;  // write requests x cycles pending
  u64 pending_reads = 0;   // read requests x cycles pending
};

// What Blue Gene/P's DMA signals counted (the DMA_... events' ground truth), each when published.
struct DmaPortStats {
  u64 descriptors = 0;
  u64 fifo_packets = 0;
  u64 put_packets = 0;
  u64 remote_gets = 0;
  u64 read_requests = 0;
  u64 reads_acked = 0;
  u64 reads_returned = 0;
  u64 write_requests = 0;
  u64 write_active_cycles = 0;
};

class MuPorts {
 public:
  // One line of an access as the node's memory system took it (mem::DeviceLineTimes, which the
  // caller copies: src/net does not depend on src/mem): its first byte's address, when the L2
  // took it and when it was done.
  struct Line {
    u64 addr = 0;
    Cycle taken = 0;
    Cycle done = 0;
  };
  // Whose ports: BG/Q's message unit (MuPort... events) or Blue Gene/P's DMA (Dma... signals).
  enum class Family : u8 { kMessageUnit, kDma };
  // `bus` gives the node's probe bus (may return null); `at(t, action)` runs action at cycle t
  // (>= the current one: Kernel::at).
  MuPorts(Family family, std::function<probe::Bus*()> bus,
          std::function<void(Cycle, std::function<void(Cycle)>)> at);

  // One memory access of the unit at cycle `at` (MessageUnit::onMemory), with its lines' times
  // (empty: untimed, each request completes at once).
  void access(u64 addr, u64 bytes, Cycle at, bool write, MuAccess what,
              std::span<const Line> lines);
  void signal(MuSignal s, Cycle at);

  const MuPortStats& port(u32 p) const { return ports_[p]; }
  u64 slaveReads() const { return slave_reads_; }
  u64 slaveWrites() const { return slave_writes_; }
  const DmaPortStats& dma() const { return dma_; }

  static std::span<const probe::TruthRow<MuPorts>> truthTable();
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    return probe::truthOf(truthTable(), *this, e, instance);
  }

 private:
  // Blue Gene/P's one-bit signals, each serialized one a cycle.
  enum Dma : u8 {
    kDescriptor,
    kFifoPacket,
    kPutPacket,
    kRemoteGet,
    kReadRequest,
    kReadAcked,
    kReadReturned,
    kWriteRequest,
    kDmaSignals
  };
  void portAccess(u64 addr, u64 bytes, Cycle at, bool write, std::span<const Line> lines);
  void dmaAccess(u64 addr, u64 bytes, Cycle at, bool write, MuAccess what,
                 std::span<const Line> lines);
  // Publishes one of signal `s` at the first cycle >= t after its previous one.
  void dmaPulse(Dma s, Cycle t);
  // Counts one of `s`, due at `when`, at the bus's cycle (the bus counts at its clock, which may
  // be past `when`), or later if that cycle has one of `s` already.
  void publishDma(Dma s, Cycle when);
  void count(probe::Event e, u64& stat, u64 n, Cycle at);
  static constexpr std::array<Cycle, kDmaSignals> filled(Cycle c) {
    std::array<Cycle, kDmaSignals> a{};
    a.fill(c);
    return a;
  }

  Family family_;
  std::function<probe::Bus*()> bus_;
  std::function<void(Cycle, std::function<void(Cycle)>)> at_;
  std::array<MuPortStats, kMuMasterPorts> ports_{};
  u32 next_read_port_ = 0, next_write_port_ = 0;
  u64 slave_reads_ = 0, slave_writes_ = 0;
  DmaPortStats dma_;
  std::array<Cycle, kDmaSignals> dma_next_{};  // each signal's first free cycle
  static constexpr Cycle kNever = ~Cycle{0};
  std::array<Cycle, kDmaSignals> dma_counted_ = filled(kNever);  // the cycle of each one's last
  Cycle write_active_until_ = 0;  // the end of the write-active cycles published
};

}  // namespace hpm::net
