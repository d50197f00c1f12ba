// A node's interfaces to Blue Gene/P's collective network and global barrier network
// (net/collective.h): the devices the guest maps at /dev/hpm/col (each virtual channel's
// injection and reception FIFOs, as BG/P's processor windows of the collective network) and
// /dev/hpm/gi (the global barrier's channels). guest/include/hpm/col.h says the same for C.
//
// /dev/hpm/col, per virtual channel v at v x kVcStride (64-bit registers; col:: offsets below):
// - DATA_INJ (w): appends 8 payload bytes to the injection payload FIFO; HDR_INJ (w): appends a
//   header (the low 32 bits) to the injection header FIFO. Each header with the next 256 payload
//   bytes is a packet, which goes to the router as it is complete. The FIFO holds
//   kColFifoPackets packets (headers, and payloads): a store that finds it full is dropped
//   (counted: injection_overflows), as the guest must read STATUS first.
// - DATA_REC (r): removes the next 8 bytes of the reception payload FIFO; HDR_REC (r): removes
//   the next reception header. A packet is in the FIFO whole, readable at the network's time;
//   it leaves once its header and payload are read; reading an empty FIFO gives 0 (counted:
//   reception_underruns). The FIFO holds kColFifoPackets packets: more wait in the network.
// - STATUS (r): injection payload bytes / 16 in bits 0-15, injection headers in 16-23,
//   reception payload bytes / 16 in 32-47, reception headers in 48-55 (packets the router has
//   not taken count in the injection fields until their tails left the FIFO, as the network
//   says at each window of a many-node run).
// Global registers: NODE, NODES, PAYLOAD_BYTES (256), MPI (collective.mpi), NOTIFY_ADDR (rw:
// a 64-bit word the unit writes EVENTS to after each change, waking futex waiters on it; 0:
// none) and EVENTS (packets that became readable plus global barriers completed).
// /dev/hpm/gi: ARM (w, channel c at 8c) sets this node's bit of channel c's wired AND, entering
// its next barrier (while the bit is set, until the barrier completes, an ARM changes nothing);
// DONE (r, at kGiDone + 8c) is the number of barriers of channel c completed by now.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "kernel/device.h"
#include "net/collective.h"
#include "stats/probe.h"

namespace hpm {
class Kernel;
}

namespace hpm::net {

// The devices' guest interface (the one declaration; guest/include/hpm/col.h is held to it).
namespace col {
inline constexpr u64 kVcStride = 0x100;
inline constexpr u64 kDataInj = 0x00, kHdrInj = 0x08, kDataRec = 0x10, kHdrRec = 0x18,
                     kStatus = 0x20;
inline constexpr u64 kNode = 0x800, kNodes = 0x808, kPayloadBytes = 0x810, kMpi = 0x818,
                     kNotifyAddr = 0x820, kEvents = 0x828;
inline constexpr u64 kGiArm = 0x00, kGiDone = 0x40;
// STATUS's fields: injection payload bytes / 16, injection headers, reception payload bytes /
// 16, reception headers, at these bits (16, 8, 16 and 8 bits wide).
inline constexpr u32 kStatusInjQuads = 0, kStatusInjHeaders = 16, kStatusRecQuads = 32,
                     kStatusRecHeaders = 48;
}  // namespace col

// What the unit did, per virtual channel (the ColInject... and ColReception... events' ground
// truth).
struct CollectiveUnitStats {
  std::array<u64, kColVcs> headers_injected{};
  std::array<u64, kColVcs> quads_injected{};    // 16-byte quadwords of payload stored
  std::array<u64, kColVcs> packets_injected{};  // complete packets sent to the router
  std::array<u64, kColVcs> packets_received{};  // packets added to the reception FIFO
  std::array<u64, kColVcs> headers_taken{};     // reception headers read
  std::array<u64, kColVcs> quads_taken{};       // 16-byte quadwords of payload read
  u64 injection_overflows = 0;                  // stores dropped: the FIFO was full
  u64 reception_underruns = 0;                  // reads of an empty FIFO
  u64 reserved_writes = 0;                      // writes to offsets with no register
  u64 barriers_armed = 0;
};

class CollectiveUnit final : public DeviceProvider {
 public:
  static constexpr std::string_view kColPath = "/dev/hpm/col", kGiPath = "/dev/hpm/gi";

  // `now` gives the cycle of the instruction making a register access; `inject` takes each
  // complete packet with the cycle it was complete; `arm` each barrier arm (channel, cycle).
  CollectiveUnit(u32 node, u32 nodes, const CollectiveParams& params, Kernel& kernel,
                 std::function<Cycle()> now, std::function<void(ColPacket, Cycle)> inject,
                 std::function<void(u32, Cycle)> arm);

  // A packet for the reception FIFO of its channel, readable at `when` (not before the node's
  // next slice: the caller's windows guarantee it).
  void receive(Cycle when, ColPacket packet);
  // Barrier number `count` of `channel` completed at `when` (same guarantee).
  void barrierDone(u32 channel, u64 count, Cycle when);
  // At a window's start: the packets the router has taken from the injection FIFO of `vc` and
  // whose tails have left it, so far.
  void setInjectionFreed(u8 vc, u64 freed) { freed_[vc] = freed; }
  // Packets the reception FIFO of `vc` can still take (those on their way count as taken).
  u32 receptionRoom(u8 vc) const;

  const CollectiveUnitStats& stats() const { return stats_; }
  static std::span<const probe::TruthRow<CollectiveUnit>> truthTable();
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    return probe::truthOf(truthTable(), *this, e, instance);
  }

  // DeviceProvider: device 0 is /dev/hpm/col, 1 /dev/hpm/gi; both on BG/P's network bus.
  int findDevice(std::string_view path) const override;
  u64 windowBytes(int) const override { return 4096; }
  probe::DeviceBus bus(int) const override { return probe::DeviceBus::kNetwork; }
  u64 readRegister(int device, u64 offset) override;
  void writeRegister(int device, u64 offset, u64 value) override;
  void setInterruptTarget(int, int, int) override {}

 private:
  struct Received {
    u32 header = 0;
    std::array<u8, kColPayloadBytes> payload{};
    bool header_taken = false;
    u32 read = 0;  // payload bytes read
  };
  struct Channel {
    std::deque<u32> headers;  // injected headers not yet part of a packet
    std::vector<u8> payload;  // injected payload bytes not yet part of a packet
    std::deque<Received> received;
    u32 landing = 0;  // packets delivered to the unit, not yet readable
  };

  // Packets the router holds from this channel's injection FIFO.
  u64 held(u8 vc) const { return stats_.packets_injected[vc] - freed_[vc]; }
  void formPackets(u8 vc, Cycle now);
  u64 readData(u8 vc);
  u64 readHeader(u8 vc);
  u64 status(u8 vc) const;
  void changed(Cycle when);  // EVENTS grows: written to NOTIFY_ADDR, futex waiters woken
  void pulse(probe::Event e, u8 vc, Cycle at);

  u32 node_, nodes_;
  CollectiveParams params_;
  Kernel& kernel_;
  std::function<Cycle()> now_;
  std::function<void(ColPacket, Cycle)> inject_;
  std::function<void(u32, Cycle)> arm_;
  std::array<Channel, kColVcs> channels_;
  std::array<u64, kColVcs> freed_{};
  std::array<u64, 4> barriers_done_{};
  u64 notify_addr_ = 0;
  u64 events_ = 0;
  CollectiveUnitStats stats_;
};

}  // namespace hpm::net
