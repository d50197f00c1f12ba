#include "pmu/catalogue.h"

#include <algorithm>
#include <cctype>

#include "base/error.h"
#include "isa/ops.h"

namespace hpm::pmu {

std::string CounterUnit::path() const {
  std::string p = "/dev/hpm/" + std::string(kind().name);
  if (kind().per_core) p += std::to_string(instance());
  return p;
}

std::string CounterUnit::statsName() const {
  return path().substr(std::string_view("/dev/hpm/").size());
}

void CounterUnit::bulkWindows(u32 port, u32 event, const BulkWindows& w) {
  (void)port, (void)event, (void)w;
  fail(ExitCode::kInternal, "{} takes no windows in bulk", path());
}

void CounterUnit::flipSramBit(u32 counter, u32 bit, Cycle now) {
  (void)counter, (void)bit, (void)now;
  fail(ExitCode::kInternal, "{} keeps no SRAM", path());
}

std::vector<u32> countedOps() {
  std::vector<u32> ops;
  for (u32 op = 0; op < isa::kOpCount; ++op) {
    if (static_cast<isa::Op>(op) != isa::Op::kIllegal) ops.push_back(op);
  }
  return ops;
}

std::vector<u32> opsOfGroup(isa::OpGroup group) {
  std::vector<u32> ops;
  if (group == isa::OpGroup::kNone) return ops;
  for (u32 op = 0; op < isa::kOpCount; ++op) {
    if (isa::opInfo(static_cast<isa::Op>(op)).group == group) ops.push_back(op);
  }
  return ops;
}

std::string opGeneric(u32 op) {
  return "op:" + std::string(isa::opInfo(static_cast<isa::Op>(op)).mnemonic);
}

std::string upperName(std::string_view s) {
  std::string out;
  for (char c : s)
    out += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

probe::Scope scopeOf(const std::string& generic, const std::vector<NativeEvent::Instance>& where) {
  probe::Scope scope = probe::Scope::kThread;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    if (probe::kEventInfo[ev].name == generic) scope = probe::kEventInfo[ev].scope;
  }
  const bool summed = std::any_of(where.begin(), where.end(), [](const NativeEvent::Instance& i) {
    return i.feeds.size() > 1;
  });
  return scope == probe::Scope::kThread && summed ? probe::Scope::kCore : scope;
}

}  // namespace hpm::pmu
