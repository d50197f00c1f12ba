// Parameters of Blue Gene/P's collective network and global barrier network (net/collective.h):
// section [collective] of a machine. Off by default (Blue Gene/Q does its collectives on the
// torus); machines/bgp.toml turns it on. Facts: BG/P's bpcore/collective.h (two virtual
// channels, 256-byte payloads, FIFOs of 8 packets); timing values marked "estimate" have no
// public source (docs/network.md "The collective network").
#pragma once

#include "base/types.h"
#include "config/schema.h"

namespace hpm {

namespace net {
// The shape of Blue Gene/P's collective network router (bpcore/collective.h): three links (0 to
// the parent, 1 and 2 to the children) and the local client (the processor's FIFOs), two
// virtual channels, 16 class routes, packets of a 32-bit header and 256 bytes of payload, and
// FIFOs of 8 packets per virtual channel.
inline constexpr u32 kColLinks = 3, kColLocal = 3, kColPorts = 4;
inline constexpr u32 kColVcs = 2;
inline constexpr u32 kColClasses = 16;
inline constexpr u32 kColPayloadBytes = 256;
inline constexpr u32 kColFifoPackets = 8;
}  // namespace net

struct CollectiveParams {
  // The node has the collective network's processor interface (/dev/hpm/col) and the global
  // barrier network's (/dev/hpm/gi).
  bool enabled = false;
  // libmpi may do MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on them (the device's MPI
  // register says so); off: its point-to-point algorithms, for comparison.
  bool mpi = true;
  // Raw bandwidth of a collective link in each direction (BG/P: 6.8 Gb/s, 0.85 GB/s).
  double link_gbytes_per_s = 0.85;
  // Bytes a packet takes on a link besides its 4-byte header and 256-byte payload: the link
  // header, control word and checksum (estimate).
  u64 link_overhead_bytes = 8;
  // Cycles from a packet's head leaving a router to its head at the next one (estimate).
  u64 hop_cycles = 64;
  // Cycles the ALU adds to a combining packet: from the last operand's head at the router to
  // the result's head leaving it (estimate).
  u64 alu_cycles = 16;
  // Cycles from a packet complete in the injection FIFO to its head at the router's arbiter
  // (estimate).
  u64 injection_cycles = 32;
  // Cycles from a packet's tail at the router to the packet readable in the reception FIFO
  // (estimate).
  u64 reception_cycles = 32;
  // Cycles from the last node's arm of a global barrier to every node seeing it done (estimate:
  // BG/P's global interrupts are a wired AND over the partition, of about a microsecond).
  u64 barrier_cycles = 800;

  void visit(config::Visitor& v) {
    v.param("enabled", enabled,
            "Blue Gene/P's collective network and global barrier network (/dev/hpm/col, "
            "/dev/hpm/gi)");
    v.param("mpi", mpi,
            "libmpi does MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on them where it "
            "can (off: point-to-point algorithms)");
    v.param("link_gbytes_per_s", link_gbytes_per_s,
            "Raw bandwidth of a collective link in each direction, GB/s (BG/P: 0.85)",
            config::Range{0.001, 1e4});
    v.param("link_overhead_bytes", link_overhead_bytes,
            "Bytes a packet takes on a link besides its header and payload (estimate)",
            config::Range{0, 256});
    v.param("hop_cycles", hop_cycles,
            "Cycles a packet's head takes from one router to the next (estimate)",
            config::Range{1, 1e6});
    v.param("alu_cycles", alu_cycles, "Cycles the ALU adds to a combining packet (estimate)",
            config::Range{0, 1e6});
    v.param("injection_cycles", injection_cycles,
            "Cycles from a packet complete in the injection FIFO to the router (estimate)",
            config::Range{1, 1e6});
    v.param("reception_cycles", reception_cycles,
            "Cycles from a packet's tail at the router to the packet readable in the reception "
            "FIFO (estimate)",
            config::Range{1, 1e6});
    v.param("barrier_cycles", barrier_cycles,
            "Cycles from the last node's arm of a global barrier to every node seeing it done "
            "(estimate)",
            config::Range{1, 1e7});
  }
};

}  // namespace hpm
