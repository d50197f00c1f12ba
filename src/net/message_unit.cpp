#include "net/message_unit.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "kernel/kernel.h"

namespace hpm::net {
namespace {

using namespace mu;  // (the registers, flags and packet types, by their names)

constexpr u64 kChunk = 32;

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
  if (signal_observer_) signal(MuSignal::kRegisterRead, now_());
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
    case kCollMpi: return coll_.mpi ? 1 : 0;
    case kClasses: {
      u64 bits = 0;
      for (u32 c = 0; c < kClassRoutes; ++c) {
        if (coll_.coll[c]) bits |= u64{1} << c;
        if (coll_.gi[c]) bits |= u64{1} << (16 + c);
      }
      return bits;
    }
    case kClassLow: return class_low_;
    case kClassSize: return class_size_;
    case kClassRoot: return class_root_;
    case kClassErrors: return class_errors_;
    case kGiNotifyAddr: return gi_notify_addr_;
    default:
      if (offset >= kGiDone && offset < kGiDone + 8 * kClassRoutes && offset % 8 == 0) {
        return gi_done_[(offset - kGiDone) / 8];
      }
      return 0;
  }
}

void MessageUnit::writeRegister(int, u64 offset, u64 value) {
  if (signal_observer_) signal(MuSignal::kRegisterWrite, now_());
  switch (offset) {
    case kInjBase: inj_base_ = value; return;
    case kInjEntries: inj_entries_ = std::min(value, kMaxRingEntries); return;
    case kInjTail:
      if (value > inj_tail_) post(value, now_());
      return;
    case kRecBase: rec_base_ = value & ~(kChunk - 1); return;
    case kRecBytes: rec_bytes_ = value & ~(kChunk - 1); return;
    case kRecTailAddr: rec_tail_addr_ = value & ~u64{7}; return;
    case kGiNotifyAddr: gi_notify_addr_ = value & ~u64{7}; return;
    case kGiArm:
      // (A class not set up, or armed already: nothing changes, as a wired AND's bit.)
      if (value < kClassRoutes && coll_.gi[value] && gi_armed_[value] == 0) {
        gi_armed_[value] = 1;
        ++stats_.gi_arms;
        coll_.arm(static_cast<u32>(value), now_());
      }
      return;
    case kClassLow: class_low_ = value; return;
    case kClassSize: class_size_ = value; return;
    case kClassRoot: class_root_ = value; return;
    case kClassSet: setClassRegister(value); return;
    case kRecHead: {
      const Cycle now = now_();
      rec_head_ = std::min(std::max(value, rec_head_), rec_tail_);
      store(now);
      if (stalled_ && !pump_pending_) {
        // (A packet to this node waited for the room this made.)
        not_before_ = std::max(not_before_, now);
        pump(now);
      }
      return;
    }
    default: ++stats_.reserved_writes; return;
  }
}

u64 MessageUnit::doneBy(Cycle now) const {
  const auto it = std::upper_bound(done_.begin(), done_.end(), now,
                                   [](Cycle t, const DoneRun& r) { return t < r.at; });
  return it == done_.begin() ? done_base_ : std::prev(it)->end;
}

void MessageUnit::done(Cycle at, u64 count) {
  const u64 end = (done_.empty() ? done_base_ : done_.back().end) + count;
  if (!done_.empty() && done_.back().at == at) {
    done_.back().end = end;
  } else {
    done_.push_back({at, end});
  }
  // Runs that can no longer matter fold into the base: a descriptor more than a ring behind the
  // tail was done when the tail passed it (post() keeps at most a ring undone).
  while (done_.size() > 2 * kMaxRingEntries) {
    done_base_ = done_.front().end;
    done_.pop_front();
  }
}

void MessageUnit::refuse(u64 count, Cycle now) {
  stats_.descriptor_errors += count;
  if (!queue_.empty() && queue_.back().refused != 0) {
    queue_.back().refused += count;  // (done together: at the same cycle)
    return;
  }
  Queued q;
  q.posted = now;
  q.refused = count;
  queue_.push_back(q);
}

void MessageUnit::post(u64 upto, Cycle now) {
  GuestMemory& memory = kernel_.memory();
  const u64 undone = inj_tail_ - doneBy(now);
  const u64 room = inj_entries_ > undone ? inj_entries_ - undone : 0;
  const u64 take = std::min(upto - inj_tail_, room);
  for (u64 i = 0; i < take; ++i, ++inj_tail_) {
    std::array<u8, kDescriptorBytes> bytes{};
    const u64 at = inj_base_ + inj_tail_ % inj_entries_ * kDescriptorBytes;
    if (!memory.read(at, bytes.data(), bytes.size())) {
      refuse(1, now);
      continue;
    }
    touched(at, kDescriptorBytes, now, false, MuAccess::kDescriptor);
    const auto d = parse(bytes);
    if (const u64* why = std::get_if<u64>(&d)) {
      // (The poster learns why from the descriptor itself: libmpi turns it into an MPI error.)
      const u64 status_at = at + descriptor::kStatus;
      if (memory.write(status_at, why, 8)) touched(status_at, 8, now, true);
      refuse(1, now);
      continue;
    }
    Queued q;
    q.d = std::get<Descriptor>(d);
    q.ready = now + params_.injection_cycles;
    q.posted = now;
    if (q.d.coll.on) ++stats_.collective_descriptors;
    queue_.push_back(q);
  }
  if (upto > inj_tail_) {
    // (Beyond the ring's room: not descriptors the unit can read.)
    stats_.ring_overflows += upto - inj_tail_;
    refuse(upto - inj_tail_, now);
    inj_tail_ = upto;
  }
  pump(now);
}

std::variant<MessageUnit::Descriptor, u64> MessageUnit::parse(
    std::span<const u8, kDescriptorBytes> b) {
  Descriptor d;
  u32 flags = 0;
  std::memcpy(&d.dest, b.data() + descriptor::kDest, 4);
  std::memcpy(&flags, b.data() + descriptor::kFlags, 4);
  std::memcpy(&d.payload, b.data() + descriptor::kPayload, 8);
  std::memcpy(&d.bytes, b.data() + descriptor::kBytes, 8);
  std::memcpy(d.software.data(), b.data() + descriptor::kSoftware, kHeaderSoftwareBytes);
  std::memcpy(&d.put, b.data() + descriptor::kPut, 8);
  std::memcpy(&d.counter, b.data() + descriptor::kCounter, 8);
  d.dynamic = (flags & kFlagDynamic) != 0;
  d.priority = (flags & kFlagPriority) != 0;
  d.system = (flags & kFlagSystem) != 0;
  d.type = static_cast<u8>(flags >> kTypeShift & kTypeMask);
  if ((flags & kFlagCollective) != 0) {
    // A collective: its class set up (this node and a reduce's destination members), its
    // fields valid, the payload whole words in whole-word packets (MU_CollectiveNetworkHeader.h:
    // "The resulting number of bytes must divide the data packet size evenly"; floating point
    // only on 8-byte words).
    d.coll.on = true;
    d.coll.cls = static_cast<u8>(flags >> kCollClassShift & 15);
    d.coll.type = static_cast<CollType>(flags >> kCollTypeShift & 3);
    d.coll.op = static_cast<u8>(flags >> kCollOpShift & 15);
    d.coll.word = static_cast<u16>(4u << (flags >> kCollWordShift & 7));
    const ClassRoute* route = coll_.coll[d.coll.cls].get();
    const bool combining = d.coll.type != CollType::kBroadcast;
    if ((flags & ~kCollFlagBits) != 0 || d.type != kMemoryFifo || route == nullptr ||
        !route->member(node_) || d.dest >= torus_.nodes() ||
        (d.coll.type == CollType::kReduce && !route->member(d.dest)) ||
        static_cast<u8>(d.coll.type) == 1 || (combining && !collop::valid(d.coll.op)) ||
        (collop::floating(d.coll.op) && d.coll.word != 8) || d.bytes % d.coll.word != 0 ||
        params_.max_payload_bytes % d.coll.word != 0 || d.bytes > (u64{1} << 32)) {
      return kRefusedFields;
    }
    if (!kernel_.memory().accessible(d.payload, d.bytes, GuestMemory::kRead)) {
      return kRefusedPayload;
    }
    return d;
  }
  // (At most 4 GiB per descriptor, and its payload readable as a whole before any of it is.)
  if (d.dest >= torus_.nodes() || d.bytes > (u64{1} << 32) || (flags & ~kFlagBits) != 0 ||
      int{d.dynamic} + int{d.priority} + int{d.system} > 1 || d.type > kRemoteGet ||
      (d.type == kRemoteGet && (d.bytes == 0 || d.bytes % kDescriptorBytes != 0))) {
    return kRefusedFields;
  }
  if (!kernel_.memory().accessible(d.payload, d.bytes, GuestMemory::kRead)) {
    return kRefusedPayload;
  }
  return d;
}

void MessageUnit::setNetworkBacklog(u64 backlog, Cycle now) {
  backlog_room_ = kBacklogBytes - std::min(kBacklogBytes, backlog);
  if (!stalled_ || pump_pending_) return;
  not_before_ = std::max(not_before_, now);
  pump(now);
}

void MessageUnit::pump(Cycle now) {
  if (pump_pending_) return;  // (the next packet's time has not come)
  const bool was_stalled = std::exchange(stalled_, false);
  while (!queue_.empty()) {
    Queued& q = queue_.front();
    if (q.refused != 0) {
      // (A refused descriptor is done at once, after those before it, and sends nothing.)
      last_done_ = std::max(q.posted, last_done_);
      done(last_done_, q.refused);
      queue_.pop_front();
      continue;
    }
    const Descriptor& d = q.d;
    // A remote get's descriptors travel whole: packets of whole descriptors.
    const u64 most = d.type == kRemoteGet
                         ? std::max(kDescriptorBytes,
                                    params_.max_payload_bytes / kDescriptorBytes * kDescriptorBytes)
                         : params_.max_payload_bytes;
    const u64 n = std::min(most, d.bytes - q.offset);
    const u64 size = params_.header_bytes + roundUp(n, kChunk);
    const Cycle entry = std::max({q.ready, port_free_, not_before_ + params_.injection_cycles});
    const Cycle make = entry - params_.injection_cycles;
    if (make > now) {
      pump_pending_ = true;
      kernel_.at(make, [this](Cycle t) {
        pump_pending_ = false;
        pump(t);
      });
      return;
    }
    const bool self = !d.coll.on && d.dest == node_;
    if (self ? heldBytes() + size > kHoldBytes : size > backlog_room_) {
      // The network's queue (or this node's own reception) is full: the port waits for the
      // next window (or for REC_HEAD).
      stalled_ = true;
      if (!was_stalled) ++stats_.injection_stalls;
      return;
    }
    Packet p;
    p.src = node_;
    p.dst = d.dest;
    p.seq = packet_seq_++;
    p.entered = entry;
    p.dynamic = d.dynamic;
    p.priority = d.priority;
    p.system = d.system;
    p.type = d.type;
    p.coll = d.coll;
    p.bytes.assign(size, 0);
    const u32 src32 = node_, n32 = static_cast<u32>(n);
    std::memcpy(p.bytes.data(), &src32, 4);
    std::memcpy(p.bytes.data() + 4, &n32, 4);
    std::memcpy(p.bytes.data() + 8, &q.offset, 8);
    if (d.type == kDirectPut) {
      std::memcpy(p.bytes.data() + 16, &d.put, 8);
      std::memcpy(p.bytes.data() + 24, &d.counter, 8);
    } else {
      std::memcpy(p.bytes.data() + 16, d.software.data(), kHeaderSoftwareBytes);
    }
    if (n != 0 &&
        !kernel_.memory().read(d.payload + q.offset, p.bytes.data() + params_.header_bytes, n)) {
      ++stats_.payload_faults;  // (unmapped since it was posted: the packet carries zeros)
    }
    // The unit stores one packet after another for the network at the link's rate; a packet
    // is stored (counted) when its last byte is.
    const Cycle at = entry + link_cycles_(size);
    port_free_ = at;
    const bool last = q.offset + n == d.bytes;
    // (Its payload is read from memory as it is stored: the caches see the read then.)
    kernel_.at(at, [this, last, bytes = d.bytes, from = d.payload + q.offset, n](Cycle t) {
      touched(from, n, t, false);
      stored(t, last, bytes);
    });
    if (!d.coll.on) {  // (point-to-point packets by destination)
      ++stats_.packets_to[d.dest];
      stats_.chunks_to[d.dest] += p.chunks();
    }
    if (self) {
      // Through the unit alone, as if over a link of the network's rate.
      receive(at + params_.reception_cycles, std::move(p));
    } else {
      backlog_room_ -= size;
      send_(std::move(p));
    }
    q.offset += n;
    if (!last) continue;
    if (q.ring) {
      last_done_ = at;
      done(at, 1);
    } else {
      --queued_remote_;
    }
    queue_.pop_front();
    // (Room for held remote gets' descriptors: they join the queue now.)
    while (!waiting_gets_.empty() && takeRemoteGet(now, waiting_gets_.front())) {
      waiting_bytes_ -= waiting_gets_.front().bytes.size();
      waiting_gets_.pop_front();
    }
  }
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
  landing_bytes_ += packet.bytes.size();
  stats_.most_held_bytes = std::max(stats_.most_held_bytes, heldBytes());
  kernel_.at(when, [this, p = std::move(packet)](Cycle t) mutable {
    landing_bytes_ -= p.bytes.size();
    land(t, std::move(p));
  });
}

void MessageUnit::hold(Packet p) {
  waiting_bytes_ += p.bytes.size();
  stats_.most_held_bytes = std::max(stats_.most_held_bytes, heldBytes());
  (p.type == kRemoteGet ? waiting_gets_ : waiting_).push_back(std::move(p));
}

bool MessageUnit::takeRemoteGet(Cycle when, const Packet& p) {
  u32 n = 0;
  std::memcpy(&n, p.bytes.data() + 4, 4);
  const u64 count = n / kDescriptorBytes;
  if (queued_remote_ + count > kRemoteGetEntries) return false;
  const u8* payload = p.bytes.data() + params_.header_bytes;
  for (u64 i = 0; i < count; ++i) {
    const auto d = parse(
        std::span<const u8, kDescriptorBytes>(payload + i * kDescriptorBytes, kDescriptorBytes));
    if (std::holds_alternative<u64>(d)) {
      ++stats_.descriptor_errors;
      continue;
    }
    Queued q;
    q.d = std::get<Descriptor>(d);
    q.ready = when + params_.injection_cycles;
    q.posted = when;
    q.ring = false;
    queue_.push_back(q);
    ++queued_remote_;
  }
  return true;
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
      signal(MuSignal::kPutPacket, when);
      return;
    }
    case kRemoteGet:
      ++stats_.remote_gets;
      HPM_PROBE(bus, kMuRemoteGetPacketsReceived, 0, 1);
      signal(MuSignal::kRemoteGetPacket, when);
      // (Its descriptors join the port's queue, or wait in the unit for room there.)
      if (!waiting_gets_.empty() || !takeRemoteGet(when, p)) {
        hold(std::move(p));
      } else {
        pump(when);
      }
      return;
    default:
      hold(std::move(p));
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
    signal(MuSignal::kFifoPacket, when);
    u32 n = 0;
    std::memcpy(&n, p.bytes.data() + 4, 4);
    stats_.bytes_received += n;
    waiting_bytes_ -= size;
    waiting_.pop_front();
    stored = true;
  }
  if (stored && rec_tail_addr_ != 0) {
    memory.write(rec_tail_addr_, &rec_tail_, sizeof rec_tail_);
    touched(rec_tail_addr_, sizeof rec_tail_, when, true);
    kernel_.wakeFutexWaiters(rec_tail_addr_, when);
  }
}

static_assert(kClassDims == kMaxTorusDimensions, "a class register write names every dimension");

void MessageUnit::setCollectives(Collectives setup) {
  coll_ = std::move(setup);
}

void MessageUnit::setClassRegister(u64 value) {
  if (!coll_.tree) {  // (no class routes on this machine: nothing to set)
    ++class_errors_;
    return;
  }
  const u32 cls = static_cast<u32>(value & 15);
  const bool gi = (value & kClassSetGi) != 0, clear = (value & kClassSetClear) != 0;
  ClassWrite w;
  w.node = node_;
  w.at = now_();
  w.cls = static_cast<u8>(cls);
  w.gi = gi ? 1 : 0;
  w.set = clear ? 0 : 1;
  w.type = static_cast<u8>(ClassType::kUserSubcomm);
  std::shared_ptr<const ClassRoute> tree;
  if (!clear && class_root_ < torus_.nodes()) {
    w.root = static_cast<u32>(class_root_);
    for (u32 d = 0; d < torus_.dimensions(); ++d) {
      w.low[d] = static_cast<u8>(class_low_ >> (8 * d));
      w.size[d] = static_cast<u8>(class_size_ >> (8 * d));
    }
    tree = coll_.tree(w);
  }
  if ((value & ~u64{15 | kClassSetGi | kClassSetClear}) != 0 || cls == kWorldClass ||
      cls >= kSystemClass || (!clear && (!tree || !tree->member(node_)))) {
    ++class_errors_;
    return;
  }
  (gi ? coll_.gi : coll_.coll)[cls] = tree;
  if (gi) gi_armed_[cls] = 0;  // (a new tree: no barrier of it armed yet)
  coll_.write(w);
}

void MessageUnit::giDone(u32 cls, Cycle when) {
  kernel_.at(when, [this, cls](Cycle t) {
    ++gi_done_[cls];
    gi_armed_[cls] = 0;
    ++gi_events_;
    if (gi_notify_addr_ != 0 && kernel_.memory().write(gi_notify_addr_, &gi_events_, 8)) {
      touched(gi_notify_addr_, 8, t, true);
      kernel_.wakeFutexWaiters(gi_notify_addr_, t);
    }
  });
}

}  // namespace hpm::net
