// The system call table (kernel/syscall_table.h): its rows are distinct, and a row's category
// alone decides both what the kernel publishes for a call and the ground truth of those events.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "kernel/abi.h"
#include "kernel/kernel.h"
#include "stats/probe.h"

namespace hpm {
namespace {

using abi::SyscallCategory;
using probe::Event;

TEST(SyscallTable, EveryRowHasANumberAndANameOfItsOwn) {
  std::set<u32> numbers;
  std::set<std::string_view> names;
  for (const abi::SyscallRow& row : abi::syscallRows()) {
    EXPECT_TRUE(numbers.insert(row.number).second) << row.number;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_LT(row.number, abi::kSyscallLimit);
  }
  EXPECT_EQ(numbers.size(), 115u);  // (a row added or lost shows here)
}

TEST(SyscallTable, NamesAndCategoriesComeFromTheRowsAndANumberWithoutOneIsUnknownAndOther) {
  std::set<u64> with_row;
  for (const abi::SyscallRow& row : abi::syscallRows()) {
    EXPECT_EQ(abi::syscallName(row.number), row.name);
    EXPECT_EQ(abi::syscallCategory(row.number), row.category);
    with_row.insert(row.number);
  }
  for (u64 n : {u64{0}, u64{1}, u64{18}, u64{abi::kSyscallLimit}, u64{511}, u64{4096}, ~u64{0}}) {
    if (with_row.count(n)) continue;
    EXPECT_EQ(abi::syscallName(n), "unknown") << n;
    EXPECT_EQ(abi::syscallCategory(n), SyscallCategory::kOther) << n;
  }
  EXPECT_EQ(abi::syscallName(abi::kExitGroup), "exit_group");
  EXPECT_EQ(abi::syscallCategory(abi::kMmap), SyscallCategory::kMemory);
  EXPECT_EQ(abi::syscallCategory(abi::kFutex), SyscallCategory::kThread);
  // (Every call that sends a signal is a signal call: sigqueue's were once counted as other.)
  for (u64 n :
       {abi::kKill, abi::kTkill, abi::kTgkill, abi::kRtSigqueueinfo, abi::kRtTgsigqueueinfo}) {
    EXPECT_EQ(abi::syscallCategory(n), SyscallCategory::kSignal) << abi::syscallName(n);
  }
}

// Counts every pulse by input.
struct CountingSink : probe::Sink {
  std::map<u32, u64> pulses;
  void pulse(u32 input, Cycle, u64 count) override { pulses[input] += count; }
  void level(u32, Cycle, Cycle) override {}
};

constexpr Event kKinds[] = {Event::kSyscallsFile,   Event::kSyscallsMemory, Event::kSyscallsThread,
                            Event::kSyscallsSignal, Event::kSyscallsTime,   Event::kSyscallsOther};

// One call of `number`, all arguments 0, in a fresh kernel: the kind event the bus received and
// the kernel's ground truth of each kind.
struct KindCounts {
  std::map<Event, u64> published, truth;
};
KindCounts callOnce(u64 number, const std::string& sandbox) {
  // (Descriptors 0 to 2 are a scratch file of the sandbox: a call on them changes nothing else.)
  const int scratch = ::open((sandbox + "/scratch").c_str(), O_RDWR | O_CREAT, 0600);
  KernelConfig config;
  config.cores = 1;
  config.threads_per_core = 1;
  config.root = sandbox;
  config.stdio = {scratch, scratch, scratch};
  config.params.address_space_gib = 1;
  Kernel kernel(config);
  ::close(scratch);
  probe::Bus bus(probe::Topology{}, 1);
  CountingSink sink;
  bus.setSink(&sink);
  for (Event e : kKinds) bus.setWanted(bus.input(e, 0), true);
  bus.setWanted(bus.input(Event::kSyscalls, 0), true);
  kernel.setProbe(&bus);
  const std::string program =
      std::string(HPM_TEST_SOURCE_DIR) + "/tests/fuzz/corpus/elf/tiny_static";
  kernel.exec(program, {program}, {});
  Thread& t = *kernel.threads().front();
  t.hart().state().x[17] = number;
  for (int i = 10; i < 16; ++i) t.hart().state().x[i] = 0;
  kernel.handleStop(t, Stop{StopReason::kEcall, 0});
  KindCounts counts;
  for (Event e : kKinds) {
    counts.published[e] = sink.pulses[bus.input(e, 0)];
    counts.truth[e] = kernel.groundTruth(e, 0).value_or(~u64{0});
  }
  counts.published[Event::kSyscalls] = sink.pulses[bus.input(Event::kSyscalls, 0)];
  counts.truth[Event::kSyscalls] = kernel.groundTruth(Event::kSyscalls, 0).value_or(~u64{0});
  return counts;
}

Event kindEvent(SyscallCategory c) {
  return kKinds[static_cast<int>(c)];
}

TEST(SyscallTable, ARowsCategoryDecidesBothThePublishedKindAndItsGroundTruthForEveryNumber) {
  const std::filesystem::path sandbox =
      std::filesystem::temp_directory_path() / ("hpm_syscall_table_" + std::to_string(::getpid()));
  std::filesystem::create_directories(sandbox);
  // No row: counted as other (512 on: beyond the statistics' table, in their own statistic).
  std::vector<u64> numbers = {0, 1, 300, 511, 512, 4096};
  for (const abi::SyscallRow& row : abi::syscallRows()) numbers.push_back(row.number);
  for (u64 n : numbers) {
    const KindCounts counts = callOnce(n, sandbox.string());
    const Event expected = kindEvent(abi::syscallCategory(n));
    for (Event e : kKinds) {
      EXPECT_EQ(counts.published.at(e), e == expected ? 1u : 0u)
          << abi::syscallName(n) << " (" << n << ") published as " << probe::info(e).name;
      EXPECT_EQ(counts.truth.at(e), e == expected ? 1u : 0u)
          << abi::syscallName(n) << " (" << n << ") in the truth of " << probe::info(e).name;
    }
    EXPECT_EQ(counts.published.at(Event::kSyscalls), 1u) << n;
    EXPECT_EQ(counts.truth.at(Event::kSyscalls), 1u) << n;
  }
  std::filesystem::remove_all(sandbox);
}

}  // namespace
}  // namespace hpm
