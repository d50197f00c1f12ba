// The node timing model: time-stamped resources (seed 003 section 3). docs/timing.md states every
// rule implemented here as a formula; the comments below name the rule each piece implements.
#include "core/node_timing_impl.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "base/error.h"
#include "core/timing_params.h"
#include "mem/memory_system.h"

namespace hpm::timing {

std::string_view stallName(Stall s) {
  switch (s) {
    case Stall::kDependency: return "dependency";
    case Stall::kPipeBusy: return "pipe_busy";
    case Stall::kIbufferEmpty: return "ibuffer_empty";
    case Stall::kIcacheMiss: return "icache_miss";
    case Stall::kMispredict: return "mispredict";
    case Stall::kLmqFull: return "lmq_full";
    case Stall::kSqFull: return "sq_full";
    case Stall::kIdle: return "idle";
    case Stall::kIeratMiss: return "ierat_miss";
    case Stall::kDeratMiss: return "derat_miss";
    case Stall::kCount: break;
  }
  return "?";
}

namespace {

TimingParams validated(const TimingParams& p) {
  p.validate();
  return p;
}

OpTiming opTiming(isa::Op op, const CoreParams& cp) {
  using isa::Format;
  using C = isa::InstClass;
  const isa::OpInfo& info = isa::opInfo(op);
  const Format f = info.format;
  OpTiming o;
  o.cls = static_cast<u8>(info.cls);
  o.axu = info.cls >= C::kFpLoad && info.cls <= C::kFpCvt;
  o.latency = cp.latency.ofOp(op);
  o.occupancy = cp.occupancy.ofOp(op);
  o.wb_port = static_cast<u8>(cp.writeback.of(info.cls));
  o.wb_delay = info.cls == C::kBranch ? 1 : o.latency;
  o.serial_div = info.cls == C::kIntDiv && cp.divider == Divider::kSerial;
  if (info.cls == C::kFpDiv || info.cls == C::kFpSqrt) o.busy_unit = 1;
  if (info.cls == C::kIntMul || info.cls == C::kIntDiv) o.busy_unit = 2;
  if (isa::readsRs1(f) && !isa::rs1IsFp(f)) o.int_src |= 1;
  if (isa::readsRs2(f) && !isa::rs2IsFp(f)) o.int_src |= 2;
  if (isa::rs1IsFp(f)) o.fp_src |= 1;
  if (isa::rs2IsFp(f)) o.fp_src |= 2;
  if (isa::readsRs3(f)) o.fp_src |= 4;
  if (isa::rdIsFp(f)) o.dst = 2;
  if (isa::writesIntRd(f)) o.dst = 1;
  const isa::OpMix mix = isa::opMix(op);
  o.bytes = mix.load_bytes | mix.store_bytes;
  switch (info.cls) {
    case C::kLoad:
    case C::kFpLoad: o.kind = Kind::kLoad; break;
    case C::kStore:
    case C::kFpStore: o.kind = Kind::kStore; break;
    case C::kAtomic: o.kind = Kind::kAtomic; break;
    case C::kBranch: o.kind = Kind::kBranch; break;
    default: break;
  }
  switch (op) {
    case isa::Op::kJal: o.kind = Kind::kJal; break;
    case isa::Op::kJalr: o.kind = Kind::kJalr; break;
    case isa::Op::kFence: o.kind = Kind::kFence; break;
    case isa::Op::kEcall:
    case isa::Op::kEbreak:
      o.kind = Kind::kSerialize;
      o.hold = cp.ecall_cycles;
      break;
    case isa::Op::kFenceI: o.kind = Kind::kSerialize; break;
    default: break;
  }
  return o;
}

}  // namespace

NodeTiming::Impl::Impl(const TimingParams& p) : params(validated(p)), mem(params.memParams()) {
  const CoreParams& cp = params.core;
  tpc = params.threads_per_core;
  nx = cp.integer_pipes;
  nf = cp.fp_pipes;
  group_bytes = cp.fetch_group_bytes;
  group_mask = ~u64{group_bytes - 1};
  ibuffer = cp.ibuffer_entries;
  fetch_to_issue = cp.fetch_to_issue;
  penalty_taken = cp.mispredict_penalty;
  penalty_not_taken = cp.penaltyNotTaken();
  penalty_jump = cp.penaltyJump();
  l1i_hit = params.l1i.hit_latency;
  l1d_hit = params.l1d.hit_latency;
  lmq_entries = cp.load_miss_queue_entries;
  sq_entries = cp.store_queue_entries;
  ghr_mask = cp.history_bits >= 32 ? ~u32{0} : (u32{1} << cp.history_bits) - 1;
  scoreboard = cp.scoreboard_entries;
  straddle_bytes = cp.straddling_fetch ? ~u64{0} : 0;
  forwarding = cp.store_forwarding;
  structural = scoreboard != 0 || cp.divider == Divider::kSerial || cp.writeback.any();
  for (std::size_t i = 0; i < isa::kOpCount; ++i) ops[i] = opTiming(static_cast<isa::Op>(i), cp);
  cores.resize(params.cores);
  for (Core& c : cores) {
    c.bht.assign(cp.bht_entries, 1);  // weakly not taken
    c.port.fill(~Cycle{0});
    c.indirect.assign(cp.indirect_entries, IndirectEntry{});
    c.sq.assign(sq_entries, 0);
    if (!cp.store_forwarding) {
      c.sq_lo.assign(sq_entries, 0);
      c.sq_hi.assign(sq_entries, 0);
    }
    if (cp.writeback.any())
      c.wb.assign(WritebackPorts::kMaxPorts * WritebackPorts::kWindow, ~Cycle{0});
  }
  threads.resize(std::size_t{params.cores} * tpc);
  for (std::size_t h = 0; h < threads.size(); ++h) threads[h].core = static_cast<u32>(h / tpc);
  const TranslationParams& tp = params.translation;
  translate = tp.enabled;
  if (translate) xlate.assign(params.cores, CoreTranslation(tp));
  page_bits = static_cast<u32>(std::countr_zero(u64{tp.page_kib} * 1024));
  first_size_bits = static_cast<u32>(std::countr_zero(u64{tp.tlb_first_size_kib} * 1024));
}

// ---- Address translation (docs/timing.md "Address translation") ----

u32 NodeTiming::Impl::eratLookup(const Thread& t, bool fetch, u64 addr, Page& page,
                                 bool& miss) const {
  miss = false;
  const CoreTranslation& x = xlate[t.core];
  if (const Page* e = (fetch ? x.ierat : x.derat).find(addr)) {
    page = *e;
    return 0;
  }
  // (Pages of 4 KiB to 2^40 bytes: what the kernel's map answers outside that is clamped.)
  const u32 bits = page_map ? std::clamp<u32>(page_map(addr), 12, 40) : page_bits;
  page = pageOf(addr, bits);
  miss = true;
  const TranslationParams& tp = params.translation;
  return tp.erat_miss_cycles + (x.tlb.probe(page) == Tlb::Result::kMiss ? tp.tlb_miss_cycles : 0);
}

void NodeTiming::Impl::reloaded(Thread& t, bool fetch, const Page& page) {
  CoreTranslation& x = xlate[t.core];
  const Page old = (fetch ? x.ierat : x.derat).fill(page);
  if (old.bits != 0) {
    // The threads whose filter held the page the reload evicted forget it.
    for (u32 i = 0; i < tpc; ++i) {
      PageFilter& g = fetch ? threads[t.core * tpc + i].ifilter : threads[t.core * tpc + i].dfilter;
      if (g.base == old.base && g.mask == old.mask()) g = PageFilter{};
    }
  }
  const bool hit = x.tlb.access(page, ++x.stamp) == Tlb::Result::kHit;
  const u32 h = static_cast<u32>(&t - threads.data());
  if (fetch) {
    ++t.st.ierat_misses;
    HPM_PROBE(bus, kIeratMisses, h, 1);
    if (hit) {
      ++t.st.tlb_hits_ierat;
      HPM_PROBE(bus, kTlbHitsIerat, h, 1);
    } else {
      ++t.st.tlb_misses_ierat;
      HPM_PROBE(bus, kTlbMissesIerat, h, 1);
    }
  } else {
    ++t.st.derat_misses;
    HPM_PROBE(bus, kDeratMisses, h, 1);
    if (hit) {
      ++t.st.tlb_hits_derat;
      HPM_PROBE(bus, kTlbHitsDerat, h, 1);
    } else {
      ++t.st.tlb_misses_derat;
      HPM_PROBE(bus, kTlbMissesDerat, h, 1);
    }
  }
  if (hit && page.bits == first_size_bits) {
    ++cores[t.core].st.tlb_hits_first_size;
    HPM_PROBE(bus, kTlbHitsFirstSize, t.core, 1);
  }
}

// ---- Fetch (docs/timing.md "Instruction fetch") ----

void NodeTiming::Impl::planGroup(const Thread& t, const Core& c, u32 core, u64 pc, u64 group,
                                 Plan& p) const {
  const bool straddles = group != (pc & group_mask);
  p.new_group = true;
  p.group = group;
  Cycle e;
  Stall cause = Stall::kIbufferEmpty;
  if (!t.stream || pc != t.expect_pc) {
    e = t.clock;  // a restart: refetch from the thread's clock
  } else if (t.redirect == Redirect::kNone) {
    e = t.group_fetch + 1;  // the sequentially next group
  } else {
    e = t.redirect_time;
    if (t.redirect == Redirect::kMispredict) cause = Stall::kMispredict;
  }
  if (straddles && (!t.stream || pc != t.expect_pc || t.redirect != Redirect::kNone)) ++e;
  // Buffer credit: the fetch is requested only when the buffer has room for the whole group
  // (`slots` 4-byte slots from pc to the group's end), counting instructions in flight: of the
  // instructions before the group, at most ibuffer - slots may still wait to issue.
  const u32 slots = static_cast<u32>((group + group_bytes - pc + 3) / 4);
  p.slots = slots;
  const u64 keep = ibuffer - slots;
  if (t.seq > keep) e = std::max(e, t.issued_at[(t.seq - 1 - keep) % kRing] + 1);
  e = std::max(e, t.fetch_blocked);
  // An I-ERAT miss holds the fetch until the TLB has reloaded the entry.
  if (translate) e += p.icycles = translation(t, true, group, p.ipage, p.imiss);
  p.fetch_earliest = e;
  // One thread fetches per cycle; a thread with an empty buffer and no fetch in flight wins.
  p.priority = t.clock <= e && t.group_arrival <= e;
  Cycle f = e;
  if (!p.priority) {
    while (c.port[f % kPortRing] == f) ++f;
  }
  p.fetch = f;
  p.arrival_hit = f + l1i_hit + fetch_to_issue;
  p.arrival = mem.fetchProbe(core, group, f) + fetch_to_issue;
  p.uses_l2 = p.arrival > p.arrival_hit;  // a miss: the answer depends on the L2
  p.group_cause = cause;
}

// ---- Issue planning (docs/timing.md "Issue") ----

const Plan& NodeTiming::Impl::replan(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr) {
  Thread& t = threads[h];
  Plan& p = t.plan;
  const u32 core = t.core;
  const Core& c = cores[core];
  p.core_version = c.version;
  p.remote_epoch = mem.remoteEpoch(core);
  p.node_version = version;
  p.pc = pc;
  p.addr = addr;
  p.inst = d;
  const OpTiming& o = ops[static_cast<std::size_t>(d.op)];

  // Each constraint that is later than every constraint before it delays the issue; the cycles
  // it adds are charged to it. So a stall cycle goes to the first constraint, in the order
  // fetch, operands, load-miss queue, pipe, store queue, that is not yet met in that cycle.
  Cycle at = t.clock;
  p.stall_mask = 0;
  auto bind = [&](Cycle x, Stall s) {
    if (x > at) {
      const u16 bit = static_cast<u16>(1u << idx(s));
      p.stalls[idx(s)] = (p.stall_mask & bit ? p.stalls[idx(s)] : 0) + (x - at);
      p.stall_mask |= bit;
      at = x;
    }
  };
  planFetch(t, c, core, pc, d.length, p);
  bind(p.arrival_hit - p.icycles, p.group_cause);
  bind(p.arrival_hit, Stall::kIeratMiss);
  bind(p.arrival, Stall::kIcacheMiss);

  Cycle operands = 0;
  if (o.int_src & 1) operands = std::max(operands, t.xr[d.rs1 & 31]);
  if (o.int_src & 2) operands = std::max(operands, t.xr[d.rs2 & 31]);
  if (o.fp_src & 1) operands = std::max(operands, t.fr[d.rs1 & 31]);
  if (o.fp_src & 2) operands = std::max(operands, t.fr[d.rs2 & 31]);
  if (o.fp_src & 4) operands = std::max(operands, t.fr[d.rs3 & 31]);
  if (o.kind == Kind::kFence) operands = std::max({operands, t.loads_done, t.stores_done});
  const Cycle dependency_from = at;
  bind(operands, Stall::kDependency);
  if (!forwarding && o.kind == Kind::kLoad) [[unlikely]]
    bind(queuedStoreDeparture(c, addr, o.bytes, at), Stall::kDependency);
  // Of those cycles, the first ones, up to when the operands of AXU producers were ready, are
  // the AXU's (an FP register's producer is always one; docs/timing.md "Core signals").
  p.dependency_axu = 0;
  if (at != dependency_from) {
    Cycle axu = 0;
    if (o.fp_src & 1) axu = std::max(axu, t.fr[d.rs1 & 31]);
    if (o.fp_src & 2) axu = std::max(axu, t.fr[d.rs2 & 31]);
    if (o.fp_src & 4) axu = std::max(axu, t.fr[d.rs3 & 31]);
    if ((o.int_src & 1) && (t.xr_axu >> (d.rs1 & 31) & 1)) axu = std::max(axu, t.xr[d.rs1 & 31]);
    if ((o.int_src & 2) && (t.xr_axu >> (d.rs2 & 31) & 1)) axu = std::max(axu, t.xr[d.rs2 & 31]);
    p.dependency_axu = axu > dependency_from ? std::min(axu, at) - dependency_from : 0;
  }
  // A D-ERAT miss: the access's address is translated once its operands are ready, and the access
  // waits for the TLB to reload the entry. (Anchored there, before the shared resources: were the
  // reload counted from the cycle the pipe frees, the siblings' issues would push it on forever.)
  p.dcycles = 0;
  if (translate && o.kind >= Kind::kLoad && o.kind <= Kind::kAtomic) {
    p.dcycles = translation(t, false, addr, p.dpage, p.dmiss);
    bind(at + p.dcycles, Stall::kDeratMiss);
  }

  // A device access takes no load-miss-queue or store-queue entry (docs/timing.md "Device
  // registers"). (Only memory accesses look at the page table.)
  const bool device =
      o.kind >= Kind::kLoad && o.kind <= Kind::kAtomic && device_pages.contains(addr);
  p.device = device;
  p.lmq = !device &&
          (o.kind == Kind::kAtomic || (o.kind == Kind::kLoad && !mem.l1dPresent(core, addr)));
  if (p.lmq) bind(lmqFree(c), Stall::kLmqFull);

  const u32 first = o.axu ? nx : 0;
  const u32 last = o.axu ? nx + nf : nx;
  u32 pipe = first;
  for (u32 i = first + 1; i < last; ++i) {
    if (c.pipe_free[i] < c.pipe_free[pipe]) pipe = i;
  }
  p.pipe = pipe;
  bind(c.pipe_free[pipe], Stall::kPipeBusy);

  p.latency = o.latency;
  if (structural) [[unlikely]] {
    const Cycle x = structuralIssue(t, c, o, addr, at, p.latency);
    bind(x, Stall::kPipeBusy);
  }

  p.combine = false;
  if (o.kind == Kind::kStore && !device) {
    p.combine = combinable(c, o, addr, at);
    if (!p.combine) bind(sqFree(c), Stall::kSqFull);
  }
  p.at = at;
  return p;
}

const Plan& NodeTiming::Impl::plan(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr) {
  const Thread& t = threads[h];
  const Plan& p = t.plan;
  if (current(t) && p.pc == pc && p.addr == addr && std::memcmp(&p.inst, &d, sizeof d) == 0) {
    return p;
  }
  return replan(h, d, pc, addr);
}

const Plan& NodeTiming::Impl::replanOutOfLine(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr) {
  return replan(h, d, pc, addr);
}

// ---- Commit ----

Cycle NodeTiming::Impl::structuralIssue(const Thread& t, const Core& c, const OpTiming& o, u64 addr,
                                        Cycle at, u32& latency) const {
  if (scoreboard != 0 && t.seq >= scoreboard) {
    at = std::max(at, t.retired_at[(t.seq - scoreboard) % kRing]);
  }
  if (o.serial_div) {
    latency = static_cast<u32>(addr) + params.core.divider_extra_cycles;
    at = std::max(at, c.divider_free);
  }
  if (o.wb_port != 0) {
    const Cycle* ring = &c.wb[std::size_t{o.wb_port - 1u} * WritebackPorts::kWindow];
    const u32 delay = o.serial_div ? latency : o.wb_delay;
    Cycle w = at + delay;
    while (ring[w % WritebackPorts::kWindow] == w) ++w;
    at = w - delay;
  }
  return at;
}

void NodeTiming::Impl::structuralCommit(Thread& t, Core& c, const OpTiming& o, Cycle at,
                                        u32 latency, Cycle result) const {
  if (scoreboard != 0) {
    // Completion in order: not before the instruction before it (stores and branches a cycle
    // after issue; loads when their data returns).
    const Cycle prev = t.seq == 0 ? 0 : t.retired_at[(t.seq - 1) % kRing];
    t.retired_at[t.seq % kRing] = std::max({prev, at + 1, result});
  }
  if (o.serial_div) c.divider_free = at + latency;
  if (o.wb_port != 0) {
    const Cycle w = at + (o.serial_div ? latency : o.wb_delay);
    c.wb[std::size_t{o.wb_port - 1u} * WritebackPorts::kWindow + w % WritebackPorts::kWindow] = w;
  }
}

Cycle NodeTiming::Impl::queuedStoreDeparture(const Core& c, u64 addr, u32 bytes, Cycle at) const {
  // (Entries leave in order; each slot's departure is the write's ack minus store_ack_cycles.)
  const u64 n = std::min<u64>(c.sq_n, sq_entries);
  const Cycle ack = params.core.store_ack_cycles;
  Cycle until = 0;
  for (u64 k = 0; k < n; ++k) {
    const u32 slot = static_cast<u32>((c.sq_pos + sq_entries - 1 - k) % sq_entries);
    const Cycle departure = c.sq[slot] - ack;
    if (departure <= at) break;  // it and every older entry have left
    if (c.sq_lo[slot] < addr + bytes && addr < c.sq_hi[slot]) until = std::max(until, departure);
  }
  return until;
}

void NodeTiming::Impl::lmqAllocate(Core& c, Cycle at, Cycle release) {
  u32 m = 0;
  for (u32 i = 1; i < lmq_entries; ++i) {
    if (c.lmq[i] < c.lmq[m]) m = i;
  }
  c.lmq[m] = release;
  ++c.st.lmq_allocations;
  const u32 core = static_cast<u32>(&c - cores.data());
  HPM_PROBE(bus, kLmqAllocations, core, 1);
  const Cycle free = lmqFree(c);
  if (free > at) {
    const Cycle until_before = c.lmq_full.until;
    c.lmq_full.add(at, free);
    HPM_PROBE_LEVEL(queue_bus, kLmqFull, core, std::max(at, until_before), free);
  }
}

void NodeTiming::Impl::storeCommit(Thread& t, Core& c, u32 core, const OpTiming& o, u64 addr,
                                   Cycle at) {
  mem.storeIssue(core, addr, at);
  if (combinable(c, o, addr, at)) {
    c.sq_young_lo = std::min(c.sq_young_lo, addr);
    c.sq_young_hi = std::max(c.sq_young_hi, addr + o.bytes);
    ++c.st.sq_combined;
    HPM_PROBE(bus, kSqCombined, core, 1);
    mem.drainCombined(core, addr, o.bytes);
    if (!c.sq_lo.empty()) {
      const u32 young = (c.sq_pos + sq_entries - 1) % sq_entries;
      c.sq_lo[young] = std::min(c.sq_lo[young], addr);
      c.sq_hi[young] = std::max(c.sq_hi[young], addr + o.bytes);
    }
    t.stores_done = std::max(t.stores_done, c.sq[(c.sq_pos + sq_entries - 1) % sq_entries]);
    return;
  }
  // Entries leave in order, one per store_drain_cycles, when their L2 slice takes them (on
  // Fireplane, once their line is owned).
  const Cycle start = mem.drainFree(core, addr, std::max(at, c.sq_tail));
  const Cycle done = mem.drain(core, addr, o.bytes, start);
  const CoreParams& cp = params.core;
  Cycle departure = done + cp.store_drain_cycles;
  // At most store_writes_in_flight writes outstanding: this one leaves once the write that many
  // before it is acknowledged.
  if (cp.store_writes_in_flight != 0 && c.sq_n >= cp.store_writes_in_flight) {
    departure = std::max(departure, c.acks[(c.sq_n - cp.store_writes_in_flight) % c.acks.size()]);
  }
  const Cycle acked = departure + cp.store_ack_cycles;
  if (cp.store_writes_in_flight != 0) c.acks[c.sq_n % c.acks.size()] = acked;
  c.sq[c.sq_pos] = acked;
  if (!c.sq_lo.empty()) {
    c.sq_lo[c.sq_pos] = addr;
    c.sq_hi[c.sq_pos] = addr + o.bytes;
  }
  ++c.sq_n;
  if (++c.sq_pos == sq_entries) c.sq_pos = 0;
  ++c.st.sq_allocations;
  HPM_PROBE(bus, kSqAllocations, core, 1);
  c.sq_tail = departure;
  c.sq_young_lo = addr;
  c.sq_young_hi = addr + o.bytes;
  c.sq_open = true;
  if (c.sq_n >= sq_entries) {
    const Cycle oldest = c.sq[c.sq_pos];
    if (oldest > at) {
      const Cycle until_before = c.sq_full.until;
      c.sq_full.add(at, oldest);
      HPM_PROBE_LEVEL(queue_bus, kSqFull, core, std::max(at, until_before), oldest);
    }
  }
  t.stores_done = std::max(t.stores_done, acked);
}

void NodeTiming::Impl::control(Thread& t, Core& c, const OpTiming& o, const isa::DecodedInst& d,
                               u64 pc, u64 next_pc, Cycle at) {
  const CoreParams& cp = params.core;
  t.expect_pc = next_pc;
  if (o.kind == Kind::kBranch) {
    const bool taken = next_pc != pc + d.length;
    u8& ctr = c.bht[((pc >> 1) ^ t.ghr) & (cp.bht_entries - 1)];
    const bool predicted = ctr >= 2;
    ctr = taken ? static_cast<u8>(std::min(3, ctr + 1)) : static_cast<u8>(ctr == 0 ? 0 : ctr - 1);
    t.ghr = ((t.ghr << 1) | (taken ? 1 : 0)) & ghr_mask;
    ++t.st.branches;
    t.st.branches_taken += taken ? 1 : 0;
    const u32 h = static_cast<u32>(&t - threads.data());
    if (taken) {
      HPM_PROBE(bus, kBranchesTaken, h, 1);
    } else {
      HPM_PROBE(bus, kBranchesNotTaken, h, 1);
    }
    if (predicted != taken) {
      ++t.st.branch_mispredicts;
      HPM_PROBE(bus, kBranchMispredicts, h, 1);
      mispredict(t, at, taken ? penalty_taken : penalty_not_taken);
    } else if (taken) {
      takenRedirect(t);
    }
    return;
  }
  auto push = [&](u64 ret) {
    if (cp.ras_entries == 0) return;
    t.ras_top = (t.ras_top + 1) % cp.ras_entries;
    t.ras[t.ras_top] = ret;
    t.ras_size = std::min(t.ras_size + 1, cp.ras_entries);
  };
  ++t.st.jumps;
  if (o.kind == Kind::kJal) {
    // Direct: the target is known at fetch, so it is always predicted.
    if (isLink(d.rd)) push(pc + d.length);
    takenRedirect(t);
    return;
  }
  // jalr: a return pops the return-address stack; other jalr use the per-core target table.
  const bool is_return = cp.ras_entries > 0 && isLink(d.rs1) && !(isLink(d.rd) && d.rd == d.rs1);
  bool correct = false;
  if (is_return) {
    ++t.st.returns;
    HPM_PROBE(bus, kReturns, static_cast<u32>(&t - threads.data()), 1);
    if (t.ras_size > 0) {
      correct = t.ras[t.ras_top] == next_pc;
      t.ras_top = (t.ras_top + cp.ras_entries - 1) % cp.ras_entries;
      --t.ras_size;
    }
    if (!correct) {
      ++t.st.return_mispredicts;
      HPM_PROBE(bus, kReturnMispredicts, static_cast<u32>(&t - threads.data()), 1);
    }
  } else if (!c.indirect.empty()) {
    IndirectEntry& e = c.indirect[(pc >> 1) & (c.indirect.size() - 1)];
    correct = e.pc == pc && e.target == next_pc;
    e = IndirectEntry{pc, next_pc};
  }
  if (isLink(d.rd)) push(pc + d.length);
  if (correct) {
    takenRedirect(t);
  } else {
    ++t.st.jump_mispredicts;
    HPM_PROBE(bus, kJumpMispredicts, static_cast<u32>(&t - threads.data()), 1);
    mispredict(t, at, penalty_jump);
  }
}

void NodeTiming::Impl::issue(u32 h, const isa::DecodedInst& d, u64 pc, u64 next_pc, u64 addr,
                             Cycle at) {
  const Plan& p = current(threads[h]) ? threads[h].plan : replanOutOfLine(h, d, pc, addr);
  if (at < p.at) {
    fail(ExitCode::kInternal,
         "timing: hardware thread {} issued at cycle {}, before its issue time {}", h, at, p.at);
  }
  ++version;
  Thread& t = threads[h];
  const u32 core = t.core;
  Core& c = cores[core];
  ++c.version;
  const OpTiming& o = ops[static_cast<std::size_t>(d.op)];
  const Cycle before = t.clock;
  mem.setRequesterThread(h);

  if (p.new_group) {
    c.port[p.fetch % kPortRing] = p.fetch;
    c.st.fetch_port_waits += p.fetch - p.fetch_earliest;
    if (p.fetch > p.fetch_earliest)
      HPM_PROBE(bus, kFetchPortWaits, core, p.fetch - p.fetch_earliest);
    const Cycle ready = mem.fetch(core, p.group, p.fetch);
    t.group = p.group;
    t.group_fetch = p.fetch;
    t.group_arrival_hit = p.arrival_hit;
    t.group_arrival = ready + fetch_to_issue;
    t.group_cause = p.group_cause;
    if (ready > p.fetch + l1i_hit) t.fetch_blocked = ready;
    t.stream = true;
    t.redirect = Redirect::kNone;
    if (translate) translated(t, true, p.ipage, p.imiss);
    ++t.st.fetch_groups;
    HPM_PROBE(bus, kFetchGroups, h, 1);
    t.sig.fetch_slots += p.slots;
    HPM_PROBE(bus, kFetchSlots, h, p.slots);
  }

  // The stalls: the last instruction's entries cleared, this one's written (stall_mask).
  IssueCost& cost = t.last;
  for (u32 m = cost.stall_mask; m != 0; m &= m - 1) cost.stalls[std::countr_zero(m)] = 0;
  u32 stalled = p.stall_mask;
  for (u32 m = stalled; m != 0; m &= m - 1) {
    const auto i = static_cast<std::size_t>(std::countr_zero(m));
    cost.stalls[i] = p.stalls[i];
  }
  if (at > p.at) {
    cost.stalls[idx(Stall::kPipeBusy)] += at - p.at;
    stalled |= 1u << idx(Stall::kPipeBusy);
  }
  cost.stall_mask = static_cast<u16>(stalled);

  c.pipe_free[p.pipe] = at + o.occupancy;
  ++t.st.issued[p.pipe];
  if (p.pipe < nx) {
    HPM_PROBE(bus, kIssueXu, h, 1);
  } else {
    HPM_PROBE(bus, kIssueAxu, h, 1);
  }

  if (translate && o.kind >= Kind::kLoad && o.kind <= Kind::kAtomic)
    translated(t, false, p.dpage, p.dmiss);
  Cycle result = at + p.latency;
  t.expect_pc = pc + d.length;
  if (p.device) [[unlikely]] {
    // Uncached and guarded: a load's value comes back device_latency cycles after it issues, a
    // store is posted; no cache, queue or L2 sees either (docs/timing.md "Device registers").
    ++t.st.device_accesses;
    mem.deviceAccess(addr, o.kind == Kind::kStore);
    if (o.kind == Kind::kLoad || o.kind == Kind::kAtomic) {
      result = at + params.core.device_latency;
      t.loads_done = std::max(t.loads_done, result);
    }
  } else {
    switch (o.kind) {
      case Kind::kLoad: {
        const mem::LoadResult r = mem.load(core, addr, at, c.sq_tail);
        result = r.ready;
        // An L1D hit later than its hit latency: the line's fill was still on its way.
        if (!r.l1_miss && r.ready > at + l1d_hit) {
          ++t.sig.load_hits_pending;
          HPM_PROBE(bus, kLoadHitsPendingMiss, h, 1);
        }
        if (r.l1_miss) lmqAllocate(c, at, r.ready);
        t.loads_done = std::max(t.loads_done, r.ready);
        break;
      }
      case Kind::kAtomic:
        result = mem.atomic(core, addr, at, c.sq_tail);
        lmqAllocate(c, at, result);
        t.loads_done = std::max(t.loads_done, result);
        break;
      case Kind::kStore: storeCommit(t, c, core, o, addr, at); break;
      case Kind::kBranch:
      case Kind::kJal:
      case Kind::kJalr: control(t, c, o, d, pc, next_pc, at); break;
      case Kind::kSerialize:  // the pipeline refetches after it
        t.stream = false;
        ++t.sig.serializations;
        HPM_PROBE(bus, kPipelineFlushes, h, 1);
        break;
      case Kind::kFence:
      case Kind::kPlain: break;
    }
  }
  if (o.dst == 1) {
    if (d.rd != 0 && d.rd < 32) {
      t.xr[d.rd] = result;
      t.xr_axu = (t.xr_axu & ~(u32{1} << d.rd)) | u32{o.axu} << d.rd;
    }
  } else if (o.dst == 2) {
    t.fr[d.rd & 31] = result;
  }

  t.issued_at[t.seq % kRing] = at;
  if (o.busy_unit != 0) [[unlikely]]
    unitBusy(t, c, o, p, at);
  if (structural) [[unlikely]]
    structuralCommit(t, c, o, at, p.latency, result);
  ++t.seq;
  t.clock = at + o.hold;
  cost.cycles = t.clock - before;
  cost.clock = t.clock;
  ++t.st.instructions;
  ++t.st.by_class[o.cls];
  t.st.compressed += d.length == 2;
  // (Only the stalls this instruction had: most have none or one.)
  for (; stalled != 0; stalled &= stalled - 1) {
    const auto i = static_cast<std::size_t>(std::countr_zero(stalled));
    t.st.stalls[i] += cost.stalls[i];
  }
  if (at != before) {
    // The stalls' finer signals (docs/timing.md "Core signals").
    t.sig.ibuffer_empties += cost.stalls[idx(Stall::kIbufferEmpty)] != 0;
    t.sig.lmq_full_stalls += cost.stalls[idx(Stall::kLmqFull)] != 0;
    t.sig.sq_full_stalls += cost.stalls[idx(Stall::kSqFull)] != 0;
    t.sig.dependency_axu += p.dependency_axu;
    if (o.kind == Kind::kFence) t.sig.fence_stalls += cost.stalls[idx(Stall::kDependency)];
    if (o.axu) t.sig.pipe_busy_axu += cost.stalls[idx(Stall::kPipeBusy)];
  }
  if (bus != nullptr) [[unlikely]]
    publishIssue(h, o, p, before, at, cost);
}

void NodeTiming::Impl::unitBusy(Thread& t, Core& c, const OpTiming& o, const Plan& p, Cycle at) {
  const u32 h = static_cast<u32>(&t - threads.data());
  if (o.busy_unit == 1) {
    t.sig.fp_div_sqrt_busy += o.occupancy;
    HPM_PROBE(bus, kFpDivSqrtBusy, h, o.occupancy);
    return;
  }
  // A multiply or divide collides when, in the first cycle it waited for its pipe, an earlier
  // multiply or divide held that pipe (or, a divide, the serial divider).
  const Cycle stalled = t.last.stalls[idx(Stall::kPipeBusy)];
  const Cycle from = at - stalled;
  if (stalled != 0 && (c.mul_div_until[p.pipe] > from || (o.serial_div && c.divider_free > from))) {
    ++t.sig.mul_div_collisions;
    HPM_PROBE(bus, kMulDivCollisions, h, 1);
  }
  // (A serial divide holds the divider for its latency; anything else its pipe.)
  const u32 busy = o.serial_div ? p.latency : o.occupancy;
  c.mul_div_until[p.pipe] = at + o.occupancy;
  t.sig.mul_div_busy += busy;
  HPM_PROBE(bus, kMulDivBusy, h, busy);
}

void NodeTiming::Impl::publishIssue(u32 h, const OpTiming& o, const Plan& p, Cycle before, Cycle at,
                                    const IssueCost& cost) {
  using probe::Event;
  HPM_PROBE(bus, kInstructions, h, 1);
  const auto event = static_cast<Event>(static_cast<u32>(Event::kInstIntAlu) + o.cls);
  if (bus->wants(event, h)) bus->pulse(event, h, 1);
  Cycle t0 = before;
  for (Stall s : kLumpOrder) {
    const Cycle n = cost.stalls[idx(s)];
    if (n == 0) continue;
    const Event stall = stallEvent(s);
    if (bus->wants(stall, h)) bus->level(stall, h, t0, t0 + n);
    // The finer signals of a stall lie in its interval (docs/timing.md "Core signals").
    switch (s) {
      case Stall::kIbufferEmpty: HPM_PROBE(bus, kIbufferEmpties, h, 1); break;
      case Stall::kLmqFull: HPM_PROBE(bus, kLmqFullStalls, h, 1); break;
      case Stall::kSqFull: HPM_PROBE(bus, kSqFullStalls, h, 1); break;
      case Stall::kDependency:
        HPM_PROBE_LEVEL(bus, kStallDependencyAxu, h, t0, t0 + p.dependency_axu);
        HPM_PROBE_LEVEL(bus, kStallDependencyXu, h, t0 + p.dependency_axu, t0 + n);
        if (o.kind == Kind::kFence) HPM_PROBE_LEVEL(bus, kStallFence, h, t0, t0 + n);
        break;
      case Stall::kPipeBusy:
        if (o.axu) {
          HPM_PROBE_LEVEL(bus, kStallPipeBusyAxu, h, t0, t0 + n);
        } else {
          HPM_PROBE_LEVEL(bus, kStallPipeBusyXu, h, t0, t0 + n);
        }
        break;
      default: break;
    }
    t0 += n;
  }
  HPM_PROBE_LEVEL(bus, kStallAny, h, before, at);
  HPM_PROBE_LEVEL(bus, kCycles, h, before, before + cost.cycles);
  HPM_PROBE_LEVEL(bus, kThreadRunning, h, before, before + cost.cycles);
}

void NodeTiming::Impl::warmup(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr) {
  ++version;
  Thread& t = threads[h];
  const u32 core = t.core;
  ++cores[core].version;
  const OpTiming& o = ops[static_cast<std::size_t>(d.op)];
  mem.setRequesterThread(h);
  const u64 group = pc & group_mask;
  if (group != t.warm_group) {
    mem.warmFetch(core, group, t.clock);
    t.warm_group = group;
  }
  const bool device =
      o.kind >= Kind::kLoad && o.kind <= Kind::kAtomic && device_pages.contains(addr);
  if (device) {
    ++t.st.device_accesses;
    mem.deviceAccess(addr, o.kind == Kind::kStore);
  }
  switch (device ? Kind::kPlain : o.kind) {
    case Kind::kLoad: mem.warmLoad(core, addr, t.clock); break;
    case Kind::kStore: mem.warmStore(core, addr, t.clock); break;
    case Kind::kAtomic: mem.warmAtomic(core, addr, t.clock); break;
    default: break;
  }
  t.stream = false;
  t.clock += 1;
  t.last = IssueCost{};
  t.last.cycles = 1;
  t.last.clock = t.clock;
  ++t.st.warmup_instructions;
  ++t.st.by_class[o.cls];
  t.st.compressed += d.length == 2;
  if (bus != nullptr) [[unlikely]] {
    HPM_PROBE_LEVEL(bus, kCycles, h, t.clock - 1, t.clock);
    HPM_PROBE_LEVEL(bus, kThreadRunning, h, t.clock - 1, t.clock);
    HPM_PROBE(bus, kInstructions, h, 1);
    const auto event =
        static_cast<probe::Event>(static_cast<u32>(probe::Event::kInstIntAlu) + o.cls);
    if (bus->wants(event, h)) bus->pulse(event, h, 1);
  }
}

bool NodeTiming::publishesInWarmup(probe::Event e) {
  using probe::Event;
  // What warmup() publishes (above) and idleUntil() (below): the clock's cycles, running or idle,
  // and each instruction with its class's event (InstIntAlu .. InstSystem, in the classes' order).
  const auto first_class = static_cast<u32>(Event::kInstIntAlu);
  const auto v = static_cast<u32>(e);
  return e == Event::kCycles || e == Event::kThreadRunning || e == Event::kStallIdle ||
         e == Event::kInstructions || (v >= first_class && v < first_class + kClasses);
}

NodeTiming::NodeTiming(const TimingParams& params) : impl_(std::make_unique<Impl>(params)) {}
NodeTiming::~NodeTiming() = default;

Cycle NodeTiming::issueTime(u32 h, const isa::DecodedInst& inst, u64 pc, u64 addr) {
  return impl_->plan(h, inst, pc, addr).at;
}

const IssueCost& NodeTiming::issue(u32 h, const isa::DecodedInst& inst, u64 pc, u64 next_pc,
                                   u64 addr, Cycle at) {
  impl_->issue(h, inst, pc, next_pc, addr, at);
  return impl_->threads[h].last;
}

void NodeTiming::setDevicePages(const DevicePages& pages) {
  impl_->device_pages = pages;
}

void NodeTiming::setPageMap(PageMap map) {
  impl_->page_map = std::move(map);
}

const IssueCost& NodeTiming::warmup(u32 h, const isa::DecodedInst& inst, u64 pc, u64 addr) {
  impl_->warmup(h, inst, pc, addr);
  return impl_->threads[h].last;
}

void NodeTiming::prefetch(u32 h) const {
  // (The record's first two lines, every instruction's, and its plan's first.)
  const Thread& t = impl_->threads[h];
  __builtin_prefetch(&t.clock);
  __builtin_prefetch(&t.fetch_blocked);
  __builtin_prefetch(&t.plan);
}

Cycle NodeTiming::hartTime(u32 h) const {
  return impl_->threads[h].clock;
}

void NodeTiming::idleUntil(u32 h, Cycle to) {
  Thread& t = impl_->threads[h];
  if (to <= t.clock) return;
  ++impl_->version;
  ++impl_->cores[t.core].version;
  t.last = IssueCost{};
  t.last.cycles = to - t.clock;
  t.last.stalls[idx(Stall::kIdle)] = to - t.clock;
  t.last.stall_mask = static_cast<u16>(1u << idx(Stall::kIdle));
  t.last.clock = to;
  t.st.stalls[idx(Stall::kIdle)] += to - t.clock;
  HPM_PROBE_LEVEL(impl_->bus, kStallIdle, h, t.clock, to);
  HPM_PROBE_LEVEL(impl_->bus, kCycles, h, t.clock, to);
  t.clock = to;
}

void NodeTiming::switchContext(u32 h) {
  Thread& t = impl_->threads[h];
  ++impl_->version;
  ++impl_->cores[t.core].version;
  t.stream = false;
  t.redirect = Redirect::kNone;
  t.ghr = 0;
  t.ras_size = 0;
  t.warm_group = ~u64{0};
}

}  // namespace hpm::timing
