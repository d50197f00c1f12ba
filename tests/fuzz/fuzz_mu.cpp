// Fuzzes the message unit (net/message_unit.h) as a hostile guest drives it: the input is a
// sequence of register writes and reads, stores into a mapped region of guest memory (where
// rings, descriptors, payloads and reception FIFOs may lie), packets arriving from the network
// (as the network delivers them: only what the unit has room for) and time passing. Whatever
// the input, nothing crashes, the unit holds no more than its bound for its reception FIFO, and
// no host allocation grows with a size the guest gives: scripts/test.sh runs this target with
// -malloc_limit_mb and -rss_limit_mb, so a single allocation or a resident size over the fixed
// bound is a failure.
#include <cstring>
#include <memory>
#include <vector>

#include "kernel/kernel.h"
#include "net/message_unit.h"

namespace {

constexpr hpm::u64 kRegion = 0x10000;         // the mapped guest region
constexpr hpm::u64 kRegionBytes = 64 * 1024;  // (16 pages)

// The guest addresses an input names: mostly in the region (so that rings and descriptors lie
// in memory), sometimes anywhere.
hpm::u64 address(hpm::u64 v) {
  return (v & 1) != 0 ? v : kRegion + (v >> 1) % kRegionBytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace hpm;
  KernelConfig config;
  config.params.address_space_gib = 64;
  config.params.code_cache_mib = 1;  // (no code runs here)
  Kernel kernel(config);
  kernel.memory().map(kRegion, kRegionBytes, GuestMemory::kRead | GuestMemory::kWrite);
  NetworkParams params;
  const net::Torus torus({2, 1, 1, 1, 1});
  Cycle now = 0;
  u64 sent = 0;
  net::MessageUnit unit(
      0, torus, params, kernel, [&now] { return now; }, [&sent](net::Packet) { ++sent; },
      [](u64 bytes) { return bytes / 2 + 1; });
  // Each operation: a kind byte, a selector byte and a 64-bit value.
  for (std::size_t at = 0; at + 10 <= size; at += 10) {
    const u8 kind = data[at] % 5, select = data[at + 1];
    u64 value = 0;
    std::memcpy(&value, data + at + 2, 8);
    switch (kind) {
      case 0: {  // a register write; registers' values are often guest addresses
        const u64 offset = u64{select} * 8 % 4096;
        const bool addr = offset == 0x100 || offset == 0x200 || offset == 0x210;
        unit.writeRegister(0, offset, addr ? address(value) : value);
        break;
      }
      case 1: (void)unit.readRegister(0, u64{select} * 8 % 4096); break;
      case 2: {  // a store into the region (a descriptor's field, a payload byte)
        const u64 where = kRegion + (u64{select} * 64 + (value >> 56)) % (kRegionBytes - 8);
        const u64 v = (select & 1) != 0 ? address(value) : value;
        (void)kernel.memory().write(where, &v, 8);
        break;
      }
      case 3: {  // a packet arrives, if the network could deliver it
        net::Packet p;
        p.src = 1;
        p.dst = 0;
        p.type = select % 3;
        p.bytes.assign(params.header_bytes + (value % 17) * 32, 0);
        const u32 n = static_cast<u32>(p.bytes.size() - params.header_bytes);
        std::memcpy(p.bytes.data() + 4, &n, 4);
        for (std::size_t i = 8; i + 8 <= p.bytes.size(); i += 8) {
          const u64 v = address(value * (i + 1));
          std::memcpy(p.bytes.data() + i, &v, 8);
        }
        if (p.bytes.size() <= unit.receptionRoom()) unit.receive(now + 1, std::move(p));
        break;
      }
      case 4: now += value % 100000; break;  // time passes
    }
    if (unit.heldBytes() > net::MessageUnit::kHoldBytes) __builtin_trap();
  }
  return 0;
}
