#include "net/collective_unit.h"

#include <algorithm>
#include <cstring>

#include "kernel/kernel.h"

namespace hpm::net {
namespace {

using namespace col;  // (the registers, by their names)

constexpr u32 kFifoBytes = kColFifoPackets * kColPayloadBytes;
constexpr u32 kLocalPort = kColLocal * kColVcs;  // the local client's instances: + vc

}  // namespace

std::span<const probe::TruthRow<CollectiveUnit>> CollectiveUnit::truthTable() {
  // (Counted from published events only; instance: the local client's port x 2 + channel.)
  using Row = probe::TruthRow<CollectiveUnit>;
  using Stat = std::array<u64, kColVcs> CollectiveUnitStats::*;
  static constexpr auto terms = [](const CollectiveUnit& u, u32 i, Stat stat,
                                   probe::TruthTerms& t) {
    static const u64 kZero = 0;
    t.push_back(
        {i >= kLocalPort && i < kLocalPort + kColVcs ? &(u.stats_.*stat)[i - kLocalPort] : &kZero});
  };
  static const Row kRows[] = {
      {probe::Event::kColInjectHeaders,
       [](const CollectiveUnit& u, u32 i, probe::TruthTerms& t) {
         terms(u, i, &CollectiveUnitStats::headers_injected, t);
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kColInjectPayload,
       [](const CollectiveUnit& u, u32 i, probe::TruthTerms& t) {
         terms(u, i, &CollectiveUnitStats::quads_injected, t);
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kColReceptionPackets,
       [](const CollectiveUnit& u, u32 i, probe::TruthTerms& t) {
         terms(u, i, &CollectiveUnitStats::packets_received, t);
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kColReceptionHeaders,
       [](const CollectiveUnit& u, u32 i, probe::TruthTerms& t) {
         terms(u, i, &CollectiveUnitStats::headers_taken, t);
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kColReceptionPayload,
       [](const CollectiveUnit& u, u32 i, probe::TruthTerms& t) {
         terms(u, i, &CollectiveUnitStats::quads_taken, t);
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
  };
  return kRows;
}

CollectiveUnit::CollectiveUnit(u32 node, u32 nodes, const CollectiveParams& params, Kernel& kernel,
                               std::function<Cycle()> now,
                               std::function<void(ColPacket, Cycle)> inject,
                               std::function<void(u32, Cycle)> arm)
    : node_(node),
      nodes_(nodes),
      params_(params),
      kernel_(kernel),
      now_(std::move(now)),
      inject_(std::move(inject)),
      arm_(std::move(arm)) {}

int CollectiveUnit::findDevice(std::string_view path) const {
  return path == kColPath ? 0 : path == kGiPath ? 1 : -1;
}

void CollectiveUnit::pulse(probe::Event e, u8 vc, Cycle at) {
  probe::Bus* bus = kernel_.probeBus();
  if (bus == nullptr) return;
  bus->setNow(std::max(bus->now(), at));
  if (bus->wants(e, kLocalPort + vc)) bus->pulse(e, kLocalPort + vc, 1);
}

u32 CollectiveUnit::receptionRoom(u8 vc) const {
  const Channel& c = channels_[vc];
  const u64 used = c.received.size() + c.landing;
  return used >= kColFifoPackets ? 0 : static_cast<u32>(kColFifoPackets - used);
}

u64 CollectiveUnit::status(u8 vc) const {
  const Channel& c = channels_[vc];
  const u64 inj_bytes = c.payload.size() + held(vc) * kColPayloadBytes;
  const u64 inj_headers = c.headers.size() + held(vc);
  u64 rec_bytes = 0, rec_headers = 0;
  for (const Received& r : c.received) {
    rec_bytes += kColPayloadBytes - r.read;
    rec_headers += r.header_taken ? 0 : 1;
  }
  return (inj_bytes / 16) << kStatusInjQuads | inj_headers << kStatusInjHeaders |
         (rec_bytes / 16) << kStatusRecQuads | rec_headers << kStatusRecHeaders;
}

u64 CollectiveUnit::readRegister(int device, u64 offset) {
  if (device == 1) {
    if (offset >= kGiDone && offset < kGiDone + 8 * barriers_done_.size() && offset % 8 == 0) {
      return barriers_done_[(offset - kGiDone) / 8];
    }
    return 0;
  }
  if (offset < kColVcs * kVcStride) {
    const u8 vc = static_cast<u8>(offset / kVcStride);
    switch (offset % kVcStride) {
      case kDataRec: return readData(vc);
      case kHdrRec: return readHeader(vc);
      case kStatus: return status(vc);
      default: return 0;
    }
  }
  switch (offset) {
    case kNode: return node_;
    case kNodes: return nodes_;
    case kPayloadBytes: return kColPayloadBytes;
    case kMpi: return params_.mpi ? 1 : 0;
    case kNotifyAddr: return notify_addr_;
    case kEvents: return events_;
    default: return 0;
  }
}

void CollectiveUnit::writeRegister(int device, u64 offset, u64 value) {
  const Cycle now = now_();
  if (device == 1) {
    if (offset >= kGiArm && offset < kGiArm + 8 * barriers_done_.size() && offset % 8 == 0) {
      ++stats_.barriers_armed;
      arm_(static_cast<u32>((offset - kGiArm) / 8), now);
    } else {
      ++stats_.reserved_writes;
    }
    return;
  }
  if (offset == kNotifyAddr) {
    notify_addr_ = value & ~u64{7};
    return;
  }
  const u64 in_vc = offset % kVcStride;
  if (offset >= kColVcs * kVcStride || (in_vc != kDataInj && in_vc != kHdrInj)) {
    ++stats_.reserved_writes;
    return;
  }
  const u8 vc = static_cast<u8>(offset / kVcStride);
  Channel& c = channels_[vc];
  if (in_vc == kHdrInj) {
    if (c.headers.size() + held(vc) >= kColFifoPackets) {
      ++stats_.injection_overflows;
      return;
    }
    c.headers.push_back(static_cast<u32>(value));
    ++stats_.headers_injected[vc];
    pulse(probe::Event::kColInjectHeaders, vc, now);
  } else {
    if (c.payload.size() + held(vc) * kColPayloadBytes + 8 > kFifoBytes) {
      ++stats_.injection_overflows;
      return;
    }
    const std::size_t at = c.payload.size();
    c.payload.resize(at + 8);
    std::memcpy(c.payload.data() + at, &value, 8);
    if ((at + 8) % 16 == 0) {
      ++stats_.quads_injected[vc];
      pulse(probe::Event::kColInjectPayload, vc, now);
    }
  }
  formPackets(vc, now);
}

void CollectiveUnit::formPackets(u8 vc, Cycle now) {
  Channel& c = channels_[vc];
  while (!c.headers.empty() && c.payload.size() >= kColPayloadBytes) {
    ColPacket p;
    p.src = node_;
    p.vc = vc;
    p.header = c.headers.front();
    std::memcpy(p.payload.data(), c.payload.data(), kColPayloadBytes);
    c.headers.pop_front();
    c.payload.erase(c.payload.begin(), c.payload.begin() + kColPayloadBytes);
    ++stats_.packets_injected[vc];
    inject_(std::move(p), now);
  }
}

u64 CollectiveUnit::readHeader(u8 vc) {
  Channel& c = channels_[vc];
  for (std::size_t i = 0; i < c.received.size(); ++i) {
    Received& r = c.received[i];
    if (r.header_taken) continue;
    r.header_taken = true;
    ++stats_.headers_taken[vc];
    pulse(probe::Event::kColReceptionHeaders, vc, now_());
    const u64 header = r.header;
    if (r.read == kColPayloadBytes) c.received.erase(c.received.begin() + static_cast<long>(i));
    return header;
  }
  ++stats_.reception_underruns;
  return 0;
}

u64 CollectiveUnit::readData(u8 vc) {
  Channel& c = channels_[vc];
  for (std::size_t i = 0; i < c.received.size(); ++i) {
    Received& r = c.received[i];
    if (r.read == kColPayloadBytes) continue;
    u64 v = 0;
    std::memcpy(&v, r.payload.data() + r.read, 8);
    r.read += 8;
    if (r.read % 16 == 0) {
      ++stats_.quads_taken[vc];
      pulse(probe::Event::kColReceptionPayload, vc, now_());
    }
    if (r.read == kColPayloadBytes && r.header_taken) {
      c.received.erase(c.received.begin() + static_cast<long>(i));
    }
    return v;
  }
  ++stats_.reception_underruns;
  return 0;
}

void CollectiveUnit::changed(Cycle when) {
  ++events_;
  if (notify_addr_ == 0) return;
  if (kernel_.memory().write(notify_addr_, &events_, sizeof events_)) {
    kernel_.wakeFutexWaiters(notify_addr_, when);
  }
}

void CollectiveUnit::receive(Cycle when, ColPacket packet) {
  Channel& c = channels_[packet.vc];
  ++c.landing;
  kernel_.at(when, [this, p = std::move(packet)](Cycle t) {
    Channel& ch = channels_[p.vc];
    --ch.landing;
    Received r;
    r.header = p.header;
    r.payload = p.payload;
    ch.received.push_back(r);
    ++stats_.packets_received[p.vc];
    pulse(probe::Event::kColReceptionPackets, p.vc, t);
    changed(t);
  });
}

void CollectiveUnit::barrierDone(u32 channel, u64 count, Cycle when) {
  kernel_.at(when, [this, channel, count](Cycle t) {
    barriers_done_[channel] = std::max(barriers_done_[channel], count);
    changed(t);
  });
}

}  // namespace hpm::net
