// `hpmsim stat`'s requests: the names after -e, what each counts (native events with their
// signs, perf's software events, or nothing here), and what is derived from them: perf's raw
// events, the per-thread split and attribution, and the sets that take turns when the events do
// not fit the units at once (node/host_mux.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/types.h"
#include "kernel/kernel.h"
#include "node/monitor.h"

namespace hpm::tools {

// Requested names in order, each with the native events whose counts add up to it, and its perf
// group (-e '{a,b}': 1, 2, ...; 0: none).
struct Request {
  // kUnit: counted by the units; kSoftware: perf's software events, the kernel's own figures
  // after the run (as Linux's are); kUnsupported: a perf name with no model here, printed as
  // perf prints what a machine cannot count.
  enum class Source : u8 { kUnit, kSoftware, kUnsupported };
  std::string name;
  std::vector<const NativeEvent*> natives;
  std::vector<int> signs;  // each native's sign in the sum (a perf name's definition may subtract)
  int group = 0;
  Source source = Source::kUnit;

  // The sign of `native` in the sum, or 0 when it is not a term.
  int signOf(const NativeEvent* native) const {
    for (std::size_t i = 0; i < natives.size(); ++i) {
      if (natives[i] == native) return signs[i];
    }
    return 0;
  }
};

// Whether `name` is one of perf's software events, or a perf name with no model here (or none
// on this machine: a name perf knows is never an unknown event).
bool softwareEvent(const std::string& name);
bool unsupportedPerfEvent(const std::string& name);
// -e's names with their groups: "{a,b},c" is a and b in group 1, c in none. Modifiers (":u")
// are refused with the reason (Error, kUsage).
std::vector<std::pair<std::string, int>> parseEvents(const std::vector<std::string>& items);

// perf's raw events, "rHEX": the native event with that number, BGPM's event number on UPC-Q
// (r115 is event 277, PEVT_INST_ALL), the unit's input number elsewhere (UPC-P), each the
// event of a whole core or unit (not a thread's variant); null if the name is not one.
const NativeEvent* rawEvent(const Monitor& monitor, const std::string& name);

// --per-thread: a request's events counted per hardware thread. A native event of a whole core
// becomes its variants of each of the core's threads ("NAME@t0", ...), where the unit has them,
// with the same sign; the totals are unchanged. Events a unit counts only per core or node stay.
void splitPerThread(Request& r, const Monitor& monitor, u32 threads_per_core);

// Guest threads with the hardware threads they were placed on, and those hardware threads'
// counts (threads that shared one are one entry: their counts mix).
// Whether `name` is one of perf's cycle events (cycles, cpu-cycles, ref-cycles): the cycles the
// program's threads ran; with stat -a (system-wide) every hardware thread's clock.
inline bool perfCyclesName(std::string_view name) {
  return name == "cycles" || name == "cpu-cycles" || name == "ref-cycles";
}

struct ThreadGroup {
  std::vector<int> tids;
  std::vector<u32> hardware_threads;
  std::map<std::string, u64> counts;
};
// Each guest thread's counts: those of the hardware threads it was placed on (the counters
// `counted` keeps). Threads that shared a hardware thread, directly or through others, form one
// group (union of hardware threads), as their events cannot be told apart there.
std::vector<ThreadGroup> perThread(const Kernel& kernel, const Monitor& monitor,
                                   const std::vector<ProgrammedCounter>& counters,
                                   const std::vector<Request>& requests, u32 threads_per_core,
                                   const std::function<bool(const ProgrammedCounter&)>& counted);

// The sets of native events that take turns when `requests` do not fit the units at once: each
// request, or each group of requests, whole in one set, packed in the order asked. Fails
// (kUsage) naming a request or group that does not fit even alone (with the unit family's hint
// for node-wide names, unless `cores_chosen`).
std::vector<std::vector<const NativeEvent*>> multiplexedSets(Monitor& monitor,
                                                             const std::vector<Request>& requests,
                                                             bool cores_chosen);

}  // namespace hpm::tools
