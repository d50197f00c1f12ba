// A node's message unit (BG/Q's MU, seed 001's IOUnit Message module): the device the guest
// maps at /dev/hpm/mu to send packets to other nodes and receive theirs. It moves bytes between
// the nodes' memories at the network model's times.
//
// Register window (64-bit registers; docs/network.md):
//   0x000 RANK        r   this node's id            0x008 NODES      r  nodes in the torus
//   0x010 DIMENSIONS  r   torus dimensions          0x018 SHAPE      r  size of dimension d in
//   0x020 COORDS      r   coordinate of dim d in        bits 8d..8d+7 (SHAPE and COORDS)
//   0x028 MAX_PAYLOAD r   largest payload of a packet
//   0x030 HEADER_BYTES r  bytes of a packet's header in the reception FIFO
//   0x100 INJ_BASE    rw  guest address of the injection FIFO (64-byte descriptors)
//   0x108 INJ_ENTRIES rw  its descriptors
//   0x110 INJ_TAIL    rw  descriptors posted so far (a count; writing it injects the new ones)
//   0x118 INJ_DONE    r   descriptors whose packets have all left for the network by now
//   0x120 INJ_ERRORS  r   descriptors refused (destination not a node, payload unreadable)
//   0x200 REC_BASE    rw  guest address of the reception FIFO (bytes, 32-byte aligned)
//   0x208 REC_BYTES   rw  its size (a multiple of 32)
//   0x210 REC_TAIL_ADDR rw guest address of a 64-bit word the unit writes its tail to (0: none)
//   0x218 REC_HEAD    rw  bytes the guest has consumed so far (a count; writing it frees space)
//   0x220 REC_TAIL    r   bytes the unit has written so far (a count)
// Other offsets read 0 and ignore writes (counted: reservedWrites).
//
// A descriptor (64 bytes): u32 destination node, u32 flags, u64 payload address, u64 payload
// bytes, 16 bytes the unit copies into every memory-FIFO packet's header, u64 put address, u64
// put counter address, 8 bytes zero. Flags: bit 0 dynamic routing, bit 1 the priority channel,
// bit 4 the system channel (both deterministic routing; at most one of bits 0, 1 and 4), bits
// 2-3 the packet type: 0 memory FIFO, 1 direct put, 2 remote get; other bits zero. A descriptor
// breaking these rules is refused (INJ_ERRORS). The unit cuts the payload into packets of at most
// MAX_PAYLOAD bytes (one packet when it is empty).
// - Memory FIFO: the packet lands in the destination's reception FIFO as a header of
//   HEADER_BYTES (u32 source node, u32 payload bytes, u64 offset of the payload in its message,
//   the descriptor's 16 bytes, zeros) and the payload, padded to 32 bytes. A packet that would
//   cross the FIFO's end is preceded by a skip header (payload bytes 0xffffffff) filling the
//   rest, and starts at the beginning. Packets that find the FIFO full wait in the unit, in
//   arrival order, until REC_HEAD frees room (the reception FIFO's back-pressure).
// - Direct put: the destination's unit writes the payload at put address + its offset in the
//   message and subtracts its bytes from the 64-bit counter at the put counter address (0: none),
//   waking futex waiters on it (BG/Q's reception counters count down to zero).
// - Remote get: the payload is one or more descriptors (a multiple of 64 bytes); the
//   destination's unit injects them as its own (typically a direct put back to the asker), at
//   the packet's arrival; they do not move INJ_TAIL or INJ_DONE.
// Sending to oneself goes through the unit without the network.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "kernel/device.h"
#include "net/network.h"
#include "node/network_params.h"
#include "stats/probe.h"

namespace hpm {
class Kernel;
}

namespace hpm::net {

// What the unit did (the IOUnit's message events' ground truth: each counted at the cycle its
// event is published on the node's probe bus; truthTable()).
struct MessageUnitStats {
  u64 descriptors = 0;        // messages injected (PEVT_MU_MSG_INJ)
  u64 packets_injected = 0;   // packets stored for the network (PEVT_MU_PKT_INJ)
  u64 packets_received = 0;   // packets stored to the reception FIFO (PEVT_MU_FIFO_PKT_RCV)
  u64 bytes_injected = 0;     // payload bytes
  u64 bytes_received = 0;     // payload bytes
  u64 descriptor_errors = 0;  // refused descriptors
  u64 fifo_full_waits = 0;    // packets that waited for room in the reception FIFO
  u64 put_packets = 0;        // direct-put packets written to memory (PEVT_MU_PUT_PKT_RCV)
  u64 put_bytes = 0;          // their payload bytes
  u64 put_errors = 0;         // direct-put packets whose target was not writable (dropped)
  u64 remote_gets = 0;        // remote-get packets received (PEVT_MU_RGET_PKT_RCV)
  u64 reserved_writes = 0;    // writes to offsets with no register
  // By destination node: packets and 32-byte chunks (header included) sent there.
  std::vector<u64> packets_to;
  std::vector<u64> chunks_to;
};

class MessageUnit final : public DeviceProvider {
 public:
  static constexpr std::string_view kPath = "/dev/hpm/mu";
  static constexpr u64 kDescriptorBytes = 64;
  static constexpr u64 kHeaderSoftwareBytes = 16;
  static constexpr u32 kSkip = 0xffffffff;

  // `now` gives the cycle of the instruction making a register access; `send` takes packets
  // bound for other nodes (their `entered` set).
  MessageUnit(u32 node, const Torus& torus, const NetworkParams& params, Kernel& kernel,
              std::function<Cycle()> now, std::function<void(Packet)> send,
              std::function<u64(u64)> link_cycles);

  // A packet for this node, its bytes due in the reception FIFO at `when` (not before the
  // node's next slice: the caller's windows guarantee it).
  void receive(Cycle when, Packet packet);

  // Called for each of the unit's own memory accesses (address, bytes, cycle, write): its reads
  // of descriptors and payloads, its writes to reception FIFOs, tail words, put targets and
  // counters; the node's caches see them there (Simulation::deviceMemory). May be empty.
  void onMemory(std::function<void(u64, u64, Cycle, bool)> observer) {
    memory_observer_ = std::move(observer);
  }

  const MessageUnitStats& stats() const { return stats_; }
  // The IOUnit's message events and the statistics that are their ground truth.
  static std::span<const probe::TruthRow<MessageUnit>> truthTable();
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    return probe::truthOf(truthTable(), *this, e, instance);
  }

  // DeviceProvider
  int findDevice(std::string_view path) const override { return path == kPath ? 0 : -1; }
  u64 windowBytes(int) const override { return 4096; }
  u64 readRegister(int device, u64 offset) override;
  void writeRegister(int device, u64 offset, u64 value) override;
  void setInterruptTarget(int, int, int) override {}

 private:
  void inject(u64 upto, Cycle now);
  // Injects one descriptor at `now`: returns the cycle its last packet is stored, or nothing
  // when it is refused (counted).
  std::optional<Cycle> injectOne(std::span<const u8, kDescriptorBytes> d, Cycle now);
  void land(Cycle when, Packet packet);  // a packet arrived, by its type
  // A packet's last byte stored for the network at `when` (`last`: its message's last packet).
  void stored(Cycle when, bool last, u64 message_bytes);
  void store(Cycle when);  // writes waiting packets that fit
  u64 doneBy(Cycle now) const;

  u32 node_;
  const Torus& torus_;
  NetworkParams params_;
  Kernel& kernel_;
  std::function<Cycle()> now_;
  std::function<void(Packet)> send_;
  std::function<u64(u64)> link_cycles_;
  std::function<void(u64, u64, Cycle, bool)> memory_observer_;
  void touched(u64 addr, u64 bytes, Cycle at, bool write) {
    if (memory_observer_ && bytes != 0) memory_observer_(addr, bytes, at, write);
  }
  MessageUnitStats stats_;
  u64 packet_seq_ = 0;
  Cycle inject_free_ = 0;  // when the unit's injection port takes its next packet

  u64 inj_base_ = 0, inj_entries_ = 0, inj_tail_ = 0;
  std::vector<Cycle> done_at_;  // completion cycle of each posted descriptor (non-decreasing)
  u64 rec_base_ = 0, rec_bytes_ = 0, rec_tail_addr_ = 0, rec_head_ = 0, rec_tail_ = 0;
  std::deque<Packet> waiting_;  // packets that found the reception FIFO full
};

}  // namespace hpm::net
