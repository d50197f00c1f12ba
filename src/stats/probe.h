// The probe bus: every event the node's models can signal, declared once, and the channel through
// which they reach the performance-monitoring units.
//
// A model counts an event where it keeps its ground-truth statistic, with count(bus, event,
// source, statistic, n), which grows the statistic and publishes the event (a pulse: the event
// happened n times) in one call, or HPM_PROBE(bus, event, source, n) beside its own increment. The
// bus forwards it only when some counter selects that (event, source) pair — the interest filter,
// one bit test — so monitoring costs nothing for events nobody counts, and a null bus costs one
// compare. Level events (a signal high during an interval of cycles: stalls, a full queue) are
// published as intervals.
//
// Time: the bus's clock `now()` is the cycle of the instruction being processed (the driver sets
// it before each instruction), and pulses are counted at that cycle. Instructions are processed
// in cycle order, so every input of a unit sees non-decreasing cycles, as the units require.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/types.h"
#include "stats/transaction.h"

namespace hpm::probe {

// What one instance of an event belongs to; `source` in HPM_PROBE indexes within it.
enum class Scope : u8 {
  kThread,       // a hardware thread (index: core * threads_per_core + thread)
  kCore,         // a core
  kL2Slice,      // a slice of the shared L2 (the L3 of Blue Gene/P)
  kController,   // a DDR memory controller
  kNode,         // the whole node (I/O events: one instance)
  kKernel,       // the compute-node kernel (one instance)
  kLink,         // a torus link of the node (BG/Q's numbers: 2 x dimension, + 1 for the plus link;
                 // the I/O link last)
  kSnoopFilter,  // a core's snoop filter (Blue Gene/P's; index: the core). None where the machine
                 // has no snoop filters (mem.snoop.filter off)
  kSnoopPort,    // a port of a core's snoop filter, one per other core that sends it snoops
                 // (index: core x Topology::snoop_ports + port). None without snoop filters
  // Blue Gene/P's L3 (mem/l3.h; index: bank, the L2 slice, x the ports or directories of a bank
  // + which). None where the machine does not model the L3's banks (mem.l3.banks off)
  kL3Bank,       // a bank
  kL3ReadPort,   // a read port of a bank (RD0, RD1, R2: mem::L3Banks::kReadPorts)
  kL3WritePort,  // a write port of a bank (W0, W1)
  kL3Directory,  // a directory of a bank (DIR0, DIR1)
  // A bus of a core's L2 that takes its uncached device accesses (Blue Gene/P's device and
  // network buses: DeviceBus; index: core x Topology::device_buses + bus). None where the node
  // routes no device access by bus (l1p.device_buses off)
  kDeviceBus,
  // Blue Gene/P's collective network (net/collective.h): a port of the node's router on a
  // virtual channel (index: port x 2 + channel; ports 0 to 2 are its links, 3 its local client),
  // and a class route (index: the class). None where the machine has no collective network
  // (collective.enabled off)
  kColPort,
  kColClass,
};

// The buses of Blue Gene/P's per-core L2 (the model's L1P) that take a core's uncached accesses
// to device registers, by the device's address (mem/device_buses.h; docs/timing.md "Device
// buses"). Each device declares its own (kernel/device.h DeviceProvider::bus).
enum class DeviceBus : u8 {
  kDevice,   // the device bus: the UPC, the interrupt controller, the lockbox, the SRAM, ...
  kNetwork,  // the network bus: the DMA, the torus' and the collective network's FIFOs
};
inline constexpr u32 kDeviceBuses = 2;

// Whether events of `s` have one instance for the whole node.
constexpr bool nodeWide(Scope s) {
  return s == Scope::kNode || s == Scope::kKernel;
}

enum class Kind : u8 {
  kPulse,  // occurrences at a cycle
  kLevel,  // a signal high during intervals of cycles (counts cycles)
};

// How many times an event can happen in one cycle at one source: what decides which counters can
// take it (a counter sized for one event per cycle loses counts on more).
enum class Rate : u8 {
  kOne,         // at most once per cycle (one instruction's event, one access of a cache)
  kAverageOne,  // several in one cycle (requests of several cores, of several threads' system
                // calls), but the resource that makes them takes at least a cycle each: at
                // most one per cycle on average over any stretch of a few hundred cycles
  kFew,         // a few per cycle, sustained (a fused multiply-add's two operations, the lines
                // a prefetch requests, the lines one back-invalidation removes)
  kAny,         // no small bound per cycle (bytes moved, cycles waited, threads woken at once)
};

// X(Name, Scope, Kind, Rate, "description")
#define HPM_PROBE_EVENTS(X)                                                                        \
  /* ---- hardware thread: instructions ---- */                                                    \
  X(Cycles, kThread, kLevel, kOne,                                                                 \
    "Cycles of the hardware thread's clock (all of them, idle included)")                          \
  X(Instructions, kThread, kPulse, kOne, "Instructions retired")                                   \
  X(InstIntAlu, kThread, kPulse, kOne,                                                             \
    "Integer ALU instructions (add, logic, shifts, compares, lui)")                                \
  X(InstIntMul, kThread, kPulse, kOne, "Integer multiplications")                                  \
  X(InstIntDiv, kThread, kPulse, kOne, "Integer divisions and remainders")                         \
  X(InstBranch, kThread, kPulse, kOne, "Conditional branches")                                     \
  X(InstJump, kThread, kPulse, kOne, "Jumps (jal, jalr)")                                          \
  X(InstLoad, kThread, kPulse, kOne, "Integer loads")                                              \
  X(InstStore, kThread, kPulse, kOne, "Integer stores")                                            \
  X(InstAtomic, kThread, kPulse, kOne, "Atomic instructions (LR, SC, AMO)")                        \
  X(InstFpLoad, kThread, kPulse, kOne, "Floating-point loads")                                     \
  X(InstFpStore, kThread, kPulse, kOne, "Floating-point stores")                                   \
  X(InstFpAdd, kThread, kPulse, kOne, "Floating-point additions and subtractions")                 \
  X(InstFpMul, kThread, kPulse, kOne, "Floating-point multiplications")                            \
  X(InstFpFma, kThread, kPulse, kOne, "Floating-point fused multiply-adds")                        \
  X(InstFpDiv, kThread, kPulse, kOne, "Floating-point divisions")                                  \
  X(InstFpSqrt, kThread, kPulse, kOne, "Floating-point square roots")                              \
  X(InstFpMisc, kThread, kPulse, kOne, "FP sign injection, min/max, compares, classify, moves")    \
  X(InstFpCvt, kThread, kPulse, kOne, "Floating-point conversions")                                \
  X(InstSystem, kThread, kPulse, kOne,                                                             \
    "System instructions (ecall, ebreak, fences, CSR accesses)")                                   \
  X(InstCompressed, kThread, kPulse, kOne, "Instructions retired that were 16-bit (compressed)")   \
  X(FpOps, kThread, kPulse, kFew, "Floating-point operations (a fused multiply-add counts two)")   \
  X(FpSingle, kThread, kPulse, kOne, "Single-precision arithmetic instructions")                   \
  X(FpDouble, kThread, kPulse, kOne, "Double-precision arithmetic instructions")                   \
  /* loads and stores by size: the load and store instructions, not LR, SC and AMOs */             \
  X(Loads1, kThread, kPulse, kOne, "Loads of one byte")                                            \
  X(Loads2, kThread, kPulse, kOne, "Loads of two bytes")                                           \
  X(Loads4, kThread, kPulse, kOne, "Loads of four bytes (integer and FP)")                         \
  X(Loads8, kThread, kPulse, kOne, "Loads of eight bytes (integer and FP)")                        \
  X(Stores1, kThread, kPulse, kOne, "Stores of one byte")                                          \
  X(Stores2, kThread, kPulse, kOne, "Stores of two bytes")                                         \
  X(Stores4, kThread, kPulse, kOne, "Stores of four bytes (integer and FP)")                       \
  X(Stores8, kThread, kPulse, kOne, "Stores of eight bytes (integer and FP)")                      \
  X(MisalignedAccesses, kThread, kPulse, kOne, "Loads and stores not aligned to their size")       \
  X(LoadReserved, kThread, kPulse, kOne, "Load-reserved instructions")                             \
  X(StoreCondSuccess, kThread, kPulse, kOne, "Store-conditionals that succeeded")                  \
  X(StoreCondFail, kThread, kPulse, kOne, "Store-conditionals that failed")                        \
  X(AtomicMemoryOps, kThread, kPulse, kOne, "AMO instructions")                                    \
  X(Ecalls, kThread, kPulse, kOne, "System calls (ecall instructions)")                            \
  X(CsrAccesses, kThread, kPulse, kOne, "CSR instructions")                                        \
  X(Fences, kThread, kPulse, kOne, "fence and fence.i instructions")                               \
  /* ---- hardware thread: control flow ---- */                                                    \
  X(BranchesTaken, kThread, kPulse, kOne, "Conditional branches taken")                            \
  X(BranchesNotTaken, kThread, kPulse, kOne, "Conditional branches not taken")                     \
  X(BranchMispredicts, kThread, kPulse, kOne, "Conditional branches mispredicted")                 \
  X(JumpMispredicts, kThread, kPulse, kOne, "Indirect jumps (jalr) whose target was mispredicted") \
  X(Returns, kThread, kPulse, kOne, "Returns predicted by the return-address stack")               \
  X(ReturnMispredicts, kThread, kPulse, kOne, "Returns whose target was mispredicted")             \
  X(FetchGroups, kThread, kPulse, kOne, "Instruction groups fetched")                              \
  /* ---- hardware thread: issue and stalls ---- */                                                \
  X(IssueXu, kThread, kPulse, kOne, "Instructions issued to an integer (XU) pipe")                 \
  X(IssueAxu, kThread, kPulse, kOne, "Instructions issued to a floating-point (AXU) pipe")         \
  X(StallDependency, kThread, kLevel, kOne, "Cycles stalled: a source operand was not ready")      \
  X(StallPipeBusy, kThread, kLevel, kOne, "Cycles stalled: the execution pipe was taken")          \
  X(StallIbufferEmpty, kThread, kLevel, kOne,                                                      \
    "Cycles stalled: the next instruction was not fetched")                                        \
  X(StallIcacheMiss, kThread, kLevel, kOne, "Cycles stalled: an instruction fetch missed the L1I") \
  X(StallMispredict, kThread, kLevel, kOne, "Cycles stalled after a mispredicted branch")          \
  X(StallLmqFull, kThread, kLevel, kOne,                                                           \
    "Cycles stalled: a load miss found the load-miss queue full")                                  \
  X(StallSqFull, kThread, kLevel, kOne, "Cycles stalled: a store found the store queue full")      \
  X(StallIdle, kThread, kLevel, kOne, "Cycles the hardware thread had nothing to run")             \
  X(StallAny, kThread, kLevel, kOne, "Cycles stalled for any reason except idle")                  \
  /* ---- hardware thread / core: address translation ---- */                                      \
  X(IeratMisses, kThread, kPulse, kOne,                                                            \
    "Instruction-group fetches whose page the I-ERAT did not hold (reloaded from the TLB)")        \
  X(IeratMissCycles, kThread, kLevel, kOne,                                                        \
    "Cycles stalled: an instruction fetch waited for its I-ERAT reload")                           \
  X(DeratMisses, kThread, kPulse, kOne,                                                            \
    "Loads, stores and atomics whose page the D-ERAT did not hold (reloaded from the TLB)")        \
  X(DeratMissCycles, kThread, kLevel, kOne,                                                        \
    "Cycles stalled: a load, store or atomic waited for its D-ERAT reload")                        \
  X(TlbHitsIerat, kThread, kPulse, kOne, "I-ERAT misses the TLB held the page of")                 \
  X(TlbMissesIerat, kThread, kPulse, kOne,                                                         \
    "I-ERAT misses the TLB missed too (the kernel wrote the evicted page again)")                  \
  X(TlbHitsDerat, kThread, kPulse, kOne, "D-ERAT misses the TLB held the page of")                 \
  X(TlbMissesDerat, kThread, kPulse, kOne,                                                         \
    "D-ERAT misses the TLB missed too (the kernel wrote the evicted page again)")                  \
  X(TlbHitsFirstSize, kCore, kPulse, kOne,                                                         \
    "ERAT misses the TLB held the page of at the page size it searches first")                     \
  /* ---- core: caches and queues ---- */                                                          \
  X(L1iAccesses, kCore, kPulse, kOne, "L1I accesses (instruction-group fetches)")                  \
  X(L1iHits, kCore, kPulse, kOne, "L1I hits")                                                      \
  X(L1iMisses, kCore, kPulse, kOne, "L1I misses")                                                  \
  X(L1iEvictions, kCore, kPulse, kOne, "L1I lines evicted")                                        \
  X(L1iInvalidations, kCore, kPulse, kFew, "L1I lines removed by the L2 (back-invalidation)")      \
  X(L1dAccesses, kCore, kPulse, kOne, "L1D accesses (loads and stores)")                           \
  X(L1dHits, kCore, kPulse, kOne, "L1D hits")                                                      \
  X(L1dMisses, kCore, kPulse, kOne, "L1D misses (loads allocate; stores write through)")           \
  X(L1dLoadMisses, kCore, kPulse, kOne, "Loads that missed the L1D")                               \
  X(L1dStoreMisses, kCore, kPulse, kOne, "Stores that missed the L1D")                             \
  X(L1dWrites, kCore, kPulse, kOne, "Stores seen by the L1D")                                      \
  X(L1dEvictions, kCore, kPulse, kOne, "L1D lines evicted")                                        \
  X(L1dInvalidations, kCore, kPulse, kFew,                                                         \
    "L1D lines removed by another core's store (coherence)")                                       \
  X(L1pAccesses, kCore, kPulse, kOne, "L1P (prefetch buffer) lookups")                             \
  X(L1pHits, kCore, kPulse, kOne, "L1P hits")                                                      \
  X(L1pMisses, kCore, kPulse, kOne, "L1P misses")                                                  \
  X(L1pPrefetches, kCore, kPulse, kFew, "Lines the L1P stream prefetcher requested")               \
  X(L1pPrefetchHits, kCore, kPulse, kOne, "First demand hits on prefetched lines")                 \
  X(L1pEvictions, kCore, kPulse, kFew, "L1P lines evicted")                                        \
  X(L1pInvalidations, kCore, kPulse, kFew, "L1P lines removed by coherence")                       \
  X(L1pStreamsEstablished, kCore, kPulse, kOne,                                                    \
    "Streams the L1P stream prefetcher confirmed (a miss continued a tracked line)")               \
  X(L1pEvictUnused, kCore, kPulse, kFew,                                                           \
    "L1P lines the stream prefetcher brought in, evicted before any demand hit")                   \
  /* ---- BG/Q's stream prefetcher's adaptation (mem/stream_control.h), L1pStreamLateHits to */    \
  /* L1pLinesEstablished (streamAdaptationEvent) ---- */                                           \
  X(L1pStreamLateHits, kCore, kPulse, kOne,                                                        \
    "First demand hits on stream-prefetched lines still in flight (the prefetch became the "       \
    "demand fetch)")                                                                               \
  X(L1pDepthSteals, kCore, kPulse, kOne,                                                           \
    "Lines of depth the stream prefetcher's adaptation took from one stream for another")          \
  X(L1pLinesEstablished, kCore, kPulse, kFew,                                                      \
    "Lines the L1P filled for any reason: demand misses, stream and list prefetches")              \
  X(L1pListStarted, kThread, kPulse, kOne, "List prefetcher runs started")                         \
  X(L1pListCompares, kThread, kPulse, kOne, "L1D load misses compared with the replayed list")     \
  X(L1pListSkip1, kThread, kPulse, kOne, "List matches after skipping 1 entry")                    \
  X(L1pListSkip2, kThread, kPulse, kOne, "List matches after skipping 2 entries")                  \
  X(L1pListSkip3, kThread, kPulse, kOne, "List matches after skipping 3 entries")                  \
  X(L1pListSkip4, kThread, kPulse, kOne, "List matches after skipping 4 entries")                  \
  X(L1pListSkip5, kThread, kPulse, kOne, "List matches after skipping 5 entries")                  \
  X(L1pListSkip6, kThread, kPulse, kOne, "List matches after skipping 6 entries")                  \
  X(L1pListSkip7, kThread, kPulse, kOne, "List matches after skipping 7 entries")                  \
  X(L1pListSkips, kThread, kPulse, kOne, "List matches after skipping 1 to 7 entries")             \
  X(L1pListMismatches, kThread, kPulse, kOne, "List compares that matched no entry in the window") \
  X(L1pListAbandons, kThread, kPulse, kOne,                                                        \
    "Lists abandoned (more consecutive mismatches than the threshold)")                            \
  X(L1pListOverflows, kThread, kPulse, kOne, "List recordings that filled the list's memory")      \
  X(L1pListOverruns, kThread, kPulse, kOne,                                                        \
    "List matches at or past the entries already prefetched (the compare overran the prefetch)")   \
  X(L1pListPrefetches, kThread, kPulse, kFew, "Lines the list prefetcher brought into the L1P")    \
  X(L1pListHits, kCore, kPulse, kOne, "First demand hits on lines the list prefetcher brought")    \
  X(L1pListLateHits, kCore, kPulse, kOne,                                                          \
    "First demand hits on list-prefetched lines still in flight")                                  \
  X(LmqAllocations, kCore, kPulse, kOne, "Load-miss-queue entries taken")                          \
  X(LmqFull, kCore, kLevel, kOne, "Cycles the load-miss queue was full")                           \
  X(SqAllocations, kCore, kPulse, kOne, "Store-queue entries taken")                               \
  X(SqCombined, kCore, kPulse, kOne, "Stores combined into the store-queue entry before them")     \
  X(SqFull, kCore, kLevel, kOne, "Cycles the store queue was full")                                \
  X(FetchPortWaits, kCore, kPulse, kAny, "Cycles group fetches waited for the core's fetch port")  \
  X(CoreL2Reads, kCore, kPulse, kFew,                                                              \
    "L2 read requests from this core (loads, fetches, prefetches)")                                \
  X(CoreL2Writes, kCore, kPulse, kOne, "L2 write requests (store-queue drains) from this core")    \
  X(CoreL2Hits, kCore, kPulse, kFew, "L2 hits of this core's read requests")                       \
  X(CoreL2Misses, kCore, kPulse, kFew, "L2 misses of this core's requests")                        \
  X(CoreL2Atomics, kCore, kPulse, kOne, "Atomic operations this core performed at the L2")         \
  X(CoreDdrReads, kCore, kPulse, kFew, "DDR line reads caused by this core")                       \
  X(CoreDdrWrites, kCore, kPulse, kOne, "DDR line writes (writebacks) caused by this core")        \
  /* ---- core: Blue Gene/P's snoop filters ---- */                                                \
  /* (docs/timing.md "Snoop filters": a port's source is one core, which issues at most one */     \
  /* store or atomic per cycle, so each port's events are one-bit signals) */                      \
  X(SnoopRequests, kSnoopPort, kPulse, kOne,                                                       \
    "Snoop requests the port received: invalidations of its source core's stores and atomics")     \
  X(SnoopCacheRejected, kSnoopPort, kPulse, kOne,                                                  \
    "Snoop requests the port's snoop cache rejected (their line was snooped before by the port "   \
    "and not loaded since)")                                                                       \
  X(SnoopRegisterRejected, kSnoopPort, kPulse, kOne,                                               \
    "Snoop requests the stream registers rejected (no register of the active or the history set "  \
    "covers their line)")                                                                          \
  X(SnoopBothRejected, kSnoopPort, kPulse, kOne,                                                   \
    "Snoop requests both the snoop cache and the stream registers rejected")                       \
  X(SnoopRejected, kSnoopPort, kPulse, kOne,                                                       \
    "Snoop requests the filter rejected (by its snoop cache, its stream registers or both): they " \
    "never reach the L1")                                                                          \
  X(SnoopActiveHits, kSnoopPort, kPulse, kOne,                                                     \
    "Snoop requests whose line a stream register of the active set covers")                        \
  X(SnoopHistoryHits, kSnoopPort, kPulse, kOne,                                                    \
    "Snoop requests whose line a stream register of the history set covers")                       \
  X(SnoopCacheUpdates, kSnoopPort, kPulse, kOne,                                                   \
    "Snoop requests recorded in an entry the port's snoop cache already had (another line of "     \
    "the entry's block)")                                                                          \
  X(SnoopWraps, kSnoopFilter, kPulse, kOne,                                                        \
    "Cache wraps: every line the core's caches held when the active set started was gone, so the " \
    "active stream registers became the history set and the active set restarted empty")           \
  /* ---- core: Blue Gene/P's device and network buses (mem/device_buses.h) ---- */                \
  /* (a core's loads and stores: one per cycle at most, so one-bit signals) */                     \
  X(DeviceBusReads, kDeviceBus, kPulse, kOne,                                                      \
    "Uncached reads of device registers (loads) the core's L2 routed to the bus")                  \
  X(DeviceBusWrites, kDeviceBus, kPulse, kOne,                                                     \
    "Uncached writes of device registers (stores) the core's L2 routed to the bus")                \
  /* ---- L2 slices ---- */                                                                        \
  X(L2Requests, kL2Slice, kPulse, kAverageOne,                                                     \
    "Requests to the slice (reads, writes, atomics, prefetches)")                                  \
  X(L2Reads, kL2Slice, kPulse, kAverageOne, "Read requests")                                       \
  X(L2Writes, kL2Slice, kPulse, kAverageOne, "Write requests")                                     \
  X(L2Bytes, kL2Slice, kPulse, kAny, "Bytes transferred")                                          \
  X(L2Hits, kL2Slice, kPulse, kAverageOne, "Hits")                                                 \
  X(L2Misses, kL2Slice, kPulse, kAverageOne, "Misses")                                             \
  X(L2Evictions, kL2Slice, kPulse, kAverageOne, "Lines evicted")                                   \
  X(L2Writebacks, kL2Slice, kPulse, kAverageOne, "Dirty lines written back to DDR")                \
  X(L2BackInvalidations, kL2Slice, kPulse, kFew,                                                   \
    "Private copies removed because a line was evicted")                                           \
  X(L2BusyCycles, kL2Slice, kPulse, kAny,                                                          \
    "Cycles the slice's port was busy (counted per request)")                                      \
  /* ---- Blue Gene/P's L3 banks (mem/l3.h; docs/timing.md "Blue Gene/P's L3") ---- */             \
  /* (each resource below takes a request per cycle at most, or counts each cycle once) */         \
  X(L3SingleLines, kL3ReadPort, kPulse, kAverageOne,                                               \
    "Read requests the port delivered as a single line (loads, fetches, atomics; the DMA's "       \
    "one-line reads)")                                                                             \
  X(L3Bursts, kL3ReadPort, kPulse, kAverageOne,                                                    \
    "Read requests the port delivered as part of a burst (the L2 prefetch unit's lines; the "      \
    "DMA's reads of several lines)")                                                               \
  X(L3ReturnCollisions, kL3ReadPort, kPulse, kAverageOne,                                          \
    "Reads of the port whose data found the bank's read-return path taken by another return, "     \
    "and waited for it")                                                                           \
  X(L3Dir0Hits, kL3ReadPort, kPulse, kAverageOne,                                                  \
    "Reads of the port that hit in directory 0 (their line in the eDRAM or in flight to it)")      \
  X(L3Dir0Misses, kL3ReadPort, kPulse, kAverageOne,                                                \
    "Reads of the port that missed in directory 0")                                                \
  X(L3Dir1Hits, kL3ReadPort, kPulse, kAverageOne,                                                  \
    "Reads of the port that hit in directory 1 (their line in the eDRAM or in flight to it)")      \
  X(L3Dir1Misses, kL3ReadPort, kPulse, kAverageOne,                                                \
    "Reads of the port that missed in directory 1")                                                \
  X(L3DirLookups, kL3Directory, kPulse, kAverageOne,                                               \
    "Lookups in the directory (the reads and writes of every port whose line's set it holds)")     \
  X(L3DirWaitCycles, kL3Directory, kPulse, kAverageOne,                                            \
    "Cycles requests waited for the directory, each cycle counted once")                           \
  X(L3Deposits, kL3WritePort, kPulse, kAverageOne,                                                 \
    "Write requests the port took (store-queue drains; the DMA's writes)")                         \
  X(L3DepositWaitCycles, kL3WritePort, kPulse, kAverageOne,                                        \
    "Cycles write requests waited for the port, each cycle counted once")                          \
  X(L3Allocations, kL3Bank, kPulse, kAverageOne,                                                   \
    "Miss-handler entries allocated (the bank's misses and its prefetches into the eDRAM)")        \
  X(L3AllocationWaitCycles, kL3Bank, kPulse, kAverageOne,                                          \
    "Cycles allocations waited for a free miss-handler entry, each cycle counted once")            \
  X(L3DdrFetches, kL3Bank, kPulse, kAverageOne, "Lines the bank fetched from DDR")                 \
  X(L3EdramPrefetches, kL3Bank, kPulse, kAverageOne,                                               \
    "Lines the bank prefetched from DDR into its eDRAM (after a core's read missed)")              \
  /* ---- DDR controllers ---- */                                                                  \
  X(DdrRequests, kController, kPulse, kAverageOne, "Line transfers")                               \
  X(DdrReads, kController, kPulse, kAverageOne, "Line reads")                                      \
  X(DdrWrites, kController, kPulse, kAverageOne, "Line writes")                                    \
  X(DdrBytes, kController, kPulse, kAny, "Bytes transferred")                                      \
  X(DdrBusyCycles, kController, kPulse, kAny,                                                      \
    "Cycles the controller was busy (counted per transfer)")                                       \
  /* ---- the compute-node kernel (CNK) and I/O ---- */                                            \
  X(Syscalls, kKernel, kPulse, kAverageOne, "System calls handled by the kernel")                  \
  X(SyscallsUnknown, kKernel, kPulse, kAverageOne, "System calls answered with ENOSYS")            \
  X(SyscallsFile, kKernel, kPulse, kAverageOne,                                                    \
    "File system calls (open, stat, read, write, ...)")                                            \
  X(SyscallsMemory, kKernel, kPulse, kAverageOne,                                                  \
    "Memory calls (brk, mmap, munmap, mprotect, ...)")                                             \
  X(SyscallsThread, kKernel, kPulse, kAverageOne, "Thread calls (clone, futex, exit, sched_*)")    \
  X(SyscallsSignal, kKernel, kPulse, kAverageOne,                                                  \
    "Signal calls (rt_sig*, kill, tgkill, sigaltstack)")                                           \
  X(SyscallsTime, kKernel, kPulse, kAverageOne,                                                    \
    "Time calls (clock_*, nanosleep, timers, gettimeofday)")                                       \
  X(SyscallsOther, kKernel, kPulse, kAverageOne,                                                   \
    "Other system calls (uname, getpid, prlimit, ...)")                                            \
  X(SignalsSent, kKernel, kPulse, kAverageOne, "Signals queued for a thread or the process")       \
  X(SignalsDelivered, kKernel, kPulse, kAverageOne, "Signal handler frames built")                 \
  X(TimerExpirations, kKernel, kPulse, kAny, "Interval and POSIX timer expirations")               \
  X(PageFirstTouches, kKernel, kPulse, kAverageOne, "First accesses to a page of guest memory")    \
  X(MemoryRefusals, kKernel, kPulse, kAverageOne,                                                  \
    "Memory requests (brk, mmap, mremap, mprotect) refused: past the node's memory")               \
  X(FutexWaits, kKernel, kPulse, kAverageOne, "Futex waits that blocked")                          \
  X(FutexWakes, kKernel, kPulse, kAny, "Threads woken by futex wakes")                             \
  X(ThreadsCreated, kKernel, kPulse, kAverageOne, "Threads created (clone)")                       \
  X(ThreadExits, kKernel, kPulse, kAverageOne, "Threads that exited")                              \
  /* kFew: each hardware thread may switch every cycle (guests sharing it run in short slices) */  \
  X(ContextSwitches, kKernel, kPulse, kFew, "Guest-thread switches on a hardware thread")          \
  X(FaultsData, kKernel, kPulse, kAverageOne,                                                      \
    "Loads and stores that faulted (unmapped or protected memory)")                                \
  X(FaultsFetch, kKernel, kPulse, kAverageOne, "Instruction fetches that faulted")                 \
  X(FaultsAlignment, kKernel, kPulse, kAverageOne,                                                 \
    "Misaligned atomic memory operations (alignment faults)")                                      \
  X(FaultsIllegal, kKernel, kPulse, kAverageOne, "Illegal instructions (program interrupts)")      \
  X(FaultsBreakpoint, kKernel, kPulse, kAverageOne, "Breakpoints (ebreak) taken")                  \
  X(CounterInterrupts, kKernel, kPulse, kAverageOne,                                               \
    "Counter-unit interrupts queued for a thread")                                                 \
  X(IoReads, kNode, kPulse, kAverageOne, "Reads from files, pipes and devices")                    \
  X(IoWrites, kNode, kPulse, kAverageOne, "Writes to files, pipes and devices")                    \
  X(IoBytesRead, kNode, kPulse, kAny, "Bytes read")                                                \
  X(IoBytesWritten, kNode, kPulse, kAny, "Bytes written")                                          \
  X(IoConsoleWrites, kNode, kPulse, kAverageOne, "Writes to the standard output and error")        \
  X(IoConsoleBytes, kNode, kPulse, kAny, "Bytes written to the standard output and error")         \
  X(IoOpens, kNode, kPulse, kAverageOne, "Files opened")                                           \
  /* interrupts (docs/kernel.md "Interrupts"); kAny: one futex wake may wake threads on any */     \
  /* number of hardware threads at once, each sent its own */                                      \
  X(ExternalInterrupts, kKernel, kPulse, kAny,                                                     \
    "External input interrupts: the kernel's inter-processor interrupts, one for each thread it "  \
    "made runnable or signalled on another hardware thread than the caller's")                     \
  X(ExternalInterruptsTaken, kThread, kPulse, kAverageOne,                                         \
    "External input interrupts the hardware thread took (the kernel's inter-processor "            \
    "interrupts)")                                                                                 \
  X(PerfMonInterruptsTaken, kThread, kPulse, kAverageOne,                                          \
    "Performance-monitor interrupts the hardware thread took (counter-unit interrupts for its "    \
    "thread)")                                                                                     \
  /* ---- the message unit (many nodes: src/net) ---- */                                           \
  X(MuPacketsInjected, kNode, kPulse, kOne,                                                        \
    "Message unit: packets stored for the network (all their bytes read)")                         \
  X(MuMessagesInjected, kNode, kPulse, kOne,                                                       \
    "Message unit: messages (descriptors) all of whose packets are stored for the network")        \
  X(MuFifoPacketsReceived, kNode, kPulse, kAny,                                                    \
    "Message unit: packets stored to a reception FIFO")                                            \
  X(MuPutPacketsReceived, kNode, kPulse, kAny,                                                     \
    "Message unit: direct-put packets whose payload it wrote to memory")                           \
  X(MuRemoteGetPacketsReceived, kNode, kPulse, kAny,                                               \
    "Message unit: remote-get packets whose descriptors it injected")                              \
  /* ---- the node's torus links (many nodes: src/net) ---- */                                     \
  X(NwPacketsSent, kLink, kPulse, kOne,                                                            \
    "Torus link: packets sent over the link, on every channel (passing through included)")         \
  X(NwDynamicChunksSent, kLink, kPulse, kAny,                                                      \
    "Torus link: 32-byte chunks sent over the link on the dynamic channel (passing through "       \
    "included)")                                                                                   \
  X(NwEscapeChunksSent, kLink, kPulse, kAny,                                                       \
    "Torus link: 32-byte chunks sent over the link on the escape (deterministic) channel")         \
  X(NwPriorityChunksSent, kLink, kPulse, kAny,                                                     \
    "Torus link: 32-byte chunks sent over the link on the priority channel")                       \
  X(NwSystemChunksSent, kLink, kPulse, kAny,                                                       \
    "Torus link: 32-byte chunks sent over the link on the system channel")                         \
  X(NwDynamicPacketsReceived, kLink, kPulse, kOne,                                                 \
    "Torus link: packets received over the link on the dynamic channel (passing through "          \
    "included)")                                                                                   \
  X(NwEscapePacketsReceived, kLink, kPulse, kOne,                                                  \
    "Torus link: packets received over the link on the escape (deterministic) channel")            \
  X(NwPriorityPacketsReceived, kLink, kPulse, kOne,                                                \
    "Torus link: packets received over the link on the priority channel")                          \
  X(NwSystemPacketsReceived, kLink, kPulse, kOne,                                                  \
    "Torus link: packets received over the link on the system channel")                            \
  X(NwDynamicPacketsToNode, kLink, kPulse, kOne,                                                   \
    "Torus link: packets for this node received over the link on the dynamic channel")             \
  X(NwEscapePacketsToNode, kLink, kPulse, kOne,                                                    \
    "Torus link: packets for this node received over the link on the escape channel")              \
  X(NwPriorityPacketsToNode, kLink, kPulse, kOne,                                                  \
    "Torus link: packets for this node received over the link on the priority channel")            \
  X(NwSystemPacketsToNode, kLink, kPulse, kOne,                                                    \
    "Torus link: packets for this node received over the link on the system channel")              \
  /* BG/Q's collective channels (network.collectives: user comm-world, user sub-communicator, */   \
  /* system collective) */                                                                         \
  X(NwUserWorldChunksSent, kLink, kPulse, kAny,                                                    \
    "Torus link: 32-byte chunks sent over the link on the user comm-world collective channel")     \
  X(NwSubcommChunksSent, kLink, kPulse, kAny,                                                      \
    "Torus link: 32-byte chunks sent over the link on the user sub-communicator collective "       \
    "channel")                                                                                     \
  X(NwSysCollChunksSent, kLink, kPulse, kAny,                                                      \
    "Torus link: 32-byte chunks sent over the link on the system collective channel")              \
  X(NwUserWorldPacketsReceived, kLink, kPulse, kOne,                                               \
    "Torus link: packets received over the link on the user comm-world collective channel")        \
  X(NwSubcommPacketsReceived, kLink, kPulse, kOne,                                                 \
    "Torus link: packets received over the link on the user sub-communicator collective channel")  \
  X(NwSysCollPacketsReceived, kLink, kPulse, kOne,                                                 \
    "Torus link: packets received over the link on the system collective channel")                 \
  X(NwUserWorldPacketsToNode, kLink, kPulse, kOne,                                                 \
    "Torus link: collective packets for this node's reception FIFO received over the link on the " \
    "user comm-world channel")                                                                     \
  X(NwSubcommPacketsToNode, kLink, kPulse, kOne,                                                   \
    "Torus link: collective packets for this node's reception FIFO received over the link on the " \
    "user sub-communicator channel")                                                               \
  X(NwSysCollPacketsToNode, kLink, kPulse, kOne,                                                   \
    "Torus link: collective packets for this node's reception FIFO received over the link on the " \
    "system collective channel")                                                                   \
  /* Each chunk at the cycle it leaves (a one-bit signal: a chunk takes a link several cycles; */  \
  /* published where the node's counter unit takes one-bit inputs, Blue Gene/P's UPC-P; */         \
  /* chunkLeftSignal) */                                                                           \
  X(NwDynamicChunkLeft, kLink, kPulse, kOne,                                                       \
    "Torus link: 32-byte chunks leaving over the link on the dynamic channel, each at its cycle")  \
  X(NwEscapeChunkLeft, kLink, kPulse, kOne,                                                        \
    "Torus link: 32-byte chunks leaving over the link on the escape channel, each at its cycle")   \
  X(NwPriorityChunkLeft, kLink, kPulse, kOne,                                                      \
    "Torus link: 32-byte chunks leaving over the link on the priority channel, each at its cycle") \
  X(NwSystemChunkLeft, kLink, kPulse, kOne,                                                        \
    "Torus link: 32-byte chunks leaving over the link on the system channel, each at its cycle")   \
  X(NwDynamic1ChunkLeft, kLink, kPulse, kOne,                                                      \
    "Torus link: 32-byte chunks leaving over the link on the second dynamic channel (Blue "        \
    "Gene/P's VCD1; network.dynamic_channels), each at its cycle")                                 \
  /* ---- Blue Gene/P's collective network (many nodes: net/collective.h); a port of the node's */ \
  /* router: its links 0 to 2 and the local client 3, on virtual channel 0 or 1 ---- */            \
  X(ColPacketsSent, kColPort, kPulse, kOne,                                                        \
    "Collective network: packets the router sent over the link (passing through included)")        \
  X(ColPacketsReceived, kColPort, kPulse, kOne,                                                    \
    "Collective network: packets whose tail arrived over the link")                                \
  X(ColSentCutThrough, kColPort, kPulse, kOne,                                                     \
    "Collective network: packets sent over the link before their tail had reached this router")    \
  X(ColReceivedCutThrough, kColPort, kPulse, kOne,                                                 \
    "Collective network: packets received over the link that the router sent on before their "     \
    "tail arrived")                                                                                \
  X(ColPacketsTaken, kColPort, kPulse, kOne,                                                       \
    "Collective network: packets the router's arbiter took from the port's receiver (a link's, "   \
    "or the local client's injection FIFO)")                                                       \
  X(ColSenderBusy, kColPort, kLevel, kOne,                                                         \
    "Collective network: cycles the port sends a packet of the channel (a link's sender; the "     \
    "local client's: into its reception FIFO)")                                                    \
  X(ColReceiverBusy, kColPort, kLevel, kOne,                                                       \
    "Collective network: cycles the port receives a packet of the channel (a link's receiver; "    \
    "the local client's: out of its injection FIFO)")                                              \
  X(ColAluBusy, kColPort, kLevel, kOne,                                                            \
    "Collective network: cycles the router's ALU combines packets of the channel (the local "      \
    "client's port)")                                                                              \
  X(ColReceiverFull, kColPort, kLevel, kOne,                                                       \
    "Collective network: cycles the link's receiver FIFO of the channel was full (8 packets: "     \
    "each from its head's arrival until its tail has left the router)")                            \
  X(ColSenderEmpty, kColPort, kLevel, kOne,                                                        \
    "Collective network: cycles the link's sender had no packet of the channel in the far end's "  \
    "receiver FIFO or on its way there (it held all its tokens)")                                  \
  X(ColArbiterHas, kColPort, kLevel, kOne,                                                         \
    "Collective network: cycles the arbiter had a packet of the channel from the port (its head "  \
    "at the router, not yet taken; the local client's port: the injection FIFO's)")                \
  X(ColClassWins, kColClass, kPulse, kAverageOne,                                                  \
    "Collective network: packets of the class route the router's arbiter routed")                  \
  X(ColInjectHeaders, kColPort, kPulse, kOne,                                                      \
    "Collective network: headers stored into the local client's injection FIFO")                   \
  X(ColInjectPayload, kColPort, kPulse, kOne,                                                      \
    "Collective network: 16-byte quadwords of payload stored into the injection FIFO")             \
  X(ColReceptionPackets, kColPort, kPulse, kOne,                                                   \
    "Collective network: packets added to the local client's reception FIFO")                      \
  X(ColReceptionHeaders, kColPort, kPulse, kOne,                                                   \
    "Collective network: headers the program took from the reception FIFO")                        \
  X(ColReceptionPayload, kColPort, kPulse, kOne,                                                   \
    "Collective network: 16-byte quadwords of payload the program took from the reception FIFO")   \
  /* ---- BG/Q's L2 speculation: transactional memory (node/speculation.h, docs/timing.md */       \
  /* "Transactional memory"); one run, TmBegun to TmLinesCleaned (speculationEvent) ---- */        \
  X(TmBegun, kThread, kPulse, kOne, "Transactions begun (a speculation ID taken)")                 \
  X(TmCommitted, kThread, kPulse, kOne, "Transactions committed")                                  \
  X(TmRolledBack, kThread, kPulse, kOne,                                                           \
    "Transactions rolled back (conflicts, system calls, capacity, explicit aborts)")               \
  X(TmConflicts, kThread, kPulse, kOne, "Transactions rolled back by a conflict")                  \
  X(TmLinesCleaned, kL2Slice, kPulse, kAny,                                                        \
    "Lines whose speculative state the slice cleared when their transaction ended")                \
  /* ---- The signals of Blue Gene/P's L2 prefetch unit events (the model's L1P; docs/timing.md */ \
  /* "L1P"); one run, L1pPrefetchAlreadyPresent to L1dFillPending (prefetchUnitSignal) ---- */     \
  X(L1pPrefetchAlreadyPresent, kCore, kPulse, kOne,                                                \
    "L1P accesses whose stream prefetch dropped a line already in the L1P")                        \
  X(L1pPrefetchPending, kCore, kLevel, kOne,                                                       \
    "Cycles with a stream prefetch of the L1P outstanding below it")                               \
  X(L1pReadPending, kCore, kLevel, kOne,                                                           \
    "Cycles with a demand read of the L1P (an L1P miss) outstanding below it")                     \
  X(L1dFillPending, kCore, kLevel, kOne, "Cycles with an L1D line fill (a load miss) in progress") \
  /* ---- hardware thread: the core's finer signals (the A2's core events; one run, */             \
  /* FpOpsSingle to LoadHitsPendingMiss: coreSignal; docs/timing.md "Core signals") ---- */        \
  X(FpOpsSingle, kThread, kPulse, kFew,                                                            \
    "Floating-point operations of single-precision instructions (a fused multiply-add counts "     \
    "two)")                                                                                        \
  X(FetchSlots, kThread, kPulse, kFew,                                                             \
    "Instruction slots fetched: the 4-byte slots of each fetched group from its fetch address to " \
    "the group's end (the room it took in the instruction buffer)")                                \
  X(IbufferEmpties, kThread, kPulse, kOne,                                                         \
    "Times the next instruction was not fetched when it was due (stretches of StallIbufferEmpty "  \
    "cycles)")                                                                                     \
  X(PipelineFlushes, kThread, kPulse, kOne,                                                        \
    "Refetches: mispredicted branches and jumps (their redirect discards the instruction buffer) " \
    "and serialising instructions (ecall, ebreak, fence.i, after which the fetch restarts)")       \
  X(StallDependencyXu, kThread, kLevel, kOne,                                                      \
    "Cycles stalled on a dependency not on an AXU instruction: an integer producer, a fence "      \
    "waiting for memory, a queued store")                                                          \
  X(StallDependencyAxu, kThread, kLevel, kOne,                                                     \
    "Cycles stalled on an operand an AXU (floating-point) instruction produces")                   \
  X(StallPipeBusyXu, kThread, kLevel, kOne,                                                        \
    "Cycles an XU instruction stalled: its pipe (or the divider, a write-back port) was taken")    \
  X(StallPipeBusyAxu, kThread, kLevel, kOne,                                                       \
    "Cycles an AXU (floating-point) instruction stalled: its pipe was taken")                      \
  X(StallFence, kThread, kLevel, kOne,                                                             \
    "Cycles a fence waited for the thread's earlier loads and stores (of StallDependencyXu)")      \
  X(FpDivSqrtBusy, kThread, kPulse, kAny,                                                          \
    "Cycles the FP divide and square-root instructions held their pipe (counted per instruction)") \
  X(MulDivBusy, kThread, kPulse, kAny,                                                             \
    "Cycles integer multiplies and divides held their pipe or the serial divider (counted per "    \
    "instruction)")                                                                                \
  X(MulDivCollisions, kThread, kPulse, kOne,                                                       \
    "Multiplies and divides that waited for a pipe (or divider) an earlier multiply or divide "    \
    "held")                                                                                        \
  X(ThreadRunning, kThread, kLevel, kOne,                                                          \
    "Cycles the hardware thread had a thread to run (Cycles without StallIdle)")                   \
  X(LmqFullStalls, kThread, kPulse, kOne,                                                          \
    "Loads and atomics that waited for a free load-miss-queue entry (StallLmqFull's stretches)")   \
  X(SqFullStalls, kThread, kPulse, kOne,                                                           \
    "Stores that waited for a free store-queue entry (StallSqFull's stretches)")                   \
  X(LoadHitsPendingMiss, kThread, kPulse, kOne,                                                    \
    "Loads that hit an L1D line an earlier miss was still filling (they wait for the fill)")       \
  /* ---- BG/Q's message unit's ports to the switch (net/mu_ports.h; docs/network.md "The */       \
  /* message unit's ports"): one run, MuPort0Writes to MuSlaveWrites, port p's six events */       \
  /* at MuPort0Writes + 6p (muPortEvent) ---- */                                                   \
  X(MuPort0Writes, kNode, kPulse, kAny,                                                            \
    "Message unit: 16-byte write requests master port 0 issued to the switch")                     \
  X(MuPort0Reads32, kNode, kPulse, kAny,                                                           \
    "Message unit: 32-byte read requests master port 0 issued to the switch")                      \
  X(MuPort0Reads64, kNode, kPulse, kAny,                                                           \
    "Message unit: 64-byte read requests master port 0 issued to the switch")                      \
  X(MuPort0Reads128, kNode, kPulse, kAny,                                                          \
    "Message unit: 128-byte read requests master port 0 issued to the switch")                     \
  X(MuPort0PendingWrites, kNode, kPulse, kAny,                                                     \
    "Message unit: write requests pending in master port 0, summed over the cycles (each "         \
    "request's cycles from its issue to its completion, counted at its issue)")                    \
  X(MuPort0PendingReads, kNode, kPulse, kAny,                                                      \
    "Message unit: read requests pending in master port 0, summed over the cycles (each "          \
    "request's cycles from its issue to its data, counted at its issue)")                          \
  X(MuPort1Writes, kNode, kPulse, kAny,                                                            \
    "Message unit: 16-byte write requests master port 1 issued to the switch")                     \
  X(MuPort1Reads32, kNode, kPulse, kAny,                                                           \
    "Message unit: 32-byte read requests master port 1 issued to the switch")                      \
  X(MuPort1Reads64, kNode, kPulse, kAny,                                                           \
    "Message unit: 64-byte read requests master port 1 issued to the switch")                      \
  X(MuPort1Reads128, kNode, kPulse, kAny,                                                          \
    "Message unit: 128-byte read requests master port 1 issued to the switch")                     \
  X(MuPort1PendingWrites, kNode, kPulse, kAny,                                                     \
    "Message unit: write requests pending in master port 1, summed over the cycles (each "         \
    "request's cycles from its issue to its completion, counted at its issue)")                    \
  X(MuPort1PendingReads, kNode, kPulse, kAny,                                                      \
    "Message unit: read requests pending in master port 1, summed over the cycles (each "          \
    "request's cycles from its issue to its data, counted at its issue)")                          \
  X(MuPort2Writes, kNode, kPulse, kAny,                                                            \
    "Message unit: 16-byte write requests master port 2 issued to the switch")                     \
  X(MuPort2Reads32, kNode, kPulse, kAny,                                                           \
    "Message unit: 32-byte read requests master port 2 issued to the switch")                      \
  X(MuPort2Reads64, kNode, kPulse, kAny,                                                           \
    "Message unit: 64-byte read requests master port 2 issued to the switch")                      \
  X(MuPort2Reads128, kNode, kPulse, kAny,                                                          \
    "Message unit: 128-byte read requests master port 2 issued to the switch")                     \
  X(MuPort2PendingWrites, kNode, kPulse, kAny,                                                     \
    "Message unit: write requests pending in master port 2, summed over the cycles (each "         \
    "request's cycles from its issue to its completion, counted at its issue)")                    \
  X(MuPort2PendingReads, kNode, kPulse, kAny,                                                      \
    "Message unit: read requests pending in master port 2, summed over the cycles (each "          \
    "request's cycles from its issue to its data, counted at its issue)")                          \
  X(MuSlaveReads, kNode, kPulse, kAverageOne,                                                      \
    "Message unit: read requests its slave port received (the cores' loads of its registers)")     \
  X(MuSlaveWrites, kNode, kPulse, kAverageOne,                                                     \
    "Message unit: write requests its slave port received (the cores' stores to its registers)")   \
  /* ---- Blue Gene/P's DMA: its reception events one a cycle and its requests to the L3 */        \
  /* (net/mu_ports.h), for UPC-P's one-bit inputs; one run, DmaDescriptorRead to */                \
  /* DmaWriteActive (dmaPortSignal) ---- */                                                        \
  X(DmaDescriptorRead, kNode, kPulse, kOne,                                                        \
    "Blue Gene/P's DMA: descriptors read from memory, one a cycle")                                \
  X(DmaFifoPacketReceived, kNode, kPulse, kOne,                                                    \
    "Blue Gene/P's DMA: packets stored to a reception FIFO, one a cycle")                          \
  X(DmaPutPacketReceived, kNode, kPulse, kOne,                                                     \
    "Blue Gene/P's DMA: direct-put packets written to memory (their counter's), one a cycle")      \
  X(DmaRemoteGetPacketReceived, kNode, kPulse, kOne,                                               \
    "Blue Gene/P's DMA: remote-get packets whose descriptors it took, one a cycle")                \
  X(DmaReadRequest, kNode, kPulse, kOne,                                                           \
    "Blue Gene/P's DMA: line read requests its injection side issued to the L3 for payloads, "     \
    "one a cycle")                                                                                 \
  X(DmaReadAcked, kNode, kPulse, kOne,                                                             \
    "Blue Gene/P's DMA: its line read requests the L3 took (acknowledged), one a cycle")           \
  X(DmaReadReturned, kNode, kPulse, kOne,                                                          \
    "Blue Gene/P's DMA: its line read requests whose data the L3 returned, one a cycle")           \
  X(DmaWriteRequest, kNode, kPulse, kOne,                                                          \
    "Blue Gene/P's DMA: line write requests its reception side issued to the L3, one a cycle")     \
  X(DmaWriteActive, kNode, kLevel, kOne,                                                           \
    "Blue Gene/P's DMA: cycles its reception side had a write request to the L3 pending")          \
  /* ---- the torus links' token and acknowledgement protocol (network.link_protocol: bgp; */      \
  /* net/link_protocol.h); one run, NwTokenAckPackets to NwNoPriorityTokens */                     \
  /* (linkProtocolSignal), after every older event ---- */                                         \
  X(NwTokenAckPackets, kLink, kPulse, kOne,                                                        \
    "Torus link: token/ack packets sent over the link (tokens and acknowledgements with no data "  \
    "packet going that way to carry them)")                                                        \
  X(NwAcks, kLink, kPulse, kOne,                                                                   \
    "Torus link: acknowledgements sent over the link, one per packet received the other way, one " \
    "a cycle")                                                                                     \
  X(NwNoTokens, kLink, kLevel, kOne,                                                               \
    "Torus link: cycles the link was free while a packet waited at it with too few tokens (any "   \
    "channel)")                                                                                    \
  X(NwNoDynamicTokens, kLink, kLevel, kOne,                                                        \
    "Torus link: cycles the link was free while a dynamic packet waited with too few tokens")      \
  X(NwNoEscapeTokens, kLink, kLevel, kOne,                                                         \
    "Torus link: cycles the link was free while an escape packet waited with too few tokens")      \
  X(NwNoPriorityTokens, kLink, kLevel, kOne,                                                       \
    "Torus link: cycles the link was free while a priority packet waited with too few tokens")

enum class Event : u16 {
#define HPM_X(name, scope, kind, rate, doc) k##name,
  HPM_PROBE_EVENTS(HPM_X)
#undef HPM_X
      kCount
};
inline constexpr std::size_t kEventCount = static_cast<std::size_t>(Event::kCount);

// The list prefetcher's events (BG/Q's L1P; mem/list_prefetcher.h): declared in one run, from
// L1pListStarted to L1pListLateHits. Blue Gene/P's L1P has none, so its catalogue omits them.
constexpr bool listPrefetcherEvent(Event e) {
  return e >= Event::kL1pListStarted && e <= Event::kL1pListLateHits;
}

// The stream prefetcher's events that BG/Q's L1P adds (mem/stream_control.h): declared in one
// run, from L1pStreamLateHits to L1pLinesEstablished. Blue Gene/P's catalogue omits them.
constexpr bool streamAdaptationEvent(Event e) {
  return e >= Event::kL1pStreamLateHits && e <= Event::kL1pLinesEstablished;
}

// BG/Q's L2 speculation's events (node/speculation.h): declared in one run, from TmBegun to
// TmLinesCleaned. Only BG/Q's L2 versions lines; the other machines' catalogues omit them.
constexpr bool speculationEvent(Event e) {
  return e >= Event::kTmBegun && e <= Event::kTmLinesCleaned;
}

// The signals of Blue Gene/P's L2 prefetch unit events (UPC-P's PU<k>_L2_..., mem/memory_system.h
// L1pSignalStats): declared in one run, from L1pPrefetchAlreadyPresent to L1dFillPending. BGPM
// has no such events, so Blue Gene/Q's catalogue leaves them out.
constexpr bool prefetchUnitSignal(Event e) {
  return e >= Event::kL1pPrefetchAlreadyPresent && e <= Event::kL1dFillPending;
}
// The one-bit form of the links' chunk counts, published only for Blue Gene/P's UPC-P
// (NwDynamicChunkLeft to NwDynamic1ChunkLeft): BG/Q's NWUnit counts the chunks as they are sent.
constexpr bool chunkLeftSignal(Event e) {
  return e >= Event::kNwDynamicChunkLeft && e <= Event::kNwDynamic1ChunkLeft;
}
// BG/Q's message unit's ports (MuPort0Writes to MuSlaveWrites): Blue Gene/P's catalogue omits them
// (its DMA's are the Dma... signals).
constexpr bool muPortEvent(Event e) {
  return e >= Event::kMuPort0Writes && e <= Event::kMuSlaveWrites;
}
// Blue Gene/P's DMA signals (DmaDescriptorRead to DmaWriteActive), published for UPC-P's one-bit
// inputs only: Blue Gene/Q's catalogue omits them.
constexpr bool dmaPortSignal(Event e) {
  return e >= Event::kDmaDescriptorRead && e <= Event::kDmaWriteActive;
}
// The links' token and acknowledgement protocol's signals (net/link_protocol.h), published only
// where network.link_protocol is on (bgp's UPC-P names them): BGPM has no such events.
constexpr bool linkProtocolSignal(Event e) {
  return e >= Event::kNwTokenAckPackets && e <= Event::kNwNoPriorityTokens;
}

struct EventInfo {
  std::string_view name;  // "L1dMisses"
  Scope scope;
  Kind kind;
  Rate rate;
  std::string_view description;
};

inline constexpr EventInfo kEventInfo[] = {
#define HPM_X(name, scope, kind, rate, doc) {#name, Scope::scope, Kind::kind, Rate::rate, doc},
    HPM_PROBE_EVENTS(HPM_X)
#undef HPM_X
};

constexpr const EventInfo& info(Event e) {
  return kEventInfo[static_cast<std::size_t>(e)];
}
// The driver's instruction mix (node/simulation_events.cpp): events the operation and its data
// decide, published by the run loop of every mode with a counter unit as each instruction
// retires, whatever models time. Declared in one run, InstCompressed to Fences, and FpOpsSingle.
constexpr bool driverMixEvent(Event e) {
  return (e >= Event::kInstCompressed && e <= Event::kFences) || e == Event::kFpOpsSingle;
}
// The core's finer signals (the A2's core events BG/Q's BGPM names): declared in one run, from
// FpOpsSingle to LoadHitsPendingMiss, after every older event, so that the ground-truth unit's
// registers and the other machines' catalogues keep their order.
constexpr bool coreSignal(Event e) {
  return e >= Event::kFpOpsSingle && e <= Event::kLoadHitsPendingMiss;
}

// Whether `e` is one of address translation's events (IeratMisses .. TlbHitsFirstSize), which
// only a node whose cores translate addresses has.
constexpr bool addressTranslation(Event e) {
  return e >= Event::kIeratMisses && e <= Event::kTlbHitsFirstSize;
}
std::string_view scopeName(Scope s);
// The event's name in upper snake case ("L1D_MISSES"), the form native event names use.
std::string upperName(Event e);

// How many instances each scope has on a machine.
struct Topology {
  u32 threads = 1;
  u32 cores = 1;
  u32 slices = 1;
  u32 controllers = 1;
  u32 links = 0;  // the node's torus links (none: the events of links have no instance)
  // Each core's snoop filter ports (the other cores: cores - 1), or 0: no snoop filters, and the
  // snoop filters' events have no instance.
  u32 snoop_ports = 0;
  // Blue Gene/P's L3 banks (mem.l3.banks: the L2 slices), or 0: the L3 events have no instance.
  // Each has the ports and directories its UPC-P events name (RD0, RD1, R2; W0, W1; DIR0, DIR1).
  u32 l3_banks = 0;
  static constexpr u32 kL3ReadPorts = 3;
  static constexpr u32 kL3WritePorts = 2;
  static constexpr u32 kL3Directories = 2;
  // Each core's buses for device accesses (kDeviceBuses, with l1p.device_buses), or 0: the
  // device buses' events have no instance.
  u32 device_buses = 0;
  // The collective network's router ports x virtual channels (8) and class routes (16), or 0:
  // the node has no collective network, and its events have no instance.
  u32 col_ports = 0;
  u32 col_classes = 0;
  u32 instances(Scope s) const;
};

// A statistic a model keeps, as one term of an input's count (counting from statistics,
// node/monitor.cpp): the input's count so far is the sum of weight x *value over its terms, modulo
// 2^64 (a weight of ~u64{0} subtracts).
struct TallyTerm {
  const u64* value = nullptr;
  u64 weight = 1;
};

// ---- ground truth ----
//
// Every model that publishes events declares, once, in a table, the statistic it keeps for each
// of them: its ground truth. The table's rows name the statistics whose weighted sum is the
// event's count for one instance of its scope (most events: one statistic, weight 1; branches not
// taken = branches - branches taken). From that table alone the model registers the bus's tallies
// (counting from statistics, Bus::addTally) and answers groundTruth(), which the exactness test
// (tests/node/monitor_exactness_test.cpp) holds every counter against.
using TruthTerms = std::vector<TallyTerm>;

// What changes the statistics behind an event (counting from statistics reads them again only
// when their version, Bus::setTallyVersion, says they may have changed).
enum class Changes : u8 {
  kOwnCore,  // only the activity of the instance's core (its threads' instructions and waits)
  kShared,   // any core's activity: the model keeps a version of its own (Bus::kAnyCore)
  kAnytime,  // no version: read at every window end
};

// How counting from statistics reads an event (Bus::addTally).
enum class Tally : u8 {
  kTerms,  // the row's terms
  kLevel,  // the model's LevelSource, which attributes the same cycles (a thread's levels)
  kNone,   // not at all: the event is counted from published events only
};

template <class Model>
struct TruthRow {
  Event event;
  // Appends the terms of instance `i` of the event's scope.
  void (*terms)(const Model& model, u32 i, TruthTerms& out);
  Changes changes = Changes::kOwnCore;
  Tally tally = Tally::kTerms;
  // Whether the statistic is kept whatever is counted, and so is the event's ground truth (the
  // driver's operation counts are kept only while a monitor counts from them).
  bool truth = true;
};

inline u64 sumOf(const TruthTerms& terms) {
  u64 sum = 0;
  for (const TallyTerm& t : terms) sum += t.weight * *t.value;
  return sum;
}

// The count of event `e` of instance `i` by `table`, if it has a ground-truth row for `e`.
template <class Model>
std::optional<u64> truthOf(std::span<const TruthRow<Model>> table, const Model& model, Event e,
                           u32 i) {
  for (const TruthRow<Model>& row : table) {
    if (row.event != e || !row.truth) continue;
    TruthTerms terms;
    row.terms(model, i, terms);
    return sumOf(terms);
  }
  return std::nullopt;
}

// The level events of hardware threads whose cycles a timing model attributes itself (Cycles,
// the stall causes, StallAny): every cycle before a thread's clock belongs to one "lump", the
// interval from the clock before an instruction (or an idle stretch) to the clock after it, and
// inside a lump each event is high in one interval. A lump is attributed when it ends, so the
// count of cycles before t is known once the clock has passed t.
class LevelSource {
 public:
  virtual ~LevelSource() = default;
  // The hardware thread's clock: the end of its last lump.
  virtual Cycle levelClock(u32 thread) const = 0;
  // The first cycle of its last lump.
  virtual Cycle lastLumpStart(u32 thread) const = 0;
  // Cycles of `e` before `t`, for any t >= lastLumpStart(thread) (past the clock: all of them).
  virtual u64 levelBefore(Event e, u32 thread, Cycle t) const = 0;
  // Where `e` was high in the last lump: [first, second), empty if it was not.
  virtual std::pair<Cycle, Cycle> levelInLastLump(Event e, u32 thread) const = 0;
};

// Where wanted events go: a monitor implements it. `input` is the flat index of (event, source).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void pulse(u32 input, Cycle t, u64 count) = 0;
  virtual void level(u32 input, Cycle t0, Cycle t1) = 0;
  // An interconnect transaction (stats/transaction.h), while transactions are wanted.
  virtual void transaction(const Transaction& t) { (void)t; }
};

class Bus {
 public:
  // `opcodes`: the size of a family of per-hardware-thread events, one per operation of the ISA
  // (instructions retired by opcode), indexed by the operation's number.
  Bus(const Topology& topology, u32 opcodes);

  const Topology& topology() const { return topology_; }
  u32 opcodes() const { return opcodes_; }
  // The flat index of (event, source), and the number of flat indices.
  u32 input(Event e, u32 source) const { return base_[static_cast<std::size_t>(e)] + source; }
  u32 inputOp(u32 op, u32 thread) const { return op_base_ + op * topology_.threads + thread; }
  u32 inputs() const { return static_cast<u32>(wanted_.size()); }
  bool wantsOp(u32 op, u32 thread) const { return wanted_[inputOp(op, thread)] != 0; }
  void pulseOp(u32 op, u32 thread, u64 count) { deliver(inputOp(op, thread), count); }
  // Whether any input at all is wanted (the driver skips per-instruction work otherwise).
  bool anyWanted() const { return wanted_count_ != 0; }
  // (event, source) of a flat index; an operation's input gives {Event::kCount, op}.
  std::pair<Event, u32> eventOf(u32 input) const;

  // ---- counting from statistics ----
  // Models name, once, the statistics an input's count is made of: pulse inputs as terms (the
  // statistic must grow exactly where and when the model would publish the event), thread level
  // events as kept by the level source. A monitor may then count such an input without it being
  // published (it is not wanted), from the statistics at the ends of its counters' windows.
  enum class TallyKind : u8 { kNone, kTerms, kLevel };
  void addTally(u32 input, const u64* value, u64 weight = 1);
  void addLevelTally(u32 input) { tally_kind_[input] = TallyKind::kLevel; }
  // A counter that changes whenever the input's statistics may (a core's activity): a monitor
  // that finds it unchanged need not read them. Optional.
  // The version follows the activity of core `core` (its hardware threads' instructions and
  // waits): a monitor learns of those from the driver. kAnyCore: any core's activity may change
  // it (a shared resource's statistics), so no single core's quiet says it stays.
  static constexpr u32 kAnyCore = ~u32{0};
  void setTallyVersion(u32 input, const u64* version, u32 core) {
    tally_versions_[input] = {version, core};
  }
  const u64* tallyVersion(u32 input) const { return tally_versions_[input].first; }
  u32 tallyVersionCore(u32 input) const { return tally_versions_[input].second; }
  TallyKind tallyKind(u32 input) const { return tally_kind_[input]; }
  // Whether the input's statistics are kept whatever is counted (its ground truth): not the
  // driver's operation counts, kept only while a monitor counts from them (TruthRow::truth).
  void setTallyTruth(u32 input, bool truth) { tally_truth_[input] = truth ? 1 : 0; }
  bool tallyTruth(u32 input) const { return tally_truth_[input] != 0; }
  std::span<const TallyTerm> tally(u32 input) const { return tallies_[input]; }
  u64 tallyValue(u32 input) const;
  void setLevelSource(const LevelSource* source) { level_source_ = source; }
  const LevelSource* levelSource() const { return level_source_; }
  // The inputs a monitor counts from statistics now (for sources that keep a statistic only
  // while it is needed: the driver's operation counts). Changes the epoch.
  void setTallyActive(u32 input, bool active) {
    if (tally_active_[input] == (active ? 1 : 0)) return;
    tally_active_[input] = active ? 1 : 0;
    stepEpoch();
  }
  bool tallyActive(u32 input) const { return tally_active_[input] != 0; }

  void setSink(Sink* sink) { sink_ = sink; }
  void setWanted(u32 input, bool wanted) {
    if (wanted_[input] == (wanted ? 1 : 0)) return;
    wanted_count_ += wanted ? 1 : -1;
    wanted_[input] = wanted ? 1 : 0;
    stepEpoch();
  }
  // Changes whenever the set of wanted inputs does (a source caching decisions looks again).
  u64 epoch() const { return epoch_; }
  // From now on every change of the epoch also sets `bits` in `*flag` (null: no flag): a run
  // loop holding decisions made from the wanted set learns of a change, which the events of an
  // instruction may cause (a counter frozen at its overflow), without asking at every one.
  void watchEpoch(u8* flag, u8 bits) {
    epoch_flag_ = flag;
    epoch_flag_bits_ = bits;
  }
  bool wantedInput(u32 input) const { return wanted_[input] != 0; }
  bool wants(Event e, u32 source) const { return wanted_[input(e, source)] != 0; }

  // The cycle pulses are counted at: the cycle of the instruction being processed.
  Cycle now() const { return now_; }
  void setNow(Cycle t) { now_ = t; }

  void pulse(Event e, u32 source, u64 count) { deliver(input(e, source), count); }

  // ---- interconnect transactions ----
  // Whether the sink wants the interconnect's transactions (an interconnect monitor filters
  // them): the memory system publishes each with transaction() only then.
  void setTransactionsWanted(bool wanted) {
    if (transactions_wanted_ == wanted) return;
    transactions_wanted_ = wanted;
    wanted_count_ += wanted ? 1 : -1;
    stepEpoch();
  }
  bool wantsTransactions() const { return transactions_wanted_; }
  // `t.cycle` is the bus's now().
  void transaction(const Transaction& t) { sink_->transaction(t); }
  void level(Event e, u32 source, Cycle t0, Cycle t1) {
    if (t1 <= t0) return;
    const u32 in = input(e, source);
    LevelBatch& l = level_batches_[in];
    if (l.open && t0 >= l.start && t0 <= l.end) {
      l.end = std::max(l.end, t1);
      l.total += t1 - t0;
      return;
    }
    // A level counted as occurrences (openCountBatch): an interval after the counted cycles,
    // ending inside the window, adds its cycles (and starts the last run unless it abuts it).
    PulseBatch& b = batches_[in];
    if (t0 > b.last && t1 <= b.until && t1 - t0 <= b.room) {
      b.count += t1 - t0;
      b.room -= t1 - t0;
      if (t0 != b.last + 1) {
        b.before_tail = b.last;
        b.tail = t0;
      }
      b.last = t1 - 1;
      return;
    }
    sink_->level(in, t0, t1);
  }

  // ---- batches, opened by the sink ----
  // Delivering each event to a counter unit costs a call per occurrence; a sink that can apply
  // many as one opens a batch for an input, and the bus then only adds them up, inline, until
  // the sink takes the batch (before it needs it: before any access to its unit). Pulses: those
  // of the cycles before `until` (the sink applies them as `count` occurrences at `last`).
  // Levels: intervals that begin inside the open interval [start, end) or at its end extend it
  // (`total` adds up their lengths); or, in a count batch, are added up as pulses. Any other
  // input goes to the sink as before.
  struct PulseBatch {
    u64 count = 0;
    Cycle last = 0;
    Cycle until = 0;  // 0: no batch
    // A count batch (of a level input): its last run of abutting intervals is [tail, last + 1);
    // the cycles of the ones before it end at before_tail.
    Cycle tail = 0, before_tail = 0;
    u64 room = 0;  // the cycles it may still take
  };
  struct LevelBatch {
    Cycle start = 0, end = 0;
    u64 total = 0;
    bool open = false;
  };
  // A pulse batch holding `count` occurrences at the current cycle, open until `until`.
  void openPulseBatch(u32 input, u64 count, Cycle until) {
    batches_[input] = PulseBatch{count, now_, until};
  }
  const PulseBatch& pulseBatch(u32 input) const { return batches_[input]; }
  PulseBatch takePulseBatch(u32 input) {
    const PulseBatch b = batches_[input];
    batches_[input] = PulseBatch{};
    return b;
  }
  // A level input's intervals as occurrences, one per cycle: [t0, t1) holds t1 - t0 of them;
  // later intervals after it that end by `until` add theirs (the sink applies all but the last
  // run of abutting intervals as a pulse batch, and that run as an interval), as long as they
  // add up to at most `room` cycles (>= t1 - t0).
  void openCountBatch(u32 input, Cycle t0, Cycle t1, Cycle until, u64 room) {
    batches_[input] = PulseBatch{t1 - t0, t1 - 1, until, t0, t0 - 1, room - (t1 - t0)};
  }
  void openLevelBatch(u32 input, Cycle t0, Cycle t1) {
    level_batches_[input] = LevelBatch{t0, t1, t1 - t0, true};
  }
  LevelBatch takeLevelBatch(u32 input) {
    const LevelBatch l = level_batches_[input];
    level_batches_[input] = LevelBatch{};
    return l;
  }
  // What an input's open batches hold (for the sink's totals).
  u64 pendingPulses(u32 input) const { return batches_[input].count; }
  u64 pendingLevelCycles(u32 input) const { return level_batches_[input].total; }

 private:
  void stepEpoch() {
    ++epoch_;
    if (epoch_flag_ != nullptr) *epoch_flag_ |= epoch_flag_bits_;
  }
  void deliver(u32 in, u64 count) {
    PulseBatch& b = batches_[in];
    if (now_ < b.until) {
      b.count += count;
      b.last = now_;
      return;
    }
    sink_->pulse(in, now_, count);
  }

  Topology topology_;
  std::vector<u32> base_;
  u32 op_base_ = 0;
  u32 opcodes_ = 0;
  std::vector<u8> wanted_;
  std::vector<PulseBatch> batches_;
  std::vector<LevelBatch> level_batches_;
  std::vector<TallyKind> tally_kind_;
  std::vector<u8> tally_truth_;
  std::vector<std::vector<TallyTerm>> tallies_;
  std::vector<std::pair<const u64*, u32>> tally_versions_;
  std::vector<u8> tally_active_;
  const LevelSource* level_source_ = nullptr;
  i64 wanted_count_ = 0;
  bool transactions_wanted_ = false;
  u64 epoch_ = 0;
  u8* epoch_flag_ = nullptr;
  u8 epoch_flag_bits_ = 0;
  Sink* sink_ = nullptr;
  Cycle now_ = 0;
};

// Counts one event where its ground-truth statistic is kept: adds `n` to `stat` and publishes
// (e, source, n) when some counter wants it (the model's truth table names `stat` as e's). One
// call, so that no count site can grow the statistic without the event or the reverse.
inline void count(Bus* bus, Event e, u32 source, u64& stat, u64 n = 1) {
  stat += n;
  if (bus != nullptr && bus->wants(e, source)) [[unlikely]] {
    bus->pulse(e, source, n);
  }
}

// The documentation of the statistic that is e's ground truth: the event's own description, so
// that the event and its statistic are described once (stats::Visitor::counter's doc).
constexpr std::string_view describe(Event e) {
  return info(e).description;
}

// Registers the tallies of `table`'s rows on `bus`, for every instance of each row's scope, with
// their versions: a kOwnCore row's is `core_version(core)` (the instance's core: itself, or a
// thread's), a kShared row's `shared_version(i)`.
template <class Model, class CoreVersion, class SharedVersion>
void registerTallies(Bus& bus, std::span<const TruthRow<Model>> table, const Model& model,
                     CoreVersion&& core_version, SharedVersion&& shared_version) {
  const Topology& topology = bus.topology();
  for (const TruthRow<Model>& row : table) {
    const Scope scope = info(row.event).scope;
    for (u32 i = 0; i < topology.instances(scope); ++i) {
      const u32 input = bus.input(row.event, i);
      if (row.tally == Tally::kNone) continue;
      if (row.tally == Tally::kLevel) {
        bus.addLevelTally(input);
      } else {
        TruthTerms terms;
        row.terms(model, i, terms);
        for (const TallyTerm& t : terms) bus.addTally(input, t.value, t.weight);
        bus.setTallyTruth(input, row.truth);
      }
      if (row.changes == Changes::kOwnCore) {
        const u32 core = scope == Scope::kThread ? i / (topology.threads / topology.cores) : i;
        bus.setTallyVersion(input, core_version(core), core);
      } else if (row.changes == Changes::kShared) {
        bus.setTallyVersion(input, shared_version(i), Bus::kAnyCore);
      }
    }
  }
}

}  // namespace hpm::probe

// Counts an event on the bus when some counter wants it. `bus` may be null (no monitoring).
#define HPM_PROBE(bus, event, source, count)                                                   \
  do {                                                                                         \
    if ((bus) != nullptr && (bus)->wants(::hpm::probe::Event::event, (source))) [[unlikely]] { \
      (bus)->pulse(::hpm::probe::Event::event, (source), (count));                             \
    }                                                                                          \
  } while (0)
#define HPM_PROBE_LEVEL(bus, event, source, t0, t1)                                            \
  do {                                                                                         \
    if ((bus) != nullptr && (bus)->wants(::hpm::probe::Event::event, (source))) [[unlikely]] { \
      (bus)->level(::hpm::probe::Event::event, (source), (t0), (t1));                          \
    }                                                                                          \
  } while (0)
