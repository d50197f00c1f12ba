// Parameters of the network between nodes (the torus, net/network.h) and of each node's message
// unit (net/message_unit.h), beside their models. Defaults are Blue Gene/Q's (seed 001,
// docs/network.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "config/schema.h"

namespace hpm {

// The most nodes a run may have: network.shape's product and `--nodes` alike.
inline constexpr u32 kMaxNodes = 4096;
// The largest size of a torus dimension and the most dimensions: the message unit's SHAPE and
// COORDS registers give each dimension 8 bits of one 64-bit register (net/message_unit.h).
inline constexpr u32 kMaxTorusSize = 255;
inline constexpr u32 kMaxTorusDimensions = 8;

// A torus shape: the size of each dimension, written "AxBxC". parseTorusShape and torusShapeFor
// make only valid ones (sizes 1 to kMaxTorusSize, at most kMaxTorusDimensions dimensions, at
// most kMaxNodes nodes).
struct TorusShape {
  std::vector<u32> dims = {1, 1, 1, 1, 1};

  u32 dimensions() const { return static_cast<u32>(dims.size()); }
  // The product of the sizes (computed in 64 bits).
  u64 nodes() const;
  std::string text() const;
  bool operator==(const TorusShape&) const = default;
};

// Parses and validates `text` ("2x2x1") into `shape`. Returns why the text is refused (not
// sizes joined by 'x', a size of 0, a size over kMaxTorusSize, too many dimensions, more than
// kMaxNodes nodes), or "" when it is accepted (only then is `shape` set).
std::string parseTorusShape(std::string_view text, TorusShape& shape);
// A shape of `dimensions` dimensions holding `nodes` nodes, as balanced as the factors allow
// (the larger factors first): 8 nodes in 5 dimensions is 2x2x2x1x1. Returns why there is none
// (a prime factor over kMaxTorusSize, more than kMaxNodes nodes), or "" and sets `shape`.
std::string torusShapeFor(u64 nodes, u32 dimensions, TorusShape& shape);

struct NetworkParams {
  // The torus: the size of each dimension, "AxBxCxDxE" (bgq: 5 dimensions, bgp: 3). Its product
  // is the node count; `hpmsim run --nodes N` picks a shape of the machine's dimension count.
  // The machine (preset or file) sets the number of dimensions; `--set` changes only the sizes.
  TorusShape shape;
  // Raw bandwidth of a link in each direction (seed 001: 2 GB/s; packet headers are part of it).
  double link_gbytes_per_s = 2.0;
  // Cycles from a packet's head leaving a router to its arrival at the next one (the hop
  // latency; assumed 40 ns, the order IBM's BG/Q overview gives per hop: not a measured value).
  u64 hop_cycles = 64;
  // Cycles from a descriptor's injection (the guest's write of the FIFO's tail) to its first
  // packet's head at the node's router: the message unit reads the descriptor and the payload
  // (assumed, not documented).
  u64 injection_cycles = 200;
  // Cycles from a packet's tail reaching its destination node to its bytes in the reception
  // FIFO and the FIFO's tail written to memory (assumed, not documented).
  u64 reception_cycles = 200;
  // Largest payload of a packet (seed 001, BG/Q: 512 bytes) and its header; both multiples of
  // the 32-byte chunk that the links and the NWUnit count.
  u64 max_payload_bytes = 512;
  u64 header_bytes = 32;
  // Bytes of each virtual channel's buffer at a router's input from a link (assumed, not
  // documented: four of the largest packets, so that one stream of packets keeps a link busy
  // under the escape channel's bubble rule; two are the least that rule works with). A packet
  // goes on a link only when the buffer at its far end has room for it (virtual cut-through with
  // back-pressure).
  u64 vc_buffer_bytes = 2176;
  // The links' token and acknowledgement protocol (net/link_protocol.h: Blue Gene/P's, after
  // Blue Gene/L's): tokens come back to a sender, and packets are acknowledged, over the
  // reverse link, in a data packet going that way or in a token/ack packet of
  // `token_ack_bytes` (an estimate). Off: a sender sees its far buffer's room at once, and the
  // links carry nothing but packets (bgq: BG/Q's link level is not modelled).
  bool link_protocol = false;
  // Dynamic virtual channels per link: 1 (BG/Q's user dynamic channel) or 2 (Blue Gene/P's
  // VCD0 and VCD1, as Blue Gene/L's). With two, a dynamic packet may take either on any link
  // that brings it nearer; a link that frees sends it on the one with more free room in the far
  // buffer (VCD0 on a tie), as BG/L's arbiter chose the output with the most tokens.
  u32 dynamic_channels = 1;
  u64 token_ack_bytes = 12;
  // Blue Gene/Q's collective classes on the torus (net/network.h, "Collectives"): the message
  // unit takes collective descriptors and arms GI barriers, and the kernel sets the class
  // routes CNK does (net/class_route.h). Off here; machines/bgq.toml turns it on.
  bool collectives = false;
  // libmpi may do MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on them (the unit's
  // COLL_MPI register says so); off: its point-to-point algorithms, for comparison.
  bool collective_mpi = true;
  // Cycles from the last member's arm of a GI class to every member seeing its barrier done
  // (estimate: BG/Q's GI signals travel the routers' own wiring, beside the data, so the
  // latency does not depend on the packets in flight; no published figure, see docs/network.md).
  u64 gi_cycles = 800;

  void visit(config::Visitor& v) {
    v.param("shape", shape,
            "Torus dimensions AxBxCx... (product = nodes, at most 4096; each size at most 255, "
            "the message unit's 8 bits per dimension); the machine file sets the number of "
            "dimensions, `--set` only their sizes; `run --nodes N` picks a shape with the same "
            "number of dimensions",
            parseTorusShape);
    v.param("link_gbytes_per_s", link_gbytes_per_s,
            "Raw bandwidth of a torus link in each direction, GB/s (seed 001: 2)",
            config::Range{0.001, 1e4});
    v.param("hop_cycles", hop_cycles,
            "Cycles a packet's head takes from one router to the next (assumed: 40 ns at 1.6 GHz)",
            config::Range{1, 1e6});
    v.param("injection_cycles", injection_cycles,
            "Cycles from a descriptor's injection to its first packet at the router (assumed)",
            config::Range{1, 1e6});
    v.param("reception_cycles", reception_cycles,
            "Cycles from a packet's arrival at its node to its bytes in the reception FIFO "
            "(assumed)",
            config::Range{1, 1e6});
    v.param("max_payload_bytes", max_payload_bytes,
            "Largest payload of a packet in bytes, a multiple of 32 (BG/Q: 512)",
            config::Range{32, 4096});
    v.param("header_bytes", header_bytes, "Bytes of a packet's header, a multiple of 32 (BG/Q: 32)",
            config::Range{32, 256});
    v.param("vc_buffer_bytes", vc_buffer_bytes,
            "Bytes of each virtual channel's input buffer at a router, at least two of the "
            "largest packets (assumed: four, 2176)",
            config::Range{64, 1 << 20});
    v.param("link_protocol", link_protocol,
            "The links' token and acknowledgement protocol: tokens and acks go back over the "
            "reverse link, in a data packet or a token/ack packet of their own (bgp)");
    v.param("dynamic_channels", dynamic_channels,
            "Dynamic virtual channels per link: 1 (BG/Q) or 2 (BG/P's VCD0 and VCD1)",
            config::Range{1, 2});
    v.param("token_ack_bytes", token_ack_bytes,
            "Bytes of a token/ack packet on a link (estimate: 12, an 8-byte link header, CRC "
            "and valid byte)",
            config::Range{1, 256});
    v.param("collectives", collectives,
            "Blue Gene/Q's collective and GI (barrier) classes on the torus: collective "
            "descriptors of the message unit, class routes 0 and 14, GI classes 0, 14 and 15");
    v.param("collective_mpi", collective_mpi,
            "libmpi does MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on the collective "
            "classes where it can (off: point-to-point algorithms)");
    v.param("gi_cycles", gi_cycles,
            "Cycles from the last member's arm of a GI class to its barrier done at every member "
            "(estimate)",
            config::Range{1, 1e7});
  }
};

}  // namespace hpm
