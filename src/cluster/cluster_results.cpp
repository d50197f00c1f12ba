// What the hosts of a many-node run tell each other (each window's news, the run's results) and
// the results a cluster gives: reports, totals and statistics (cluster/cluster.h).
#include <fmt/core.h>

#include <algorithm>

#include "base/wire.h"
#include "cluster/cluster.h"
#include "cluster/cluster_impl.h"
#include "stats/record.h"

namespace hpm::net {
namespace {

// A packet for a host: the destination's host gets its bytes, the others its size (all their
// copy of the network needs).
void putPacket(wire::Writer& w, const Packet& p, bool with_bytes) {
  w.put(p.src);
  w.put(p.dst);
  w.put(p.seq);
  w.put(p.entered);
  w.put(static_cast<u8>(u8{p.dynamic} | u8{p.priority} << 1 | u8{p.system} << 2 |
                        u8{p.coll.on} << 3));
  w.put(p.type);
  if (p.coll.on) {
    // (Every host's routers combine collective packets: each gets their bytes.)
    with_bytes = true;
    w.put(p.coll.cls);
    w.put(static_cast<u8>(p.coll.type));
    w.put(p.coll.op);
    w.put(p.coll.word);
  }
  w.put(u64{p.bytes.size()});
  w.put(static_cast<u8>(with_bytes));
  if (with_bytes) w.raw({reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size()});
}

Packet getPacket(wire::Reader& r) {
  Packet p;
  p.src = r.get<u32>();
  p.dst = r.get<u32>();
  p.seq = r.get<u64>();
  p.entered = r.get<Cycle>();
  const u8 flags = r.get<u8>();
  p.dynamic = (flags & 1) != 0;
  p.priority = (flags & 2) != 0;
  p.system = (flags & 4) != 0;
  p.type = r.get<u8>();
  if ((flags & 8) != 0) {
    p.coll.on = true;
    p.coll.cls = r.get<u8>();
    p.coll.type = static_cast<CollType>(r.get<u8>());
    p.coll.op = r.get<u8>();
    p.coll.word = r.get<u16>();
  }
  const u64 size = r.get<u64>();
  if (r.get<u8>() != 0) {
    const std::string_view bytes = r.raw(size);
    p.bytes.assign(bytes.begin(), bytes.end());
  } else {
    p.bytes.assign(size, 0);
  }
  return p;
}

// The unit's ports' statistics (net/mu_ports.h), the ground truth of their events: BG/Q's
// master and slave ports, or Blue Gene/P's DMA signals, by the node's counter unit.
void visitPorts(stats::Visitor& v, const MuPorts& ports, bool dma) {
  if (dma) {
    const DmaPortStats& d = ports.dma();
    v.beginGroup("dma");
    v.counter("descriptors", d.descriptors, probe::describe(probe::Event::kDmaDescriptorRead));
    v.counter("fifo_packets", d.fifo_packets,
              probe::describe(probe::Event::kDmaFifoPacketReceived));
    v.counter("put_packets", d.put_packets, probe::describe(probe::Event::kDmaPutPacketReceived));
    v.counter("remote_gets", d.remote_gets,
              probe::describe(probe::Event::kDmaRemoteGetPacketReceived));
    v.counter("read_requests", d.read_requests, probe::describe(probe::Event::kDmaReadRequest));
    v.counter("reads_acked", d.reads_acked, probe::describe(probe::Event::kDmaReadAcked));
    v.counter("reads_returned", d.reads_returned, probe::describe(probe::Event::kDmaReadReturned));
    v.counter("write_requests", d.write_requests, probe::describe(probe::Event::kDmaWriteRequest));
    v.counter("write_active_cycles", d.write_active_cycles,
              probe::describe(probe::Event::kDmaWriteActive));
    v.endGroup();
    return;
  }
  v.beginList("master_ports");
  for (u32 p = 0; p < kMuMasterPorts; ++p) {
    const MuPortStats& s = ports.port(p);
    v.beginGroup("");
    v.counter("writes", s.writes, "16-byte write requests issued to the switch");
    v.counter("reads32", s.reads32, "32-byte read requests issued to the switch");
    v.counter("reads64", s.reads64, "64-byte read requests issued to the switch");
    v.counter("reads128", s.reads128, "128-byte read requests issued to the switch");
    v.counter("pending_writes", s.pending_writes, stats::total(stats::Unit::kCycles),
              "Write requests x cycles pending (each from its issue to its completion)");
    v.counter("pending_reads", s.pending_reads, stats::total(stats::Unit::kCycles),
              "Read requests x cycles pending (each from its issue to its data)");
    v.endGroup();
  }
  v.endList();
  v.counter("slave_reads", ports.slaveReads(), probe::describe(probe::Event::kMuSlaveReads));
  v.counter("slave_writes", ports.slaveWrites(), probe::describe(probe::Event::kMuSlaveWrites));
}

}  // namespace

WindowNews Cluster::Impl::exchange(WindowNews mine) {
  HostLink* link = options.hosts;
  const Torus& torus = network.torus();
  mine.packets = std::move(outbox);
  mine.col_packets = std::move(col_outbox);
  mine.arms = std::move(arm_outbox);
  mine.gi_arms = std::move(gi_outbox);
  mine.class_writes = std::move(class_outbox);
  mine.out = std::move(out_text);
  mine.err = std::move(err_text);
  // Combined in host order, which is node order: as one process's nodes run.
  WindowNews all;
  std::string out, err;
  const auto absorb = [&](WindowNews& n) {
    all.all_done = all.all_done && n.all_done;
    all.all_waiting = all.all_waiting && n.all_waiting;
    if (n.failure && (!all.failure || n.failure->cycles < all.failure->cycles)) {
      all.failure = n.failure;
    }
    out += n.out;
    err += n.err;
    for (Packet& p : n.packets) network.inject(std::move(p));
    for (const auto& [node, room] : n.rooms) network.setReceptionRoom(node, room);
    for (const ClassWrite& w : n.class_writes) applyClassWrite(w);
    for (const WindowNews::GiArm& a : n.gi_arms) {
      if (const std::shared_ptr<GiGroup>& g = gi_regs[a.node][a.channel]) {
        g->barrier.arm(a.node, 0, a.at);
      }
    }
    if (colnet) {
      for (WindowNews::ColInjection& c : n.col_packets) {
        const u32 node = c.packet.src;
        colnet->inject(node, c.at, std::move(c.packet));
      }
      for (const WindowNews::GiArm& a : n.arms) barrier->arm(a.node, a.channel, a.at);
      for (const WindowNews::ColRoom& r : n.col_rooms) {
        colnet->setReceptionRoom(r.node, static_cast<u8>(r.vc), r.packets);
      }
    }
  };
  if (link == nullptr) {
    absorb(mine);
  } else {
    const u32 hosts = link->hosts(), me = link->host();
    for (const Packet& p : mine.packets) {
      if (!isLocal(p.dst)) ++cross_host_packets;
    }
    std::vector<std::string> to(hosts);
    for (u32 h = 0; h < hosts; ++h) {
      if (h == me) continue;
      const NodeBlock block = nodeBlock(torus.nodes(), hosts, h);
      wire::Writer w;
      w.put(static_cast<u8>(u8{mine.all_done} | u8{mine.all_waiting} << 1 |
                            u8{mine.failure.has_value()} << 2));
      if (mine.failure) w.put(*mine.failure);
      w.bytes(h == 0 ? mine.out : "");
      w.bytes(h == 0 ? mine.err : "");
      w.put(u64{mine.packets.size()});
      for (const Packet& p : mine.packets) putPacket(w, p, block.contains(p.dst));
      w.put(u64{mine.rooms.size()});
      for (const auto& [node, room] : mine.rooms) {
        w.put(node);
        w.put(room);
      }
      // (Every host keeps the whole collective network: each gets every packet whole.)
      w.put(u64{mine.col_packets.size()});
      for (const WindowNews::ColInjection& c : mine.col_packets) w.put(c);
      w.put(u64{mine.arms.size()});
      for (const WindowNews::GiArm& a : mine.arms) w.put(a);
      w.put(u64{mine.col_rooms.size()});
      for (const WindowNews::ColRoom& r : mine.col_rooms) w.put(r);
      w.put(u64{mine.gi_arms.size()});
      for (const WindowNews::GiArm& a : mine.gi_arms) w.put(a);
      w.put(u64{mine.class_writes.size()});
      for (const ClassWrite& cw : mine.class_writes) w.put(cw);
      to[h] = w.take();
    }
    std::vector<std::string> from = link->exchange(std::move(to));
    for (u32 h = 0; h < hosts; ++h) {
      if (h == me) {
        absorb(mine);
        continue;
      }
      wire::Reader r(from[h]);
      WindowNews n;
      const u8 flags = r.get<u8>();
      n.all_done = (flags & 1) != 0;
      n.all_waiting = (flags & 2) != 0;
      if ((flags & 4) != 0) n.failure = r.get<WindowNews::Failure>();
      n.out = r.bytes();
      n.err = r.bytes();
      n.packets.resize(r.get<u64>());
      for (Packet& p : n.packets) p = getPacket(r);
      n.rooms.resize(r.get<u64>());
      for (auto& [node, room] : n.rooms) {
        node = r.get<u32>();
        room = r.get<u64>();
      }
      n.col_packets.resize(r.get<u64>());
      for (WindowNews::ColInjection& c : n.col_packets) c = r.get<WindowNews::ColInjection>();
      n.arms.resize(r.get<u64>());
      for (WindowNews::GiArm& a : n.arms) a = r.get<WindowNews::GiArm>();
      n.col_rooms.resize(r.get<u64>());
      for (WindowNews::ColRoom& c : n.col_rooms) c = r.get<WindowNews::ColRoom>();
      n.gi_arms.resize(r.get<u64>());
      for (WindowNews::GiArm& a : n.gi_arms) a = r.get<WindowNews::GiArm>();
      n.class_writes.resize(r.get<u64>());
      for (ClassWrite& cw : n.class_writes) cw = r.get<ClassWrite>();
      absorb(n);
    }
  }
  if (link == nullptr || link->host() == 0) {
    writeAll(options.out_fd, out);
    writeAll(options.err_fd, err);
  }
  outbox.clear();
  col_outbox.clear();
  arm_outbox.clear();
  out_text.clear();
  err_text.clear();
  return all;
}

void Cluster::Impl::gatherResults(const NodeResult& node_result) {
  const u32 nodes = network.torus().nodes();
  summaries.assign(nodes, NodeSummary{});
  for (u32 n = local.first; n < local.last; ++n) {
    NodeSummary& s = summaries[n];
    const Simulation& sim = *sims[n];
    s.instructions = sim.retiredInstructions();
    s.cycles = sim.elapsedCycles();
    const Kernel& k = sim.kernel();
    s.status = k.finished() ? k.termination().status : 0;
    s.report = k.finished() ? k.termination().report : "";
    stats::Recorder unit, node;
    visitUnit(unit, *units[n]);
    visitPorts(unit, *mu_ports[n], chunk_signals);
    s.unit_stats = unit.take();
    sim.visitStats(node);
    s.node_stats = node.take();
    if (node_result) s.result = node_result(n);
  }
  HostSummary mine{dropped, cross_host_packets, 0, 0};
  HostLink* link = options.hosts;
  if (link != nullptr) {
    mine.bytes_sent = link->bytesSent();
    mine.wait_seconds = link->waitSeconds();
  }
  if (link == nullptr) {
    writeAll(options.out_fd, out_text);
    writeAll(options.err_fd, err_text);
    host_summaries = {mine};
    return;
  }
  // Everything to host 0, which writes the output left and holds every node's results.
  std::vector<std::string> to(link->hosts());
  if (link->host() != 0) {
    wire::Writer w;
    w.put(mine);
    w.bytes(out_text);
    w.bytes(err_text);
    for (u32 n = local.first; n < local.last; ++n) {
      const NodeSummary& s = summaries[n];
      w.put(s.instructions);
      w.put(s.cycles);
      w.put(s.status);
      w.bytes(s.report);
      w.bytes(s.unit_stats);
      w.bytes(s.node_stats);
      w.bytes(s.result);
    }
    to[0] = w.take();
  }
  std::vector<std::string> from = link->exchange(std::move(to));
  if (link->host() != 0) return;
  std::string out = out_text, err = err_text;
  host_summaries = {mine};
  for (u32 h = 1; h < link->hosts(); ++h) {
    wire::Reader r(from[h]);
    host_summaries.push_back(r.get<HostSummary>());
    out += r.bytes();
    err += r.bytes();
    const NodeBlock block = nodeBlock(nodes, link->hosts(), h);
    for (u32 n = block.first; n < block.last; ++n) {
      NodeSummary& s = summaries[n];
      s.instructions = r.get<u64>();
      s.cycles = r.get<Cycle>();
      s.status = r.get<int>();
      s.report = r.bytes();
      s.unit_stats = r.bytes();
      s.node_stats = r.bytes();
      s.result = r.bytes();
    }
  }
  writeAll(options.out_fd, out);
  writeAll(options.err_fd, err);
}

void Cluster::Impl::visitUnit(stats::Visitor& v, const MessageUnit& unit) const {
  const MessageUnitStats& s = unit.stats();
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
  v.counter("ring_overflows", s.ring_overflows,
            "Descriptors posted beyond the injection ring's room (refused unread)");
  v.counter("payload_faults", s.payload_faults,
            "Packets whose payload was unmapped after its descriptor was checked (sent as zeros)");
  v.counter("injection_stalls", s.injection_stalls,
            "Times the injection port waited for room in the network's queue or this node's own");
  v.counter("most_held_bytes", s.most_held_bytes, stats::level(stats::Unit::kBytes),
            "The most bytes of packets held at once for the reception FIFO");
  v.beginList("sent_to");
  for (u32 d = 0; d < s.packets_to.size(); ++d) {
    if (s.packets_to[d] == 0) continue;
    v.beginGroup("");
    v.counter("node", d, stats::kLabel, "Destination node");
    v.counter("packets", s.packets_to[d], "Packets sent there");
    v.counter("chunks", s.chunks_to[d], "32-byte chunks sent there (headers included)");
    v.endGroup();
  }
  v.endList();
}

u32 Cluster::nodes() const {
  return impl_->network.torus().nodes();
}
NodeBlock Cluster::localNodes() const {
  return impl_->local;
}
bool Cluster::writesResults() const {
  return impl_->options.hosts == nullptr || impl_->options.hosts->host() == 0;
}
Simulation& Cluster::node(u32 i) {
  if (!impl_->isLocal(i)) fail(ExitCode::kInternal, "cluster: node {} runs on another host", i);
  return *impl_->sims[i];
}
const Simulation& Cluster::node(u32 i) const {
  if (!impl_->isLocal(i)) fail(ExitCode::kInternal, "cluster: node {} runs on another host", i);
  return *impl_->sims[i];
}
const Network& Cluster::network() const {
  return impl_->network;
}
const MessageUnit& Cluster::messageUnit(u32 i) const {
  if (!impl_->isLocal(i)) fail(ExitCode::kInternal, "cluster: node {} runs on another host", i);
  return *impl_->units[i];
}
u64 Cluster::windows() const {
  return impl_->windows;
}

int Cluster::exitStatus() const {
  return impl_->exit_status;
}

std::string Cluster::reports() const {
  std::string out;
  for (u32 n = 0; n < impl_->summaries.size(); ++n) {
    const std::string& report = impl_->summaries[n].report;
    std::size_t begin = 0;
    for (std::size_t nl; (nl = report.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      out += fmt::format("node {}: {}", n, report.substr(begin, nl + 1 - begin));
    }
    if (begin < report.size()) out += fmt::format("node {}: {}\n", n, report.substr(begin));
  }
  return out;
}

const std::string& Cluster::nodeResult(u32 node) const {
  return impl_->summaries.at(node).result;
}

Cycle Cluster::elapsedCycles() const {
  Cycle latest = 0;
  for (const NodeSummary& s : impl_->summaries) latest = std::max(latest, s.cycles);
  return latest;
}

u64 Cluster::retiredInstructions() const {
  u64 total = 0;
  for (const NodeSummary& s : impl_->summaries) total += s.instructions;
  return total;
}

void Cluster::visitStats(stats::Visitor& v) const {
  const Impl& c = *impl_;
  u64 dropped = 0;
  for (const HostSummary& h : c.host_summaries) dropped += h.dropped;
  v.beginGroup("network");
  v.text("shape", c.machine.network.shape.text(), "Torus dimensions");
  v.counter("nodes", nodes(), stats::level(stats::Unit::kCount), "Nodes");
  v.counter("windows", c.windows, "Windows the nodes advanced in");
  v.counter("lookahead_cycles", c.network.lookahead(), stats::level(stats::Unit::kCycles),
            "The least time from an injection to another node's memory");
  v.counter("window_cycles", c.windowCycles(), stats::level(stats::Unit::kCycles),
            "Cycles of a window: the networks' least lookahead, at most each one's injection "
            "latency (so that the events they publish are known before the nodes run past them)");
  v.counter("packets_delivered", c.network.packetsDelivered(),
            "Packets that crossed the network to another node");
  v.counter("packets_dropped", dropped, "Packets for nodes that had ended");
  v.counter("buffer_waits", c.network.bufferWaits(),
            "Hops at which a packet found its link free but no room in the next router's buffer "
            "(back-pressure)");
  v.counter("reception_holds", c.network.receptionHolds(),
            "Packets that waited at their destination's router for room in its message unit "
            "(back-pressure from a reception FIFO not drained)");
  v.beginList("links");
  const Torus& torus = c.network.torus();
  for (u32 l = 0; l < c.network.links().size(); ++l) {
    const LinkStats& s = c.network.links()[l];
    const LinkProtocol* protocol = c.network.protocol();
    // (Unused links: most of a large torus in a small program. With the link protocol, a link
    // that carried only token/ack packets is used.)
    if (s.packets == 0 && (protocol == nullptr || protocol->stats(l).token_ack_packets == 0)) {
      continue;
    }
    const u32 dims = torus.dimensions();
    v.beginGroup("");
    v.counter("node", l / (2 * dims), stats::kLabel, "The node the link leaves");
    v.counter("dimension", l % (2 * dims) / 2, stats::kLabel, "Its dimension (0 = A)");
    v.text("direction", (l & 1) == 0 ? "+" : "-", "Its direction");
    v.counter("packets", s.packets, "Packets sent over it");
    v.counter("chunks", s.chunks, "32-byte chunks sent over it");
    v.counter("busy_cycles", s.busy_cycles, "Cycles it was sending");
    v.counter("wait_cycles", s.wait_cycles, "Cycles packets waited for it");
    v.counter("dynamic_packets", s.channel_packets[0], "Packets it carried on the dynamic channel");
    if (c.machine.network.dynamic_channels > 1) {
      v.counter("dynamic1_packets", s.channel_packets[static_cast<u32>(Channel::kDynamic1)],
                "Packets it carried on the second dynamic channel");
    }
    v.counter("escape_packets", s.channel_packets[1], "Packets it carried on the escape channel");
    v.counter("priority_packets", s.channel_packets[2],
              "Packets it carried on the priority channel");
    v.counter("system_packets", s.channel_packets[3], "Packets it carried on the system channel");
    if (protocol != nullptr) {
      const LinkProtocolStats& p = protocol->stats(l);
      v.counter("token_ack_packets", p.token_ack_packets,
                "Token/ack packets it sent (the link protocol: nothing going its way to carry "
                "them)");
      v.counter("token_ack_cycles", p.token_ack_cycles, "Cycles its token/ack packets held it");
      v.counter("acks", p.acks, "Acknowledgements it sent (packets received the other way)");
      v.counter("piggybacked_acks", p.piggybacked_acks, "Of them, in a data packet's header");
      v.counter("tokens_returned", p.tokens_returned, stats::total(stats::Unit::kBytes),
                "Bytes of tokens it carried back (room freed in its node's buffers)");
      v.counter("no_token_cycles", p.no_token_cycles[kAnyChannel],
                "Cycles it was free while a packet waited at it with too few tokens");
    }
    if (c.machine.network.collectives) {
      v.counter("collective_packets",
                s.channel_packets[4] + s.channel_packets[5] + s.channel_packets[6],
                "Packets it carried on the collective channels (user world, sub-communicator, "
                "system)");
      v.counter("subcomm_packets", s.channel_packets[static_cast<u32>(Channel::kUserSubcomm)],
                "Packets it carried on the user sub-communicator collective channel");
      v.counter("collective_chunks",
                s.channel_chunks[4] + s.channel_chunks[5] + s.channel_chunks[6],
                "32-byte chunks it carried on the collective channels");
    }
    v.endGroup();
  }
  v.endList();
  v.endGroup();
  if (c.machine.network.collectives) {
    // (Every host keeps the whole torus: host 0's copy is everyone's.)
    v.beginGroup("torus_collectives");
    v.counter("depth", c.network.classRoute(0, kWorldClass)->depth(),
              stats::level(stats::Unit::kCount),
              "Hops from the farthest node up to the root of the world's class route");
    v.counter("combines", c.network.combines(), "Router steps that combined collective packets");
    v.counter("mismatches", c.network.collectiveMismatches(),
              "Combined packets whose op, word length, type or size differed from the local "
              "client's");
    v.counter("drops", c.network.collectiveDrops(),
              "Collective packets at a node whose register of their class was clear or named "
              "another tree than the one they came by (dropped)");
    v.counter("gi_barriers", c.gi_barriers, "GI barriers completed (every class and tree)");
    v.endGroup();
  }
  if (c.colnet) {
    // (Every host keeps the whole collective network: host 0's copy is everyone's.)
    const ColStats& s = c.colnet->stats();
    v.beginGroup("collective");
    v.counter("depth", c.colnet->depth(), stats::level(stats::Unit::kCount),
              "Levels of the tree below its root");
    v.counter("link_cycles", c.colnet->linkCycles(), stats::level(stats::Unit::kCycles),
              "Cycles a packet holds a link");
    v.counter("packets_injected", s.injected, "Packets the nodes injected");
    v.counter("combines", s.combined, "ALU operations of the routers (combining packets)");
    v.counter("link_packets", s.link_packets, "Packets sent over a link");
    v.counter("packets_delivered", s.delivered, "Packets put into reception FIFOs");
    v.counter("mismatches", s.mismatches,
              "Combines whose packets' opcodes or operand sizes differed (the first's was used)");
    u64 barriers = 0;
    for (u32 ch = 0; ch < GlobalBarrier::kChannels; ++ch) {
      barriers += c.barrier->completions(ch).size();
    }
    v.counter("barriers", barriers, "Global barriers completed (every channel)");
    v.counter("barrier_arms_ignored", c.barrier->ignoredArms(),
              "Arms of a global barrier channel whose node's bit was set already (no effect)");
    v.endGroup();
  }
  v.beginList("message_units");
  for (const NodeSummary& s : c.summaries) {
    v.beginGroup("");
    stats::replay(s.unit_stats, v);
    v.endGroup();
  }
  v.endList();
  if (c.options.hosts != nullptr) {
    v.beginList("host_processes");
    for (u32 h = 0; h < c.host_summaries.size(); ++h) {
      const HostSummary& s = c.host_summaries[h];
      const NodeBlock block = nodeBlock(nodes(), c.options.hosts->hosts(), h);
      v.beginGroup("");
      v.counter("host", h, stats::kLabel, "Host process (MPI rank of the host run)");
      v.counter("first_node", block.first, stats::kLabel, "The first simulated node it ran");
      v.counter("nodes", block.last - block.first, stats::level(stats::Unit::kCount),
                "The simulated nodes it ran");
      v.counter("cross_host_packets", s.cross_host_packets,
                "Packets its nodes injected for nodes of another host");
      v.counter("bytes_sent", s.bytes_sent, "Bytes it sent to the other hosts");
      v.real("wait_seconds", s.wait_seconds, stats::total(stats::Unit::kSeconds),
             "Host seconds it waited for the other hosts");
      v.endGroup();
    }
    v.endList();
  }
  v.beginList("nodes");
  for (u32 n = 0; n < c.summaries.size(); ++n) {
    const NodeSummary& s = c.summaries[n];
    v.beginGroup("");
    v.counter("node", n, stats::kLabel, "Node id (MPI rank)");
    v.counter("instructions", s.instructions, "Instructions it retired");
    v.counter("cycles", s.cycles, "Its simulated time");
    v.counter("exit_status", static_cast<u64>(s.status), stats::kLabel, "Its exit status");
    stats::replay(s.node_stats, v);
    v.endGroup();
  }
  v.endList();
}

}  // namespace hpm::net
