#include "net/mu_ports.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace hpm::net {
namespace {

using probe::Event;

// Master port p's events: six from MuPort0Writes + 6p, in this order.
enum PortEvent : u16 { kWrites, kReads32, kReads64, kReads128, kPendingWrites, kPendingReads };
constexpr u16 kPortEvents = 6;
static_assert(static_cast<u16>(Event::kMuPort1Writes) ==
              static_cast<u16>(Event::kMuPort0Writes) + kPortEvents);
static_assert(static_cast<u16>(Event::kMuPort2PendingReads) ==
              static_cast<u16>(Event::kMuPort0Writes) + 3 * kPortEvents - 1);
static_assert(Event::kMuSlaveReads == static_cast<Event>(static_cast<u16>(Event::kMuPort0Writes) +
                                                         kMuMasterPorts * kPortEvents));

constexpr Event portEvent(u32 port, PortEvent k) {
  return static_cast<Event>(static_cast<u16>(Event::kMuPort0Writes) + port * kPortEvents + k);
}

// Blue Gene/P's L3 lines, the DMA's request size [E] (docs/timing.md "Blue Gene/P's L3").
constexpr u64 kDmaLineBytes = 128;

// Each DMA signal's event, in MuPorts::Dma's order.
constexpr Event kDmaEvents[] = {Event::kDmaDescriptorRead,    Event::kDmaFifoPacketReceived,
                                Event::kDmaPutPacketReceived, Event::kDmaRemoteGetPacketReceived,
                                Event::kDmaReadRequest,       Event::kDmaReadAcked,
                                Event::kDmaReadReturned,      Event::kDmaWriteRequest};

// The times of the line of `lines` that holds `addr` (the last one starting at or before it);
// null if none (untimed: no lines).
const MuPorts::Line* lineOf(std::span<const MuPorts::Line> lines, u64 addr) {
  const auto it = std::upper_bound(lines.begin(), lines.end(), addr,
                                   [](u64 a, const MuPorts::Line& l) { return a < l.addr; });
  return it == lines.begin() ? nullptr : &*std::prev(it);
}

// When a request for `addr` issued at `at` completes: its line's done cycle, `at` if untimed.
Cycle doneOf(std::span<const MuPorts::Line> lines, u64 addr, Cycle at) {
  const MuPorts::Line* l = lineOf(lines, addr);
  return l == nullptr ? at : std::max(at, l->done);
}

template <u32 P, u64 MuPortStats::*M>
void portTerm(const MuPorts& u, u32, probe::TruthTerms& t) {
  t.push_back({&(u.port(P).*M)});
}
template <u64 DmaPortStats::*M>
void dmaTerm(const MuPorts& u, u32, probe::TruthTerms& t) {
  t.push_back({&(u.dma().*M)});
}

}  // namespace

std::span<const probe::TruthRow<MuPorts>> MuPorts::truthTable() {
  // (Counted from published events only, as the message unit's own events.)
  using Row = probe::TruthRow<MuPorts>;
  constexpr auto kAny = probe::Changes::kAnytime;
  constexpr auto kNone = probe::Tally::kNone;
#define HPM_PORT_ROWS(P)                                                                          \
  Row{portEvent(P, kWrites), &portTerm<P, &MuPortStats::writes>, kAny, kNone},                    \
      Row{portEvent(P, kReads32), &portTerm<P, &MuPortStats::reads32>, kAny, kNone},              \
      Row{portEvent(P, kReads64), &portTerm<P, &MuPortStats::reads64>, kAny, kNone},              \
      Row{portEvent(P, kReads128), &portTerm<P, &MuPortStats::reads128>, kAny, kNone},            \
      Row{portEvent(P, kPendingWrites), &portTerm<P, &MuPortStats::pending_writes>, kAny, kNone}, \
      Row {                                                                                       \
    portEvent(P, kPendingReads), &portTerm<P, &MuPortStats::pending_reads>, kAny, kNone           \
  }
  static const Row kRows[] = {
      HPM_PORT_ROWS(0),
      HPM_PORT_ROWS(1),
      HPM_PORT_ROWS(2),
      {Event::kMuSlaveReads,
       [](const MuPorts& u, u32, probe::TruthTerms& t) { t.push_back({&u.slave_reads_}); }, kAny,
       kNone},
      {Event::kMuSlaveWrites,
       [](const MuPorts& u, u32, probe::TruthTerms& t) { t.push_back({&u.slave_writes_}); }, kAny,
       kNone},
      {Event::kDmaDescriptorRead, &dmaTerm<&DmaPortStats::descriptors>, kAny, kNone},
      {Event::kDmaFifoPacketReceived, &dmaTerm<&DmaPortStats::fifo_packets>, kAny, kNone},
      {Event::kDmaPutPacketReceived, &dmaTerm<&DmaPortStats::put_packets>, kAny, kNone},
      {Event::kDmaRemoteGetPacketReceived, &dmaTerm<&DmaPortStats::remote_gets>, kAny, kNone},
      {Event::kDmaReadRequest, &dmaTerm<&DmaPortStats::read_requests>, kAny, kNone},
      {Event::kDmaReadAcked, &dmaTerm<&DmaPortStats::reads_acked>, kAny, kNone},
      {Event::kDmaReadReturned, &dmaTerm<&DmaPortStats::reads_returned>, kAny, kNone},
      {Event::kDmaWriteRequest, &dmaTerm<&DmaPortStats::write_requests>, kAny, kNone},
      {Event::kDmaWriteActive, &dmaTerm<&DmaPortStats::write_active_cycles>, kAny, kNone},
  };
#undef HPM_PORT_ROWS
  return kRows;
}

MuPorts::MuPorts(Family family, std::function<probe::Bus*()> bus,
                 std::function<void(Cycle, std::function<void(Cycle)>)> at)
    : family_(family), bus_(std::move(bus)), at_(std::move(at)) {}

void MuPorts::count(Event e, u64& stat, u64 n, Cycle at) {
  if (n == 0) return;
  stat += n;
  probe::Bus* bus = bus_ ? bus_() : nullptr;
  if (bus == nullptr || !bus->wants(e, 0)) return;
  bus->setNow(std::max(bus->now(), at));
  bus->pulse(e, 0, n);
}

void MuPorts::access(u64 addr, u64 bytes, Cycle at, bool write, MuAccess what,
                     std::span<const MuPorts::Line> lines) {
  if (bytes == 0) return;
  if (family_ == Family::kMessageUnit) {
    portAccess(addr, bytes, at, write, lines);
  } else {
    dmaAccess(addr, bytes, at, write, what, lines);
  }
}

void MuPorts::portAccess(u64 addr, u64 bytes, Cycle at, bool write,
                         std::span<const MuPorts::Line> lines) {
  if (write) {
    const u32 p = std::exchange(next_write_port_, (next_write_port_ + 1) % kMuMasterPorts);
    u64 requests = 0, pending = 0;
    writeRequests(addr, bytes, [&](u64 a) {
      ++requests;
      pending += doneOf(lines, a, at) - at;
    });
    count(portEvent(p, kWrites), ports_[p].writes, requests, at);
    count(portEvent(p, kPendingWrites), ports_[p].pending_writes, pending, at);
    return;
  }
  const u32 p = std::exchange(next_read_port_, (next_read_port_ + 1) % kMuMasterPorts);
  u64 by_size[3] = {}, pending = 0;
  readRequests(addr, bytes, [&](u64 a, u64 size) {
    ++by_size[size == 32 ? 0 : size == 64 ? 1 : 2];
    pending += doneOf(lines, a, at) - at;
  });
  MuPortStats& s = ports_[p];
  count(portEvent(p, kReads32), s.reads32, by_size[0], at);
  count(portEvent(p, kReads64), s.reads64, by_size[1], at);
  count(portEvent(p, kReads128), s.reads128, by_size[2], at);
  count(portEvent(p, kPendingReads), s.pending_reads, pending, at);
}

void MuPorts::signal(MuSignal s, Cycle at) {
  if (family_ == Family::kMessageUnit) {
    if (s == MuSignal::kRegisterRead) count(Event::kMuSlaveReads, slave_reads_, 1, at);
    if (s == MuSignal::kRegisterWrite) count(Event::kMuSlaveWrites, slave_writes_, 1, at);
    return;
  }
  // (Blue Gene/P's DMA registers are on the network bus, whose requests the device buses count.)
  switch (s) {
    case MuSignal::kFifoPacket: dmaPulse(kFifoPacket, at); break;
    case MuSignal::kPutPacket: dmaPulse(kPutPacket, at); break;
    case MuSignal::kRemoteGetPacket: dmaPulse(kRemoteGet, at); break;
    default: break;
  }
}

void MuPorts::dmaAccess(u64 addr, u64 bytes, Cycle at, bool write, MuAccess what,
                        std::span<const MuPorts::Line> lines) {
  if (what == MuAccess::kDescriptor) {
    dmaPulse(kDescriptor, at);
    return;
  }
  const u64 first = addr / kDmaLineBytes, last = (addr + bytes - 1) / kDmaLineBytes;
  Cycle done_all = at;
  for (u64 line = first; line <= last; ++line) {
    const MuPorts::Line* t = lineOf(lines, std::max(addr, line * kDmaLineBytes));
    const Cycle taken = t == nullptr ? at : std::max(at, t->taken);
    const Cycle done = t == nullptr ? at : std::max(taken, t->done);
    done_all = std::max(done_all, done);
    if (write) {
      dmaPulse(kWriteRequest, at);
    } else {
      dmaPulse(kReadRequest, at);
      dmaPulse(kReadAcked, taken);
      dmaPulse(kReadReturned, done);
    }
  }
  if (!write) return;
  // The reception side's write-active cycles: the union of its writes' pending intervals,
  // published in pieces that do not overlap, each at its first cycle.
  const Cycle from = std::max(at, write_active_until_);
  if (done_all <= from) return;
  write_active_until_ = done_all;
  at_(from, [this, until = done_all](Cycle t) {
    if (t >= until) return;  // (a scheduler that ran it late: the rest of the interval only)
    dma_.write_active_cycles += until - t;
    probe::Bus* bus = bus_ ? bus_() : nullptr;
    if (bus == nullptr || !bus->wants(Event::kDmaWriteActive, 0)) return;
    bus->setNow(std::max(bus->now(), t));
    bus->level(Event::kDmaWriteActive, 0, t, until);
  });
}

void MuPorts::dmaPulse(Dma s, Cycle t) {
  const Cycle c = std::max(t, dma_next_[s]);
  dma_next_[s] = c + 1;
  at_(c, [this, s](Cycle when) { publishDma(s, when); });
}

void MuPorts::publishDma(Dma s, Cycle when) {
  probe::Bus* bus = bus_ ? bus_() : nullptr;
  const Cycle t = bus == nullptr ? when : std::max(when, bus->now());
  if (dma_counted_[s] != kNever && t <= dma_counted_[s]) {
    at_(dma_counted_[s] + 1, [this, s](Cycle later) { publishDma(s, later); });
    return;
  }
  dma_counted_[s] = t;
  u64* const stats[] = {&dma_.descriptors,    &dma_.fifo_packets,  &dma_.put_packets,
                        &dma_.remote_gets,    &dma_.read_requests, &dma_.reads_acked,
                        &dma_.reads_returned, &dma_.write_requests};
  count(kDmaEvents[s], *stats[s], 1, t);
}

}  // namespace hpm::net
