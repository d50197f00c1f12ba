// Parameters of the network between nodes (the torus) and of each node's message unit; the
// models are in src/net. Defaults are Blue Gene/Q's (seed 001, docs/network.md).
#pragma once

#include <string>
#include <vector>

#include "base/types.h"
#include "config/schema.h"

namespace hpm {

struct NetworkParams {
  // The torus: the size of each dimension, "AxBxCxDxE" (bgq: 5 dimensions, bgp: 3). Its product
  // is the node count; `hpmsim run --nodes N` picks a shape of the machine's dimension count.
  std::string shape = "1x1x1x1x1";
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

  void visit(config::Visitor& v) {
    v.param("shape", shape,
            "Torus dimensions AxBxCx... (product = nodes); `run --nodes N` picks one with the "
            "same number of dimensions");
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
  }
};

// The torus dimensions of `shape` ("2x2x1"), or an empty vector when it is malformed.
std::vector<u32> parseTorusShape(const std::string& shape);
// The nodes of `shape`: the product of its dimensions (1 for a malformed one).
u32 torusNodes(const std::string& shape);
// A shape of `dimensions` dimensions holding `nodes` nodes, as balanced as the factors allow
// (the larger factors first): 8 nodes in 5 dimensions is 2x2x2x1x1.
std::string torusShapeFor(u32 nodes, u32 dimensions);

}  // namespace hpm
