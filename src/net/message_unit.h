// A node's message unit (BG/Q's MU, seed 001's IOUnit Message module): the device the guest
// maps at /dev/hpm/mu to send packets to other nodes and receive theirs. It moves bytes between
// the nodes' memories at the network model's times.
//
// Its registers (64-bit; the offsets are mu::Register's, below), descriptors and flags are the
// guest's interface: guest/include/hpm/mu.h says the same for C, and tests/net/mu_header_test.cpp
// holds it to these declarations when it is compiled. Offsets with no register read 0 and ignore
// writes (counted: reservedWrites).
//
// A descriptor (kDescriptorBytes; its fields' offsets are mu::descriptor's): destination node,
// flags, payload address and bytes, 16 bytes the unit copies into every memory-FIFO packet's
// header, put address, put counter address, and a status (zero when posted: the unit writes
// kRefusedFields or kRefusedPayload there when it refuses a descriptor of the injection FIFO).
// Flags (mu::kFlag...): dynamic routing, the priority channel, the system channel (both
// deterministic routing; at most one of the three), and the packet type (mu::kMemoryFifo...) in
// bits 2-3; other bits zero. A descriptor breaking these rules is refused (INJ_ERRORS). The unit
// cuts the payload into packets of at most MAX_PAYLOAD bytes (one packet when it is empty).
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
//
// The unit does only the work the hardware would, whatever the guest writes (docs/network.md,
// "What the unit holds"):
// - A write of INJ_TAIL posts the descriptors between the old and the new tail that the ring
//   holds: at most INJ_ENTRIES may be posted and not yet done. Those the ring cannot hold (or
//   all of them when INJ_ENTRIES is 0) are refused without being read: counted in INJ_ERRORS
//   (and `ring_overflows`), done at once. Each posted descriptor is read and checked when it is
//   posted (its payload readable as a whole): a refused one sends nothing.
// - Packets are made one at a time, as the injection port takes them (injection_cycles before
//   each enters the network), each reading its payload then: no host memory grows with a
//   descriptor's size.
// - The unit holds at most kHoldBytes of packets that its reception FIFO cannot take yet; the
//   network delivers no more (Network::setReceptionRoom: the rest wait in the network, holding
//   its buffers: back-pressure, as on the hardware). The network's queue of packets the unit
//   stored but no link took yet is at most kBacklogBytes: the port waits for the next window
//   when it is full.
// - Descriptors from remote gets wait in the unit for the port, at most kRemoteGetEntries; a
//   remote-get packet that finds them full is held as a packet the FIFO cannot take.
#pragma once

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "base/types.h"
#include "kernel/device.h"
#include "net/network.h"
#include "net/network_params.h"
#include "stats/probe.h"

namespace hpm {
class Kernel;
}

namespace hpm::net {

// The unit's guest interface (the one declaration; guest/include/hpm/mu.h is held to it).
namespace mu {

// Register offsets in the 4 KiB window (r: read-only, rw: read and write).
inline constexpr u64 kRank = 0x000;         // r  this node's id
inline constexpr u64 kNodes = 0x008;        // r  nodes in the torus
inline constexpr u64 kDimensions = 0x010;   // r  torus dimensions
inline constexpr u64 kShape = 0x018;        // r  dimension d's size in bits 8d..8d+7
inline constexpr u64 kCoords = 0x020;       // r  this node's coordinate in d, in bits 8d..8d+7
inline constexpr u64 kMaxPayload = 0x028;   // r  the largest payload of a packet
inline constexpr u64 kHeaderBytes = 0x030;  // r  bytes of a packet's header in the reception FIFO
// rw: guest address of the injection FIFO (descriptors), and its descriptors (at most
// kMaxRingEntries: a larger value reads back as that).
inline constexpr u64 kInjBase = 0x100, kInjEntries = 0x108;
// rw: descriptors posted so far (a count; writing it injects the new ones).
inline constexpr u64 kInjTail = 0x110;
// r: descriptors whose packets have all left for the network by now.
inline constexpr u64 kInjDone = 0x118;
// r: descriptors refused (destination not a node, payload unreadable, or posted beyond the ring).
inline constexpr u64 kInjErrors = 0x120;
// rw: guest address of the reception FIFO (bytes, 32-byte aligned), and its size (a multiple
// of 32).
inline constexpr u64 kRecBase = 0x200, kRecBytes = 0x208;
// rw: guest address of a 64-bit word the unit writes its tail to (0: none).
inline constexpr u64 kRecTailAddr = 0x210;
// rw: bytes the guest has consumed so far (a count; writing it frees room).
inline constexpr u64 kRecHead = 0x218;
// r: bytes the unit has written so far (a count).
inline constexpr u64 kRecTail = 0x220;

// A descriptor's flags: the routing (at most one of the three) and the packet type's place.
inline constexpr u32 kFlagDynamic = 1, kFlagPriority = 2, kFlagSystem = 16;
inline constexpr u32 kTypeShift = 2, kTypeMask = 3;
inline constexpr u32 kFlagBits = 0x1f;  // every other bit must be zero
inline constexpr u8 kMemoryFifo = 0, kDirectPut = 1, kRemoteGet = 2;  // the packet types
// A collective descriptor (network.collectives): kFlagCollective, a memory-FIFO packet type, no
// routing flag, and the collective's fields in the flags (BG/Q's collective header's, as
// net/torus_collective.h declares them): the class route, the collective type (CollType), the
// op code (collop::) and the word length's exponent n (4 << n bytes).
inline constexpr u32 kFlagCollective = 32;
inline constexpr u32 kCollClassShift = 8, kCollTypeShift = 12, kCollOpShift = 16,
                     kCollWordShift = 20;
inline constexpr u32 kCollFlagBits = 0x007f3f2c;  // the bits a collective descriptor may set
// r: libmpi may do its collectives on the classes (network.collective_mpi); bit c of CLASSES:
// collective class route c is set up, bit 16 + c: GI class c.
inline constexpr u64 kCollMpi = 0x300, kClasses = 0x308;
// w: arms this node's GI class `value` (its next barrier; while armed, an arm changes nothing).
inline constexpr u64 kGiArm = 0x310;
// rw: guest address of a 64-bit word the unit writes its GI completions (all classes) to,
// waking futex waiters on it (0: none).
inline constexpr u64 kGiNotifyAddr = 0x318;
// rw: the tree CLASS_SET sets: its box's low corner (coordinate d in bits 8d..8d+7, as COORDS),
// its size in each dimension (as SHAPE) and its root node.
inline constexpr u64 kClassLow = 0x320, kClassSize = 0x328, kClassRoot = 0x330;
// w: sets or clears one of this node's class route registers: bits 0-3 the class, bit 4 a GI
// class (else a collective one), bit 5 clear it (else set it to the tree of CLASS_LOW,
// CLASS_SIZE and CLASS_ROOT, as a user sub-communicator class route). Classes 0, 14 and 15 are
// the kernel's (kWorldClass, kSystemClass); a write to one of them, of a tree that does not fit
// the torus, or of one that does not hold this node, or with other bits set, changes nothing
// and counts in CLASS_ERRORS. The unit uses a register at once (descriptors, GI arms); the
// routers from the network's next step (cluster/cluster.h's window, shorter than any packet's
// way to another router), so software sets every member's register, then synchronizes, before
// it sends on the class (as on BG/Q).
inline constexpr u64 kClassSet = 0x338;
inline constexpr u64 kClassSetGi = 16, kClassSetClear = 32;
// r: CLASS_SET writes refused.
inline constexpr u64 kClassErrors = 0x340;
// r: at kGiDone + 8c, the barriers of GI class c completed by now (while this node's register of
// the class named the tree that completed them).
inline constexpr u64 kGiDone = 0x380;

// A descriptor's fields: byte offsets (little-endian u32 or u64; `kSoftware` is 16 bytes).
namespace descriptor {
inline constexpr u64 kDest = 0, kFlags = 4, kPayload = 8, kBytes = 16, kSoftware = 24, kPut = 40,
                     kCounter = 48, kStatus = 56;
}  // namespace descriptor

}  // namespace mu

// What a memory access of the unit is, for its ports' model (net/mu_ports.h): a descriptor read
// from the injection FIFO, or any other (payloads, reception FIFOs, tail words, puts, counters).
enum class MuAccess : u8 { kData, kDescriptor };
// What else the unit tells its ports' model: a packet it took in, by type (at the cycle its
// event is published), and a core's access to its registers (its slave port's requests).
enum class MuSignal : u8 {
  kFifoPacket,
  kPutPacket,
  kRemoteGetPacket,
  kRegisterRead,
  kRegisterWrite
};

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
  u64 ring_overflows = 0;     // descriptors posted beyond the ring's room (refused unread)
  u64 payload_faults = 0;     // packets whose payload became unreadable after the check (zeros)
  u64 injection_stalls = 0;   // times the port waited for the network's queue (kBacklogBytes)
  u64 most_held_bytes = 0;    // the most bytes the unit held for its reception FIFO at once
  u64 collective_descriptors = 0;  // collective descriptors posted (refused ones not counted)
  u64 gi_arms = 0;                 // GI arms that armed a class (not those of a class not set up)
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
  // A refused descriptor's status: a field is wrong (destination, flags, size), or its payload
  // is not readable memory as a whole.
  static constexpr u64 kRefusedFields = 1, kRefusedPayload = 2;
  // The model's bounds (see above). The ring's size bounds the descriptors waiting for the port
  // (4096 x 64 bytes: a 256 KiB ring); the two byte bounds are far above what a program that
  // drains its FIFO reaches, so they change no result of such a program.
  static constexpr u64 kMaxRingEntries = 4096;
  static constexpr u64 kHoldBytes = u64{4} << 20;
  static constexpr u64 kBacklogBytes = u64{4} << 20;
  static constexpr u64 kRemoteGetEntries = 256;

  // `now` gives the cycle of the instruction making a register access; `send` takes packets
  // bound for other nodes (their `entered` set).
  MessageUnit(u32 node, const Torus& torus, const NetworkParams& params, Kernel& kernel,
              std::function<Cycle()> now, std::function<void(Packet)> send,
              std::function<u64(u64)> link_cycles);

  // A packet for this node, its bytes due in the reception FIFO at `when` (not before the
  // node's next slice: the caller's windows guarantee it).
  void receive(Cycle when, Packet packet);

  // Collectives (network.collectives). Without setCollectives the unit refuses collective
  // descriptors and GI arms.
  struct Collectives {
    // The class route registers the kernel set (collective and GI; null: clear).
    std::array<std::shared_ptr<const ClassRoute>, kClassRoutes> coll, gi;
    // The tree a register write names (its box, root and type; null: no such tree).
    std::function<std::shared_ptr<const ClassRoute>(const ClassWrite&)> tree;
    // Takes each register write the unit accepts, for the routers.
    std::function<void(const ClassWrite&)> write;
    // Takes each GI arm (class, cycle).
    std::function<void(u32, Cycle)> arm;
    bool mpi = false;  // what COLL_MPI reads
  };
  void setCollectives(Collectives setup);
  // A barrier of GI class `cls` (of the tree this node's register names) completed at `when`
  // (not before the node's next slice).
  void giDone(u32 cls, Cycle when);

  // Called for each of the unit's own memory accesses (address, bytes, cycle, write, what): its
  // reads of descriptors and payloads, its writes to reception FIFOs, tail words, put targets
  // and counters; the node's caches see them there (Simulation::deviceMemory), and its ports'
  // model cuts them into requests (net/mu_ports.h). May be empty.
  void onMemory(std::function<void(u64, u64, Cycle, bool, MuAccess)> observer) {
    memory_observer_ = std::move(observer);
  }
  // Called for each packet the unit takes in and each register access (MuSignal). May be empty.
  void onSignal(std::function<void(MuSignal, Cycle)> observer) {
    signal_observer_ = std::move(observer);
  }

  const MessageUnitStats& stats() const { return stats_; }

  // Bytes of packets the unit holds for its reception FIFO (waiting for room, or delivered and
  // not yet landed): the network delivers no more than kHoldBytes less these (each window).
  u64 heldBytes() const { return waiting_bytes_ + landing_bytes_; }
  u64 receptionRoom() const { return kHoldBytes - std::min(kHoldBytes, heldBytes()); }
  // At a window's start `now`: the network's queue holds `backlog` bytes of this unit's packets
  // that no link took yet; the port may store kBacklogBytes less that in the window.
  void setNetworkBacklog(u64 backlog, Cycle now);
  // The IOUnit's message events and the statistics that are their ground truth.
  static std::span<const probe::TruthRow<MessageUnit>> truthTable();
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    return probe::truthOf(truthTable(), *this, e, instance);
  }

  // DeviceProvider
  int findDevice(std::string_view path) const override { return path == kPath ? 0 : -1; }
  u64 windowBytes(int) const override { return 4096; }
  // Blue Gene/P's DMA and the torus' FIFOs are on the network bus (U-Boot's Blue Gene/P map,
  // kittyhawk/uboot include/configs/bgp.h: "Netbus", upper address 0x6).
  probe::DeviceBus bus(int) const override { return probe::DeviceBus::kNetwork; }
  u64 readRegister(int device, u64 offset) override;
  void writeRegister(int device, u64 offset, u64 value) override;
  // (A narrower store changes no register, but is a write request of the slave port.)
  void writeNarrow(int, u64, unsigned, u64) override { signal(MuSignal::kRegisterWrite, now_()); }
  void setInterruptTarget(int, int, int) override {}

 private:
  // A descriptor as the unit read it.
  struct Descriptor {
    u32 dest = 0;
    bool dynamic = false, priority = false, system = false;
    u8 type = 0;
    Collective coll;
    u64 payload = 0, bytes = 0, put = 0, counter = 0;
    std::array<u8, kHeaderSoftwareBytes> software{};
  };
  // A descriptor waiting for the port (or a run of refused ring descriptors, done in order).
  struct Queued {
    Descriptor d;
    Cycle ready = 0;   // the earliest its first packet enters the network
    Cycle posted = 0;  // the cycle it was posted (a refused run is done then at the earliest)
    u64 offset = 0;    // payload bytes already made into packets
    u64 refused = 0;   // > 0: a run of this many refused ring descriptors (no packets)
    bool ring = true;  // from the injection FIFO (INJ_DONE counts it), else from a remote get
  };
  // Descriptors done by a cycle: [previous run's end, end) were done at `at`.
  struct DoneRun {
    Cycle at;
    u64 end;
  };

  void post(u64 upto, Cycle now);
  // A CLASS_SET write (mu::kClassSet).
  void setClassRegister(u64 value);
  // Reads and checks a descriptor: the reason (kRefused...) when it is refused.
  std::variant<Descriptor, u64> parse(std::span<const u8, kDescriptorBytes> d);
  void refuse(u64 count, Cycle now);  // queues a run of refused ring descriptors
  // Makes the packets whose time has come by `now` and schedules the next (one event pending).
  void pump(Cycle now);
  void done(Cycle at, u64 count);
  void land(Cycle when, Packet packet);  // a packet arrived, by its type
  // Queues a remote get's descriptors (the caller pumps); false: no room for them now.
  bool takeRemoteGet(Cycle when, const Packet& p);
  // A packet's last byte stored for the network at `when` (`last`: its message's last packet).
  void stored(Cycle when, bool last, u64 message_bytes);
  void store(Cycle when);  // writes waiting packets that fit
  void hold(Packet p);     // a packet waits in the unit for the FIFO (or the remote-get queue)
  u64 doneBy(Cycle now) const;

  u32 node_;
  const Torus& torus_;
  NetworkParams params_;
  Kernel& kernel_;
  std::function<Cycle()> now_;
  std::function<void(Packet)> send_;
  std::function<u64(u64)> link_cycles_;
  std::function<void(u64, u64, Cycle, bool, MuAccess)> memory_observer_;
  std::function<void(MuSignal, Cycle)> signal_observer_;
  void touched(u64 addr, u64 bytes, Cycle at, bool write, MuAccess what = MuAccess::kData) {
    if (memory_observer_ && bytes != 0) memory_observer_(addr, bytes, at, write, what);
  }
  void signal(MuSignal s, Cycle at) {
    if (signal_observer_) signal_observer_(s, at);
  }
  MessageUnitStats stats_;
  u64 packet_seq_ = 0;

  u64 inj_base_ = 0, inj_entries_ = 0, inj_tail_ = 0;
  std::deque<Queued> queue_;          // descriptors waiting for the port, in posting order
  u64 queued_remote_ = 0;             // of them, from remote gets
  Cycle port_free_ = 0;               // when the injection port takes its next packet
  Cycle not_before_ = 0;              // the port waits for this cycle (a full network queue)
  u64 backlog_room_ = kBacklogBytes;  // bytes the port may still store in this window
  bool stalled_ = false;              // the port waits for the next window
  bool pump_pending_ = false;         // an event to make the next packet is scheduled
  Cycle last_done_ = 0;               // the last ring descriptor's done cycle
  std::deque<DoneRun> done_;          // ring descriptors' done cycles (non-decreasing)
  u64 done_base_ = 0;                 // descriptors done before done_'s first run
  u64 rec_base_ = 0, rec_bytes_ = 0, rec_tail_addr_ = 0, rec_head_ = 0, rec_tail_ = 0;
  std::deque<Packet> waiting_;       // packets that found the reception FIFO full
  std::deque<Packet> waiting_gets_;  // remote-get packets that found the queue full
  u64 waiting_bytes_ = 0;            // bytes of both
  u64 landing_bytes_ = 0;            // bytes delivered to the unit, not yet landed
  Collectives coll_;                 // (empty functions until setCollectives)
  u64 class_low_ = 0, class_size_ = 0, class_root_ = 0, class_errors_ = 0;
  std::array<u64, kClassRoutes> gi_done_{};  // barriers completed, per GI class
  std::array<u8, kClassRoutes> gi_armed_{};  // armed and not yet completed, per GI class
  u64 gi_events_ = 0, gi_notify_addr_ = 0;
};

}  // namespace hpm::net
