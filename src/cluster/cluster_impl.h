// The cluster's state (cluster/cluster.h), shared by cluster.cpp (nodes and windows) and
// cluster_results.cpp (what the hosts exchange, results and statistics).
#pragma once

#include <unistd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cluster/cluster.h"
#include "net/collective.h"
#include "net/collective_unit.h"
#include "net/mu_ports.h"

namespace hpm::net {

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

// Writes all of `text` (a reader that went away loses the guest's output, as a pipe's).
void writeAll(int fd, std::string_view text);

// The link counters' events: chunks sent, packets received, packets for the node (by 0, 1, 2),
// each on the dynamic, escape, priority and system channel (kPointChannels apart), then packets
// sent on any channel (kPacketsSentIndex).
constexpr u32 kPacketsSentIndex = 3 * kPointChannels;
// Then chunks leaving, each at its cycle, on each channel (kChunkLeftIndex + channel).
constexpr u32 kChunkLeftIndex = 3 * kPointChannels + 1;
// Then the link protocol's (network.link_protocol): token/ack packets and acknowledgements
// sent, and the no-token levels, any channel first, then the dynamic, escape and priority ones
// (kNoTokensIndex + 1 + channel; the system channel's only under any).
constexpr u32 kTokenAckIndex = 4 * kPointChannels + 1;
constexpr u32 kAcksIndex = kTokenAckIndex + 1;
constexpr u32 kNoTokensIndex = kAcksIndex + 1;
// Then the collective channels' chunks sent, packets received and packets for the node (each
// kCollChannels apart, from kCollIndex).
constexpr u32 kCollIndex = kNoTokensIndex + 4;
// Then the second dynamic channel's chunks leaving (its other counts count under the dynamic
// channel's: BG/Q's and the NWUnit's dynamic events count every dynamic channel).
constexpr u32 kDynamic1ChunkLeftIndex = kCollIndex + 3 * kCollChannels;
constexpr u32 kLinkCountIndexes = kDynamic1ChunkLeftIndex + 1;
using LinkCounts = std::array<u64, kLinkCountIndexes>;

// What a host says at a window's end.
struct WindowNews {
  bool all_done = true;     // its nodes have all ended
  bool all_waiting = true;  // its live nodes all wait for a packet
  // Its first failing node in the window (earliest end, then lowest node) and its status.
  struct Failure {
    u32 node;
    Cycle cycles;
    int status;
  };
  std::optional<Failure> failure;
  std::string out, err;         // its nodes' output lines (for host 0)
  std::vector<Packet> packets;  // what its nodes injected, in node and injection order
  // Per node of its own: the bytes its message unit can take in the next window.
  std::vector<std::pair<u32, u64>> rooms;
  // The collective network's (net/collective.h): packets its nodes' units completed (the
  // packet's src is the node), barrier arms, and the packets each reception FIFO can take.
  struct ColInjection {
    Cycle at;
    ColPacket packet;
  };
  struct GiArm {
    u32 node;
    u32 channel;
    Cycle at;
  };
  struct ColRoom {
    u32 node;
    u32 vc;
    u32 packets;
  };
  std::vector<ColInjection> col_packets;
  std::vector<GiArm> arms;
  std::vector<ColRoom> col_rooms;
  // Blue Gene/Q's GI class arms (network.collectives; `channel` is the class), and its nodes'
  // class route register writes (applied before the arms).
  std::vector<GiArm> gi_arms;
  std::vector<ClassWrite> class_writes;
};

// What defines a class route's tree (ClassRoute::make's arguments), ordered.
struct ClassKey {
  u8 type = 0;
  u32 root = 0;
  std::array<u8, kClassDims> low{}, size{};
  auto operator<=>(const ClassKey&) const = default;
  static ClassKey of(const ClassWrite& w) { return {w.type, w.root, w.low, w.size}; }
};

// Per node: what its collective network router did (the ColPackets... events' ground truth), by
// ColSignal kind and port x kColVcs + vc (kClassWin: by class; the busy kinds: cycles).
using ColCounts = std::array<std::array<u64, kColClasses>, ColSignal::kKinds>;
static_assert(kColClasses >= kColPorts * kColVcs, "a port's instances fit a ColCounts row");

// A node's results after the run, recorded where it ran.
struct NodeSummary {
  u64 instructions = 0;
  Cycle cycles = 0;
  int status = 0;
  std::string report;      // its termination report
  std::string unit_stats;  // its message unit's statistics (stats/record.h)
  std::string node_stats;  // Simulation::visitStats
  std::string result;      // Cluster::run's node_result
};

// A host's part of the run's results.
struct HostSummary {
  u64 dropped = 0;
  u64 cross_host_packets = 0;
  u64 bytes_sent = 0;
  double wait_seconds = 0;
};

struct Cluster::Impl {
  MachineConfig machine;
  ClusterOptions options;
  Network network;
  std::vector<std::unique_ptr<Simulation>> sims;
  std::vector<std::unique_ptr<MessageUnit>> units;
  // Each node's message unit's ports (BG/Q's master and slave ports, or Blue Gene/P's DMA's
  // signals: by the node's counter unit).
  std::vector<std::unique_ptr<MuPorts>> mu_ports;
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
  std::vector<std::vector<LinkCounts>> link_counts;
  // Whether the nodes' counter units take one-bit inputs (UPC-P): each chunk's leaving is then
  // published at its own cycle (NwDynamicChunkLeft ...), and the message unit's ports are Blue
  // Gene/P's DMA's (MuPorts::Family::kDma).
  bool chunk_signals = false;
  // Blue Gene/P's collective and barrier networks (collective.enabled), with each node's unit
  // and router counts; the window's arms and packets of this host's nodes.
  std::optional<CollectiveNetwork> colnet;
  std::optional<GlobalBarrier> barrier;
  std::vector<std::unique_ptr<CollectiveUnit>> col_units;
  std::vector<ColCounts> col_counts;
  std::vector<WindowNews::ColInjection> col_outbox;
  std::vector<WindowNews::GiArm> arm_outbox;
  std::array<u64, GlobalBarrier::kChannels> barriers_told{};  // completions handed to units
  // Blue Gene/Q's class routes (network.collectives). The trees by what defines them, shared by
  // the registers that name them (a tree no register names goes: the map is pruned of them
  // whenever it has doubled since the last pruning). tree(): the tree a write names (null: none
  // fits the torus).
  std::map<ClassKey, std::weak_ptr<const ClassRoute>> trees;
  std::size_t trees_pruned_at = 0;
  std::shared_ptr<const ClassRoute> tree(const ClassWrite& w);
  // A GI class route's barrier: the tree's members arm it (its channel 0); the completions
  // handed to units so far.
  struct GiGroup {
    std::shared_ptr<const ClassRoute> route;
    GlobalBarrier barrier;
    u64 told = 0;
  };
  // Per node and GI class, the group its register names (null: clear); every host keeps every
  // node's, from the writes the hosts exchange. The groups by class and tree (those no register
  // names go).
  std::vector<std::array<std::shared_ptr<GiGroup>, kClassRoutes>> gi_regs;
  std::map<std::pair<u32, ClassKey>, std::weak_ptr<GiGroup>> gi_groups;
  u64 gi_barriers = 0;  // barriers completed, every group
  // The window's GI arms and register writes of this host's nodes.
  std::vector<WindowNews::GiArm> gi_outbox;
  std::vector<ClassWrite> class_outbox;
  // A node's register write, on the routers and the GI groups.
  void applyClassWrite(const ClassWrite& w);
  OwnedFd null_in;
  u64 windows = 0;
  u64 dropped = 0;                 // packets for this host's nodes that had ended
  int exit_status = 0;             // the first failing node's (0: none failed)
  NodeBlock local;                 // this host's nodes (sims and units are null for the others)
  std::vector<Packet> outbox;      // what its nodes injected in this window, in order
  std::string out_text, err_text;  // its nodes' prefixed output of this window
  u64 cross_host_packets = 0;      // injected packets whose destination another host holds
  // After run(): every node's results on host 0, this host's own elsewhere (by node id).
  std::vector<NodeSummary> summaries;
  std::vector<HostSummary> host_summaries;  // host 0: every host's

  Impl(const MachineConfig& m, ClusterOptions o)
      : machine(m),
        options(std::move(o)),
        network(m.network, Torus(m.network.shape.dims), m.clockHz()) {}

  bool isLocal(u32 node) const { return local.contains(node); }

  void drain(u32 node, bool final);
  // A crossing's events: chunks sent on the sending node's port, the packet received on the
  // receiving node's port of the same cable (same dimension, the other direction). Ports are
  // BG/Q's link numbers: 2 x dimension for the minus link, + 1 for the plus link.
  void crossed(const LinkCrossing& x);
  // The link protocol's signal, on the sending node's port.
  void protocolSignal(const ProtocolSignal& s);
  // Counts kLinkEvents[index] on the node's port at `at`; publishLevel: the level's cycles
  // [at, until).
  void publish(u32 node, u32 port, u32 index, u64 count, Cycle at);
  void publishLevel(u32 node, u32 port, u32 index, Cycle at, Cycle until);
  // A collective network router's signal, counted and published on its node's bus at its cycle.
  void colSignal(const ColSignal& s);
  std::optional<u64> colTruth(u32 node, probe::Event e, u32 instance) const;
  // After the window's exchange: barriers completed, rooms and freed injection slots to units.
  void colWindow(Cycle at);
  // After the window's exchange: GI barriers completed to units; whether there were any.
  bool giWindow();
  // The cycles of a window: the least lookahead of the networks, and at most each network's
  // injection latency, so that every event a network publishes on a node is known before the
  // node runs past it (the collective network's barrier latency is its barriers' lookahead).
  Cycle windowCycles() const;
  std::optional<u64> linkTruth(u32 node, probe::Event e, u32 port) const;
  void endOthers(u32 failed_node, int status);
  // The window's end: every host's news (this host's own when alone), combined in host order.
  WindowNews exchange(WindowNews mine);
  // The run's end: each node's results and the remaining output to host 0.
  void gatherResults(const NodeResult& node_result);
  void visitUnit(stats::Visitor& v, const MessageUnit& unit) const;
};

}  // namespace hpm::net
