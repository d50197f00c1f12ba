#include "mem/mem_params.h"

#include <bit>
#include <cmath>

#include "base/error.h"

namespace hpm::mem {

std::string_view replacementName(Replacement r) {
  switch (r) {
    case Replacement::kLru: return "lru";
    case Replacement::kFifo: return "fifo";
    case Replacement::kRandom: return "random";
  }
  return "?";
}

std::string_view streamPolicyName(StreamPolicy p) {
  switch (p) {
    case StreamPolicy::kConfirmed: return "confirmed";
    case StreamPolicy::kOptimistic: return "optimistic";
  }
  return "?";
}

namespace {

void replacementParam(config::Visitor& v, Replacement& r, std::string_view doc) {
  v.param(
      "replacement", r, doc,
      {{"lru", Replacement::kLru}, {"fifo", Replacement::kFifo}, {"random", Replacement::kRandom}});
}

void checkGeometry(std::string_view name, u64 bytes, u32 ways, u32 line_bytes, u32 parts) {
  if (line_bytes < 8 || !std::has_single_bit(line_bytes)) {
    fail(ExitCode::kConfig, "{}: line_bytes = {} must be a power of two of at least 8", name,
         line_bytes);
  }
  if (ways == 0) fail(ExitCode::kConfig, "{}: ways must be at least 1", name);
  const u64 per_set = u64{ways} * line_bytes * parts;
  if (bytes % per_set != 0 || !std::has_single_bit(bytes / per_set)) {
    fail(ExitCode::kConfig,
         "{}: size {} B is not a power-of-two number of sets of {} ways x {} B lines{}", name,
         bytes, ways, line_bytes, parts > 1 ? fmt::format(" in each of {} slices", parts) : "");
  }
}

}  // namespace

void CacheParams::visit(config::Visitor& v) {
  v.param("size_kib", size_kib, "Capacity in KiB (bgq: 16 for L1I and L1D, A2)",
          config::Range{1, 1 << 20});
  v.param("ways", ways, "Associativity (bgq: L1I 4, L1D 8, A2)", config::Range{1, 1024});
  v.param("line_bytes", line_bytes, "Line size in bytes (bgq: 64, A2)",
          config::powerOfTwo(8, 4096));
  replacementParam(v, replacement, "Replacement policy (bgq: lru)");
  v.param("hit_latency", hit_latency,
          "L1D: load-to-use cycles of a hit (bgq: 6, A2 manual via LLVM's A2 model). L1I: cycles "
          "a hitting group fetch adds to core.fetch_to_issue (bgq: 0)",
          config::Range{0, 10000});
}

void CacheParams::validate(std::string_view name) const {
  checkGeometry(name, u64{size_kib} * 1024, ways, line_bytes, 1);
}

void L1pParams::visit(config::Visitor& v) {
  v.param("entries", entries,
          "Lines the L1P holds, each a line of the level below (l2.line_bytes, "
          "fireplane.line_bytes) long, fully associative, LRU (bgq: 32)",
          config::Range{1, 1024});
  v.param("hit_latency", hit_latency,
          "Load-to-use cycles of an L1D miss served by the L1P (bgq: 24, estimate)",
          config::Range{0, 10000});
  v.param("prefetch", prefetch,
          "Stream prefetching: an established stream stays its depth of lines ahead of its last "
          "demand line (bgq: true)");
  v.param("stream_policy", stream_policy,
          "When a stream is established: confirmed, by a miss to the line after a recorded "
          "miss's; optimistic, by every miss that continues no stream (bgq: confirmed, the "
          "firmware's L1P_CFG_PF_USR)",
          {{"confirmed", StreamPolicy::kConfirmed}, {"optimistic", StreamPolicy::kOptimistic}});
  v.param("streams", streams, "Sequential streams tracked per core (bgq: 16, estimate)",
          config::Range{1, 256});
  v.param("prefetch_depth", prefetch_depth,
          "Lines a stream runs ahead of its last demand line when it is established (bgq: 3, the "
          "firmware's L1P_CFG_PF_USR dfetch_depth; the guest's register holds 1 to 8)",
          config::Range{1, 64});
  v.param("adaptive", adaptive,
          "Depth adaptation: a demand hit on a stream-prefetched line still in flight deepens its "
          "stream by a line, within total_depth, or by a line of another stream's depth once "
          "the streams' depths use it all (bgq: true, the firmware's L1P_CFG_PF_USR)");
  v.param("total_depth", total_depth,
          "Lines of depth the adaptation may give the core's streams in all, and one stream at "
          "most (bgq: 8, the firmware's L1P_CFG_PF_USR dfetch_max_footprint; the guest's "
          "register holds 1 to 16)",
          config::Range{1, 1024});
  v.param("write_combining", write_combining,
          "A store joins the youngest store-queue entry while that is still queued when both lie "
          "in one aligned combine_bytes block and the store continues the entry's bytes (bgq: "
          "true, seed 003)");
  v.param("combine_bytes", combine_bytes,
          "The aligned block within which stores combine (bgq: 16: two 8-byte stores share an "
          "entry)",
          config::powerOfTwo(2, 4096));
  v.param("device_buses", device_buses,
          "The L1P, as Blue Gene/P's per-core L2, routes each uncached access to a device's "
          "registers to the device's bus, the device bus or the network bus, and counts the "
          "reads and writes of each core on each (bgq: false; bgp: true; docs/timing.md \"Device "
          "buses\")");
}

void L1pParams::validate() const {
  if (entries == 0) fail(ExitCode::kConfig, "l1p: entries must be at least 1");
  if (streams == 0) fail(ExitCode::kConfig, "l1p: streams must be at least 1");
  if (prefetch_depth == 0) fail(ExitCode::kConfig, "l1p: prefetch_depth must be at least 1");
  if (total_depth == 0) fail(ExitCode::kConfig, "l1p: total_depth must be at least 1");
  if (!std::has_single_bit(combine_bytes) || combine_bytes < 2) {
    fail(ExitCode::kConfig, "l1p: combine_bytes = {} must be a power of two from 2", combine_bytes);
  }
}

void SnoopParams::visit(config::Visitor& v) {
  v.param("filter", filter,
          "Snoop filters in front of each core's private caches: every store or atomic sends each "
          "other core a snoop, which its filter rejects or passes to its caches (bgq: false; "
          "bgp: true, Salapura et al., HPCA 2008)");
  v.param("cache_entries", cache_entries,
          "Entries of each port's snoop cache, LRU (32, estimate: the size BG/P's is not "
          "published here)",
          config::Range{1, 1024});
  v.param("lines_per_entry", lines_per_entry,
          "Consecutive lines one snoop-cache entry records, aligned (4, estimate: BG/P's entries "
          "record a vector of lines)",
          config::powerOfTwo(1, 64));
  v.param("stream_registers", stream_registers,
          "Stream registers in each of the active and the history set (8, estimate)",
          config::Range{1, 64});
  v.param("l1_cycles", l1_cycles,
          "Cycles a snoop that passes the filter takes the L1 from the core's loads (1: the "
          "PowerPC 450's L1 cannot serve a load and a snoop in one cycle)",
          config::Range{0, 100});
}

void L3Params::visit(config::Visitor& v) {
  v.param("banks", banks,
          "The crossbar's L2 slices are Blue Gene/P's L3 banks, with their read ports (RD0, RD1, "
          "R2), write ports (W0, W1), two directories, read-return path and miss handler (bgq: "
          "false; bgp: true)");
  v.param("directory_cycles", directory_cycles,
          "Cycles one lookup takes its directory; each directory holds half a bank's sets (1, "
          "estimate)",
          config::Range{1, 64});
  v.param("write_port_cycles", write_port_cycles,
          "Cycles one write request takes its write port (4, estimate)", config::Range{1, 64});
  v.param("return_bytes_per_cycle", return_bytes_per_cycle,
          "Bytes a bank's read-return path returns per core cycle: a read holds it ceil(l2."
          "line_bytes / this) cycles (32: Blue Gene/L's L3 port, 22.4 GB/s at 700 MHz)",
          config::Range{1, 1024});
  v.param("miss_handler_entries", miss_handler_entries,
          "Misses a bank has outstanding to DDR; an allocation waits for a free entry (8, "
          "estimate)",
          config::Range{1, 256});
  v.param("prefetch_lines", prefetch_lines,
          "Lines after a core's missing read's line that its bank prefetches from DDR into the "
          "eDRAM (1, estimate; 0: none)",
          config::Range{0, 16});
}

void L3Params::validate() const {
  if (directory_cycles == 0 || write_port_cycles == 0 || return_bytes_per_cycle == 0 ||
      miss_handler_entries == 0) {
    fail(ExitCode::kConfig,
         "l3: directory_cycles, write_port_cycles, return_bytes_per_cycle and "
         "miss_handler_entries must be at least 1");
  }
}

void SnoopParams::validate() const {
  if (cache_entries == 0) fail(ExitCode::kConfig, "snoop: cache_entries must be at least 1");
  if (!std::has_single_bit(lines_per_entry) || lines_per_entry > 64) {
    fail(ExitCode::kConfig, "snoop: lines_per_entry = {} must be a power of two up to 64",
         lines_per_entry);
  }
  if (stream_registers == 0) fail(ExitCode::kConfig, "snoop: stream_registers must be at least 1");
}

void L2Params::visit(config::Visitor& v) {
  v.param("size_kib", size_kib, "Total capacity in KiB over all slices (bgq: 32768)",
          config::Range{1, 1 << 24});
  v.param("slices", slices, "Slices; a line's slice is an XOR-fold of its line address (bgq: 16)",
          config::powerOfTwo(1, 256));
  v.param("ways", ways, "Associativity of each slice (bgq: 16)", config::Range{1, 1024});
  v.param("line_bytes", line_bytes, "Line size in bytes, also the L1P's (bgq: 128)",
          config::powerOfTwo(16, 4096));
  replacementParam(v, replacement, "Replacement policy (bgq: lru)");
  v.param("hit_latency", hit_latency,
          "Load-to-use cycles of an uncontended L2 hit; atomics take it too (bgq: 82, A2 "
          "lwarx/stwcx latency in LLVM's A2 model)",
          config::Range{1, 100000});
  v.param("slice_busy_cycles", slice_busy_cycles,
          "Core cycles one request occupies a slice's port; the slices run at half the core "
          "clock (bgq: 2)",
          config::Range{1, 10000});
  v.param("slice_bytes_per_cycle", slice_bytes_per_cycle,
          "Bytes a slice's port returns per core cycle: a read holds the port max("
          "slice_busy_cycles, ceil(line_bytes / this)) cycles; 0: slice_busy_cycles only (bgq: "
          "16 = 32 bytes per 800 MHz crossbar cycle, the 563 GB/s crossbar's port width)",
          config::Range{0, 1 << 20});
  v.param("core_port_bytes_per_cycle", core_port_bytes_per_cycle,
          "Bytes a core's crossbar port returns per core cycle: each line a core reads (demand, "
          "prefetch, fetch; an atomic's 8-byte result) holds its port ceil(bytes / this) cycles, "
          "and the core's next read leaves no earlier; 0: no limit (bgq: 16, as a slice's port)",
          config::Range{0, 1 << 20});
}

void L2Params::validate() const {
  checkGeometry("l2", u64{size_kib} * 1024, ways, line_bytes, slices);
  if (!std::has_single_bit(slices) || slices > 256) {
    fail(ExitCode::kConfig, "l2: slices = {} must be a power of two up to 256", slices);
  }
  if (slice_busy_cycles == 0) fail(ExitCode::kConfig, "l2: slice_busy_cycles must be at least 1");
}

void DdrParams::visit(config::Visitor& v) {
  v.param("controllers", controllers,
          "DDR controllers; a line's controller is a hash of its address (bgq: 2)",
          config::Range{1, 64});
  v.param("latency", latency,
          "Load-to-use cycles of an uncontended load served by DDR (bgq: 350, estimate)",
          config::Range{1, 1000000});
  v.param("bytes_per_cycle", bytes_per_cycle,
          "Bandwidth of one controller in bytes per core cycle; a line transfer keeps the "
          "controller busy ceil(line_bytes / bytes_per_cycle) cycles (bgq: 13.33 = 42.7 GB/s "
          "over 2 controllers at 1.6 GHz)",
          config::Range{0.001, 1e6});
}

void DdrParams::validate() const {
  if (controllers == 0) fail(ExitCode::kConfig, "ddr: controllers must be at least 1");
  if (!(bytes_per_cycle > 0)) fail(ExitCode::kConfig, "ddr: bytes_per_cycle must be positive");
}

u32 DdrParams::busyCycles(u32 bytes) const {
  const double c = std::ceil(static_cast<double>(bytes) / bytes_per_cycle - 1e-9);
  return c < 1 ? 1 : static_cast<u32>(c);
}

std::string_view placementName(Placement p) {
  switch (p) {
    case Placement::kFirstTouch: return "first_touch";
    case Placement::kInterleave: return "interleave";
    case Placement::kOneBoard: return "one_board";
  }
  return "?";
}

void FireplaneParams::visit(config::Visitor& v) {
  v.param("ecache_kib", ecache_kib,
          "Each CPU's external cache (E$) in KiB: private, physically indexed, write-back "
          "(sunfire: 8192, UltraSPARC III Cu)",
          config::Range{1, 1 << 24});
  v.param("ecache_ways", ecache_ways, "Associativity of the E$ (sunfire: 2)",
          config::Range{1, 1024});
  v.param("line_bytes", line_bytes,
          "The E$'s line in bytes, the unit of coherence and the L1P's entry (sunfire: 64, "
          "UltraSPARC III Cu's 512-byte lines' subblocks)",
          config::powerOfTwo(16, 4096));
  replacementParam(v, ecache_replacement, "Replacement policy of the E$ (sunfire: lru)");
  v.param("ecache_hit_latency", ecache_hit_latency,
          "Load-to-use cycles of an L1 miss that hits the E$; atomics take it too (sunfire: 15, "
          "estimate)",
          config::Range{1, 100000});
  v.param("ecache_busy_cycles", ecache_busy_cycles,
          "CPU cycles one request holds the E$'s port (sunfire: 2, estimate)",
          config::Range{1, 10000});
  v.param("boards", boards,
          "CPU/memory boards; the CPUs are spread evenly over them, each board holds "
          "ddr.controllers memory controllers (sunfire: 4)",
          config::Range{1, 8});
  v.param("address_cycles", address_cycles,
          "CPU cycles one transaction holds the address bus (sunfire: 8: one address per 150 MHz "
          "Fireplane cycle at a 1.2 GHz CPU clock)",
          config::Range{1, 10000});
  v.param("data_cycles", data_cycles,
          "CPU cycles one line's transfer holds the data port of the board it goes to (a fill) or "
          "comes from (a writeback); 0: no data-path contention (sunfire: 16, estimate: 64 bytes "
          "at 4.8 GB/s per board at 1.2 GHz)",
          config::Range{0, 10000});
  v.param("cache_to_cache_latency", cache_to_cache_latency,
          "Load-to-use cycles of a line another CPU's E$ supplies (sunfire: 264, estimate: 220 ns "
          "at 1.2 GHz)",
          config::Range{1, 1000000});
  v.param("remote_latency", remote_latency,
          "Cycles a reply from another board's memory adds to ddr.latency (sunfire: 48, "
          "estimate: 40 ns)",
          config::Range{0, 1000000});
  v.param("placement", placement,
          "The board a guest page's physical frame is placed on: first_touch (the board of the "
          "CPU that touches it first), interleave (page number mod boards), one_board "
          "(fireplane.home_board)",
          {{std::string(placementName(Placement::kFirstTouch)), Placement::kFirstTouch},
           {std::string(placementName(Placement::kInterleave)), Placement::kInterleave},
           {std::string(placementName(Placement::kOneBoard)), Placement::kOneBoard}});
  v.param("home_board", home_board, "The board of placement one_board (sunfire: 0)",
          config::Range{0, 7});
}

void FireplaneParams::validate(u32 cores) const {
  checkGeometry("fireplane: the E$", u64{ecache_kib} * 1024, ecache_ways, line_bytes, 1);
  if (boards == 0 || boards > 8) {
    fail(ExitCode::kConfig, "fireplane: boards = {} must be 1 to 8", boards);
  }
  if (boards > cores) {
    fail(ExitCode::kConfig, "fireplane: {} boards for {} CPUs: every board needs a CPU", boards,
         cores);
  }
  if (home_board >= boards) {
    fail(ExitCode::kConfig, "fireplane: home_board = {} is not one of the {} boards", home_board,
         boards);
  }
  if (address_cycles == 0) fail(ExitCode::kConfig, "fireplane: address_cycles must be at least 1");
  if (ecache_busy_cycles == 0) {
    fail(ExitCode::kConfig, "fireplane: ecache_busy_cycles must be at least 1");
  }
  if (cores > 0x4000) fail(ExitCode::kConfig, "fireplane: at most 16384 CPUs snoop one bus");
}

std::span<const MovedKey> movedKeys() {
  static constexpr MovedKey kMoved[] = {
      {"bus.kind", "the interconnect is chosen by node.interconnect (crossbar or fireplane)"},
      {"bus.",
       "the Fireplane bus's parameters are in section [fireplane] (bus.boards is now "
       "fireplane.boards, and so on)"},
  };
  return kMoved;
}

std::string keyRefusedOn(probe::Interconnect ic, std::string_view key) {
  // The crossbar's shared L2 and the E$ that replaces it on Fireplane.
  static constexpr std::pair<std::string_view, std::string_view> kL2ToEcache[] = {
      {"l2.size_kib", "fireplane.ecache_kib"},
      {"l2.ways", "fireplane.ecache_ways"},
      {"l2.line_bytes", "fireplane.line_bytes"},
      {"l2.replacement", "fireplane.replacement"},
      {"l2.hit_latency", "fireplane.ecache_hit_latency"},
      {"l2.slice_busy_cycles", "fireplane.ecache_busy_cycles"},
  };
  if (ic == probe::Interconnect::kFireplane && key.starts_with("l2.")) {
    for (const auto& [old_key, new_key] : kL2ToEcache) {
      if (key == old_key) {
        return fmt::format("{}: on the Fireplane bus the external cache is {}", key, new_key);
      }
    }
    return fmt::format(
        "{}: the Fireplane bus has no shared L2 (its CPUs' external caches are "
        "fireplane.ecache_*)",
        key);
  }
  if (ic == probe::Interconnect::kCrossbar && key.starts_with("fireplane.")) {
    return fmt::format(
        "{}: applies to node.interconnect = \"fireplane\" only; this machine's "
        "interconnect is the crossbar (its shared L2 is l2.*)",
        key);
  }
  return "";
}

void MemParams::validate() const {
  if (cores == 0) fail(ExitCode::kConfig, "the memory system needs at least one core");
  l1i.validate("l1i");
  l1d.validate("l1d");
  l1p.validate();
  snoop.validate();
  if (snoop.filter && snooping()) {
    fail(ExitCode::kConfig,
         "snoop.filter: the snoop filters sit on the crossbar's cores; the Fireplane bus snoops "
         "its external caches");
  }
  if (snoop.filter && cores > 64) {
    fail(ExitCode::kConfig, "snoop.filter: at most 64 cores (one port per other core)");
  }
  l3.validate();
  if (l3.banks && snooping()) {
    fail(ExitCode::kConfig,
         "l3.banks: Blue Gene/P's L3 banks are the crossbar's L2 slices; the Fireplane bus has "
         "none");
  }
  if (l1p.device_buses && snooping()) {
    fail(ExitCode::kConfig,
         "l1p.device_buses: Blue Gene/P's device and network buses are the crossbar's; the "
         "Fireplane bus has none");
  }
  if (snooping()) {
    fireplane.validate(cores);
  } else {
    l2.validate();
  }
  ddr.validate();
  const std::string_view line_key = snooping() ? "fireplane.line_bytes" : "l2.line_bytes";
  if (l1d.line_bytes > lineBytes() || l1i.line_bytes > lineBytes()) {
    fail(ExitCode::kConfig, "l1i.line_bytes = {} and l1d.line_bytes = {} must not exceed {} = {}",
         l1i.line_bytes, l1d.line_bytes, line_key, lineBytes());
  }
  // (A combined entry drains as one write to one line below.)
  if (l1p.combine_bytes > lineBytes()) {
    fail(ExitCode::kConfig, "l1p.combine_bytes = {} must not exceed {} = {}", l1p.combine_bytes,
         line_key, lineBytes());
  }
}

u64 MemParams::cacheStateBytes() const {
  constexpr u64 kBytesPerLine = 8 + 8 + 8 + 8 + 1;  // Cache: key, age, ready, meta, flags
  const u64 l1_lines = u64{l1i.sets()} * l1i.ways + u64{l1d.sets()} * l1d.ways + l1p.entries;
  const u64 l2_lines = u64{l2Instances()} * l2SetsPerInstance() * l2Ways();
  return (u64{cores} * l1_lines + l2_lines) * kBytesPerLine;
}

}  // namespace hpm::mem
