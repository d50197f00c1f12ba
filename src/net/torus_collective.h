// Blue Gene/Q's collectives on the torus: what a collective packet carries, and the routers' ALU
// that combines them (the Network's routers route them on their class route's tree:
// net/network.h, net/class_route.h; docs/network.md "Collectives on Blue Gene/Q's torus").
//
// Facts (jedbrown/bgq-driver, hwi/include/bqc/MU_CollectiveNetworkHeader.h): a collective
// packet's header holds a 4-bit op code (and, or, xor, unsigned add/min/max, signed add/min/max,
// floating-point add/min/max; the others invalid), a word length of 4 x 2^n bytes (n = 0 to 7:
// 4 to 512 bytes, dividing the packet's payload evenly; 8 for every floating-point operation,
// single precision is not supported), a 4-bit class route, the virtual channel (4 user
// comm-world, 5 user sub-communicator, 6 system collective) and the collective type (broadcast,
// all-reduce, reduce to one destination). The values below are the header's.
#pragma once

#include <span>

#include "base/types.h"

namespace hpm::net {

// The collective type (MU_CollectiveNetworkHeader.h: 00 broadcast, 10 all-reduce, 11 reduce).
enum class CollType : u8 { kBroadcast = 0, kAllreduce = 2, kReduce = 3 };
// The op codes (the same header's Byte1 bits 0-3).
namespace collop {
inline constexpr u8 kAnd = 0, kOr = 1, kXor = 2, kUnsignedAdd = 4, kUnsignedMin = 5,
                    kUnsignedMax = 6, kSignedAdd = 8, kSignedMin = 9, kSignedMax = 10,
                    kFloatAdd = 12, kFloatMin = 13, kFloatMax = 14;
constexpr bool valid(u8 op) {
  return op <= kFloatMax && op != 3 && op != 7 && op != 11;
}
constexpr bool floating(u8 op) {
  return op >= kFloatAdd;
}
}  // namespace collop

// A collective packet's fields (beside its bytes: header and payload, as the point-to-point
// packets'). `on` false: a point-to-point packet.
struct Collective {
  bool on = false;
  u8 cls = 0;  // the class route, 0 to 15
  CollType type = CollType::kBroadcast;
  u8 op = 0;     // collop::
  u16 word = 4;  // bytes per word (4 to 512, a power of two; 8 for floating point)
  bool operator==(const Collective&) const = default;
};

// The ALU: `inputs` (payloads of equal size, a whole number of words) combined word by word into
// `out` (that size). Integers are little-endian, `word` bytes wide: and/or/xor bitwise, add
// modulo 2^(8 x word) (signed and unsigned alike), min and max unsigned or two's complement.
// Floating point (word 8, IEEE doubles): min and max as the numbers order them (a NaN input
// makes the word NaN); add exactly, rounded once to the nearest double (ties to even), so that a
// router's sum depends on its inputs' values only, never on their order or arrival: a whole
// tree's result depends on the tree alone (binary reproducible, as US patent 8,977,669 claims
// for BG/Q's adder). A sum with an infinity or a NaN is the IEEE sum of the inputs in their
// order (inf + -inf: NaN); an exact sum beyond the largest double is an infinity; an exact zero
// is +0 but for a sum of -0s (-0, as IEEE's addition gives).
void combineWords(u8 op, u16 word, std::span<const std::span<const u8>> inputs, std::span<u8> out);

}  // namespace hpm::net
