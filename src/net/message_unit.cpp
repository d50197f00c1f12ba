#include "net/message_unit.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "kernel/kernel.h"

namespace hpm::net {
namespace {

enum Register : u64 {
  kRank = 0x000,
  kNodes = 0x008,
  kDimensions = 0x010,
  kShape = 0x018,
  kCoords = 0x020,
  kMaxPayload = 0x028,
  kHeaderBytes = 0x030,
  kInjBase = 0x100,
  kInjEntries = 0x108,
  kInjTail = 0x110,
  kInjDone = 0x118,
  kInjErrors = 0x120,
  kRecBase = 0x200,
  kRecBytes = 0x208,
  kRecTailAddr = 0x210,
  kRecHead = 0x218,
  kRecTail = 0x220,
};

constexpr u64 kChunk = 32;
constexpr u32 kFlagDynamic = 1, kFlagPriority = 2, kFlagSystem = 16;
constexpr u8 kDirectPut = 1, kRemoteGet = 2;

u64 roundUp(u64 n, u64 to) {
  return (n + to - 1) / to * to;
}

}  // namespace

std::span<const probe::TruthRow<MessageUnit>> MessageUnit::truthTable() {
  // (Counted from published events only, as the kernel's I/O events are.)
  using Row = probe::TruthRow<MessageUnit>;
  static const Row kRows[] = {
      {probe::Event::kMuPacketsInjected,
       [](const MessageUnit& u, u32, probe::TruthTerms& t) {
         t.push_back({&u.stats_.packets_injected});
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kMuMessagesInjected,
       [](const MessageUnit& u, u32, probe::TruthTerms& t) {
         t.push_back({&u.stats_.descriptors});
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kMuFifoPacketsReceived,
       [](const MessageUnit& u, u32, probe::TruthTerms& t) {
         t.push_back({&u.stats_.packets_received});
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kMuPutPacketsReceived,
       [](const MessageUnit& u, u32, probe::TruthTerms& t) {
         t.push_back({&u.stats_.put_packets});
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      {probe::Event::kMuRemoteGetPacketsReceived,
       [](const MessageUnit& u, u32, probe::TruthTerms& t) {
         t.push_back({&u.stats_.remote_gets});
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
  };
  return kRows;
}

MessageUnit::MessageUnit(u32 node, const Torus& torus, const NetworkParams& params, Kernel& kernel,
                         std::function<Cycle()> now, std::function<void(Packet)> send,
                         std::function<u64(u64)> link_cycles)
    : node_(node),
      torus_(torus),
      params_(params),
      kernel_(kernel),
      now_(std::move(now)),
      send_(std::move(send)),
      link_cycles_(std::move(link_cycles)) {
  stats_.packets_to.assign(torus_.nodes(), 0);
  stats_.chunks_to.assign(torus_.nodes(), 0);
}

u64 MessageUnit::readRegister(int, u64 offset) {
  switch (offset) {
    case kRank: return node_;
    case kNodes: return torus_.nodes();
    case kDimensions: return torus_.dimensions();
    case kShape:
    case kCoords: {
      u64 packed = 0;
      for (u32 d = 0; d < torus_.dimensions() && d < 8; ++d) {
        const u32 v = offset == kShape ? torus_.dims()[d] : torus_.coordinate(node_, d);
        packed |= u64{v & 0xff} << (8 * d);
      }
      return packed;
    }
    case kMaxPayload: return params_.max_payload_bytes;
    case kHeaderBytes: return params_.header_bytes;
    case kInjBase: return inj_base_;
    case kInjEntries: return inj_entries_;
    case kInjTail: return inj_tail_;
    case kInjDone: return doneBy(now_());
    case kInjErrors: return stats_.descriptor_errors;
    case kRecBase: return rec_base_;
    case kRecBytes: return rec_bytes_;
    case kRecTailAddr: return rec_tail_addr_;
    case kRecHead: return rec_head_;
    case kRecTail: return rec_tail_;
    default: return 0;
  }
}

void MessageUnit::writeRegister(int, u64 offset, u64 value) {
  switch (offset) {
    case kInjBase: inj_base_ = value; return;
    case kInjEntries: inj_entries_ = value; return;
    case kInjTail:
      if (value > inj_tail_) inject(value, now_());
      return;
    case kRecBase: rec_base_ = value & ~(kChunk - 1); return;
    case kRecBytes: rec_bytes_ = value & ~(kChunk - 1); return;
    case kRecTailAddr: rec_tail_addr_ = value & ~u64{7}; return;
    case kRecHead:
      rec_head_ = std::min(std::max(value, rec_head_), rec_tail_);
      store(now_());
      return;
    default: ++stats_.reserved_writes; return;
  }
}

u64 MessageUnit::doneBy(Cycle now) const {
  return static_cast<u64>(std::upper_bound(done_at_.begin(), done_at_.end(), now) -
                          done_at_.begin());
}

void MessageUnit::inject(u64 upto, Cycle now) {
  GuestMemory& memory = kernel_.memory();
  for (; inj_tail_ < upto; ++inj_tail_) {
    std::array<u8, kDescriptorBytes> d{};
    std::optional<Cycle> done;
    const u64 at = inj_entries_ == 0 ? 0 : inj_base_ + inj_tail_ % inj_entries_ * kDescriptorBytes;
    if (inj_entries_ != 0 && memory.read(at, d.data(), d.size())) {
      touched(at, kDescriptorBytes, now, false);
      done = injectOne(d, now);
    } else {
      ++stats_.descriptor_errors;
    }
    // (A refused descriptor is done at once and sends nothing.)
    done_at_.push_back(done ? *done : std::max(now, done_at_.empty() ? 0 : done_at_.back()));
  }
}

std::optional<Cycle> MessageUnit::injectOne(std::span<const u8, kDescriptorBytes> d, Cycle now) {
  u32 dest = 0, flags = 0;
  u64 payload_addr = 0, payload_bytes = 0, put_addr = 0, counter_addr = 0;
  std::memcpy(&dest, d.data(), 4);
  std::memcpy(&flags, d.data() + 4, 4);
  std::memcpy(&payload_addr, d.data() + 8, 8);
  std::memcpy(&payload_bytes, d.data() + 16, 8);
  std::memcpy(&put_addr, d.data() + 40, 8);
  std::memcpy(&counter_addr, d.data() + 48, 8);
  const bool dynamic = (flags & kFlagDynamic) != 0, priority = (flags & kFlagPriority) != 0;
  const bool system = (flags & kFlagSystem) != 0;
  const u8 type = static_cast<u8>(flags >> 2 & 3);
  // (At most 4 GiB per descriptor: the length is checked before the copy is made.)
  if (dest >= torus_.nodes() || payload_bytes > (u64{1} << 32) || (flags & ~u32{0x1f}) != 0 ||
      int{dynamic} + int{priority} + int{system} > 1 || type > kRemoteGet ||
      (type == kRemoteGet && (payload_bytes == 0 || payload_bytes % kDescriptorBytes != 0))) {
    ++stats_.descriptor_errors;
    return std::nullopt;
  }
  std::vector<u8> payload(payload_bytes);
  if (!kernel_.memory().read(payload_addr, payload.data(), payload.size())) {
    ++stats_.descriptor_errors;
    return std::nullopt;
  }
  Cycle at = std::max(now + params_.injection_cycles, inject_free_);
  // A remote get's descriptors travel whole: packets of whole descriptors.
  const u64 most = type == kRemoteGet
                       ? std::max(kDescriptorBytes,
                                  params_.max_payload_bytes / kDescriptorBytes * kDescriptorBytes)
                       : params_.max_payload_bytes;
  u64 offset = 0;
  do {
    const u64 n = std::min(most, payload_bytes - offset);
    Packet p;
    p.src = node_;
    p.dst = dest;
    p.seq = packet_seq_++;
    p.entered = at;
    p.dynamic = dynamic;
    p.priority = priority;
    p.system = system;
    p.type = type;
    p.bytes.assign(params_.header_bytes + roundUp(n, kChunk), 0);
    const u32 src32 = node_, n32 = static_cast<u32>(n);
    std::memcpy(p.bytes.data(), &src32, 4);
    std::memcpy(p.bytes.data() + 4, &n32, 4);
    std::memcpy(p.bytes.data() + 8, &offset, 8);
    if (type == kDirectPut) {
      std::memcpy(p.bytes.data() + 16, &put_addr, 8);
      std::memcpy(p.bytes.data() + 24, &counter_addr, 8);
    } else {
      std::memcpy(p.bytes.data() + 16, d.data() + 24, kHeaderSoftwareBytes);
    }
    if (n != 0) std::memcpy(p.bytes.data() + params_.header_bytes, payload.data() + offset, n);
    // The unit stores one packet after another for the network at the link's rate; a packet
    // is stored (counted) when its last byte is.
    const u64 hold = link_cycles_(p.bytes.size());
    at += hold;
    const bool last = offset + n == payload_bytes;
    // (Its payload is read from memory as it is stored: the caches see the read then.)
    kernel_.at(at, [this, last, payload_bytes, from = payload_addr + offset, n](Cycle t) {
      touched(from, n, t, false);
      stored(t, last, payload_bytes);
    });
    ++stats_.packets_to[dest];
    stats_.chunks_to[dest] += p.chunks();
    if (dest == node_) {
      // Through the unit alone, as if over a link of the network's rate.
      receive(at + params_.reception_cycles, std::move(p));
    } else {
      send_(std::move(p));
    }
    offset += n;
  } while (offset < payload_bytes);
  inject_free_ = at;
  return at;
}

void MessageUnit::stored(Cycle when, bool last, u64 message_bytes) {
  ++stats_.packets_injected;
  probe::Bus* bus = kernel_.probeBus();
  if (bus != nullptr) bus->setNow(std::max(bus->now(), when));
  HPM_PROBE(bus, kMuPacketsInjected, 0, 1);
  if (!last) return;
  ++stats_.descriptors;
  stats_.bytes_injected += message_bytes;
  HPM_PROBE(bus, kMuMessagesInjected, 0, 1);
}

void MessageUnit::receive(Cycle when, Packet packet) {
  kernel_.at(when, [this, p = std::move(packet)](Cycle t) mutable { land(t, std::move(p)); });
}

void MessageUnit::land(Cycle when, Packet p) {
  probe::Bus* bus = kernel_.probeBus();
  if (bus != nullptr) bus->setNow(std::max(bus->now(), when));
  u32 n = 0;
  u64 offset = 0;
  std::memcpy(&n, p.bytes.data() + 4, 4);
  std::memcpy(&offset, p.bytes.data() + 8, 8);
  const u8* payload = p.bytes.data() + params_.header_bytes;
  switch (p.type) {
    case kDirectPut: {
      u64 put_addr = 0, counter_addr = 0;
      std::memcpy(&put_addr, p.bytes.data() + 16, 8);
      std::memcpy(&counter_addr, p.bytes.data() + 24, 8);
      GuestMemory& memory = kernel_.memory();
      if (n != 0 && !memory.write(put_addr + offset, payload, n)) {
        ++stats_.put_errors;  // (BG/Q raises an interrupt; the model drops the packet)
        return;
      }
      touched(put_addr + offset, n, when, true);
      ++stats_.put_packets;
      stats_.put_bytes += n;
      if (counter_addr != 0) {
        u64 counter = 0;
        if (memory.read(counter_addr & ~u64{7}, &counter, 8)) {
          counter -= n;
          memory.write(counter_addr & ~u64{7}, &counter, 8);
          touched(counter_addr & ~u64{7}, 8, when, true);
          kernel_.wakeFutexWaiters(counter_addr & ~u64{7}, when);
        }
      }
      HPM_PROBE(bus, kMuPutPacketsReceived, 0, 1);
      return;
    }
    case kRemoteGet:
      ++stats_.remote_gets;
      HPM_PROBE(bus, kMuRemoteGetPacketsReceived, 0, 1);
      for (u32 at = 0; at + kDescriptorBytes <= n; at += kDescriptorBytes) {
        injectOne(std::span<const u8, kDescriptorBytes>(payload + at, kDescriptorBytes), when);
      }
      return;
    default:
      waiting_.push_back(std::move(p));
      store(when);
      if (!waiting_.empty()) ++stats_.fifo_full_waits;  // this packet found no room
      return;
  }
}

void MessageUnit::store(Cycle when) {
  GuestMemory& memory = kernel_.memory();
  bool stored = false;
  while (!waiting_.empty() && rec_bytes_ != 0) {
    const Packet& p = waiting_.front();
    const u64 size = p.bytes.size();
    const u64 pos = rec_tail_ % rec_bytes_;
    const u64 skip = pos + size > rec_bytes_ ? rec_bytes_ - pos : 0;
    if (skip + size > rec_bytes_ - (rec_tail_ - rec_head_)) break;  // full: wait for REC_HEAD
    if (skip != 0) {
      const std::array<u32, 2> header{node_, kSkip};
      memory.write(rec_base_ + pos, header.data(), sizeof header);
      touched(rec_base_ + pos, sizeof header, when, true);
    }
    memory.write(rec_base_ + (rec_tail_ + skip) % rec_bytes_, p.bytes.data(), size);
    touched(rec_base_ + (rec_tail_ + skip) % rec_bytes_, size, when, true);
    rec_tail_ += skip + size;
    ++stats_.packets_received;
    if (probe::Bus* bus = kernel_.probeBus()) {
      bus->setNow(std::max(bus->now(), when));
      HPM_PROBE(bus, kMuFifoPacketsReceived, 0, 1);
    }
    u32 n = 0;
    std::memcpy(&n, p.bytes.data() + 4, 4);
    stats_.bytes_received += n;
    waiting_.pop_front();
    stored = true;
  }
  if (stored && rec_tail_addr_ != 0) {
    memory.write(rec_tail_addr_, &rec_tail_, sizeof rec_tail_);
    touched(rec_tail_addr_, sizeof rec_tail_, when, true);
    kernel_.wakeFutexWaiters(rec_tail_addr_, when);
  }
}

}  // namespace hpm::net
