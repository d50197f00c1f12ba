// Blue Gene/P's L3 banks (section [l3], l3.banks; docs/timing.md "Blue Gene/P's L3"): what the
// crossbar's L2 slices (crossbar.h), Blue Gene/P's two eDRAM banks, have around them. A bank
//   - takes reads on three read ports, named as its UPC-P events name them: RD0 (the even cores'
//     L2 prefetch units), RD1 (the odd cores') and R2 (the DMA: the message unit's reads), and
//     writes on two write ports, W0 (the even cores' store drains and the DMA's writes) and W1
//     (the odd cores'); a write port takes one request per l3.write_port_cycles;
//   - looks every request up in one of its two directories, DIR0 and DIR1, each holding the tags
//     of half its sets (the set index's low bit): a lookup takes its directory
//     l3.directory_cycles;
//   - returns each read's line on its one read-return path, which carries
//     l3.return_bytes_per_cycle: a read whose data is ready while another read's return holds
//     the path waits for it, a read-return collision;
//   - allocates one of its l3.miss_handler_entries miss-handler entries for each line it fetches
//     from DDR, held until the line is in the eDRAM; an allocation waits for a free entry;
//   - prefetches, after a core's read missed, the next l3.prefetch_lines lines into their banks'
//     eDRAM.
// Every wait is a server's (a "free at" timestamp, docs/timing.md section 6; the return path a
// calendar of its reserved cycles), so a collision or a wait is two requests wanting one
// resource in the same cycles, never a probability. A fetch miss waits for none of them (it takes
// the uncontended latency, as at the slices) but takes its turn.
//
// The crossbar calls this class at each stage of a request; it keeps the counts of the L3 events
// of stats/probe.h and their ground truth.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/types.h"
#include "mem/mem_params.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {

struct L3ReadPortStats {
  u64 single_lines = 0;
  u64 bursts = 0;
  u64 collisions = 0;
  std::array<u64, probe::Topology::kL3Directories> hits{};
  std::array<u64, probe::Topology::kL3Directories> misses{};
};

struct L3BankStats {
  std::array<L3ReadPortStats, probe::Topology::kL3ReadPorts> read{};
  std::array<u64, probe::Topology::kL3Directories> lookups{};
  std::array<u64, probe::Topology::kL3Directories> lookup_wait_cycles{};
  std::array<u64, probe::Topology::kL3WritePorts> deposits{};
  std::array<u64, probe::Topology::kL3WritePorts> deposit_wait_cycles{};
  u64 allocations = 0;
  u64 allocation_wait_cycles = 0;
  u64 ddr_fetches = 0;
  u64 edram_prefetches = 0;
  void visit(stats::Visitor& v) const;
};

class L3Banks {
 public:
  static constexpr u32 kReadPorts = probe::Topology::kL3ReadPorts;
  static constexpr u32 kWritePorts = probe::Topology::kL3WritePorts;
  static constexpr u32 kDirectories = probe::Topology::kL3Directories;
  static constexpr u32 kDmaReadPort = 2;   // R2
  static constexpr u32 kDmaWritePort = 0;  // W0

  // `banks` banks (the L2 slices) of `line_bytes` lines; a line's set index starts at line bit
  // `set_shift`.
  L3Banks(const L3Params& p, u32 banks, u32 line_bytes, u32 set_shift);

  void setProbe(probe::Bus* bus) { bus_ = bus; }
  const L3Params& params() const { return p_; }

  static u32 readPort(u32 core) { return core & 1; }
  static u32 writePort(u32 core) { return core & 1; }
  u32 directoryOf(u64 line) const { return static_cast<u32>(line >> set_shift_) & 1; }

  // A request for `line` reaching `bank` at `p`: its lookup in the line's directory. The cycle
  // the directory takes it (`waits` false: `p`, a fetch). `timed` false (warm-up): no waiting.
  Cycle lookup(u32 bank, u64 line, Cycle p, bool waits, bool timed);
  // A write request reaching write port `port` of `bank` at `p`: the cycle the port takes it.
  Cycle deposit(u32 bank, u32 port, Cycle p, bool timed);
  // A read of read port `port` for `line` was served: delivered as a single line or as part of a
  // burst, a hit (in the eDRAM or in flight to it) or a miss in its directory.
  void delivered(u32 bank, u32 port, u64 line, bool hit, bool burst);
  // A read of `port` whose data is ready at `ready` takes the bank's read-return path: the cycle
  // its data is returned, later than `ready` if another return held the path (a collision).
  Cycle returnPath(u32 bank, u32 port, Cycle ready, bool waits, bool timed);

  // The miss handler: an entry for a line fetched from DDR, wanted at `p`: the cycle it is
  // allocated, and in `entry` which, to be held (release) until the line is in the eDRAM.
  Cycle allocate(u32 bank, Cycle p, bool waits, bool timed, u32* entry);
  void release(u32 bank, u32 entry, Cycle until, bool timed) {
    Cycle& free = mh_free_[u64{bank} * p_.miss_handler_entries + entry];
    if (timed) free = std::max(free, until);
  }
  // A line fetched from DDR by `bank` (every DDR read the bank makes), and one of those that was
  // its prefetch into the eDRAM.
  void ddrFetch(u32 bank) {
    add(probe::Event::kL3DdrFetches, bank, stats_[bank].ddr_fetches, bank);
  }
  void prefetched(u32 bank) {
    add(probe::Event::kL3EdramPrefetches, bank, stats_[bank].edram_prefetches, bank);
  }

  const L3BankStats& stats(u32 bank) const { return stats_[bank]; }
  // The statistics that are the L3 events' ground truth (probe::TruthRow), and their tallies.
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const;
  void registerTallies(probe::Bus& bus) const;
  // List "l3_banks", one group per bank.
  void visitStats(stats::Visitor& v) const;

 private:
  // A server's wait from `p` to `start`, counted once per cycle into `stat` (its cycles not yet
  // counted: the servers are FIFO, so each start is at or after the last one).
  void waited(probe::Event e, u32 instance, u32 bank, Cycle p, Cycle start, Cycle& counted_until,
              u64& stat);
  // Counts `e` of `instance` in `stat` and marks bank's statistics changed.
  void add(probe::Event e, u32 instance, u64& stat, u32 bank, u64 n = 1) {
    probe::count(bus_, e, instance, stat, n);
    ++versions_[bank];
  }
  static std::span<const probe::TruthRow<L3Banks>> truthTable();

  L3Params p_;
  u32 set_shift_ = 0;
  u32 return_cycles_ = 1;  // a line's hold of the read-return path
  std::vector<L3BankStats> stats_;
  std::vector<u64> versions_;  // by bank: changes whenever its statistics do
  // Servers, by bank x directory, bank x write port, bank x entry: their next free cycle, and
  // the end of the waits counted so far.
  std::vector<Cycle> dir_free_, dir_counted_;
  std::vector<Cycle> wport_free_, wport_counted_;
  std::vector<Cycle> mh_free_;
  std::vector<Cycle> mh_counted_;  // by bank
  // By bank: the cycles reserved on the read-return path, the starts of returns of
  // return_cycles_ each, in order; those long past are dropped.
  std::vector<std::vector<Cycle>> returns_;
  probe::Bus* bus_ = nullptr;
};

}  // namespace hpm::mem
