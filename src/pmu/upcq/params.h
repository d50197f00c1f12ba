// Parameters of UPC-Q, the Blue Gene/Q universal performance counting units (seed 001, sections
// 2.2 and 3; design.md 4.2; docs/upcq.md). One Params struct per unit, every structural number of
// the unit in it, with the Blue Gene/Q values as defaults, and `Params` grouping the four.
#pragma once

#include "base/types.h"
#include "config/schema.h"

namespace hpm::upcq {

// How a counter turns its selected input signal into increments (configuration bits [17:16]).
// The same four modes as UPC-P (docs/upc.md, "Signal modes").
enum class SignalMode : u8 {
  kLevelHigh = 0,    // +n in every cycle in which the signal carries n >= 1 occurrences
  kLevelLow = 1,     // +1 in every cycle in which the signal is low
  kRisingEdge = 2,   // +1 in a high cycle whose previous cycle was low
  kFallingEdge = 3,  // +1 in a low cycle whose previous cycle was high
};

const char* toString(SignalMode mode);

// The sweep of the central unit over a unit's local counters. Local counter i of the unit (i
// counts over every local counter the sweep serves, see each unit) is visited in the cycles v
// with (v + phase) mod period == (first_slot + i) x slot_cycles. A visit adds the whole local
// value to the counter's 64-bit central accumulator and clears the local register.
struct Sweep {
  u32 period = 800;     // cycles between two visits of one local counter (the sweep latency)
  u32 phase = 0;        // shifts the whole schedule; below period
  u32 slot_cycles = 1;  // cycles between the visits of two consecutive local counters

  void visit(config::Visitor& v);
};

// PUnit: the per-core local UPC module (24 counters of 14 bits) and its part of the central unit.
struct PUnitParams {
  u32 cores = 17;       // sweep slots are reserved for this many cores (16 + system core)
  u32 counters = 24;    // local counters per core
  u32 local_bits = 14;  // width of a local counter
  // Event inputs of a core: the catalogue numbers them event + 1024 x thread select (0: the
  // core, t + 1: its hardware thread t), so four threads need 5 x 1024.
  u32 events = 5120;
  Sweep sweep;                // core k's counter j is local counter k x counters + j
  u32 overflow_latency = 4;   // D: cycles from the crossing event to the interrupt
  double max_event_rate = 8;  // R: most events one counter sees per cycle (safety rule)
  bool exploration = false;   // accept configurations that can lose wraps, and count them

  void visit(config::Visitor& v);
  void validate() const;  // throws hpm::Error(kConfig)
};

// L2Unit: one L2 UPC module of 6 counters per L2 slice, combined (node-wide sums) or sliced.
struct L2UnitParams {
  u32 slices = 16;
  u32 counters = 6;  // per slice
  u32 local_bits = 14;
  u32 events = 32;            // event inputs per slice
  Sweep sweep;                // slice s's counter j is local counter s x counters + j
  u32 overflow_latency = 0;   // cycles from the detecting visit to the interrupt
  double max_event_rate = 1;  // most events one slice counter sees per cycle
  bool sliced = false;        // mode after reset: false = combined (the Blue Gene/Q default)
  bool exploration = false;

  void visit(config::Visitor& v);
  void validate() const;
};

// IOUnit: counters of I/O events (our kernel's file and console I/O, later the message/DMA
// device), one local counter per counter.
struct IOUnitParams {
  u32 counters = 43;  // as the seed's Message + PCIe + DevBus modules together
  u32 local_bits = 32;
  u32 events = 64;
  Sweep sweep;
  u32 overflow_latency = 0;
  // Byte counts arrive as one pulse per system call, so the stated rate is in bytes per cycle.
  double max_event_rate = 65536;
  bool exploration = false;

  void visit(config::Visitor& v);
  void validate() const;
};

// NWUnit: the network's UPC module (seed 001: "66 counters (each of the 11 links has 6
// counters)"), counting the node's torus links (many nodes, docs/network.md). Counter j of link
// l is counter l x counters + j; slow overflow as the L2 and I/O units.
struct NWUnitParams {
  u32 links = 11;    // 10 torus links and the I/O link
  u32 counters = 6;  // per link
  u32 local_bits = 14;
  u32 events = 32;  // event inputs per link
  Sweep sweep;      // link l's counter j is local counter l x counters + j
  u32 overflow_latency = 0;
  // Chunks arrive a packet's worth at once (up to 17 at BG/Q's packet size), at most one
  // packet per link time: 2 per cycle is a generous bound.
  double max_event_rate = 2;
  bool exploration = false;

  void visit(config::Visitor& v);
  void validate() const;
};

// CNKUnit: software counters our kernel keeps; exact at every cycle, no sweep.
struct CNKUnitParams {
  u32 counters = 32;
  u32 events = 64;
  u32 overflow_latency = 0;  // cycles from the crossing count to the interrupt

  void visit(config::Visitor& v);
  void validate() const;
};

// The node's UPC-Q: one PUnitParams for every core's PUnit, and the node-wide units.
struct Params {
  PUnitParams punit;
  L2UnitParams l2;
  IOUnitParams io;
  CNKUnitParams cnk;
  NWUnitParams nw;

  void visit(config::Visitor& v);
  void validate() const;
};

// The most events a counter can see between two visits of the sweep (`period` cycles) at
// `rate` events per cycle: ceil(rate x period).
u64 maxEventsPerSweep(u64 period, double rate);

// Smallest local width L that never wraps between two visits: 2^L - 1 >= maxEventsPerSweep.
u32 minLocalBits(u64 period, double rate);

// Longest sweep period that a local counter of `local_bits` bits survives at `rate`.
u64 maxSafePeriod(u32 local_bits, double rate);

}  // namespace hpm::upcq
