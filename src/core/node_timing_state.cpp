// The node timing model's state as others read it: its statistics, its events' ground truth,
// the level events' clocks and the cores' snapshots (docs/timing.md).
#include <fmt/format.h>

#include <algorithm>

#include "core/node_timing_impl.h"
#include "core/timing_stats.h"

namespace hpm::timing {

// ---- Statistics ----

void NodeTiming::Impl::visitThread(stats::Visitor& v, const ThreadStats& s, Cycle cycles) const {
  using stats::Unit;
  v.counter(stat::kCycles, cycles);
  v.counter(stat::kInstructions, s.instructions);
  v.counter("warmup_instructions", s.warmup_instructions, "Instructions run in warm-up mode");
  v.counter("compressed", s.compressed, stats::total(Unit::kInstructions),
            "Instructions (issued or warm-up) that were 16-bit");
  v.beginGroup("instructions_by_class");
  for (std::size_t i = 0; i < kClasses; ++i) {
    v.counter(isa::instClassName(static_cast<isa::InstClass>(i)), s.by_class[i],
              stats::total(Unit::kInstructions),
              "Instructions of this class issued or run in warm-up mode");
  }
  v.endGroup();
  v.beginGroup("issued");
  for (u32 i = 0; i < nx + nf; ++i) {
    const std::string name = i < nx ? fmt::format("xu{}", i) : fmt::format("axu{}", i - nx);
    v.counter(name, s.issued[i], stats::total(Unit::kCycles),
              "Cycles this pipe issued an instruction");
  }
  v.endGroup();
  v.beginGroup(stat::kStalls.name);
  for (std::size_t i = 0; i < kStallCount; ++i) {
    v.counter(stallName(static_cast<Stall>(i)), s.stalls[i], stat::kStalls.measure,
              stat::kStalls.doc);
  }
  v.endGroup();
  v.counter("branches", s.branches, "Conditional branches");
  v.counter("branches_taken", s.branches_taken, "Conditional branches taken");
  v.counter("branch_mispredicts", s.branch_mispredicts, "Mispredicted conditional branches");
  v.counter("jumps", s.jumps, "jal and jalr");
  v.counter("jump_mispredicts", s.jump_mispredicts, "jalr whose target was mispredicted");
  v.counter("returns", s.returns, "jalr predicted by the return-address stack");
  v.counter("return_mispredicts", s.return_mispredicts, "Returns whose target was mispredicted");
  v.counter("fetch_groups", s.fetch_groups, "Instruction groups fetched");
  v.counter("device_accesses", s.device_accesses,
            "Loads and stores of device registers (uncached, guarded: no cache or queue)");
  if (translate) {
    v.beginGroup("translation");
    v.counter("ierat_misses", s.ierat_misses, probe::describe(probe::Event::kIeratMisses));
    v.counter("derat_misses", s.derat_misses, probe::describe(probe::Event::kDeratMisses));
    v.counter("tlb_hits_ierat", s.tlb_hits_ierat, probe::describe(probe::Event::kTlbHitsIerat));
    v.counter("tlb_misses_ierat", s.tlb_misses_ierat,
              probe::describe(probe::Event::kTlbMissesIerat));
    v.counter("tlb_hits_derat", s.tlb_hits_derat, probe::describe(probe::Event::kTlbHitsDerat));
    v.counter("tlb_misses_derat", s.tlb_misses_derat,
              probe::describe(probe::Event::kTlbMissesDerat));
    v.endGroup();
  }
}

// ---- Ground truth ----

std::span<const probe::TruthRow<NodeTiming::Impl>> NodeTiming::Impl::truthTable() {
  using probe::Changes;
  using probe::Event;
  using probe::Tally;
  using probe::TruthTerms;
  using Row = probe::TruthRow<Impl>;
  static const std::vector<Row> kRows = [] {
    std::vector<Row> rows = {
        // A thread's clock: every cycle is one of its (idle ones included), in warm-up mode too.
        {Event::kCycles,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].clock}); },
         Changes::kOwnCore, Tally::kLevel},
        // Instructions of the timing mode, or of the warm-up mode (which counts apart).
        {Event::kInstructions,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.instructions});
           t.push_back({&m.threads[h].st.warmup_instructions});
         }},
        {Event::kInstCompressed,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.compressed}); }},
        {Event::kFpOps,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 c = 0; c < kClasses; ++c) {
             const u32 flops = isa::flopsOf(static_cast<isa::InstClass>(c));
             if (flops != 0) t.push_back({&m.threads[h].st.by_class[c], flops});
           }
         }},
        {Event::kBranchesTaken,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.branches_taken});
         }},
        {Event::kBranchesNotTaken,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.branches});
           t.push_back({&m.threads[h].st.branches_taken, ~u64{0}});
         }},
        {Event::kBranchMispredicts,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.branch_mispredicts});
         }},
        {Event::kJumpMispredicts,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.jump_mispredicts});
         }},
        {Event::kReturns,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.returns}); }},
        {Event::kReturnMispredicts,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.return_mispredicts});
         }},
        {Event::kFetchGroups,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.fetch_groups}); }},
        {Event::kIssueXu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 p = 0; p < m.nx; ++p) t.push_back({&m.threads[h].st.issued[p]});
         }},
        {Event::kIssueAxu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 p = 0; p < m.nf; ++p) t.push_back({&m.threads[h].st.issued[m.nx + p]});
         }},
        {Event::kStallAny,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 k = 0; k < kStallCount; ++k) {
             if (static_cast<Stall>(k) != Stall::kIdle) t.push_back({&m.threads[h].st.stalls[k]});
           }
         },
         Changes::kOwnCore, Tally::kLevel},
        {Event::kLmqAllocations,
         [](const Impl& m, u32 c, TruthTerms& t) {
           t.push_back({&m.cores[c].st.lmq_allocations});
         }},
        {Event::kSqAllocations,
         [](const Impl& m, u32 c, TruthTerms& t) { t.push_back({&m.cores[c].st.sq_allocations}); }},
        {Event::kSqCombined,
         [](const Impl& m, u32 c, TruthTerms& t) { t.push_back({&m.cores[c].st.sq_combined}); }},
        // Address translation (zero while translation is off).
        {Event::kIeratMisses,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.ierat_misses}); }},
        {Event::kDeratMisses,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.derat_misses}); }},
        {Event::kTlbHitsIerat,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.tlb_hits_ierat});
         }},
        {Event::kTlbMissesIerat,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.tlb_misses_ierat});
         }},
        {Event::kTlbHitsDerat,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.tlb_hits_derat});
         }},
        {Event::kTlbMissesDerat,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.tlb_misses_derat});
         }},
        {Event::kTlbHitsFirstSize,
         [](const Impl& m, u32 c, TruthTerms& t) {
           t.push_back({&m.cores[c].st.tlb_hits_first_size});
         }},
        {Event::kFetchPortWaits,
         [](const Impl& m, u32 c, TruthTerms& t) {
           t.push_back({&m.cores[c].st.fetch_port_waits});
         }},
        // The queue-full levels reach into the future as they are published: counted from
        // events only (their cycles so far: done + until - from).
        {Event::kLmqFull,
         [](const Impl& m, u32 c, TruthTerms& t) {
           const FullTracker& f = m.cores[c].lmq_full;
           t.insert(t.end(), {{&f.done}, {&f.until}, {&f.from, ~u64{0}}});
         },
         Changes::kAnytime, Tally::kNone},
        {Event::kSqFull,
         [](const Impl& m, u32 c, TruthTerms& t) {
           const FullTracker& f = m.cores[c].sq_full;
           t.insert(t.end(), {{&f.done}, {&f.until}, {&f.from, ~u64{0}}});
         },
         Changes::kAnytime, Tally::kNone},
        // The core's finer signals (docs/timing.md "Core signals"). The splits of a stall's
        // cycles are levels its lump publishes, counted from events only.
        {Event::kFetchSlots,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].sig.fetch_slots}); }},
        {Event::kIbufferEmpties,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].sig.ibuffer_empties});
         }},
        {Event::kPipelineFlushes,
         [](const Impl& m, u32 h, TruthTerms& t) {
           const ThreadStats& s = m.threads[h].st;
           t.insert(t.end(), {{&s.branch_mispredicts},
                              {&s.jump_mispredicts},
                              {&m.threads[h].sig.serializations}});
         }},
        {Event::kStallDependencyXu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           const ThreadStats& s = m.threads[h].st;
           t.insert(t.end(), {{&s.stalls[idx(Stall::kDependency)]},
                              {&m.threads[h].sig.dependency_axu, ~u64{0}}});
         },
         Changes::kOwnCore, Tally::kNone},
        {Event::kStallDependencyAxu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].sig.dependency_axu});
         },
         Changes::kOwnCore, Tally::kNone},
        {Event::kStallPipeBusyXu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           const ThreadStats& s = m.threads[h].st;
           t.insert(t.end(), {{&s.stalls[idx(Stall::kPipeBusy)]},
                              {&m.threads[h].sig.pipe_busy_axu, ~u64{0}}});
         },
         Changes::kOwnCore, Tally::kNone},
        {Event::kStallPipeBusyAxu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].sig.pipe_busy_axu});
         },
         Changes::kOwnCore, Tally::kNone},
        {Event::kStallFence,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].sig.fence_stalls}); },
         Changes::kOwnCore, Tally::kNone},
        {Event::kFpDivSqrtBusy,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].sig.fp_div_sqrt_busy});
         }},
        {Event::kMulDivBusy, [](const Impl& m, u32 h,
                                TruthTerms& t) { t.push_back({&m.threads[h].sig.mul_div_busy}); }},
        {Event::kMulDivCollisions,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].sig.mul_div_collisions});
         }},
        // Every cycle of the thread's clock but its idle ones.
        {Event::kThreadRunning,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].clock});
           t.push_back({&m.threads[h].st.stalls[idx(Stall::kIdle)], ~u64{0}});
         },
         Changes::kOwnCore, Tally::kLevel},
        {Event::kLmqFullStalls,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].sig.lmq_full_stalls});
         }},
        {Event::kSqFullStalls,
         [](const Impl& m, u32 h,
            TruthTerms& t) { t.push_back({&m.threads[h].sig.sq_full_stalls}); }},
        {Event::kLoadHitsPendingMiss,
         [](const Impl& m, u32 h,
            TruthTerms& t) { t.push_back({&m.threads[h].sig.load_hits_pending}); }},
    };
    // The instruction classes (InstIntAlu .. InstSystem follow the classes' order) and the
    // stall causes (stallEvent).
    const auto each = [&rows]<u32... I>(std::integer_sequence<u32, I...>, auto make) {
      (rows.push_back(make(std::integral_constant<u32, I>{})), ...);
    };
    each(std::make_integer_sequence<u32, kClasses>{}, [](auto c) {
      return Row{static_cast<Event>(static_cast<u32>(Event::kInstIntAlu) + c.value),
                 [](const Impl& m, u32 h, TruthTerms& t) {
                   t.push_back({&m.threads[h].st.by_class[decltype(c)::value]});
                 }};
    });
    each(std::make_integer_sequence<u32, kStallCount>{}, [](auto k) {
      return Row{stallEvent(static_cast<Stall>(k.value)),
                 [](const Impl& m, u32 h, TruthTerms& t) {
                   t.push_back({&m.threads[h].st.stalls[decltype(k)::value]});
                 },
                 Changes::kOwnCore, Tally::kLevel};
    });
    return rows;
  }();
  return kRows;
}

void NodeTiming::registerTallies(probe::Bus& bus) const {
  // What only a core's own instructions change changes its version (issue() and idleUntil()
  // step it first): its threads' events, its queues, its caches' own accesses and its traffic
  // below them (the tables' kOwnCore rows).
  const Impl& m = *impl_;
  const auto core_version = [&m](u32 core) { return &m.cores[core].version; };
  probe::registerTallies(bus, Impl::truthTable(), m, core_version,
                         [](u32) -> const u64* { return nullptr; });
  m.mem.registerTallies(bus, core_version);
}

bool NodeTiming::publishes(probe::Event e) {
  const auto rows = Impl::truthTable();
  return std::any_of(rows.begin(), rows.end(), [e](const auto& row) { return row.event == e; });
}

std::optional<u64> NodeTiming::groundTruth(probe::Event e, u32 instance) const {
  if (auto v = probe::truthOf(Impl::truthTable(), *impl_, e, instance)) return v;
  return impl_->mem.groundTruth(e, instance);
}

void NodeTiming::deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                             std::vector<mem::DeviceLineTimes>* times) {
  impl_->mem.deviceLines(addr, bytes, at, write, timed, times);
}

const probe::TransactionCounts& NodeTiming::transactionCounts() const {
  return impl_->mem.transactionCounts();
}

u32 NodeTiming::l2Block(u64 addr) const {
  return impl_->mem.l2Block(addr);
}

const mem::FrameTable* NodeTiming::frames() const {
  return impl_->mem.frames();
}

mem::MemorySystem& NodeTiming::memory() {
  return impl_->mem;
}

const u64* NodeTiming::coreVersion(u32 core) const {
  return &impl_->cores[core].version;
}

namespace {

// The thread level event's stall (stallEvent), if it is one.
bool stallOf(probe::Event e, Stall& s) {
  for (u32 k = 0; k < kStallCount; ++k) {
    if (kStallEvents[k] != e) continue;
    s = static_cast<Stall>(k);
    return true;
  }
  return false;
}

}  // namespace

Cycle NodeTiming::levelClock(u32 thread) const {
  return impl_->threads[thread].clock;
}

Cycle NodeTiming::lastLumpStart(u32 thread) const {
  const Thread& t = impl_->threads[thread];
  return t.clock - t.last.cycles;
}

std::pair<Cycle, Cycle> NodeTiming::levelInLastLump(probe::Event e, u32 thread) const {
  const Thread& t = impl_->threads[thread];
  const Cycle start = t.clock - t.last.cycles;
  if (e == probe::Event::kCycles) return {start, t.clock};
  // (An idle lump is all idle; an issue's or a warm-up's has none.)
  if (e == probe::Event::kThreadRunning) {
    return t.last.stalls[idx(Stall::kIdle)] != 0 ? std::pair{t.clock, t.clock}
                                                 : std::pair{start, t.clock};
  }
  if (e == probe::Event::kStallAny) {
    Cycle n = 0;
    for (std::size_t i = 0; i < kStallCount; ++i)
      n += i == idx(Stall::kIdle) ? 0 : t.last.stalls[i];
    return {start, start + n};
  }
  Stall wanted = Stall::kCount;
  if (!stallOf(e, wanted))
    fail(ExitCode::kInternal, "timing: {} is no thread level event", probe::info(e).name);
  Cycle x = start;
  for (Stall s : kLumpOrder) {
    const Cycle n = t.last.stalls[idx(s)];
    if (s == wanted) return {x, x + n};
    x += n;
  }
  return {x, x};
}

u64 NodeTiming::levelBefore(probe::Event e, u32 thread, Cycle at) const {
  const Thread& t = impl_->threads[thread];
  u64 total = 0;
  Stall s = Stall::kCount;
  if (e == probe::Event::kCycles) {
    total = t.clock;
  } else if (e == probe::Event::kThreadRunning) {
    total = t.clock - t.st.stalls[idx(Stall::kIdle)];
  } else if (e == probe::Event::kStallAny) {
    for (std::size_t i = 0; i < kStallCount; ++i)
      total += i == idx(Stall::kIdle) ? 0 : t.st.stalls[i];
  } else if (stallOf(e, s)) {
    total = t.st.stalls[idx(s)];
  } else {
    fail(ExitCode::kInternal, "timing: {} is no thread level event", probe::info(e).name);
  }
  if (at >= t.clock) return total;
  if (at < t.clock - t.last.cycles) {
    fail(ExitCode::kInternal,
         "timing: level count of thread {} before cycle {}, inside a lump that ended", thread, at);
  }
  const auto [x, y] = levelInLastLump(e, thread);
  const Cycle from = std::max(x, at);
  return total - (y > from ? y - from : 0);
}

void NodeTiming::setProbe(probe::Bus* bus) {
  // Each part gets the bus only while some event of its own is published (not counted from
  // statistics, or not at all): the probes of a part without it cost a compare each. The
  // queue-full levels, published as intervals that reach into the future, have their own.
  using probe::Event;
  using probe::Scope;
  bool timing = false, queues = false, memory = false;
  for (std::size_t e = 0; bus != nullptr && e < probe::kEventCount; ++e) {
    const Scope scope = probe::kEventInfo[e].scope;
    if (probe::nodeWide(scope)) continue;
    bool wanted = false;
    for (u32 s = 0; s < bus->topology().instances(scope) && !wanted; ++s) {
      wanted = bus->wants(static_cast<Event>(e), s);
    }
    if (!wanted) continue;
    const auto event = static_cast<Event>(e);
    // (The thread events from InstCompressed to Fences are the driver's instruction mix.)
    const bool mix = (event >= Event::kInstCompressed && event <= Event::kFences) ||
                     event == Event::kFpOpsSingle;
    if (event == Event::kLmqFull || event == Event::kSqFull) {
      queues = true;
    } else if (mix) {
      continue;
    } else if (scope == Scope::kThread || event == Event::kLmqAllocations ||
               event == Event::kSqAllocations || event == Event::kSqCombined ||
               event == Event::kFetchPortWaits || event == Event::kTlbHitsFirstSize) {
      timing = true;
    } else {
      memory = true;
    }
  }
  impl_->bus = timing ? bus : nullptr;
  impl_->queue_bus = queues ? bus : nullptr;
  // The memory system publishes the interconnect's transactions too.
  if (bus != nullptr && bus->wantsTransactions()) memory = true;
  impl_->mem.setProbe(memory ? bus : nullptr);
}

const IssueCost& NodeTiming::lastCost(u32 h) const {
  return impl_->threads[h].last;
}

CoreSnapshot NodeTiming::snapshot(u32 core) const {
  const Impl& m = *impl_;
  CoreSnapshot s;
  s.integer_pipes = m.nx;
  s.fp_pipes = m.nf;
  for (u32 i = 0; i < m.tpc; ++i) {
    const Thread& t = m.threads[std::size_t{core} * m.tpc + i];
    s.cycles = std::max(s.cycles, t.clock);
    for (u32 p = 0; p < kMaxPipes; ++p) s.issued[p] += t.st.issued[p];
  }
  const Core& c = m.cores[core];
  s.lmq_full_cycles = c.lmq_full.upTo(s.cycles);
  s.sq_full_cycles = c.sq_full.upTo(s.cycles);
  return s;
}

const TimingParams& NodeTiming::params() const {
  return impl_->params;
}

u32 NodeTiming::hardwareThreads() const {
  return static_cast<u32>(impl_->threads.size());
}

void NodeTiming::visitStats(stats::Visitor& v) const {
  const Impl& m = *impl_;
  v.beginList(stat::kCores);
  for (u32 core = 0; core < m.cores.size(); ++core) {
    const Core& c = m.cores[core];
    ThreadStats sum;
    Cycle cycles = 0;
    for (u32 i = 0; i < m.tpc; ++i) {
      const Thread& t = m.threads[std::size_t{core} * m.tpc + i];
      sum.add(t.st);
      cycles = std::max(cycles, t.clock);
    }
    v.beginGroup("");
    m.visitThread(v, sum, cycles);
    v.counter("fetch_port_waits", c.st.fetch_port_waits, stats::total(stats::Unit::kCycles),
              "Cycles group fetches waited for the core's fetch port");
    v.counter("lmq_allocations", c.st.lmq_allocations,
              "Load-miss-queue entries taken (L1D-missing loads, atomics)");
    v.counter(stat::kLmqFullCycles, c.lmq_full.total());
    v.counter("sq_allocations", c.st.sq_allocations, "Store-queue entries taken");
    v.counter("sq_combined", c.st.sq_combined,
              "Stores combined into the entry of the store before them");
    v.counter(stat::kSqFullCycles, c.sq_full.total());
    if (m.translate) {
      v.counter("tlb_hits_first_size", c.st.tlb_hits_first_size,
                probe::describe(probe::Event::kTlbHitsFirstSize));
    }
    m.mem.visitCoreStats(core, v);
    v.beginList("threads");
    for (u32 i = 0; i < m.tpc; ++i) {
      const Thread& t = m.threads[std::size_t{core} * m.tpc + i];
      v.beginGroup("");
      m.visitThread(v, t.st, t.clock);
      v.endGroup();
    }
    v.endList();
    v.endGroup();
  }
  v.endList();
  m.mem.visitSharedStats(v);
}

}  // namespace hpm::timing
