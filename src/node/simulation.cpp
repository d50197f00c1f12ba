#include "node/simulation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "core/timing_params.h"
#include "hart/fpu.h"
#include "hart/interpreter.h"
#include "node/monitor.h"
#include "node/simulation_impl.h"
#include "stats/probe.h"

namespace hpm {

using driver::forEachMixEvent;
using driver::kOpMix;
using isa::OpMix;

namespace {

// The effective address of a memory instruction, from the state before it executes: rs1 + imm
// for loads and stores, rs1 for atomics; for an integer divide, the serial divider's steps for
// its operands (what NodeTiming::issueTime takes in its place); 0 for every other instruction. Two
// masks per operation instead of a switch on its class: this runs before every instruction of the
// timing modes, and a branch on the class mispredicts whenever the mix changes.
struct AddressMasks {
  u64 imm = 0;          // ~0 when the immediate is added
  u64 keep = 0;         // ~0 for memory instructions
  bool divide = false;  // an integer divide: its serial divider steps instead (NodeTiming)
};

std::array<AddressMasks, isa::kOpCount> makeAddressMasks() {
  std::array<AddressMasks, isa::kOpCount> table{};
  for (u32 i = 0; i < isa::kOpCount; ++i) {
    switch (isa::opInfo(static_cast<isa::Op>(i)).cls) {
      case isa::InstClass::kLoad:
      case isa::InstClass::kStore:
      case isa::InstClass::kFpLoad:
      case isa::InstClass::kFpStore: table[i] = {~u64{0}, ~u64{0}}; break;
      case isa::InstClass::kAtomic: table[i] = {0, ~u64{0}}; break;
      case isa::InstClass::kIntDiv: table[i].divide = true; break;
      default: break;
    }
  }
  return table;
}

const std::array<AddressMasks, isa::kOpCount> kAddressMasks = makeAddressMasks();

[[gnu::always_inline]] inline u64 effectiveAddress(const isa::DecodedInst& d, const HartState& s) {
  const AddressMasks& m = kAddressMasks[static_cast<std::size_t>(d.op)];
  if (m.divide) [[unlikely]]
    return timing::serialDividerSteps(d.op, s.x[d.rs1], s.x[d.rs2]);
  return (s.x[d.rs1] + (static_cast<u64>(static_cast<i64>(d.imm)) & m.imm)) & m.keep;
}

// The operations whose instruction-mix events depend on their data: memory accesses (misaligned)
// and store-conditionals (their outcome).
std::array<bool, isa::kOpCount> makeDataDependent() {
  std::array<bool, isa::kOpCount> table{};
  for (u32 i = 0; i < isa::kOpCount; ++i) {
    const OpMix& m = kOpMix[i];
    table[i] = m.load_bytes != 0 || m.store_bytes != 0 || m.lr || m.sc || m.amo;
  }
  return table;
}

const std::array<bool, isa::kOpCount> kDataDependent = makeDataDependent();

// Per operation, the bits of a load's or store's address that are 0 when it is aligned to its
// size (0 for every other operation, whose effective address the run loop passes as 0): the
// functional mode's misaligned accesses, as publishDataEvents finds them.
std::array<u64, isa::kOpCount> makeMisalignment() {
  std::array<u64, isa::kOpCount> table{};
  for (u32 i = 0; i < isa::kOpCount; ++i) {
    const OpMix& m = kOpMix[i];
    const u32 size = m.load_bytes | m.store_bytes;
    table[i] = size != 0 ? size - 1 : 0;
  }
  return table;
}

const std::array<u64, isa::kOpCount> kMisalignment = makeMisalignment();

bool isRegionBegin(const isa::DecodedInst& d) {
  return d.op == isa::Op::kSlti && d.rd == kSinkRegister && d.rs1 == 0;
}
bool isRegionEnd(const isa::DecodedInst& d) {
  return d.op == isa::Op::kSltiu && d.rd == kSinkRegister && d.rs1 == 0;
}

}  // namespace

std::optional<RunMode> parseRunMode(std::string_view name) {
  if (name == "functional") return RunMode::kFunctional;
  if (name == "warmup") return RunMode::kWarmup;
  if (name == "timing") return RunMode::kTiming;
  if (name == "profile") return RunMode::kProfile;
  return std::nullopt;
}

std::string_view runModeName(RunMode mode) {
  switch (mode) {
    case RunMode::kFunctional: return "functional";
    case RunMode::kWarmup: return "warmup";
    case RunMode::kTiming: return "timing";
    case RunMode::kProfile: return "profile";
  }
  return "?";
}

// The observer of the warm-up, timing and profile modes (see hart.h for the hooks).
template <RunMode kMode>
struct TimingObserver {
  static constexpr bool kActive = true;
  // (A constructor rather than aggregate initialisation, which g++ compiles to a `rep stos` of
  // the whole object first: a third of the runner's time per pick in the timing modes.)
  TimingObserver(Simulation::Impl& sim_, Simulation::Impl::HartDriver& driver_, Thread& thread_,
                 HartState& state_, timing::NodeTiming& model_,
                 Simulation::Impl::ThreadRegions& regions_, u32 hw_, Cycle limit_, Cycle first_at_,
                 u64 first_addr_)
      : sim(sim_),
        driver(driver_),
        thread(thread_),
        state(state_),
        model(model_),
        regions(regions_),
        in_region(sim_.in_region[thread_.tid()] != 0),  // (sized by regionsOf, as regions_)
        hw(hw_),
        limit(limit_),
        first_at(first_at_),
        first_addr(first_addr_) {
    refresh();
    if (bus != nullptr) bus->watchEpoch(&view.mix, Simulation::Impl::kInterestChanged);
  }
  ~TimingObserver() {
    if (bus != nullptr) bus->watchEpoch(nullptr, 0);
  }
  TimingObserver(const TimingObserver&) = delete;
  TimingObserver& operator=(const TimingObserver&) = delete;
  Simulation::Impl& sim;
  Simulation::Impl::HartDriver& driver;
  Thread& thread;
  HartState& state;
  timing::NodeTiming& model;
  Simulation::Impl::ThreadRegions& regions;  // the running thread's (valid for this run)
  bool in_region;                            // some region of the thread is open
  u32 hw;
  Cycle limit;
  // The first instruction's issue cycle and address, when the runner planned it already
  // (TimedRunner::firstWaits); kUnknown otherwise.
  Cycle first_at = kUnknown;
  u64 first_addr = 0;
  Cycle at = 0;
  u64 addr = 0;
  bool retired_any = false;
  static constexpr Cycle kUnknown = ~Cycle{0};
  // What every instruction consults, one load each (refresh(): at the start of the run and
  // whenever the bus's wanted set changes).
  probe::Bus* bus = sim.bus.get();
  Monitor* monitor = sim.monitor.get();
  Simulation::Impl::DriverView view;

  void refresh() { view = driver.view; }

  [[gnu::always_inline]] bool beforeIssue(const isa::DecodedInst& d, u64 pc, const HartState& s) {
    if constexpr (kMode != RunMode::kWarmup) {
      if (first_at != kUnknown) {
        // Planned by the runner, with nothing changed since: it issues now (within the limit;
        // the first instruction of a run checks no interrupts).
        at = first_at;
        addr = first_addr;
        first_at = kUnknown;
        if (sim.tm_watch) [[unlikely]] {
          if (!sim.tmCheck(hw, d, pc, s, addr)) return false;
        }
        if (view.tallying != nullptr) view.tallying->issuing(at, *view.dormant);
        return true;
      }
    }
    addr = effectiveAddress(d, s);
    if constexpr (kMode == RunMode::kWarmup) {
      if (bus != nullptr) bus->setNow(state.cycle);
      if (interruptsDue(state.cycle)) return false;
      if (state.cycle > limit) return false;
      if (sim.tm_watch) [[unlikely]] {
        return sim.tmCheck(hw, d, pc, s, addr);
      }
      return true;
    } else {
      at = model.issueTime(hw, d, pc, addr);
      if (bus != nullptr) bus->setNow(at);  // device accesses and events happen at the issue cycle
      if (interruptsDue(at)) return false;
      if (at > limit) {
        // Another hardware thread comes first: wait (without issuing) until `at`.
        state.cycle = at;
        driver.parked = true;
        driver.parked_at = at;
        return false;
      }
      // (Transactional memory: one branch, not taken while no transaction runs.)
      if (sim.tm_watch) [[unlikely]] {
        if (!sim.tmCheck(hw, d, pc, s, addr)) return false;
      }
      if (view.tallying != nullptr) view.tallying->issuing(at, *view.dormant);
      return true;
    }
  }

  // Counter interrupts raised by now go to their threads within monitor.poll_cycles: when some
  // were sent, the run stops before this instruction (after at least one instruction, so every
  // run makes progress) and the kernel delivers them.
  bool interruptsDue(Cycle now) {
    return monitor != nullptr && now >= monitor->pollDue() && retired_any && monitor->poll(now);
  }

  // (Inlined into the run loop, which calls it for every instruction: the rare work is out of
  // line.)
  [[gnu::always_inline]] void retire(const isa::DecodedInst& d, u64 pc, u64 next_pc, u64 /*addr*/) {
    retired_any = true;
    if (view.mix != 0) [[unlikely]] {
      // A store to a counter unit's register window (start/stop, a configuration) may have just
      // changed which events are wanted, or the events of an instruction before (a counter
      // frozen at its overflow): the models must see it from this very instruction on, whose
      // own events the unit counts from the cycle of the store (docs/upc.md, docs/upcq.md).
      if (view.mix & Simulation::Impl::kInterestChanged) {
        sim.noteInterest();
        refresh();
      }
      const auto op = static_cast<std::size_t>(d.op);
      if (view.mix & Simulation::Impl::kCountOps) ++view.op_counts[op];
      if (view.mix & Simulation::Impl::kPublishMix) {
        sim.publishMix(hw, d, addr, state);
      } else if ((view.mix & Simulation::Impl::kPublishDataEvents) && kDataDependent[op]) {
        sim.publishDataEvents(hw, d, addr, state);
      }
    }
    const timing::IssueCost& cost = kMode == RunMode::kWarmup
                                        ? model.warmup(hw, d, pc, addr)
                                        : model.issue(hw, d, pc, next_pc, addr, at);
    state.cycle = cost.clock;
    if (state.cycle >= *view.level_due) [[unlikely]] {
      monitor->levelsReached(hw);
    }
    // (Only a region's span counts, from the snapshot at its begin to its end: outside every
    // region the totals need not move, which spares every other instruction the stall sums.)
    if (in_region) [[unlikely]] {
      ++regions.instructions;
      for (u32 m = cost.stall_mask; m != 0; m &= m - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(m));
        regions.stalls[i] += cost.stalls[i];
      }
    }
    if (d.rd == kSinkRegister && (isRegionBegin(d) || isRegionEnd(d))) [[unlikely]] {
      // (The warm-up issues at the clock before the instruction: `at` is not kept there.)
      const Cycle issued = kMode == RunMode::kWarmup ? state.cycle - cost.cycles : at;
      sim.regionMarker(thread, d, issued, state.cycle);
      in_region = sim.in_region[thread.tid()] != 0;
    }
    if constexpr (kMode == RunMode::kProfile) {
      FunctionProfile& f = sim.functions[sim.functionIndex(hw, pc)];
      ++f.instructions;
      f.cycles += cost.cycles;
      for (u32 m = cost.stall_mask; m != 0; m &= m - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(m));
        f.stalls[i] += cost.stalls[i];
      }
      const u32 core = hw / sim.machine.node.threads_per_core;
      if (state.cycle >= sim.next_sample[core]) sim.sampleCore(core, state.cycle);
    }
  }
};

// The observer of the functional mode while a counter unit is in use (FunctionalRunner): one
// instruction per cycle, as the functional mode's clock has it, counted into the functional
// statistics and published when wanted. Like the warm-up's, it stops before the first
// instruction past the slice's limit (the kernel then keeps the hardware threads in cycle
// order: FunctionalRunner::cycleOrder), and before an instruction when counter interrupts are
// due.
struct FunctionalObserver {
  static constexpr bool kActive = true;
  FunctionalObserver(Simulation::Impl& sim_, Simulation::Impl::HartDriver& driver_,
                     HartState& state_, u32 hw_, Cycle limit_)
      : sim(sim_),
        driver(driver_),
        state(state_),
        bus(*sim_.bus),
        monitor(*sim_.monitor),
        ops(&sim_.op_counts[std::size_t{hw_} * isa::kOpCount]),
        retired(sim_.retired[hw_]),
        compressed(sim_.compressed[hw_]),
        misaligned(sim_.misaligned[hw_]),
        sc_failed(sim_.sc_failed[hw_]),
        hw(hw_),
        limit(limit_),
        view(driver_.view) {
    bus.watchEpoch(&view.mix, Simulation::Impl::kInterestChanged);
  }
  ~FunctionalObserver() { bus.watchEpoch(nullptr, 0); }
  FunctionalObserver(const FunctionalObserver&) = delete;
  FunctionalObserver& operator=(const FunctionalObserver&) = delete;
  Simulation::Impl& sim;
  Simulation::Impl::HartDriver& driver;
  HartState& state;
  probe::Bus& bus;
  Monitor& monitor;
  u64* ops;  // the hardware thread's row of op_counts
  u64& retired;
  u64& compressed;
  u64& misaligned;
  u64& sc_failed;
  u32 hw;
  Cycle limit;
  Simulation::Impl::DriverView view;
  bool retired_any = false;

  bool beforeIssue(const isa::DecodedInst&, u64, const HartState&) {
    bus.setNow(state.cycle);  // device accesses and the kernel's events happen at this cycle
    if (state.cycle > limit) return false;
    // (As TimingObserver::interruptsDue: after at least one instruction.)
    if (state.cycle >= monitor.pollDue() && retired_any && monitor.poll(state.cycle)) return false;
    if (view.tallying != nullptr) view.tallying->issuing(state.cycle, *view.dormant);
    return true;
  }

  // `ea`: a load's or store's effective address (the run loop's).
  [[gnu::always_inline]] void retire(const isa::DecodedInst& d, u64, u64, u64 ea) {
    retired_any = true;
    const auto op = static_cast<std::size_t>(d.op);
    ++ops[op];
    ++retired;
    compressed += d.length == 2 ? 1 : 0;
    const bool misaligned_access = (ea & kMisalignment[op]) != 0;
    misaligned += misaligned_access ? 1 : 0;
    bool sc_failure = false;
    if (d.op == isa::Op::kScW || d.op == isa::Op::kScD) [[unlikely]] {
      sc_failure = state.x[d.rd] != 0;  // (an SC to x0 writes the sink register)
      sc_failed += sc_failure ? 1 : 0;
    }
    if (view.mix != 0) [[unlikely]] {
      // (A store to a unit's window may have just changed what is wanted: from this very
      // instruction on, as in the timing modes.)
      if (view.mix & Simulation::Impl::kInterestChanged) {
        sim.noteInterest();
        view = driver.view;
      }
      if (view.mix & Simulation::Impl::kPublishMix) {
        const Simulation::Impl::FunctionalWants& w = sim.functional_wants[hw];
        if (w.publishes(op) || w.data) sim.publishFunctional(hw, d, misaligned_access, sc_failure);
        const Cycle c = state.cycle;
        if (w.cycles) bus.level(probe::Event::kCycles, hw, c, c + 1);
        if (w.running) bus.level(probe::Event::kThreadRunning, hw, c, c + 1);
      }
    }
    state.cycle += 1;
  }
};

void Simulation::Impl::publishMix(u32 hw, const isa::DecodedInst& d, u64 addr, const HartState& s) {
  using probe::Event;
  probe::Bus& b = *bus;
  auto pub = [&](Event e, u64 n) {
    if (b.wants(e, hw)) b.pulse(e, hw, n);
  };
  const u32 op = static_cast<u32>(d.op);
  if (d.length == 2) pub(Event::kInstCompressed, 1);
  forEachMixEvent(kOpMix[op], pub);
  if (b.wantsOp(op, hw)) b.pulseOp(op, hw, 1);
  publishDataEvents(hw, d, addr, s);
}

void Simulation::Impl::publishDataEvents(u32 hw, const isa::DecodedInst& d, u64 addr,
                                         const HartState& s) {
  using probe::Event;
  probe::Bus& b = *bus;
  const OpMix& m = kOpMix[static_cast<u32>(d.op)];
  auto pub = [&](Event e) {
    if (b.wants(e, hw)) b.pulse(e, hw, 1);
  };
  const u32 size = m.load_bytes | m.store_bytes;
  if (size != 0 && (addr & (size - 1)) != 0) pub(Event::kMisalignedAccesses);
  if (m.sc) pub(s.x[d.rd] == 0 ? Event::kStoreCondSuccess : Event::kStoreCondFail);
}

void Simulation::Impl::readRegionNames() {
  // Records of 64 bytes: a little-endian u32 id, then a NUL-terminated name.
  const auto section = kernel->image().section(".hpm_regions");
  if (!section) return;
  for (std::size_t off = 0; off + 64 <= section->size(); off += 64) {
    u32 id = 0;
    std::memcpy(&id, section->data() + off, 4);
    const char* name = reinterpret_cast<const char*>(section->data() + off + 4);
    region_names[id] = std::string(name, strnlen(name, 60));
  }
}

void Simulation::Impl::regionMarker(Thread& t, const isa::DecodedInst& d, Cycle issued, Cycle now) {
  const u32 id = static_cast<u32>(d.imm) & 0xfff;
  if (region_hook) region_hook(id, isRegionBegin(d), issued);
  ThreadRegions& tr = regionsOf(t.tid());
  if (isRegionBegin(d)) {
    tr.open.push_back(OpenRegion{id, now, tr.instructions, tr.stalls});
    in_region[t.tid()] = 1;
    return;
  }
  // Close the innermost open region with this id; an unmatched end is ignored.
  for (auto it = tr.open.rbegin(); it != tr.open.rend(); ++it) {
    if (it->id != id) continue;
    RegionTotals& r = regions[id][t.tid()];
    if (region_spans.size() < kMaxRegionSpans) {
      region_spans.push_back(RegionSpan{t.tid(), id, it->start_cycle, now});
    } else {
      ++region_spans_dropped;
    }
    ++r.entries;
    r.instructions += tr.instructions - it->start_instructions;
    r.cycles += now - it->start_cycle;
    for (std::size_t i = 0; i < timing::kStallCount; ++i) {
      r.stalls[i] += tr.stalls[i] - it->start_stalls[i];
    }
    tr.open.erase(std::next(it).base());
    in_region[t.tid()] = tr.open.empty() ? 0 : 1;
    return;
  }
}

void Simulation::Impl::sampleCore(u32 core, Cycle now) {
  // Called from inside a hart's run loop: its divisions must not raise the guest's flags.
  const fpu::HostFlags::Preserve keep_guest_flags;
  const timing::CoreSnapshot snap = model->snapshot(core);
  const timing::CoreSnapshot& last = last_snapshot[core];
  const Cycle interval = options.profile_interval;
  ProfileSample sample;
  sample.core = core;
  sample.cycle = next_sample[core];
  const u32 pipes = snap.integer_pipes + snap.fp_pipes;
  const double span = static_cast<double>(now - (next_sample[core] - interval));
  for (u32 p = 0; p < pipes && p < snap.issued.size(); ++p) {
    sample.pipe_ipc.push_back(static_cast<double>(snap.issued[p] - last.issued[p]) / span);
  }
  sample.lmq_full_share = static_cast<double>(snap.lmq_full_cycles - last.lmq_full_cycles) / span;
  sample.sq_full_share = static_cast<double>(snap.sq_full_cycles - last.sq_full_cycles) / span;
  samples.push_back(std::move(sample));
  last_snapshot[core] = snap;
  next_sample[core] = (now / interval + 1) * interval;
}

std::size_t Simulation::Impl::functionIndex(u32 hw, u64 pc) {
  FunctionCache& h = function_caches[hw];
  if (pc >= h.lo && pc < h.hi) return h.index;
  const auto& symbols = kernel->image().symbols();
  const u64 bias = kernel->loadBias();
  const ElfSymbol* sym = kernel->image().symbolFor(pc - bias);
  if (sym == nullptr) {
    h.lo = 1;
    h.hi = 0;
    return functions.size() - 1;
  }
  h.index = static_cast<std::size_t>(sym - symbols.data());
  h.lo = sym->addr + bias;
  h.hi = sym->addr + bias + std::max<u64>(sym->size, 1);
  return h.index;
}

namespace {

// The functional mode's counter units, built when first needed: the first provider of the
// kernel's devices, it builds them at the first open of a path under /dev/hpm/ and stands for
// them from then on, so that their devices keep the numbers they have when the monitor is the
// first provider (as in the other modes): a device's number is what the guest's library takes
// its interrupts by (hpmctr's registry, the device's minor number). The monitor, built, adds
// itself to the kernel's devices as well (Monitor's constructor); behind this one it is never
// found, but it is told of each interrupt delivered as every provider is (DeviceChain), so this
// one does not pass that on.
class LazyUnits final : public DeviceProvider {
 public:
  explicit LazyUnits(Simulation::Impl& sim) : sim_(sim) {}
  int findDevice(std::string_view path) const override {
    sim_.ensureMonitor();
    return sim_.monitor ? sim_.monitor->findDevice(path) : -1;
  }
  // (Only a device findDevice found is asked about: the monitor exists.)
  u64 windowBytes(int device) const override { return sim_.monitor->windowBytes(device); }
  probe::DeviceBus bus(int device) const override { return sim_.monitor->bus(device); }
  u64 readRegister(int device, u64 offset) override {
    return sim_.monitor->readRegister(device, offset);
  }
  void writeRegister(int device, u64 offset, u64 value) override {
    sim_.monitor->writeRegister(device, offset, value);
  }
  void writeNarrow(int device, u64 offset, unsigned size, u64 value) override {
    sim_.monitor->writeNarrow(device, offset, size, value);
  }
  void setInterruptTarget(int device, int tid, int signo) override {
    sim_.monitor->setInterruptTarget(device, tid, signo);
  }
  void windowMapped(int device) override { sim_.monitor->windowMapped(device); }

 private:
  Simulation::Impl& sim_;
};

}  // namespace

void Simulation::Impl::ensureMonitor() {
  if (!lazy_units || monitor) return;
  // The same units, fed by what the functional mode knows exactly: its instructions (by class
  // and operation), its cycles (one instruction each) and the kernel's events. No memory system,
  // so no cache or pipeline event is published (Simulation::countsInFunctionalMode).
  bus = std::make_unique<probe::Bus>(probeTopology(machine), static_cast<u32>(isa::kOpCount));
  kernel->setProbe(bus.get());
  registerFunctionalTallies();
  // (Counting from statistics: while a unit is in use the functional mode keeps its hardware
  // threads in cycle order, FunctionalRunner::cycleOrder, and its observer calls issuing().)
  monitor = std::make_unique<Monitor>(machine, *bus, *kernel, true, options.families);
  // (The bus's clock: the node's latest, until an instruction sets its own.)
  bus->setNow(kernel->elapsedCycles());
}

Simulation::Simulation(MachineConfig machine, RunOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->machine = std::move(machine);
  impl_->options = options;
  KernelConfig kc = kernelConfigFor(impl_->machine);
  kc.root = options.root;
  kc.strict_syscalls = options.strict_syscalls;
  kc.host_time = options.host_time;
  kc.stdio = options.stdio;
  kc.run_mode = std::string(runModeName(options.mode));
  impl_->kernel = std::make_unique<Kernel>(kc);
  if (options.mode != RunMode::kFunctional) {
    const timing::TimingParams tp = timingParamsFor(impl_->machine);
    impl_->model = std::make_unique<timing::NodeTiming>(tp);
    if (const mem::FrameTable* frames = impl_->model->frames()) {
      impl_->kernel->setFrameSource([frames](u64 va) { return frames->peek(va); });
    }
    // The counter units' windows are device pages of the process's memory (Kernel::mapDevice).
    const GuestMemory& memory = impl_->kernel->memory();
    impl_->model->setDevicePages({memory.pageTable(), memory.limit() >> GuestMemory::kPageBits,
                                  GuestMemory::kPageBits, GuestMemory::kDevice});
    // Each device page's bus is its device's (l1p.device_buses: mem/device_buses.h).
    impl_->model->memory().interconnect().setDeviceRouter(
        [kernel = impl_->kernel.get()](u64 va) { return kernel->deviceBus(va); });
    // Address translation takes its pages from CNK's static mapping of the process.
    if (tp.translation.enabled) {
      const Kernel* kernel = impl_->kernel.get();
      impl_->model->setPageMap([kernel](u64 va) { return kernel->staticPageBits(va); });
    }
    const bool monitoring = monitoringWanted(impl_->machine, options.families);
    if (monitoring || options.timed_devices) {
      // The monitor needs the timing model's events: it exists in the warm-up, timing and
      // profile modes. Timed devices need only the bus's clock.
      impl_->bus = std::make_unique<probe::Bus>(probeTopology(impl_->machine),
                                                static_cast<u32>(isa::kOpCount));
      impl_->kernel->setProbe(impl_->bus.get());
    }
    // (Before the tallies, which name its statistics.)
    impl_->createSpeculation();
    if (monitoring) {
      // Counting from statistics needs instructions in cycle order across the node: the timing
      // modes without lookahead (the warm-up mode counts its instructions apart).
      impl_->model->registerTallies(*impl_->bus);
      impl_->bus->setLevelSource(impl_->model.get());
      impl_->registerOpTallies();
      const bool in_order =
          (options.mode == RunMode::kTiming || options.mode == RunMode::kProfile) &&
          impl_->machine.kernel.lookahead == 0;
      impl_->monitor = std::make_unique<Monitor>(impl_->machine, *impl_->bus, *impl_->kernel,
                                                 in_order, options.families);
    }
  }
  if (options.mode == RunMode::kFunctional && monitoringWanted(impl_->machine, options.families)) {
    // The same units, built when first needed (Impl::ensureMonitor).
    impl_->lazy_units = true;
    impl_->lazy_provider = std::make_unique<LazyUnits>(*impl_);
    impl_->kernel->addDeviceProvider(impl_->lazy_provider.get());
    impl_->functional_clock.assign(impl_->machine.hardwareThreads(), 0);
  }
  impl_->harts.resize(impl_->machine.hardwareThreads());
  impl_->function_caches.resize(impl_->machine.hardwareThreads());
  if (options.mode == RunMode::kProfile && options.profile_interval == 0) {
    fail(ExitCode::kUsage, "the profile interval must be at least one cycle");
  }
}

Simulation::~Simulation() = default;

void Simulation::exec(const std::string& path, const std::vector<std::string>& argv,
                      const std::vector<std::string>& envp) {
  if (impl_->model && !impl_->l1p_device) {
    // (Added last, so the devices added before, the message unit's, keep their numbers.)
    Impl* impl = impl_.get();
    impl_->l1p_device = std::make_unique<L1pDevice>(*impl_->kernel, impl_->model->memory(),
                                                    [impl] { return impl->running_hw; });
    impl_->kernel->addDeviceProvider(impl_->l1p_device.get());
    if (impl_->speculation) {
      // (After the L1P's, whose number stays.)
      impl_->tm_device =
          std::make_unique<TmDevice>(impl_->kernel->memory(), *impl_->speculation, *impl_);
      impl_->kernel->addDeviceProvider(impl_->tm_device.get());
    }
  }
  impl_->kernel->exec(path, argv, envp);
  impl_->readRegionNames();
  if (impl_->options.mode == RunMode::kProfile) {
    impl_->functions.resize(impl_->kernel->image().symbols().size() + 1);
    for (std::size_t i = 0; i < impl_->kernel->image().symbols().size(); ++i) {
      impl_->functions[i].name = impl_->kernel->image().symbols()[i].name;
    }
    impl_->functions.back().name = "[unknown]";
    const u32 cores = impl_->machine.node.cores;
    impl_->last_snapshot.assign(cores, timing::CoreSnapshot{});
    impl_->next_sample.assign(cores, impl_->options.profile_interval);
  }
}

// The slice runner of the warm-up, timing and profile modes: runs a thread's hart with a
// TimingObserver until its next instruction would issue after the slice's limit.
template <RunMode kMode>
class TimedRunner final : public Kernel::SliceRunner {
 public:
  explicit TimedRunner(Simulation::Impl& sim) : sim_(sim), model_(*sim.model) {}

  Stop runSlice(Thread& t, u64 limit) override {
    Simulation::Impl& sim = sim_;
    timing::NodeTiming& model = model_;
    const u32 hw = t.slot;
    sim.running_hw = hw;
    sim.running_thread = &t;
    Simulation::Impl::HartDriver& driver = sim.harts[hw];
    HartState& state = t.hart().state();
    if (const u32 next = sim.kernel->nextHint(); next != MinTree::kNone) {
      __builtin_prefetch(&sim.harts[next]);
      model.prefetch(next);
    }
    if (sim.bus && sim.bus->epoch() != sim.bus_epoch) sim.noteInterest();
    if (driver.last_thread != &t) {
      if (driver.last_thread != nullptr) {
        // (BG/Q's speculation ID is the hardware thread's: another guest thread taking it
        // rolls back the transaction of the one that leaves.)
        if (sim.speculation && sim.speculation->speculating(hw) &&
            sim.tm_threads[hw].thread != &t) {
          sim.speculation->rollback(hw, tmreg::kPreempted);
          sim.tmRestore(hw, tmreg::kPreempted);
        }
        model.switchContext(hw);
        ++sim.context_switches;
        if (sim.bus != nullptr) HPM_PROBE(sim.bus.get(), kContextSwitches, 0, 1);
      }
      driver.last_thread = &t;
    }
    // The kernel moved the clock (a wait ended, or the thread waited for its hardware thread):
    // idle time for the model, unless it is the stall of an instruction that is still pending.
    const Cycle model_clock = model.hartTime(hw);
    if (state.cycle > model_clock && !(driver.parked && state.cycle == driver.parked_at)) {
      // The windows that ended by the thread's clock take its level events from its last lump
      // before the idle one replaces it (every hardware thread's next instruction is later).
      if (sim.monitor) {
        sim.monitor->settle(model_clock);
        sim.monitor->waking(hw);
      }
      model.idleUntil(hw, state.cycle);
      if (sim.level_due != nullptr && state.cycle >= sim.level_due[hw]) {
        sim.monitor->levelsReached(hw);
      }
    } else if (state.cycle < model_clock) {
      state.cycle = model_clock;
    }
    driver.parked = false;
    Stop stop{StopReason::kObserver, 0};
    Cycle first_at = TimingObserver<kMode>::kUnknown;
    u64 first_addr = 0;
    if (!firstWaits(t, hw, driver, state, limit, first_at, first_addr)) {
      TimingObserver<kMode> observer(sim, driver, t, state, model, sim.regionsOf(t.tid()), hw,
                                     limit, first_at, first_addr);
      stop = t.hart().run(~u64{0} >> 1, observer);
      if (sim.tm_pending != 0) [[unlikely]] {
        sim.tmApplyPending(hw);
      }
    }
    if (sim.monitor && state.cycle >= sim.monitor->pollDue()) sim.monitor->poll(state.cycle);
    return stop;
  }

 private:
  // Timing and profile modes: whether the thread's next instruction issues after `limit`, in
  // which case it parks at its issue cycle, as TimingObserver::beforeIssue would have it, without
  // entering the run loop (a thread waiting for a sibling's pipe or another core is picked and
  // parked about once per instruction). The first instruction of a run checks no interrupts.
  // When it issues within the limit, `first_at` and `first_addr` are its issue cycle and
  // effective address.
  bool firstWaits(Thread& t, u32 hw, Simulation::Impl::HartDriver& driver, HartState& state,
                  Cycle limit, Cycle& first_at, u64& first_addr) {
    if constexpr (kMode == RunMode::kWarmup) {
      return false;  // the picked thread's clock is never past the limit
    } else {
      const isa::DecodedInst* d = t.hart().nextInstruction();
      if (d == nullptr) return false;  // the run loop reports the fetch fault
      const u64 addr = effectiveAddress(*d, state);
      const Cycle at = model_.issueTime(hw, *d, state.pc, addr);
      if (sim_.bus) sim_.bus->setNow(at);
      if (at <= limit) {
        first_at = at;
        first_addr = addr;
        return false;
      }
      state.cycle = at;
      driver.parked = true;
      driver.parked_at = at;
      return true;
    }
  }

  Simulation::Impl& sim_;
  timing::NodeTiming& model_;
};

// The slice runner of the functional mode on a node with counter units. Until a unit is in use
// (Monitor::inUse) it runs slices exactly as Kernel::runFunctional (no observer: the functional
// mode's speed); from then on through a FunctionalObserver, in cycle order across the node, so
// that the units see their events in time order and count exactly what the statistics say.
class FunctionalRunner final : public Kernel::SliceRunner {
 public:
  explicit FunctionalRunner(Simulation::Impl& sim) : sim_(sim) {}

  bool cycleOrder() const override { return sim_.monitor && sim_.monitor->inUse(); }

  Stop runSlice(Thread& t, u64 limit) override {
    Simulation::Impl& sim = sim_;
    const u32 hw = t.slot;
    HartState& state = t.hart().state();
    Cycle& clock = sim.functional_clock[hw];
    if (!cycleOrder()) {
      // (As Kernel::runFunctional: one instruction per cycle, the budget the distance to the
      // limit.)
      const u64 now = state.cycle;
      const Stop stop = t.hart().run(limit > now ? limit - now : 1);
      clock = state.cycle;
      if (sim.bus) sim.bus->setNow(state.cycle);  // the kernel's events of the stop happen there
      return stop;
    }
    sim.running_hw = hw;
    sim.running_thread = &t;
    if (sim.bus->epoch() != sim.bus_epoch) sim.noteInterest();
    if (state.cycle > clock) {
      // (Its counters counting from statistics may sleep: the idle cycles wake them.)
      if (sim.monitor->tallying()) sim.monitor->waking(hw);
      sim.functionalIdle(hw, clock, state.cycle);
    }
    Stop stop{StopReason::kObserver, 0};
    {
      FunctionalObserver observer(sim, sim.harts[hw], state, hw, limit);
      stop = t.hart().run(~u64{0} >> 1, observer);
    }
    clock = state.cycle;
    if (state.cycle >= sim.monitor->pollDue()) sim.monitor->poll(state.cycle);
    return stop;
  }

 private:
  Simulation::Impl& sim_;
};

void Simulation::run(const Kernel::ProgressFn& progress) {
  Impl& sim = *impl_;
  // (The functional mode's slices end before a cycle only while they keep cycle order: while
  // a counter unit is in use, as it is from the start for the host's counters.)
  const bool timed =
      sim.options.mode != RunMode::kFunctional || (sim.monitor && sim.monitor->inUse());
  if (sim.timed_hook && timed && !sim.hook_installed) {
    // (Once: a run resumed after a pause point goes on with the hook's next call.)
    sim.kernel->setTimedHook(sim.hook_first, sim.timed_hook);
    sim.hook_installed = true;
  }
  switch (sim.options.mode) {
    case RunMode::kFunctional:
      if (sim.lazy_units) {
        FunctionalRunner runner(sim);
        sim.kernel->run(runner, Interleaving::kQuantum, progress);
      } else {
        sim.kernel->runFunctional(progress);
      }
      break;
    case RunMode::kWarmup: {
      TimedRunner<RunMode::kWarmup> runner(sim);
      sim.kernel->run(runner, Interleaving::kEarliestFirst, progress);
      break;
    }
    case RunMode::kTiming: {
      TimedRunner<RunMode::kTiming> runner(sim);
      sim.kernel->run(runner, Interleaving::kEarliestFirst, progress);
      break;
    }
    case RunMode::kProfile: {
      TimedRunner<RunMode::kProfile> runner(sim);
      sim.kernel->run(runner, Interleaving::kEarliestFirst, progress);
      if (!sim.kernel->finished()) break;  // paused: the last samples come at the end
      for (u32 core = 0; core < sim.machine.node.cores; ++core) {
        const Cycle end = sim.model->snapshot(core).cycles;
        if (end > sim.next_sample[core] - sim.options.profile_interval) sim.sampleCore(core, end);
      }
      break;
    }
  }
}

Cycle Simulation::accessCycle() const {
  // (The functional mode's bus keeps the instructions' cycles only while a unit is in use.)
  const bool cycles = impl_->bus && (impl_->options.mode != RunMode::kFunctional ||
                                     (impl_->monitor && impl_->monitor->inUse()));
  return cycles ? impl_->bus->now() : impl_->kernel->elapsedCycles();
}

void Simulation::deviceMemory(u64 addr, u64 bytes, Cycle at, bool write,
                              std::vector<mem::DeviceLineTimes>* times) {
  if (impl_->model) {
    impl_->model->deviceLines(addr, bytes, at, write, impl_->options.mode != RunMode::kWarmup,
                              times);
  }
}

void Simulation::setIntervalHook(u64 cycles, std::function<void(Cycle)> hook) {
  if (cycles == 0 || !hook) return setTimedHook(~Cycle{0}, {});
  // (The first call at the first multiple after the time the run starts from: cycle 0.)
  setTimedHook(cycles, [cycles, hook = std::move(hook)](Cycle now) {
    hook(now);
    return now + cycles;
  });
}

void Simulation::setTimedHook(Cycle first, std::function<Cycle(Cycle)> hook) {
  impl_->hook_first = hook ? first : ~Cycle{0};
  impl_->timed_hook = std::move(hook);
  impl_->hook_installed = false;
}

void Simulation::idleWaitingHardwareThreads(Cycle now) {
  Impl& sim = *impl_;
  const bool counting_functional = !sim.model && sim.monitor && sim.monitor->inUse();
  if (!sim.model && !counting_functional) return;
  std::vector<u8> live(sim.harts.size(), 0);
  for (const auto& t : sim.kernel->threads()) {
    if (!t->exited) live[t->slot] = 1;
  }
  if (counting_functional) {
    // The functional mode's idle cycles up to `now` (FunctionalRunner publishes the rest of a
    // wait when the thread runs again, from the clock moved here).
    for (u32 hw = 0; hw < sim.harts.size(); ++hw) {
      Cycle& clock = sim.functional_clock[hw];
      if (live[hw] == 0 || clock >= now) continue;
      sim.functionalIdle(hw, clock, now);
      clock = now;
    }
    return;
  }
  for (u32 hw = 0; hw < sim.harts.size(); ++hw) {
    const Impl::HartDriver& driver = sim.harts[hw];
    const Cycle clock = sim.model->hartTime(hw);
    // (A parked thread's clock waits for its pending instruction: a stall, not idle time.)
    if (live[hw] == 0 || clock >= now || driver.parked) continue;
    // As TimedRunner::runSlice when a wait ends.
    if (sim.monitor) {
      sim.monitor->settle(clock);
      sim.monitor->waking(hw);
    }
    sim.model->idleUntil(hw, now);
    if (sim.level_due != nullptr && now >= sim.level_due[hw]) sim.monitor->levelsReached(hw);
  }
}

}  // namespace hpm
