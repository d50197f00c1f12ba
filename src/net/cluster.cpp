#include "net/cluster.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/error.h"

namespace hpm::net {
namespace {

// The link counters' events: chunks sent, packets received, packets for the node (by 0, 1, 2),
// each on the dynamic, escape, priority and system channel (kChannels apart), then packets sent
// on any channel (kPacketsSentIndex).
constexpr u32 kPacketsSentIndex = 3 * kChannels;
constexpr std::array<probe::Event, 3 * kChannels + 1> kLinkEvents = {
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
    probe::Event::kNwPacketsSent};

// A host descriptor closed when it goes.
struct OwnedFd {
  int fd = -1;
  OwnedFd() = default;
  explicit OwnedFd(int f) : fd(f) {}
  OwnedFd(OwnedFd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  OwnedFd& operator=(OwnedFd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~OwnedFd() {
    if (fd >= 0) ::close(fd);
  }
};

void writeAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // (the reader went away: the guest's output is lost, as a pipe's)
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

struct Cluster::Impl {
  MachineConfig machine;
  ClusterOptions options;
  Network network;
  std::vector<std::unique_ptr<Simulation>> sims;
  std::vector<std::unique_ptr<MessageUnit>> units;
  // Prefixed output: per node, its stdout and stderr captured in memory files, the bytes read so
  // far and the part of a line not yet written.
  struct Stream {
    OwnedFd fd;
    u64 read = 0;
    std::string partial;
  };
  std::vector<std::array<Stream, 2>> streams;
  std::vector<u8> wrote;  // per node: wrote to its console since the last drain
  // Per node and link port: what its link counters count (the NWUnit's ground truth), each
  // counted at the cycle its event is published on the node's bus.
  // By kLinkEvents' index.
  using LinkCounts = std::array<u64, 3 * kChannels + 1>;
  std::vector<std::vector<LinkCounts>> link_counts;
  OwnedFd null_in;
  u64 windows = 0;
  u64 dropped = 0;  // packets for nodes that had ended
  std::optional<u32> failed;

  Impl(const MachineConfig& m, ClusterOptions o)
      : machine(m),
        options(std::move(o)),
        network(m.network, Torus(parseTorusShape(m.network.shape)), m.clockHz()) {}

  void drain(u32 node, bool final);
  // A crossing's events: chunks sent on the sending node's port, the packet received on the
  // receiving node's port of the same cable (same dimension, the other direction). Ports are
  // BG/Q's link numbers: 2 x dimension for the minus link, + 1 for the plus link.
  void crossed(const LinkCrossing& x);
  // Counts kLinkEvents[index] on the node's port at `at`.
  void publish(u32 node, u32 port, u32 index, u64 count, Cycle at);
  std::optional<u64> linkTruth(u32 node, probe::Event e, u32 port) const;
  void endOthers(u32 failed_node);
};

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
    writeAll(k == 0 ? options.out_fd : options.err_fd, out);
  }
}

void Cluster::Impl::publish(u32 node, u32 port, u32 index, u64 count, Cycle at) {
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

void Cluster::Impl::crossed(const LinkCrossing& x) {
  // (The counters' link numbers are BG/Q's: 2 x dimension for minus, + 1 for plus, as
  // UPC_NW_LINK_bit numbers them; the network's own are 2 x dimension + 0 for plus.)
  const u32 ports = 2 * network.torus().dimensions();
  const u32 from = x.link / ports, port = (x.link % ports) ^ 1;
  const u32 to = network.torus().linkTarget(x.link);
  const u32 channel = static_cast<u32>(x.channel);
  publish(from, port, kPacketsSentIndex, 1, x.sent);
  publish(from, port, channel, x.chunks, x.sent);
  publish(to, port ^ 1, kChannels + channel, 1, x.arrived);
  if (x.last) publish(to, port ^ 1, 2 * kChannels + channel, 1, x.arrived);
}

std::optional<u64> Cluster::Impl::linkTruth(u32 node, probe::Event e, u32 port) const {
  const std::vector<LinkCounts>& ports = link_counts[node];
  const auto* it = std::find(kLinkEvents.begin(), kLinkEvents.end(), e);
  if (it == kLinkEvents.end()) return std::nullopt;
  // (The I/O link carries nothing.)
  return port < ports.size() ? ports[port][static_cast<std::size_t>(it - kLinkEvents.begin())] : 0;
}

void Cluster::Impl::endOthers(u32 failed_node) {
  const Termination& why = sims[failed_node]->kernel().termination();
  for (u32 n = 0; n < sims.size(); ++n) {
    Kernel& k = sims[n]->kernel();
    if (k.finished()) continue;
    k.endRun(why.status, fmt::format("hpmsim: node {} ended at cycle {}: node {} failed (exit "
                                     "status {}), and a failing node ends the job\n",
                                     n, sims[n]->elapsedCycles(), failed_node, why.status));
  }
}

Cluster::Cluster(const MachineConfig& machine, RunOptions options, ClusterOptions cluster)
    : impl_(std::make_unique<Impl>(machine, std::move(cluster))) {
  Impl& c = *impl_;
  const u32 n = c.network.torus().nodes();
  c.null_in = OwnedFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  c.streams.resize(n);
  c.wrote.assign(n, 0);
  c.link_counts.assign(
      n, std::vector<Impl::LinkCounts>(2 * c.network.torus().dimensions(), Impl::LinkCounts{}));
  c.network.onCrossing([&c](const LinkCrossing& x) { c.crossed(x); });
  options.timed_devices = true;
  for (u32 node = 0; node < n; ++node) {
    std::array<int, 3> stdio{node == 0 ? c.options.in_fd : c.null_in.fd, -1, -1};
    for (int k = 0; k < 2; ++k) {
      int fd = -1;
      if (c.options.output == ClusterOptions::Output::kFiles) {
        const std::string path =
            fmt::format("{}/node-{}.{}", c.options.output_dir, node, k == 0 ? "stdout" : "stderr");
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
    c.units.push_back(std::make_unique<MessageUnit>(
        node, c.network.torus(), machine.network, kernel, [raw] { return raw->accessCycle(); },
        [&c](Packet p) { c.network.inject(std::move(p)); },
        [&c](u64 bytes) { return c.network.linkCycles(bytes); }));
    c.units.back()->onMemory([raw](u64 addr, u64 bytes, Cycle at, bool write) {
      raw->deviceMemory(addr, bytes, at, write);
    });
    kernel.addDeviceProvider(c.units.back().get());
    sim->addTruthSource([unit = c.units.back().get(), &c, node](probe::Event e, u32 instance) {
      if (auto v = unit->groundTruth(e, instance)) return v;
      return c.linkTruth(node, e, instance);
    });
    c.sims.push_back(std::move(sim));
  }
}

Cluster::~Cluster() = default;

void Cluster::exec(const std::string& path, const std::vector<std::string>& argv,
                   const std::vector<std::string>& envp) {
  for (auto& sim : impl_->sims) sim->exec(path, argv, envp);
}

void Cluster::run(const Kernel::InterruptSource& interrupted) {
  Impl& c = *impl_;
  // Windows no longer than the injection latency: before a window starts, the network has
  // moved every packet to the window's end, so each link crossing a node's counters see in the
  // window is known (and published at its cycle) before the node runs it.
  const Cycle inject = c.machine.network.injection_cycles;
  const Cycle lookahead = std::min(c.network.lookahead(), inject);
  for (auto& sim : c.sims) sim->kernel().setInterruptSource(interrupted);
  const auto deliver = [&c](std::vector<Delivery> ds) {
    for (Delivery& d : ds) {
      if (c.sims[d.packet.dst]->kernel().finished()) {
        ++c.dropped;
        continue;
      }
      const u32 dst = d.packet.dst;
      c.units[dst]->receive(d.when, std::move(d.packet));
    }
    return !ds.empty();
  };
  Cycle window = 0;  // the network has advanced to window + inject
  for (;;) {
    const Cycle end = window + lookahead;
    bool all_done = true, all_waiting = true;
    for (u32 n = 0; n < c.sims.size(); ++n) {
      Simulation& sim = *c.sims[n];
      Kernel& k = sim.kernel();
      if (k.finished()) continue;
      k.setPausePoint(end);
      sim.run();
      if (c.wrote[n]) {
        c.wrote[n] = 0;
        c.drain(n, false);
      }
      if (!k.finished()) {
        all_done = false;
        all_waiting = all_waiting && k.waitingOutside();
      } else if (k.termination().status != 0 &&
                 (!c.failed || sim.elapsedCycles() < c.sims[*c.failed]->elapsedCycles())) {
        c.failed = n;  // the first to fail: earliest, then lowest node (nodes run in order)
      }
    }
    ++c.windows;
    if (c.failed) c.endOthers(*c.failed);
    if (all_done || c.failed) break;
    const bool delivered = deliver(c.network.advance(end + inject));
    window = end;
    if (!all_waiting || delivered) continue;
    // Every live node waits for a packet: nothing can be injected until one lands, so the
    // network may run ahead to the first landing, and the nodes' next window start there.
    std::vector<Delivery> first;
    while (first.empty() && !c.network.idle()) {
      first = c.network.advance(c.network.nextStep() + 1);
    }
    if (first.empty()) {
      for (u32 n = 0; n < c.sims.size(); ++n) {
        c.sims[n]->kernel().endRun(
            static_cast<int>(ExitCode::kGuestFault),
            fmt::format("hpmsim: deadlock: every thread of every node is blocked and no packet is "
                        "in flight (node {} at cycle {})\n",
                        n, c.sims[n]->elapsedCycles()));
      }
      c.failed = 0;
      break;
    }
    window = std::max(window, first.front().when);
    deliver(std::move(first));
    deliver(c.network.advance(window + inject));
  }
  for (u32 n = 0; n < c.sims.size(); ++n) c.drain(n, true);
}

u32 Cluster::nodes() const {
  return static_cast<u32>(impl_->sims.size());
}
Simulation& Cluster::node(u32 i) {
  return *impl_->sims[i];
}
const Simulation& Cluster::node(u32 i) const {
  return *impl_->sims[i];
}
const Network& Cluster::network() const {
  return impl_->network;
}
const MessageUnit& Cluster::messageUnit(u32 i) const {
  return *impl_->units[i];
}
u64 Cluster::windows() const {
  return impl_->windows;
}

int Cluster::exitStatus() const {
  return impl_->failed ? impl_->sims[*impl_->failed]->kernel().termination().status : 0;
}

std::string Cluster::reports() const {
  std::string out;
  for (u32 n = 0; n < impl_->sims.size(); ++n) {
    const Kernel& k = impl_->sims[n]->kernel();
    if (!k.finished()) continue;
    const std::string& report = k.termination().report;
    std::size_t begin = 0;
    for (std::size_t nl; (nl = report.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      out += fmt::format("node {}: {}", n, report.substr(begin, nl + 1 - begin));
    }
    if (begin < report.size()) out += fmt::format("node {}: {}\n", n, report.substr(begin));
  }
  return out;
}

Cycle Cluster::elapsedCycles() const {
  Cycle latest = 0;
  for (const auto& sim : impl_->sims) latest = std::max(latest, sim->elapsedCycles());
  return latest;
}

u64 Cluster::retiredInstructions() const {
  u64 total = 0;
  for (const auto& sim : impl_->sims) total += sim->retiredInstructions();
  return total;
}

void Cluster::visitStats(stats::Visitor& v) const {
  const Impl& c = *impl_;
  v.beginGroup("network");
  v.text("shape", c.machine.network.shape, "Torus dimensions");
  v.counter("nodes", c.sims.size(), "Nodes");
  v.counter("windows", c.windows, "Windows the nodes advanced in");
  v.counter("lookahead_cycles", c.network.lookahead(),
            "The least time from an injection to another node's memory");
  v.counter("window_cycles", std::min(c.network.lookahead(), c.machine.network.injection_cycles),
            "Cycles of a window: the lookahead, at most the injection latency (so that the "
            "link counters' events are known before the nodes run past them)");
  v.counter("packets_delivered", c.network.packetsDelivered(),
            "Packets that crossed the network to another node");
  v.counter("packets_dropped", c.dropped, "Packets for nodes that had ended");
  v.counter("buffer_waits", c.network.bufferWaits(),
            "Hops at which a packet found its link free but no room in the next router's buffer "
            "(back-pressure)");
  v.beginList("links");
  const Torus& torus = c.network.torus();
  for (u32 l = 0; l < c.network.links().size(); ++l) {
    const LinkStats& s = c.network.links()[l];
    if (s.packets == 0) continue;  // (unused links: most of a large torus in a small program)
    const u32 dims = torus.dimensions();
    v.beginGroup("");
    v.counter("node", l / (2 * dims), "The node the link leaves");
    v.counter("dimension", l % (2 * dims) / 2, "Its dimension (0 = A)");
    v.text("direction", (l & 1) == 0 ? "+" : "-", "Its direction");
    v.counter("packets", s.packets, "Packets sent over it");
    v.counter("chunks", s.chunks, "32-byte chunks sent over it");
    v.counter("busy_cycles", s.busy_cycles, "Cycles it was sending");
    v.counter("wait_cycles", s.wait_cycles, "Cycles packets waited for it");
    v.counter("dynamic_packets", s.channel_packets[0], "Packets it carried on the dynamic channel");
    v.counter("escape_packets", s.channel_packets[1], "Packets it carried on the escape channel");
    v.counter("priority_packets", s.channel_packets[2],
              "Packets it carried on the priority channel");
    v.counter("system_packets", s.channel_packets[3], "Packets it carried on the system channel");
    v.endGroup();
  }
  v.endList();
  v.endGroup();
  v.beginList("message_units");
  for (const auto& unit : c.units) {
    const MessageUnitStats& s = unit->stats();
    v.beginGroup("");
    v.counter("descriptors", s.descriptors, "Messages injected (PEVT_MU_MSG_INJ)");
    v.counter("packets_injected", s.packets_injected, "Packets injected (PEVT_MU_PKT_INJ)");
    v.counter("packets_received", s.packets_received,
              "Packets stored to the reception FIFO (PEVT_MU_FIFO_PKT_RCV)");
    v.counter("bytes_injected", s.bytes_injected, "Payload bytes injected");
    v.counter("bytes_received", s.bytes_received, "Payload bytes received");
    v.counter("descriptor_errors", s.descriptor_errors, "Descriptors refused");
    v.counter("fifo_full_waits", s.fifo_full_waits,
              "Packets that waited for room in the reception FIFO");
    v.counter("put_packets", s.put_packets,
              "Direct-put packets written to memory (PEVT_MU_PUT_PKT_RCV)");
    v.counter("put_bytes", s.put_bytes, "Their payload bytes");
    v.counter("put_errors", s.put_errors, "Direct-put packets whose target was not writable");
    v.counter("remote_gets", s.remote_gets,
              "Remote-get packets whose descriptors it injected (PEVT_MU_RGET_PKT_RCV)");
    v.counter("reserved_writes", s.reserved_writes, "Writes to offsets with no register");
    v.beginList("sent_to");
    for (u32 d = 0; d < s.packets_to.size(); ++d) {
      if (s.packets_to[d] == 0) continue;
      v.beginGroup("");
      v.counter("node", d, "Destination node");
      v.counter("packets", s.packets_to[d], "Packets sent there");
      v.counter("chunks", s.chunks_to[d], "32-byte chunks sent there (headers included)");
      v.endGroup();
    }
    v.endList();
    v.endGroup();
  }
  v.endList();
}

}  // namespace hpm::net
