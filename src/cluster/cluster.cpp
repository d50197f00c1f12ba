#include "cluster/cluster.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <tuple>

#include "base/error.h"
#include "cluster/cluster_impl.h"
#include "kernel/thread.h"
#include "mem/interconnect.h"

namespace hpm::net {
namespace {

constexpr std::array<probe::Event, kLinkCountIndexes> kLinkEvents = {
    probe::Event::kNwDynamicChunksSent,
    probe::Event::kNwEscapeChunksSent,
    probe::Event::kNwPriorityChunksSent,
    probe::Event::kNwSystemChunksSent,
    probe::Event::kNwDynamicPacketsReceived,
    probe::Event::kNwEscapePacketsReceived,
    probe::Event::kNwPriorityPacketsReceived,
    probe::Event::kNwSystemPacketsReceived,
    probe::Event::kNwDynamicPacketsToNode,
    probe::Event::kNwEscapePacketsToNode,
    probe::Event::kNwPriorityPacketsToNode,
    probe::Event::kNwSystemPacketsToNode,
    probe::Event::kNwPacketsSent,
    probe::Event::kNwDynamicChunkLeft,
    probe::Event::kNwEscapeChunkLeft,
    probe::Event::kNwPriorityChunkLeft,
    probe::Event::kNwSystemChunkLeft,
    probe::Event::kNwTokenAckPackets,
    probe::Event::kNwAcks,
    probe::Event::kNwNoTokens,
    probe::Event::kNwNoDynamicTokens,
    probe::Event::kNwNoEscapeTokens,
    probe::Event::kNwNoPriorityTokens,
    probe::Event::kNwUserWorldChunksSent,
    probe::Event::kNwSubcommChunksSent,
    probe::Event::kNwSysCollChunksSent,
    probe::Event::kNwUserWorldPacketsReceived,
    probe::Event::kNwSubcommPacketsReceived,
    probe::Event::kNwSysCollPacketsReceived,
    probe::Event::kNwUserWorldPacketsToNode,
    probe::Event::kNwSubcommPacketsToNode,
    probe::Event::kNwSysCollPacketsToNode,
    probe::Event::kNwDynamic1ChunkLeft};

}  // namespace

// What each live thread of a node waits for, for a deadlock's report: "; thread T waits in
// futex 0x... at pc 0x... (return address 0x...)".
std::string blockedThreads(const Kernel& kernel) {
  std::string out;
  for (const std::unique_ptr<Thread>& t : kernel.threads()) {
    if (t->exited) continue;
    const HartState& s = t->hart().state();
    const char* what = t->wait == WaitKind::kFutex        ? "futex"
                       : t->wait == WaitKind::kSleep      ? "sleep"
                       : t->wait == WaitKind::kFdReadable ? "a read"
                       : t->wait == WaitKind::kFdWritable ? "a write"
                       : t->wait == WaitKind::kNone       ? "nothing"
                                                          : "a signal";
    out += fmt::format("; thread {} waits for {}", t->tid(), what);
    if (t->wait == WaitKind::kFutex) out += fmt::format(" on {:#x}", t->futex_addr);
    out += fmt::format(" at pc {:#x} (return address {:#x})", s.pc, s.x[1]);
  }
  return out;
}

void writeAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // (the reader went away: the guest's output is lost, as a pipe's)
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Cluster::Impl::drain(u32 node, bool final) {
  if (options.output != ClusterOptions::Output::kPrefixed) return;
  for (int k = 0; k < 2; ++k) {
    Stream& s = streams[node][k];
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::pread(s.fd.fd, buffer, sizeof buffer, static_cast<off_t>(s.read));
      if (n <= 0) break;
      s.read += static_cast<u64>(n);
      s.partial.append(buffer, static_cast<std::size_t>(n));
    }
    std::string out;
    std::size_t begin = 0;
    for (std::size_t nl; (nl = s.partial.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      out += fmt::format("[{}] ", node);
      out.append(s.partial, begin, nl + 1 - begin);
    }
    s.partial.erase(0, begin);
    if (final && !s.partial.empty()) {
      out += fmt::format("[{}] {}\n", node, s.partial);
      s.partial.clear();
    }
    (k == 0 ? out_text : err_text) += out;
  }
}

void Cluster::Impl::publish(u32 node, u32 port, u32 index, u64 count, Cycle at) {
  if (!isLocal(node)) return;
  Kernel& kernel = sims[node]->kernel();
  if (kernel.finished()) return;
  const probe::Event e = kLinkEvents[index];
  kernel.at(at, [this, node, port, e, index, count](Cycle t) {
    link_counts[node][port][index] += count;
    probe::Bus* bus = sims[node]->kernel().probeBus();
    if (bus != nullptr && bus->wants(e, port)) {
      bus->setNow(std::max(bus->now(), t));
      bus->pulse(e, port, count);
    }
  });
}

void Cluster::Impl::publishLevel(u32 node, u32 port, u32 index, Cycle at, Cycle until) {
  if (!isLocal(node)) return;
  Kernel& kernel = sims[node]->kernel();
  if (kernel.finished()) return;
  const probe::Event e = kLinkEvents[index];
  kernel.at(at, [this, node, port, e, index, until](Cycle t) {
    link_counts[node][port][index] += until - t;
    probe::Bus* bus = sims[node]->kernel().probeBus();
    if (bus != nullptr && bus->wants(e, port)) {
      bus->setNow(std::max(bus->now(), t));
      bus->level(e, port, t, until);
    }
  });
}

void Cluster::Impl::protocolSignal(const ProtocolSignal& s) {
  const u32 ports = 2 * network.torus().dimensions();
  const u32 node = s.link / ports, port = (s.link % ports) ^ 1;  // (as crossed's)
  switch (s.kind) {
    case ProtocolSignal::kTokenAckPacket: publish(node, port, kTokenAckIndex, 1, s.at); break;
    case ProtocolSignal::kAck: publish(node, port, kAcksIndex, 1, s.at); break;
    case ProtocolSignal::kNoTokens:
      // (The system channel and the second dynamic one have no UPC-P event of their own: they
      // count under any channel's.)
      if (s.channel == kAnyChannel) {
        publishLevel(node, port, kNoTokensIndex, s.at, s.until);
      } else if (s.channel < static_cast<u32>(Channel::kSystem)) {
        publishLevel(node, port, kNoTokensIndex + 1 + s.channel, s.at, s.until);
      }
      break;
  }
}

void Cluster::Impl::crossed(const LinkCrossing& x) {
  // (The counters' link numbers are BG/Q's: 2 x dimension for minus, + 1 for plus, as
  // UPC_NW_LINK_bit numbers them; the network's own are 2 x dimension + 0 for plus.)
  const u32 ports = 2 * network.torus().dimensions();
  const u32 from = x.link / ports, port = (x.link % ports) ^ 1;
  const u32 to = network.torus().linkTarget(x.link);
  publish(from, port, kPacketsSentIndex, 1, x.sent);
  if (isCollective(x.channel)) {
    // The collective channels: chunks sent, packets received, packets for the node.
    const u32 c = static_cast<u32>(x.channel) - kFirstCollChannel, k = kCollChannels;
    publish(from, port, kCollIndex + c, x.chunks, x.sent);
    publish(to, port ^ 1, kCollIndex + k + c, 1, x.arrived);
    if (x.last) publish(to, port ^ 1, kCollIndex + 2 * k + c, 1, x.arrived);
    return;
  }
  // (The second dynamic channel counts as the dynamic one but for its chunks leaving.)
  const bool second = x.channel == Channel::kDynamic1;
  const u32 channel = second ? static_cast<u32>(Channel::kDynamic) : static_cast<u32>(x.channel);
  publish(from, port, channel, x.chunks, x.sent);
  if (chunk_signals) {
    // Chunk i leaves i / chunks of the packet's link time after its first.
    const u64 cycles = network.linkCycles(u64{x.chunks} * 32);
    const u32 index = second ? kDynamic1ChunkLeftIndex : kChunkLeftIndex + channel;
    for (u32 i = 0; i < x.chunks; ++i) {
      publish(from, port, index, 1, x.sent + i * cycles / x.chunks);
    }
  }
  publish(to, port ^ 1, kPointChannels + channel, 1, x.arrived);
  if (x.last) publish(to, port ^ 1, 2 * kPointChannels + channel, 1, x.arrived);
}

namespace {
// The probe event of each ColSignal kind.
constexpr std::array<probe::Event, ColSignal::kKinds> kColEvents = {
    probe::Event::kColPacketsSent,    probe::Event::kColPacketsReceived,
    probe::Event::kColSentCutThrough, probe::Event::kColReceivedCutThrough,
    probe::Event::kColPacketsTaken,   probe::Event::kColClassWins,
    probe::Event::kColSenderBusy,     probe::Event::kColReceiverBusy,
    probe::Event::kColAluBusy,        probe::Event::kColReceiverFull,
    probe::Event::kColSenderEmpty,    probe::Event::kColArbiterHas};
}  // namespace

void Cluster::Impl::colSignal(const ColSignal& s) {
  if (!isLocal(s.node)) return;
  Kernel& kernel = sims[s.node]->kernel();
  if (kernel.finished()) return;
  const u32 instance = s.kind == ColSignal::kClassWin ? s.port : s.port * kColVcs + s.vc;
  const bool busy = probe::info(kColEvents[s.kind]).kind == probe::Kind::kLevel;
  kernel.at(s.at, [this, node = s.node, kind = s.kind, instance, busy, until = s.until](Cycle t) {
    col_counts[node][kind][instance] += busy ? until - t : 1;
    const probe::Event e = kColEvents[kind];
    probe::Bus* bus = sims[node]->kernel().probeBus();
    if (bus != nullptr && bus->wants(e, instance)) {
      bus->setNow(std::max(bus->now(), t));
      if (busy) {
        bus->level(e, instance, t, until);
      } else {
        bus->pulse(e, instance, 1);
      }
    }
  });
}

std::optional<u64> Cluster::Impl::colTruth(u32 node, probe::Event e, u32 instance) const {
  const auto* it = std::find(kColEvents.begin(), kColEvents.end(), e);
  if (it == kColEvents.end()) return std::nullopt;
  const std::size_t kind = static_cast<std::size_t>(it - kColEvents.begin());
  return instance < kColClasses ? col_counts[node][kind][instance] : 0;
}

void Cluster::Impl::colWindow(Cycle at) {
  if (!colnet) return;
  for (u32 ch = 0; ch < GlobalBarrier::kChannels; ++ch) {
    const std::vector<Cycle>& done = barrier->completions(ch);
    for (; barriers_told[ch] < done.size(); ++barriers_told[ch]) {
      for (u32 n = local.first; n < local.last; ++n) {
        if (sims[n]->kernel().finished()) continue;
        col_units[n]->barrierDone(ch, barriers_told[ch] + 1, done[barriers_told[ch]]);
      }
    }
  }
  for (u32 n = local.first; n < local.last; ++n) {
    for (u8 vc = 0; vc < kColVcs; ++vc) {
      col_units[n]->setInjectionFreed(vc, colnet->injectionFreed(n, vc, at));
    }
  }
}

std::shared_ptr<const ClassRoute> Cluster::Impl::tree(const ClassWrite& w) {
  std::weak_ptr<const ClassRoute>& slot = trees[ClassKey::of(w)];
  if (std::shared_ptr<const ClassRoute> t = slot.lock()) return t;
  const Torus& torus = network.torus();
  std::optional<ClassRoute> made =
      ClassRoute::make(torus, w.box(torus.dimensions()), w.root, ClassType{w.type});
  std::shared_ptr<const ClassRoute> t =
      made ? std::make_shared<const ClassRoute>(std::move(*made)) : nullptr;
  slot = t;
  if (trees.size() > 2 * trees_pruned_at + 64) {
    std::erase_if(trees, [](const auto& e) { return e.second.expired(); });
    trees_pruned_at = trees.size();
  }
  return t;
}

void Cluster::Impl::applyClassWrite(const ClassWrite& w) {
  std::shared_ptr<const ClassRoute> route = w.set != 0 ? tree(w) : nullptr;
  if (w.gi == 0) {
    network.setNodeClassRoute(w.node, w.cls, std::move(route));
    return;
  }
  std::shared_ptr<GiGroup> group;
  if (route) {
    std::weak_ptr<GiGroup>& slot = gi_groups[{w.cls, ClassKey::of(w)}];
    group = slot.lock();
    if (!group) {
      const u32 members = route->members();
      group = std::make_shared<GiGroup>(
          GiGroup{std::move(route),
                  GlobalBarrier(network.torus().nodes(), machine.network.gi_cycles, members)});
      slot = group;
    }
  }
  gi_regs[w.node][w.cls] = std::move(group);
}

bool Cluster::Impl::giWindow() {
  bool told = false;
  for (auto it = gi_groups.begin(); it != gi_groups.end();) {
    const std::shared_ptr<GiGroup> group = it->second.lock();
    if (!group) {
      it = gi_groups.erase(it);
      continue;
    }
    const u32 cls = it->first.first;
    const std::vector<Cycle>& done = group->barrier.completions(0);
    for (; group->told < done.size(); ++group->told) {
      told = true;
      ++gi_barriers;
      for (u32 n = local.first; n < local.last; ++n) {
        if (gi_regs[n][cls] != group || sims[n]->kernel().finished()) continue;
        units[n]->giDone(cls, done[group->told]);
      }
    }
    ++it;
  }
  return told;
}

Cycle Cluster::Impl::windowCycles() const {
  Cycle torus = std::min(network.lookahead(), Cycle{machine.network.injection_cycles});
  // (A GI barrier completes gi_cycles after its last arm: no sooner than the window's end.)
  if (machine.network.collectives) torus = std::min(torus, Cycle{machine.network.gi_cycles});
  if (!colnet) return torus;
  return std::min({torus, colnet->lookahead(), Cycle{machine.collective.injection_cycles},
                   Cycle{machine.collective.barrier_cycles}});
}

std::optional<u64> Cluster::Impl::linkTruth(u32 node, probe::Event e, u32 port) const {
  const std::vector<LinkCounts>& ports = link_counts[node];
  const auto* it = std::find(kLinkEvents.begin(), kLinkEvents.end(), e);
  if (it == kLinkEvents.end()) return std::nullopt;
  // (The I/O link carries nothing.)
  return port < ports.size() ? ports[port][static_cast<std::size_t>(it - kLinkEvents.begin())] : 0;
}

void Cluster::Impl::endOthers(u32 failed_node, int status) {
  for (u32 n = local.first; n < local.last; ++n) {
    Kernel& k = sims[n]->kernel();
    if (k.finished()) continue;
    k.endRun(status, fmt::format("hpmsim: node {} ended at cycle {}: node {} failed (exit "
                                 "status {}), and a failing node ends the job\n",
                                 n, sims[n]->elapsedCycles(), failed_node, status));
  }
}

std::string nodeOutputFile(const std::string& dir, u32 node, int stream) {
  return fmt::format("{}/node-{}.{}", dir, node, stream == 1 ? "stdout" : "stderr");
}

Cluster::Cluster(const MachineConfig& machine, RunOptions options, ClusterOptions cluster)
    : impl_(std::make_unique<Impl>(machine, std::move(cluster))) {
  Impl& c = *impl_;
  const u32 n = c.network.torus().nodes();
  const HostLink* hosts = c.options.hosts;
  if (hosts != nullptr && hosts->hosts() > n) {
    fail(ExitCode::kUsage,
         "{} simulated nodes cannot be spread over {} host processes (at least "
         "one node each)",
         n, hosts->hosts());
  }
  c.local = hosts ? nodeBlock(n, hosts->hosts(), hosts->host()) : NodeBlock{0, n};
  c.null_in = OwnedFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  c.streams.resize(n);
  c.wrote.assign(n, 0);
  c.sims.resize(n);
  c.units.resize(n);
  c.mu_ports.resize(n);
  c.link_counts.assign(n,
                       std::vector<LinkCounts>(2 * c.network.torus().dimensions(), LinkCounts{}));
  c.network.onCrossing([&c](const LinkCrossing& x) { c.crossed(x); });
  c.network.onProtocol([&c](const ProtocolSignal& s) { c.protocolSignal(s); });
  c.chunk_signals = machine.monitor.unit == "upc";
  if (machine.network.collectives) {
    // The class routes CNK sets (net/class_route.h): the world for user programs (collective
    // class 0, GI class 0) and for the system (collective class 14, GI classes 14 and 15).
    // They are the nodes' registers, set as software sets its own (Impl::applyClassWrite).
    c.gi_regs.resize(n);
    const Torus& torus = c.network.torus();
    for (u32 node = 0; node < n; ++node) {
      for (const auto& [cls, gi, type] : {std::tuple{kWorldClass, 0, ClassType::kUserWorld},
                                          {kSystemClass, 0, ClassType::kSystem},
                                          {kWorldClass, 1, ClassType::kUserWorld},
                                          {kSystemClass, 1, ClassType::kSystem},
                                          {kSystemClass + 1, 1, ClassType::kSystem}}) {
        ClassWrite w;
        w.node = node;
        w.cls = static_cast<u8>(cls);
        w.gi = static_cast<u8>(gi);
        w.set = 1;
        w.type = static_cast<u8>(type);
        for (u32 d = 0; d < torus.dimensions(); ++d) w.size[d] = static_cast<u8>(torus.dims()[d]);
        c.applyClassWrite(w);
      }
    }
  }
  if (machine.collective.enabled) {
    c.colnet.emplace(machine.collective, n, machine.clockHz());
    c.barrier.emplace(n, machine.collective.barrier_cycles);
    c.col_units.resize(n);
    c.col_counts.assign(n, ColCounts{});
    c.colnet->onSignal([&c](const ColSignal& s) { c.colSignal(s); });
    c.colnet->onLevel([&c](const ColSignal& s) { c.colSignal(s); });
  }
  options.timed_devices = true;
  for (u32 node = c.local.first; node < c.local.last; ++node) {
    std::array<int, 3> stdio{node == 0 ? c.options.in_fd : c.null_in.fd, -1, -1};
    for (int k = 0; k < 2; ++k) {
      int fd = -1;
      if (c.options.output == ClusterOptions::Output::kFiles) {
        const std::string path = nodeOutputFile(c.options.output_dir, node, 1 + k);
        fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) fail(ExitCode::kIo, "cannot write '{}': {}", path, std::strerror(errno));
      } else {
        fd = ::memfd_create(k == 0 ? "node-stdout" : "node-stderr", MFD_CLOEXEC);
        if (fd < 0) fail(ExitCode::kHost, "memfd_create: {}", std::strerror(errno));
      }
      c.streams[node][k].fd = OwnedFd(fd);
      stdio[1 + k] = fd;
    }
    options.stdio = stdio;
    auto sim = std::make_unique<Simulation>(machine, options);
    Simulation* raw = sim.get();
    Kernel& kernel = sim->kernel();
    kernel.allowOutsideWakes(true);
    kernel.setBeforeConsoleWrite([&c, node] { c.wrote[node] = 1; });
    // (Injected packets go to the network at the window's end, with every host's: the order
    // of injection does not matter to it, which orders ties by source and sequence number.)
    c.units[node] = std::make_unique<MessageUnit>(
        node, c.network.torus(), machine.network, kernel, [raw] { return raw->accessCycle(); },
        [&c](Packet p) { c.outbox.push_back(std::move(p)); },
        [&c](u64 bytes) { return c.network.linkCycles(bytes); });
    MessageUnit* unit = c.units[node].get();
    c.mu_ports[node] = std::make_unique<MuPorts>(
        c.chunk_signals ? MuPorts::Family::kDma : MuPorts::Family::kMessageUnit,
        [&kernel] { return kernel.probeBus(); },
        [&kernel](Cycle t, std::function<void(Cycle)> action) {
          if (!kernel.finished()) kernel.at(t, std::move(action));
        });
    MuPorts* ports = c.mu_ports[node].get();
    unit->onMemory([raw, ports, times = std::vector<mem::DeviceLineTimes>{},
                    lines = std::vector<MuPorts::Line>{}](u64 addr, u64 bytes, Cycle at, bool write,
                                                          MuAccess what) mutable {
      times.clear();
      raw->deviceMemory(addr, bytes, at, write, &times);
      lines.clear();
      for (const mem::DeviceLineTimes& t : times) lines.push_back({t.addr, t.taken, t.done});
      ports->access(addr, bytes, at, write, what, lines);
    });
    unit->onSignal([ports](MuSignal s, Cycle at) { ports->signal(s, at); });
    kernel.addDeviceProvider(unit);
    if (machine.network.collectives) {
      MessageUnit::Collectives setup;
      for (u32 cls = 0; cls < kClassRoutes; ++cls) {
        setup.coll[cls] = c.network.classRouteShared(node, cls);
        if (c.gi_regs[node][cls]) setup.gi[cls] = c.gi_regs[node][cls]->route;
      }
      setup.tree = [&c](const ClassWrite& w) { return c.tree(w); };
      setup.write = [&c](const ClassWrite& w) { c.class_outbox.push_back(w); };
      setup.arm = [&c, node](u32 cls, Cycle at) { c.gi_outbox.push_back({node, cls, at}); };
      setup.mpi = machine.network.collective_mpi;
      unit->setCollectives(std::move(setup));
    }
    CollectiveUnit* col = nullptr;
    if (c.colnet) {
      c.col_units[node] = std::make_unique<CollectiveUnit>(
          node, n, machine.collective, kernel, [raw] { return raw->accessCycle(); },
          [&c](ColPacket p, Cycle at) {
            c.col_outbox.push_back({at, std::move(p)});
          },
          [&c, node](u32 channel, Cycle at) {
            c.arm_outbox.push_back({node, channel, at});
          });
      col = c.col_units[node].get();
      kernel.addDeviceProvider(col);
    }
    sim->addTruthSource([unit, ports, col, &c, node](probe::Event e, u32 instance) {
      if (auto v = unit->groundTruth(e, instance)) return v;
      if (auto v = ports->groundTruth(e, instance)) return v;
      if (col != nullptr) {
        if (auto v = col->groundTruth(e, instance)) return v;
        if (auto v = c.colTruth(node, e, instance)) return v;
      }
      return c.linkTruth(node, e, instance);
    });
    if (c.options.limit) kernel.setLimitSource(c.options.limit);
    c.sims[node] = std::move(sim);
    if (c.options.on_built)
      c.options.on_built(node - c.local.first + 1, c.local.last - c.local.first);
  }
}

Cluster::~Cluster() = default;

void Cluster::exec(const std::string& path, const std::vector<std::string>& argv,
                   const std::vector<std::string>& envp) {
  Impl& c = *impl_;
  for (u32 n = c.local.first; n < c.local.last; ++n) c.sims[n]->exec(path, argv, envp);
}

void Cluster::run(const Kernel::InterruptSource& interrupted, const NodeResult& node_result) {
  Impl& c = *impl_;
  // Windows no longer than the injection latency: before a window starts, the network has
  // moved every packet to the window's end, so each link crossing a node's counters see in the
  // window is known (and published at its cycle) before the node runs it.
  const Cycle inject = c.machine.network.injection_cycles;
  const Cycle col_inject = c.machine.collective.injection_cycles;
  const Cycle lookahead = c.windowCycles();
  for (u32 n = c.local.first; n < c.local.last; ++n) {
    c.sims[n]->kernel().setInterruptSource(interrupted);
  }
  const auto deliver = [&c](std::vector<Delivery> ds) {
    for (Delivery& d : ds) {
      const u32 dst = d.packet.dst;
      if (!c.isLocal(dst)) continue;  // (its host delivers it)
      if (c.sims[dst]->kernel().finished()) {
        ++c.dropped;
        continue;
      }
      c.units[dst]->receive(d.when, std::move(d.packet));
    }
    return !ds.empty();
  };
  const auto deliverCol = [&c](std::vector<ColDelivery> ds) {
    for (ColDelivery& d : ds) {
      if (!c.isLocal(d.node)) continue;  // (its host delivers it)
      if (c.sims[d.node]->kernel().finished()) {
        ++c.dropped;
        continue;
      }
      c.col_units[d.node]->receive(d.when, std::move(d.packet));
    }
    return !ds.empty();
  };
  // Moves the collective network to `horizon` and tells the units (nothing without one).
  const auto advanceCol = [&](Cycle horizon, Cycle window_start) {
    // (GI barriers told to units are news as deliveries are: their nodes have an event due.)
    if (c.giWindow()) return true;
    if (!c.colnet) return false;
    const bool delivered = deliverCol(c.colnet->advance(horizon));
    c.colWindow(window_start);
    return delivered;
  };
  Cycle window = 0;  // the network has advanced to window + inject
  // (Nothing can happen in the collective network before its injection latency: its states on
  // from cycle 0, a sender's holding all its tokens, are published up to it before the nodes
  // start.)
  if (c.colnet) deliverCol(c.colnet->advance(col_inject));
  for (;;) {
    const Cycle end = window + lookahead;
    WindowNews mine;
    for (u32 n = c.local.first; n < c.local.last; ++n) {
      Simulation& sim = *c.sims[n];
      Kernel& k = sim.kernel();
      if (k.finished()) continue;
      k.setPausePoint(end);
      sim.run();
      if (c.wrote[n]) {
        c.wrote[n] = 0;
        c.drain(n, false);
      }
      // (A node that ended takes every packet: the cluster drops them.)
      mine.rooms.emplace_back(n, k.finished() ? ~u64{0} : c.units[n]->receptionRoom());
      if (c.colnet) {
        for (u8 vc = 0; vc < kColVcs; ++vc) {
          mine.col_rooms.push_back(
              {n, vc, k.finished() ? ~u32{0} : c.col_units[n]->receptionRoom(vc)});
        }
      }
      if (!k.finished()) {
        mine.all_done = false;
        mine.all_waiting = mine.all_waiting && k.waitingOutside();
      } else if (k.termination().status != 0 &&
                 (!mine.failure || sim.elapsedCycles() < mine.failure->cycles)) {
        // The first to fail: earliest, then lowest node (nodes run in order).
        mine.failure = WindowNews::Failure{n, sim.elapsedCycles(), k.termination().status};
      }
    }
    const WindowNews all = c.exchange(std::move(mine));
    ++c.windows;
    if (all.failure) {
      c.exit_status = all.failure->status;
      c.endOthers(all.failure->node, all.failure->status);
    }
    if (all.all_done || all.failure) break;
    bool delivered = deliver(c.network.advance(end + inject));
    delivered = advanceCol(end + col_inject, end) || delivered;
    window = end;
    const auto backlogs = [&c](Cycle at) {
      for (u32 n = c.local.first; n < c.local.last; ++n) {
        c.units[n]->setNetworkBacklog(c.network.sourceBytes(n), at);
      }
    };
    backlogs(window);
    if (!all.all_waiting || delivered) continue;
    // Every live node waits for a packet: nothing can be injected until one lands, so the
    // network may run ahead to the first landing, and the nodes' next window start there.
    std::vector<Delivery> first;
    std::vector<ColDelivery> col_first;
    // (Packets held at a destination with no room make no event: nothing moves them.)
    for (;;) {
      const Cycle torus_next = c.network.idle() ? ~Cycle{0} : c.network.nextStep();
      const Cycle col_next = c.colnet ? c.colnet->nextStep() : ~Cycle{0};
      if (!first.empty() || !col_first.empty() || std::min(torus_next, col_next) == ~Cycle{0}) {
        break;
      }
      if (torus_next <= col_next) {
        first = c.network.advance(torus_next + 1);
      } else {
        col_first = c.colnet->advance(col_next + 1);
      }
    }
    if (first.empty() && col_first.empty()) {
      for (u32 n = c.local.first; n < c.local.last; ++n) {
        c.sims[n]->kernel().endRun(
            static_cast<int>(ExitCode::kGuestFault),
            fmt::format("hpmsim: deadlock: every thread of every node is blocked and no packet is "
                        "in flight (node {} at cycle {}{})\n",
                        n, c.sims[n]->elapsedCycles(), blockedThreads(c.sims[n]->kernel())));
      }
      c.exit_status = static_cast<int>(ExitCode::kGuestFault);
      break;
    }
    const Cycle landing = std::min(first.empty() ? ~Cycle{0} : first.front().when,
                                   col_first.empty() ? ~Cycle{0} : col_first.front().when);
    window = std::max(window, landing);
    deliver(std::move(first));
    deliverCol(std::move(col_first));
    deliver(c.network.advance(window + inject));
    advanceCol(window + col_inject, window);
    backlogs(window);
  }
  for (u32 n = c.local.first; n < c.local.last; ++n) c.drain(n, true);
  c.gatherResults(node_result);
}

}  // namespace hpm::net
