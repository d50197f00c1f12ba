// UPC-P's part of the catalogue (docs/events.md): Blue Gene/P's 1024 inputs by their own names
// (bgp_names.cpp: counter mode m, counter c is input m x 256 + c, so the seed's Table 1 is mode
// 0), each wired to what hpmsim's node has for it, and hpmsim's own events in the inputs Blue
// Gene/P leaves reserved or uses to repeat the cores' events (modes 2 and 3, counters 0-71).
//
// Every input is a one-bit signal, as on the hardware: a core's inputs count events that happen
// at most once per cycle (probe::Rate::kOne: the model's core issues one instruction per cycle,
// and where it does more than one thing in a cycle, as a fused multiply-add's two operations,
// there are per-width events: FPU_FMA_2 counts the instructions), and the node's inputs (L3
// banks, memory controllers, kernel) count events of resources that take a cycle each
// (kAverageOne). So the seed's 12-bit low-order registers lose no carry (docs/upc.md).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/error.h"
#include "isa/ops.h"
#include "pmu/upc/bgp_names.h"
#include "pmu/upc/component.h"

namespace hpm::upc {

using probe::Event;
using probe::Kind;
using probe::Rate;
using probe::Scope;
using G = isa::OpGroup;

namespace {

constexpr std::string_view kNoSignal = "the model keeps no such signal";
constexpr std::string_view kOnePipe =
    "the model's core has one integer pipe: its instructions count under the I-pipe's events";
constexpr std::string_view kNoPairedFpu =
    "RV64GC has no paired (SIMD) floating point: the model's FPU is one pipe of one width";
constexpr std::string_view kNoNetwork =
    "this machine has no collective network (collective.enabled is off)";

// A Blue Gene/P collective network event ("COL_...") that counts here: its probe event and
// the instances (port x 2 + virtual channel; a class) it sums.
struct ColSource {
  Event event = Event::kCount;
  std::vector<u32> instances;
  std::string note;
};

// "VC<v>" at `at` of `name`: v, or -1.
int vcAt(std::string_view name, std::size_t at) {
  if (name.size() < at + 3 || name.substr(at, 2) != "VC" ||
      (name[at + 2] != '0' && name[at + 2] != '1')) {
    return -1;
  }
  return name[at + 2] - '0';
}

ColSource colSource(std::string_view name) {
  using std::string_view;
  constexpr u32 kLocal = 3 * 2;  // the local client's instances: + the channel
  const string_view rest = name.substr(4);
  // COL_AS<c>_VC<v>_... and COL_AR<c>_VC<v>_...: a link's sender or receiver on a channel.
  if ((rest.starts_with("AS") || rest.starts_with("AR")) && rest.size() > 4 && rest[3] == '_' &&
      rest[2] >= '0' && rest[2] <= '2') {
    const u32 port = static_cast<u32>(rest[2] - '0');
    const bool sender = rest[1] == 'S';
    const int vc = vcAt(rest, 4);
    if (vc >= 0) {
      const string_view what = rest.substr(8);
      const u32 i = port * 2 + static_cast<u32>(vc);
      if (sender && (what == "PACKETS_SENT" || what.starts_with("DATA_PACKETS_SENT"))) {
        return {Event::kColPacketsSent,
                {i},
                fmt::format("packets the router sent on link {}, channel {}", port, vc)};
      }
      if (!sender && what.starts_with("DATA_PACKET")) {
        return {Event::kColPacketsReceived,
                {i},
                fmt::format("packets received on link {}, channel {}", port, vc)};
      }
      // Levels: the FIFO's and the sender's states (net/collective.h, ColSignal). "_UM3": the
      // same signal at a second input, in mode 3 (Blue Gene/P's list names a repeated signal so,
      // as COL_AR0_PACKET_TAKEN_UM3 repeats mode 0's COL_AR0_PACKET_TAKEN).
      if (!sender && (what == "FULL" || what == "FULL_UM3")) {
        return {Event::kColReceiverFull,
                {i},
                fmt::format("cycles link {}'s receiver FIFO of channel {} was full (8 packets)",
                            port, vc)};
      }
      if (sender && (what == "EMPTY" || what == "EMPTY_UM3")) {
        return {Event::kColSenderEmpty,
                {i},
                fmt::format("cycles link {}'s sender had no packet of channel {} in the far "
                            "receiver FIFO or on its way there (all its tokens back)",
                            port, vc)};
      }
      if (what == "CUT_THROUGH") {
        return {
            sender ? Event::kColSentCutThrough : Event::kColReceivedCutThrough,
            {i},
            sender
                ? fmt::format(
                      "packets sent on link {}, channel {}, before their tail reached this router",
                      port, vc)
                : fmt::format(
                      "packets received on link {}, channel {}, sent on before their tail arrived",
                      port, vc)};
      }
    } else if (rest.substr(4) == "BUSY") {
      return {sender ? Event::kColSenderBusy : Event::kColReceiverBusy,
              {port * 2, port * 2 + 1},
              fmt::format("cycles link {}'s {} is busy with a packet (either channel)", port,
                          sender ? "sender" : "receiver")};
    } else if (!sender && rest.substr(4).starts_with("PACKET_TAKEN")) {
      return {
          Event::kColPacketsTaken,
          {port * 2, port * 2 + 1},
          fmt::format("packets the arbiter took from link {}'s receiver (both channels)", port)};
    }
    return {};
  }
  // COL_A_CH<c>_VC<v>_HAVE and COL_A_INJECT_VC<v>_HAVE: the arbiter has a packet from the input.
  if (rest.starts_with("A_") && rest.ends_with("_HAVE")) {
    const bool inject = rest.starts_with("A_INJECT_");
    const bool link = rest.size() > 5 && rest.substr(2, 2) == "CH" && rest[4] >= '0' &&
                      rest[4] <= '2' && rest[5] == '_';
    const int vc = vcAt(rest, inject ? 9 : 6);
    if ((inject || link) && vc >= 0) {
      const u32 port = inject ? 3 : static_cast<u32>(rest[4] - '0');
      return {Event::kColArbiterHas,
              {port * 2 + static_cast<u32>(vc)},
              inject ? fmt::format("cycles the arbiter had a packet of channel {} from the "
                                   "injection FIFO (its head at the router, not yet taken)",
                                   vc)
                     : fmt::format("cycles the arbiter had a packet of channel {} from link {}'s "
                                   "receiver (its head at the router, not yet taken)",
                                   vc, port)};
    }
  }
  if (rest == "ALC_BUSY" || rest == "ALC_BUSY_INJECT") {
    const bool inject = rest == "ALC_BUSY_INJECT";
    return {inject ? Event::kColReceiverBusy : Event::kColSenderBusy,
            {kLocal, kLocal + 1},
            inject ? "cycles the router takes a packet out of an injection FIFO"
                   : "cycles the router puts a packet into a reception FIFO"};
  }
  if (rest == "ALU_BUSY") {
    return {Event::kColAluBusy, {kLocal, kLocal + 1}, "cycles the ALU combines packets"};
  }
  if (rest.starts_with("ALC_PACKET_TAKEN")) {
    return {Event::kColPacketsTaken,
            {kLocal, kLocal + 1},
            "packets the arbiter took from the injection FIFOs (both channels)"};
  }
  if (rest.starts_with("ACLS") && rest.ends_with("_WINS")) {
    const string_view digits = rest.substr(4, rest.size() - 9);
    u32 cls = 0;
    for (char c : digits) cls = cls * 10 + static_cast<u32>(c - '0');
    return {Event::kColClassWins,
            {cls},
            fmt::format("packets of class route {} the arbiter routed", cls)};
  }
  // COL_INJECT_VC<v>_... and COL_RECEPTION_VC<v>_...: the local client's FIFOs.
  const bool inject = rest.starts_with("INJECT_"), reception = rest.starts_with("RECEPTION_");
  if (inject || reception) {
    const std::size_t at = inject ? 7 : 10;
    const int vc = vcAt(rest, at);
    if (vc < 0) return {};
    const string_view what = rest.substr(at + 4);
    const u32 i = kLocal + static_cast<u32>(vc);
    if (inject && what.starts_with("HEADER")) {
      return {Event::kColInjectHeaders,
              {i},
              fmt::format("headers stored into channel {}'s injection FIFO", vc)};
    }
    if (inject && what == "PAYLOAD_ADDED") {
      return {Event::kColInjectPayload,
              {i},
              fmt::format("quadwords stored into channel {}'s injection FIFO", vc)};
    }
    if (inject && what == "PACKET_TAKEN") {
      return {Event::kColPacketsTaken,
              {i},
              fmt::format("packets the arbiter took from channel {}'s injection FIFO", vc)};
    }
    if (reception && (what == "PACKET_ADDED" || what == "PACKED_ADDED")) {
      return {Event::kColReceptionPackets,
              {i},
              fmt::format("packets added to channel {}'s reception FIFO", vc)};
    }
    if (reception && what == "HEADER_TAKEN") {
      return {Event::kColReceptionHeaders,
              {i},
              fmt::format("headers the program took from channel {}'s reception FIFO", vc)};
    }
    if (reception && what == "PAYLOAD_TAKEN") {
      return {Event::kColReceptionPayload,
              {i},
              fmt::format("quadwords the program took from channel {}'s reception FIFO", vc)};
    }
  }
  return {};
}

// Why a collective network event without a counterpart never counts, on a machine that has it.
std::string_view whyNotCol(std::string_view name) {
  for (std::string_view error : {"PARITY_ERROR", "BAD_PACKET_MARKER", "UNEXPECTED_HEADER", "RESYNC",
                                 "RESENDS", "ABORT", "DISCARDED"}) {
    if (name.find(error) != std::string_view::npos) {
      return "the model's collective links and FIFOs make no errors: no parity or CRC failures, "
             "resends, resynchronisations, aborts or discarded packets";
    }
  }
  // (IBM's collective network patent, US 8,626,957, "Collective Network for Computer
  // Structures": its links' protocol has data packets, empty packets that exchange protocol
  // state when there is no data packet to send, and sync packets that keep the link's logic
  // levels changing while it is idle; each with a link header and a CRC trailer. No public
  // source gives the collective links' tokens, buffers per link or these packets' sizes.)
  if (name.find("IDLE_PACKET") != std::string_view::npos) {
    return "idle (sync) packets keep a collective link's logic levels changing while it has "
           "nothing to send (IBM's collective network patent, US 8,626,957): no public source "
           "gives their size or rate, and the model's idle links are silent";
  }
  if (name.find("EMPTY_PACKET") != std::string_view::npos) {
    return "empty packets carry a collective link's protocol state (tokens, acknowledgements) "
           "when no data packet goes its way (US 8,626,957): the model's collective links keep "
           "no link-level protocol (no public source gives their tokens or these packets' "
           "size), so they send none; the torus links' protocol is modelled (TOKEN_ACK_PACKETS)";
  }
  if (name.find("MATURE") != std::string_view::npos ||
      name.find("REQUESTS") != std::string_view::npos ||
      name.find("GREEDY") != std::string_view::npos) {
    return "no public source defines the arbiter's greedy mode and when a request is mature (its "
           "timeout, bpcore/collective.h's ARB_TO): the model's arbiter routes each packet as "
           "soon as its targets can take it";
  }
  if (name == "COL_AS1_BUSY_RECEPTION") {
    return "no public source says what it measures (Blue Gene/P's list has it where "
           "COL_AS0_BUSY would be)";
  }
  return "no signal of the model's collective network stands for it";
}

// A Blue Gene/P event of a core ("PU<k>_" + suffix) and what it counts here.
struct CoreEvent {
  std::string_view suffix;
  pmu::ProbeEvents sources;
  isa::OpGroup ops;  // or: the group of operations it counts (isa/ops.h)
  std::string_view note;
};

constexpr CoreEvent kCoreEvents[] = {
    {"JPIPE_INSTRUCTIONS", {}, G::kNone, kOnePipe},
    {"JPIPE_ADD_SUB", {}, G::kNone, kOnePipe},
    {"JPIPE_LOGICAL_OPS", {}, G::kNone, kOnePipe},
    {"JPIPE_SHROTMK", {}, G::kNone, kOnePipe},
    {"IPIPE_INSTRUCTIONS",
     {Event::kInstIntAlu, Event::kInstIntMul, Event::kInstIntDiv, Event::kInstBranch,
      Event::kInstJump, Event::kInstSystem},
     G::kNone,
     "integer instructions but loads and stores (those are the L-pipe's: DATA_LOADS, "
     "DATA_STORES)"},
    {"IPIPE_MULT_DIV",
     {Event::kInstIntMul, Event::kInstIntDiv},
     G::kNone,
     "integer multiplications, divisions and remainders"},
    {"IPIPE_ADD_SUB",
     {},
     G::kIntAddSub,
     "integer additions and subtractions (lui and auipc included)"},
    {"IPIPE_LOGICAL_OPS", {}, G::kIntLogical, "logical instructions"},
    {"IPIPE_SHROTMK", {}, G::kIntShift, "shifts (RV64GC has no rotate-and-mask)"},
    {"IPIPE_BRANCHES",
     {Event::kInstBranch, Event::kInstJump},
     G::kNone,
     "conditional branches and jumps"},
    {"IPIPE_TLB_OPS",
     {},
     G::kNone,
     "TLB instructions (tlbwe, tlbre, tlbsx) are the kernel's, and CNK writes its static mapping "
     "into the TLB when the job starts, none while the program runs"},
    {"IPIPE_PROCESS_CONTROL",
     {Event::kInstSystem},
     G::kNone,
     "system instructions (ecall, ebreak, fences, CSR accesses)"},
    {"IPIPE_OTHER",
     {},
     G::kIntCompare,
     "integer compares (the ALU instructions the other I-pipe events leave)"},
    // A line fill in progress, as a level: cycles (in rising-edge mode, about the fills: PAPI's
    // BG/P presets take them as the L1s' writes, PAPI_L1_TCW). The L1I's is the fetch's wait,
    // which is the fill itself as the in-order fetch sees it; a load miss stalls nothing until
    // its value is used, so the L1D's is the fill's own time (docs/timing.md "L1P").
    {"DCACHE_LINEFILLINPROG",
     {Event::kL1dFillPending},
     G::kNone,
     "cycles an L1D line fill was in progress (from a load miss's issue to its line's arrival)"},
    {"ICACHE_LINEFILLINPROG",
     {Event::kStallIcacheMiss},
     G::kNone,
     "cycles the core waited for an instruction-cache line fill"},
    {"DCACHE_MISS",
     {Event::kL1dMisses},
     G::kNone,
     "L1D misses (loads allocate; stores write through)"},
    {"DCACHE_HIT", {Event::kL1dHits}, G::kNone, "L1D hits"},
    {"DATA_LOADS",
     {Event::kInstLoad, Event::kInstFpLoad},
     G::kNone,
     "loads retired (integer and FP)"},
    {"DATA_STORES",
     {Event::kInstStore, Event::kInstFpStore},
     G::kNone,
     "stores retired (integer and FP)"},
    {"DCACHE_OPS", {}, G::kNone, "RV64GC has no cache-management instructions"},
    {"ICACHE_MISS", {Event::kL1iMisses}, G::kNone, "L1I misses"},
    {"ICACHE_HIT", {Event::kL1iHits}, G::kNone, "L1I hits"},
    {"FPU_ADD_SUB_1",
     {Event::kInstFpAdd},
     G::kNone,
     "floating-point additions and subtractions (one operation each)"},
    {"FPU_MULT_1",
     {Event::kInstFpMul},
     G::kNone,
     "floating-point multiplications (one operation each)"},
    {"FPU_FMA_2", {Event::kInstFpFma}, G::kNone, "fused multiply-adds (two operations each)"},
    {"FPU_DIV_1", {Event::kInstFpDiv}, G::kNone, "floating-point divisions"},
    {"FPU_OTHER_NON_STORAGE_OPS",
     {Event::kInstFpSqrt, Event::kInstFpMisc, Event::kInstFpCvt},
     G::kNone,
     "other floating-point instructions but loads and stores (square roots, sign injection, "
     "min/max, compares, classify, moves, conversions)"},
    {"FPU_ADD_SUB_2", {}, G::kNone, kNoPairedFpu},
    {"FPU_MULT_2", {}, G::kNone, kNoPairedFpu},
    {"FPU_FMA_4", {}, G::kNone, kNoPairedFpu},
    {"FPU_DUAL_PIPE_OTHER_NON_STORAGE_OPS", {}, G::kNone, kNoPairedFpu},
    {"FPU_QUADWORD_LOADS", {}, G::kNone, "RV64GC has no quadword floating-point loads"},
    {"FPU_OTHER_LOADS", {Event::kInstFpLoad}, G::kNone, "floating-point loads"},
    {"FPU_QUADWORD_STORES", {}, G::kNone, "RV64GC has no quadword floating-point stores"},
    {"FPU_OTHER_STORES", {Event::kInstFpStore}, G::kNone, "floating-point stores"},
    {"L1_INVALIDATION_REQUESTS",
     {},
     G::kNone,
     "snoops of several cores (and a back-invalidation's several lines) can reach one L1 in one "
     "cycle: no one-bit signal here (each snoop port's events count its source's: "
     "SNOOP_PORT<p>_REMOTE_SOURCE_REQUESTS less _REJECTED_REQUESTS passed)"},
    // The L2 prefetch buffer (the model's L1P).
    {"L2_VALID_PREFETCH_REQUESTS",
     {},
     G::kNone,
     "the model's prefetcher can request several lines in one cycle: no one-bit signal here "
     "(bgq counts them: PEVT_L1P_BAS_STRM_LINE_ESTB)"},
    {"L2_PREFETCH_HITS_IN_FILTER",
     {Event::kL1pStreamsEstablished},
     G::kNone,
     "misses that continued a line of the stream detection history (a tracked stream not yet "
     "confirmed), establishing a stream"},
    {"L2_PREFETCH_HITS_IN_STREAM",
     {Event::kL1pPrefetchHits},
     G::kNone,
     "first demand hits on prefetched lines"},
    {"L2_CYCLES_PREFETCH_PENDING",
     {Event::kL1pPrefetchPending},
     G::kNone,
     "cycles with a stream prefetch outstanding below the L1P (from its request to its line's "
     "arrival)"},
    {"L2_PAGE_ALREADY_IN_L2",
     {Event::kL1pPrefetchAlreadyPresent},
     G::kNone,
     "accesses whose stream prefetch found a line it would request already in the L1P, and "
     "dropped it (once per access: the prefetcher may look at several lines in one cycle)"},
    {"L2_CYCLES_READ_REQUEST_PENDING",
     {Event::kL1pReadPending},
     G::kNone,
     "cycles with a demand read (an L1P miss) outstanding below the L1P (from its departure to "
     "its line's arrival)"},
    {"L2_READ_REQUESTS", {Event::kL1pAccesses}, G::kNone, "L1P lookups"},
    {"L2_L3_READ_REQUESTS",
     {Event::kL1pMisses},
     G::kNone,
     "L1P misses, which go to the shared L2 (Blue Gene/P's L3)"},
    {"L2_PREFETCHABLE_REQUESTS",
     {Event::kL1pAccesses},
     G::kNone,
     "L1P lookups: every one is a cacheable data read the prefetcher may follow (device accesses, "
     "atomics and instruction fetches do not reach the L1P)"},
    {"L2_HIT", {Event::kL1pHits}, G::kNone, "L1P hits"},
    {"L2_MEMORY_WRITES",
     {Event::kCoreL2Writes},
     G::kNone,
     "stores written to the shared L2 (store-queue drains)"},
};

// A Blue Gene/P event of a core's L2 routing uncached device accesses to a bus ("PU<k>_" +
// suffix): the bus's event at instance k x buses + bus (mem/device_buses.h; docs/timing.md
// "Device buses").
struct BusEvent {
  std::string_view suffix;
  Event source;
  probe::DeviceBus bus;
  std::string_view note;
};

constexpr BusEvent kBusEvents[] = {
    {"L2_DEVBUS_READ_REQUESTS", Event::kDeviceBusReads, probe::DeviceBus::kDevice,
     "uncached loads of device-bus registers (the UPC's: the counter units')"},
    {"L2_NETBUS_READ_REQUESTS", Event::kDeviceBusReads, probe::DeviceBus::kNetwork,
     "uncached loads of network-bus registers (the DMA's and the torus FIFOs': the message "
     "unit's)"},
    {"L2_DEVBUS_WRITES", Event::kDeviceBusWrites, probe::DeviceBus::kDevice,
     "uncached stores to device-bus registers (the UPC's: the counter units')"},
    {"L2_NETWORK_WRITES", Event::kDeviceBusWrites, probe::DeviceBus::kNetwork,
     "uncached stores to network-bus registers (the DMA's and the torus FIFOs': the message "
     "unit's)"},
};

const BusEvent* busEvent(std::string_view suffix) {
  for (const BusEvent& e : kBusEvents) {
    if (e.suffix == suffix) return &e;
  }
  return nullptr;
}

// A Blue Gene/P snoop-filter event of a port ("PU<k>_SNOOP_PORT<p>_" + suffix): the port's event
// at instance k x ports + p; port p of core k takes the snoops of the p-th other core
// (docs/timing.md "Snoop filters").
struct SnoopEvent {
  std::string_view suffix;
  Event source;
  std::string_view note;
};

constexpr SnoopEvent kSnoopPortEvents[] = {
    {"REMOTE_SOURCE_REQUESTS", Event::kSnoopRequests,
     "snoop requests from the port's core (its stores' and atomics' invalidations)"},
    {"CACHE_REJECTED_REQUEST", Event::kSnoopCacheRejected,
     "snoops the port's snoop cache rejected (line snooped before, not loaded since)"},
    {"STREAM_REGISTER_REJECTED_REQUEST", Event::kSnoopRegisterRejected,
     "snoops no stream register (active or history set) covers"},
    {"FILTERED_BY_CACHE_AND_REGISTERS", Event::kSnoopBothRejected,
     "snoops both the snoop cache and the stream registers rejected"},
    {"REJECTED_REQUESTS", Event::kSnoopRejected,
     "snoops the filter rejected (snoop cache, stream registers or both)"},
    {"HIT_STREAM_REGISTER_IN_ACTIVE_SET", Event::kSnoopActiveHits,
     "snoops an active-set stream register covers"},
    {"HIT_STREAM_REGISTER_IN_HISTORY_SET", Event::kSnoopHistoryHits,
     "snoops a history-set stream register covers"},
    {"UPDATED_CACHE_LINE", Event::kSnoopCacheUpdates,
     "snoops recorded in an existing snoop-cache entry (another line of its block)"},
};

// "SNOOP_PORT<p>_<suffix>": p, or -1.
int snoopPort(std::string_view suffix, std::string_view& rest) {
  if (suffix.size() < 12 || !suffix.starts_with("SNOOP_PORT") || suffix[11] != '_' ||
      suffix[10] < '0' || suffix[10] > '9') {
    return -1;
  }
  rest = suffix.substr(12);
  return suffix[10] - '0';
}

// A Blue Gene/P L3 bank event ("L3_M<bank>_" + suffix) and the model's event for it.
struct BankEvent {
  std::string_view suffix;
  Event source;
  std::string_view note;
};

// With the L3's banks (l3.banks; mem/l3.h): a read port's events ("RD0_", "RD1_", "R2_" +
// suffix), a directory's ("DIR0_", "DIR1_"), a write port's ("W0_", "W1_"), the bank's.
constexpr BankEvent kL3ReadPortEvents[] = {
    {"SINGLE_LINE_DELIVERED_L2", Event::kL3SingleLines,
     "read requests delivered as a single line (loads, fetches, atomics; the DMA's one-line "
     "reads)"},
    {"BURST_DELIVERED_L2", Event::kL3Bursts,
     "read requests delivered as part of a burst (the L2 prefetch unit's lines; the DMA's reads of "
     "several lines)"},
    {"READ_RETURN_COLLISION", Event::kL3ReturnCollisions,
     "reads whose data found the bank's read-return path taken by another return and waited"},
    {"DIR0_HIT_OR_INFLIGHT", Event::kL3Dir0Hits,
     "reads that hit in directory 0 (the line in the eDRAM or in flight to it)"},
    {"DIR0_MISS_OR_LOCKDOWN", Event::kL3Dir0Misses,
     "reads that missed in directory 0 (the model locks no line down)"},
    {"DIR1_HIT_OR_INFLIGHT", Event::kL3Dir1Hits,
     "reads that hit in directory 1 (the line in the eDRAM or in flight to it)"},
    {"DIR1_MISS_OR_LOCKDOWN", Event::kL3Dir1Misses,
     "reads that missed in directory 1 (the model locks no line down)"},
};
constexpr BankEvent kL3DirectoryEvents[] = {
    {"LOOKUPS", Event::kL3DirLookups, "lookups (reads and writes of every port)"},
    {"CYCLES_REQUESTS_NOT_TAKEN", Event::kL3DirWaitCycles,
     "cycles requests waited for the directory (each cycle once)"},
};
constexpr BankEvent kL3WritePortEvents[] = {
    {"DEPOSIT_REQUESTS", Event::kL3Deposits, "write requests taken"},
    {"CYCLES_REQUESTS_NOT_TAKEN", Event::kL3DepositWaitCycles,
     "cycles write requests waited for the port (each cycle once)"},
};
constexpr BankEvent kL3Events[] = {
    {"MH_DDR_STORES", Event::kL2Writebacks, "dirty lines written back to DDR"},
    {"MH_DDR_FETCHES", Event::kL3DdrFetches,
     "lines fetched from DDR (misses' and prefetches into the eDRAM)"},
    {"MH_ALLOCATION_REQUESTS", Event::kL3Allocations,
     "miss-handler entries allocated (every miss, every prefetch into the eDRAM)"},
    {"MH_CYCLES_ALLOCATION_REQUESTS_NOT_TAKEN", Event::kL3AllocationWaitCycles,
     "cycles allocations waited for a free miss-handler entry (each cycle once)"},
    {"PF_PREFETCH_INTO_EDRAM", Event::kL3EdramPrefetches,
     "lines prefetched from DDR into the eDRAM after a core's read missed"},
};

// An L3 bank's event by its name after "L3_M<bank>_": the model's event and its instance, if
// any. `ports` names the read port, directory or write port ("RD0" ...).
struct L3Source {
  const BankEvent* event = nullptr;
  u32 instance = 0;
  std::string_view unit;  // "RD0", "DIR1", ... or "" (the bank's)
};
L3Source l3Source(u32 bank, std::string_view rest) {
  struct Prefix {
    std::string_view text;
    u32 which;
    std::span<const BankEvent> events;
    u32 per_bank;
  };
  const Prefix prefixes[] = {
      {"RD0_", 0, kL3ReadPortEvents, probe::Topology::kL3ReadPorts},
      {"RD1_", 1, kL3ReadPortEvents, probe::Topology::kL3ReadPorts},
      {"R2_", 2, kL3ReadPortEvents, probe::Topology::kL3ReadPorts},
      {"DIR0_", 0, kL3DirectoryEvents, probe::Topology::kL3Directories},
      {"DIR1_", 1, kL3DirectoryEvents, probe::Topology::kL3Directories},
      {"W0_", 0, kL3WritePortEvents, probe::Topology::kL3WritePorts},
      {"W1_", 1, kL3WritePortEvents, probe::Topology::kL3WritePorts},
  };
  for (const Prefix& x : prefixes) {
    if (!rest.starts_with(x.text)) continue;
    for (const BankEvent& e : x.events) {
      if (rest.substr(x.text.size()) == e.suffix) {
        return {&e, bank * x.per_bank + x.which, x.text.substr(0, x.text.size() - 1)};
      }
    }
  }
  for (const BankEvent& e : kL3Events) {
    if (rest == e.suffix) return {&e, bank, ""};
  }
  return {};
}

// Without them: the model's L2 slice <bank>, one port and one directory.
constexpr BankEvent kBankEvents[] = {
    {"RD0_SINGLE_LINE_DELIVERED_L2", Event::kL2Reads, "read requests served"},
    {"RD0_DIR0_HIT_OR_INFLIGHT", Event::kL2Hits, "hits"},
    {"RD0_DIR0_MISS_OR_LOCKDOWN", Event::kL2Misses, "misses"},
    {"DIR0_LOOKUPS", Event::kL2Requests, "requests (reads, writes, atomics, prefetches)"},
    {"MH_DDR_STORES", Event::kL2Writebacks, "dirty lines written back to DDR"},
    {"MH_DDR_FETCHES", Event::kL2Misses, "lines fetched from DDR (every miss fetches its line)"},
    {"W0_DEPOSIT_REQUESTS", Event::kL2Writes, "write requests"},
};

// A Blue Gene/P torus link's event ("TORUS_<X|Y|Z><P|M>_" + suffix) and the node's DMA events
// that count here.
struct NetworkEvent {
  std::string_view name;  // the suffix after the link ("PACKETS"), or the whole DMA name
  Event source;
  std::string_view note;
};
constexpr NetworkEvent kTorusEvents[] = {
    {"PACKETS", Event::kNwPacketsSent,
     "packets sent over the link on every channel (passing through included)"},
    // The link protocol's (net/link_protocol.h; they count where network.link_protocol is on):
    // the sender's side of the link, as the events above, and BG/L's names for the same signals
    // (TS_<link>_LINK_AVAIL_NO_<vc>_TOKENS) read NO_TOKENS as cycles the link is free while a
    // packet lacks tokens. The channels as the chunk events' below.
    {"TOKEN_ACK_PACKETS", Event::kNwTokenAckPackets,
     "token/ack packets sent over the link: tokens and acknowledgements owed when no data packet "
     "going that way could carry them"},
    {"ACKS", Event::kNwAcks,
     "acknowledgements sent over the link, one per packet received the other way (piggybacked "
     "or in token/ack packets), one a cycle"},
    {"NO_TOKENS", Event::kNwNoTokens,
     "cycles the link was free while a packet of some channel waited at it with too few tokens"},
    {"NO_VCD0_TOKENS", Event::kNwNoDynamicTokens,
     "cycles the link was free while a dynamic packet waited at it with too few tokens"},
    {"NO_VCBN_TOKENS", Event::kNwNoEscapeTokens,
     "cycles the link was free while an escape (bubble normal) packet waited with too few "
     "tokens"},
    {"NO_VCBP_TOKENS", Event::kNwNoPriorityTokens,
     "cycles the link was free while a priority (bubble priority) packet waited with too few "
     "tokens"},
};
// Its chunk events: each chunk as it leaves on the link (one a cycle at most: a chunk takes a
// link 64 cycles on bgp), by Blue Gene/P's virtual channels: the model's dynamic channels are
// VCD0 and VCD1 (network.dynamic_channels: bgp has two), its escape channel the bubble-normal
// one (VCBN), its priority channel the bubble-priority one (VCBP).
struct ChunkEvent {
  std::string_view name;
  pmu::ProbeEvents sources;
  std::string_view note;
};
constexpr ChunkEvent kChunkEvents[] = {
    {"32BCHUNKS",
     {Event::kNwDynamicChunkLeft, Event::kNwEscapeChunkLeft, Event::kNwPriorityChunkLeft,
      Event::kNwSystemChunkLeft, Event::kNwDynamic1ChunkLeft},
     "32-byte chunks sent over the link on every channel (passing through included), each as it "
     "leaves"},
    {"VCD0_32BCHUNKS",
     {Event::kNwDynamicChunkLeft},
     "32-byte chunks sent over the link on the first dynamic channel"},
    {"VCD1_32BCHUNKS",
     {Event::kNwDynamic1ChunkLeft},
     "32-byte chunks sent over the link on the second dynamic channel (network.dynamic_channels "
     "2; with one, none)"},
    {"VCBN_32BCHUNKS",
     {Event::kNwEscapeChunkLeft},
     "32-byte chunks sent over the link on the escape (bubble normal) channel"},
    {"VCBP_32BCHUNKS",
     {Event::kNwPriorityChunkLeft},
     "32-byte chunks sent over the link on the priority (bubble priority) channel"},
};
// The DMA's events other than DMA_PACKETS_INJECTED are one-bit signals, one a cycle as the DMA's
// port serializes them (net/mu_ports.h; docs/network.md "The message unit's ports").
constexpr NetworkEvent kDmaEvents[] = {
    {"DMA_PACKETS_INJECTED", Event::kMuPacketsInjected,
     "packets the message unit (BG/P's DMA) stored for the network"},
    {"DMA_DESCRIPTORS_READ_FROM_L3", Event::kDmaDescriptorRead,
     "descriptors the DMA read from its injection FIFOs in memory, one a cycle"},
    {"DMA_FIFO_PACKETS_RECEIVED", Event::kDmaFifoPacketReceived,
     "packets the DMA stored to a reception FIFO, one a cycle"},
    {"DMA_COUNTER_PACKETS_RECEIVED", Event::kDmaPutPacketReceived,
     "direct-put packets the DMA wrote to memory and counted on their reception counter, one a "
     "cycle"},
    {"DMA_REMOTE_GET_PACKETS_RECEIVED", Event::kDmaRemoteGetPacketReceived,
     "remote-get packets whose descriptors the DMA took, one a cycle"},
    {"DMA_IDPU_READ_REQUESTS_TO_L3", Event::kDmaReadRequest,
     "line read requests the DMA's injection side issued to the L3 for packet payloads, one a "
     "cycle (a line each [E])"},
    {"DMA_READ_VALID_RETURNED", Event::kDmaReadReturned,
     "those read requests whose data the L3 returned, one a cycle"},
    {"DMA_ACKED_READ_REQUESTS", Event::kDmaReadAcked,
     "those read requests the L3 took (after its directory's and port's waits), one a cycle"},
    {"DMA_CYCLES_RDPU_WRITE_ACTIVE", Event::kDmaWriteActive,
     "cycles the DMA's reception side had a write to the L3 pending (from its request to its "
     "line's completion)"},
    {"DMA_WRITE_REQUESTS_TO_L3", Event::kDmaWriteRequest,
     "line write requests the DMA's reception side issued to the L3 (FIFO packets, put payloads, "
     "counters), one a cycle (a line each [E])"},
};

// "TORUS_<X|Y|Z><P|M>_<suffix>": the link's port in hpmsim's numbering (2 x dimension for the
// minus link, + 1 for the plus link), or -1.
int torusPort(std::string_view name, std::string_view& suffix) {
  if (name.size() < 10 || !name.starts_with("TORUS_") || name[8] != '_') return -1;
  const std::string_view dims = "XYZ";
  const std::size_t d = dims.find(name[6]);
  if (d == std::string_view::npos || (name[7] != 'P' && name[7] != 'M')) return -1;
  suffix = name.substr(9);
  return static_cast<int>(2 * d + (name[7] == 'P' ? 1 : 0));
}

// Why a Blue Gene/P input without a counterpart never counts, from its name.
std::string_view whyNot(std::string_view name) {
  if (name.starts_with("L3_")) {
    return "the model's L2 slice has one port and one directory (l3.banks is off)";
  }
  if (name.find("SNOOP_PORT3_") != std::string_view::npos) {
    return "port 3 takes the DMA's snoops: the model's message unit writes memory many lines in "
           "one cycle, where a UPC-P input is one bit per cycle, and its invalidations reach the "
           "caches without the filter (docs/timing.md \"Snoop filters\")";
  }
  if (name.find("RANGE_FILTER") != std::string_view::npos) {
    return "the model's kernel configures no range filter (the snoop cache and the stream "
           "registers alone filter, and conservatively)";
  }
  if (name.find("SNOOP_PORT") != std::string_view::npos ||
      name.find("SNOOP_L1_CACHE_WRAP") != std::string_view::npos) {
    return "this machine has no snoop filters (snoop.filter is off)";
  }
  if (name.find("SNOOP") != std::string_view::npos) {
    return "the L2 prefetch buffer's snoops are not modelled: a store's invalidation reaches the "
           "model's L1P through the L1's snoop filter (PU<k>_SNOOP_PORT<p>_...)";
  }
  if (name.starts_with("COL_")) return kNoNetwork;  // (with one: whyNotCol)
  if (name.starts_with("TORUS_")) return kNoSignal;
  if (name.find("BLIND_DEV") != std::string_view::npos) {
    return "reads of Blue Gene/P's blind device (upper address 0x5: an area of no memory and no "
           "registers, whose lines BG/P's kernel touches to flush the L1, _bgp_dcache_flush_set): "
           "the model maps no blind device, and RV64GC's guests flush no cache";
  }
  if (name.find("DEVBUS") != std::string_view::npos ||
      name.find("NETBUS") != std::string_view::npos ||
      name.find("NETWORK") != std::string_view::npos) {
    return "this node routes no device access by bus (l1p.device_buses is off)";
  }
  if (name == "IC_TIMESTAMP") {
    return "no public source defines its signal (PAPI's BG/P component says only that this "
           "time-stamp counter may not be zeroed or given a threshold); the time base's cycles "
           "count under MISC_ELAPSED_TIME";
  }
  return kNoSignal;
}

bool reserved(std::string_view name) {
  return name == "RESERVED" || name == "Reserved";
}

// "PU<k>_<suffix>", or -1.
int coreOf(std::string_view name, std::string_view& suffix) {
  if (name.size() < 5 || !name.starts_with("PU") || name[3] != '_' || name[2] < '0' ||
      name[2] > '9') {
    return -1;
  }
  suffix = name.substr(4);
  return name[2] - '0';
}

}  // namespace

pmu::Attachment attach(const Params& p, const pmu::NodeShape& node) {
  const probe::Bus& bus = *node.bus;
  pmu::Attachment out;
  out.units.push_back(std::make_unique<Component>(p));
  const std::span<const std::string_view> names = bgpUpcNames();
  if (p.counters != 256 || p.events != 1024) {
    fail(ExitCode::kConfig,
         "the bgp catalogue wires Blue Gene/P's 4 x 256 inputs: upc.counters must be 256 and "
         "upc.events 1024 (not {} and {})",
         p.counters, p.events);
  }
  const u32 tpc = node.threads_per_core;
  const u32 cores = std::min<u32>(node.cores, 4);
  // Core k's instances of an event: its hardware threads' (summed), or the core's.
  auto coreFeeds = [&](u32 k, Event e) {
    std::vector<u32> f;
    if (probe::info(e).scope == Scope::kCore) return std::vector<u32>{bus.input(e, k)};
    for (u32 t = 0; t < tpc; ++t) f.push_back(bus.input(e, k * tpc + t));
    return f;
  };
  std::vector<bool> taken(names.size(), false);
  std::vector<bool> wired(names.size(), false);  // taken by an event that counts something
  auto place = [&](u32 input, std::string name, std::string description, Kind kind, Scope scope,
                   std::vector<u32> feeds, i32 core, std::string generic) {
    pmu::NativeEvent e;
    e.name = std::move(name);
    e.description = std::move(description);
    e.kind = kind;
    e.scope = scope;
    e.unit = &kUnitKind;
    e.input = input;
    e.counter = static_cast<i32>(input % p.counters);
    e.select = static_cast<i32>(input / p.counters);
    e.core = core;
    e.generic = std::move(generic);
    wired[input] = !feeds.empty();
    e.instances = {{0, 0, std::move(feeds)}};
    out.events.push_back(std::move(e));
    taken[input] = true;
  };

  // Blue Gene/P's own events. Modes 2 and 3 repeat the cores' events at counters 0-71: those
  // inputs hold hpmsim's own events below.
  // (core, event) as a BG/P event's only source; L3 bank b as core -1 - b, torus link port p as
  // -100 - p, the node (DMA) as -200.
  std::set<std::pair<i32, Event>> represented;
  for (u32 input = 0; input < names.size(); ++input) {
    const std::string_view name = names[input];
    const u32 mode = input / p.counters, counter = input % p.counters;
    if (reserved(name) || (mode >= 2 && counter < 72)) continue;
    std::string_view suffix;
    const int core = coreOf(name, suffix);
    std::vector<u32> feeds;
    std::string note(whyNot(name));
    Kind kind = Kind::kPulse;
    Scope scope = core >= 0 ? Scope::kCore : Scope::kNode;
    std::string generic;
    std::string_view snoop_suffix;
    const int snoop_port = core >= 0 ? snoopPort(suffix, snoop_suffix) : -1;
    const u32 ports = bus.topology().snoop_ports;
    if (core >= 0 && static_cast<u32>(core) < cores && snoop_port >= 0) {
      for (const SnoopEvent& e : kSnoopPortEvents) {
        const u32 pt = static_cast<u32>(snoop_port);
        if (e.suffix != snoop_suffix || pt >= ports) continue;
        feeds = {bus.input(e.source, static_cast<u32>(core) * ports + pt)};
        note = fmt::format("port {} (core {}'s): {}", pt, pt < static_cast<u32>(core) ? pt : pt + 1,
                           e.note);
        scope = Scope::kSnoopPort;
        generic = std::string(probe::info(e.source).name);
      }
    } else if (core >= 0 && static_cast<u32>(core) < cores && suffix == "SNOOP_L1_CACHE_WRAP" &&
               ports != 0) {
      feeds = {bus.input(Event::kSnoopWraps, static_cast<u32>(core))};
      note = "cache wraps: the active stream registers became the history set";
      scope = Scope::kSnoopFilter;
      generic = std::string(probe::info(Event::kSnoopWraps).name);
    } else if (const BusEvent* be = core >= 0 ? busEvent(suffix) : nullptr;
               be != nullptr && static_cast<u32>(core) < cores &&
               bus.topology().device_buses != 0) {
      feeds = {bus.input(be->source,
                         static_cast<u32>(core) * probe::kDeviceBuses + static_cast<u32>(be->bus))};
      note = be->note;
      scope = Scope::kDeviceBus;
      generic = std::string(probe::info(be->source).name);
    } else if (core >= 0 && static_cast<u32>(core) < cores) {
      for (const CoreEvent& c : kCoreEvents) {
        if (c.suffix != suffix) continue;
        note = c.note;
        for (Event e : c.sources.list()) {
          const std::vector<u32> f = coreFeeds(static_cast<u32>(core), e);
          feeds.insert(feeds.end(), f.begin(), f.end());
          if (probe::info(e).kind == Kind::kLevel) kind = Kind::kLevel;
          if (probe::info(e).rate != Rate::kOne) {
            fail(ExitCode::kInternal, "{}: {} is not a one-bit signal", name, probe::info(e).name);
          }
        }
        for (u32 op : pmu::opsOfGroup(c.ops)) {
          for (u32 t = 0; t < tpc; ++t) feeds.push_back(bus.inputOp(op, core * tpc + t));
        }
        if (c.sources.count == 1 && c.ops == isa::OpGroup::kNone) {
          const Event e = c.sources.list().front();
          if (represented.insert({core, e}).second) generic = std::string(probe::info(e).name);
        }
      }
    } else if (name.starts_with("L3_M") && name.size() > 6 && name[5] == '_' &&
               bus.topology().l3_banks != 0) {
      const u32 bank = static_cast<u32>(name[4] - '0');
      const L3Source l3 = l3Source(bank, name.substr(6));
      if (bank < bus.topology().l3_banks && l3.event != nullptr) {
        const Event e = l3.event->source;
        feeds = {bus.input(e, l3.instance)};
        note = l3.unit.empty() ? std::string(l3.event->note)
                               : fmt::format("{}: {}", l3.unit, l3.event->note);
        scope = probe::info(e).scope;
        // (The generic name stands for the cores' requests: not the DMA's read port, R2.)
        if (scope != Scope::kL2Slice) {
          if (l3.unit != "R2") generic = std::string(probe::info(e).name);
        } else if (represented.insert({-1 - static_cast<i32>(bank), e}).second) {
          generic = std::string(probe::info(e).name);
        }
      }
    } else if (name.starts_with("L3_M") && name.size() > 6 && name[5] == '_') {
      const u32 bank = static_cast<u32>(name[4] - '0');
      for (const BankEvent& b : kBankEvents) {
        if (bank >= bus.topology().slices || name.substr(6) != b.suffix) continue;
        feeds = {bus.input(b.source, bank)};
        note = b.note;
        scope = Scope::kL2Slice;
        if (represented.insert({-1 - static_cast<i32>(bank), b.source}).second) {
          generic = std::string(probe::info(b.source).name);
        }
      }
    } else if (std::string_view link_suffix; torusPort(name, link_suffix) >= 0) {
      const u32 port = static_cast<u32>(torusPort(name, link_suffix));
      scope = Scope::kLink;
      for (const NetworkEvent& t : kTorusEvents) {
        if (t.name != link_suffix || port >= bus.topology().links) continue;
        feeds = {bus.input(t.source, port)};
        note = t.note;
        kind = probe::info(t.source).kind;
        represented.insert({-100 - static_cast<i32>(port), t.source});
      }
      for (const ChunkEvent& t : kChunkEvents) {
        if (t.name != link_suffix || port >= bus.topology().links) continue;
        for (Event e : t.sources.list()) feeds.push_back(bus.input(e, port));
        note = t.note;
      }
    } else if (name.starts_with("DMA_")) {
      for (const NetworkEvent& t : kDmaEvents) {
        if (t.name != name) continue;
        feeds = {bus.input(t.source, 0)};
        note = t.note;
        kind = probe::info(t.source).kind;
        represented.insert({-200, t.source});
      }
    } else if (name.starts_with("COL_") && bus.topology().col_ports != 0) {
      ColSource c = colSource(name);
      if (c.event != Event::kCount) {
        for (u32 i : c.instances) feeds.push_back(bus.input(c.event, i));
        note = std::move(c.note);
        scope = probe::info(c.event).scope;
        kind = probe::info(c.event).kind;
        if (c.instances.size() == 1 &&
            represented.insert({-300 - static_cast<i32>(c.instances[0]), c.event}).second) {
          generic = std::string(probe::info(c.event).name);
        }
      } else {
        note = whyNotCol(name);
      }
    } else if (name.starts_with("MISC_ELAPSED_TIME")) {
      feeds = {bus.input(Event::kCycles, 0)};
      kind = Kind::kLevel;
      note = "every cycle of hardware thread 0's clock (the program's first thread)";
    }
    const std::string description =
        feeds.empty() ? fmt::format("never counts here: {}", note) : note;
    const bool counts = !feeds.empty();
    place(input, std::string(name), description, kind, scope, std::move(feeds),
          core >= 0 ? core : -1, generic);
    if (!counts) out.events.back().never = note;
  }

  // hpmsim's own events, in the inputs left: each core's one-bit events that no Blue Gene/P
  // event stands for, then the node's (L3 banks, memory controllers, the kernel). As many as
  // fit, in the probe events' order. As Blue Gene/P's modes pair the cores (mode 0 or 2: cores
  // 0 and 1; mode 1 or 3: cores 2 and 3, on the same counters), core k + 2's event takes the
  // counter of core k's, one mode up: one counter serves the same event of cores k and k + 2.
  auto freeInput = [&](std::initializer_list<u32> modes) -> i64 {
    for (u32 input = 0; input < names.size(); ++input) {
      const u32 mode = input / p.counters;
      if (!taken[input] && std::find(modes.begin(), modes.end(), mode) != modes.end()) {
        return input;
      }
    }
    return -1;
  };
  for (u32 k = 0; k < std::min<u32>(cores, 2); ++k) {
    const u32 partner = k + 2;
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const Event e = static_cast<Event>(ev);
      const probe::EventInfo& info = probe::kEventInfo[ev];
      // (Not BG/Q's L1P internals: Blue Gene/P has no list prefetcher and no adaptive stream
      // depth, and its inputs, all taken, would lose events of the node for streams
      // established; nor BG/Q's L2 speculation, which Blue Gene/P does not have; nor the core's
      // finer signals, the A2's events: core 0's would take the inputs core 1's and 3's events
      // have.)
      if ((info.scope != Scope::kThread && info.scope != Scope::kCore) || info.rate != Rate::kOne ||
          represented.contains({static_cast<i32>(k), e}) ||
          (probe::addressTranslation(e) && !node.translation) || probe::listPrefetcherEvent(e) ||
          probe::speculationEvent(e) || probe::streamAdaptationEvent(e) || probe::coreSignal(e) ||
          e == Event::kL1pStreamsEstablished) {
        continue;
      }
      // A counter free in an even mode, and (for the partner core) in the mode after it; first
      // one whose input in the pair's other mode counts nothing, so that the event can be
      // counted with the Blue Gene/P events of its cores.
      i64 input = -1;
      for (u32 pass = 0; pass < 2 && input < 0; ++pass) {
        for (u32 i = 0; i < names.size() && input < 0; ++i) {
          const u32 mode = i / p.counters;
          if (mode % 2 != 0 || taken[i] || (partner < cores && taken[i + p.counters])) continue;
          const u32 other = (i + 2 * p.counters) % (4 * p.counters);
          if (pass == 0 && wired[other]) continue;
          input = i;
        }
      }
      // (Where no counter is free in both, each core takes what is left of its modes.)
      const i64 partner_input = input >= 0 ? input + p.counters : freeInput({1, 3});
      if (input < 0) input = freeInput({0, 2});
      if (input >= 0) {
        place(static_cast<u32>(input), fmt::format("PU{}_{}", k, probe::upperName(e)),
              fmt::format("Core {}: {}", k, info.description), info.kind, Scope::kCore,
              coreFeeds(k, e), static_cast<i32>(k), std::string(info.name));
      }
      if (partner < cores && partner_input >= 0) {
        place(static_cast<u32>(partner_input), fmt::format("PU{}_{}", partner, probe::upperName(e)),
              fmt::format("Core {}: {}", partner, info.description), info.kind, Scope::kCore,
              coreFeeds(partner, e), static_cast<i32>(partner), std::string(info.name));
      }
    }
  }
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    const probe::EventInfo& info = probe::kEventInfo[ev];
    // (The snoop filters', the L3 banks' and the device buses' events all have Blue Gene/P's
    // names above.)
    if (info.scope == Scope::kThread || info.scope == Scope::kCore ||
        info.scope == Scope::kSnoopFilter || info.scope == Scope::kSnoopPort ||
        info.scope == Scope::kL3Bank || info.scope == Scope::kL3ReadPort ||
        info.scope == Scope::kL3WritePort || info.scope == Scope::kL3Directory ||
        info.scope == Scope::kDeviceBus || info.rate == Rate::kFew || info.rate == Rate::kAny ||
        probe::muPortEvent(e)) {
      continue;
    }
    for (u32 s = 0; s < bus.topology().instances(info.scope); ++s) {
      if (info.scope == Scope::kL2Slice && represented.contains({-1 - static_cast<i32>(s), e})) {
        continue;
      }
      if ((info.scope == Scope::kLink && represented.contains({-100 - static_cast<i32>(s), e})) ||
          (info.scope == Scope::kNode && represented.contains({-200, e}))) {
        continue;
      }
      const i64 input = freeInput({2, 3, 0, 1});
      if (input < 0) break;
      const std::string u = probe::upperName(e);
      std::string name, description(info.description);
      switch (info.scope) {
        case Scope::kL2Slice:
          name = fmt::format("L3_BANK{}_{}", s, u.substr(3));
          description = fmt::format("L3 bank {}: {}", s, info.description);
          break;
        case Scope::kController:
          name = fmt::format("DDR{}_{}", s, u.substr(4));
          description = fmt::format("DDR controller {}: {}", s, info.description);
          break;
        case Scope::kLink:
          name = fmt::format("TORUS_LINK{}_{}", s, u.substr(3));
          description = fmt::format("Torus link {}: {}", s, info.description);
          break;
        default: name = "CNK_" + u; break;
      }
      place(static_cast<u32>(input), name, description, info.kind, info.scope, {bus.input(e, s)},
            -1, std::string(info.name));
    }
  }
  // The inputs left count nothing.
  for (u32 input = 0; input < names.size(); ++input) {
    if (taken[input]) continue;
    place(input, fmt::format("UPC_RESERVED_{}", input),
          "reserved: never counts (Blue Gene/P reserves it, or repeats a core's event here)",
          Kind::kPulse, Scope::kNode, {}, -1, "");
    out.events.back().never = "reserved";
  }
  std::sort(out.events.begin(), out.events.end(),
            [](const pmu::NativeEvent& a, const pmu::NativeEvent& b) { return a.input < b.input; });
  return out;
}

}  // namespace hpm::upc
