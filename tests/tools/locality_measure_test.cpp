// locality's measurement without a guest: which machines it runs on, the board pairs and the
// counters they get, and each pair's filter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "mem/mem_params.h"
#include "node/machine.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/locality_measure.h"

namespace hpm::tools {
namespace {

std::string failure(const MachineConfig& machine) {
  try {
    localityBoards(machine);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  return "";
}

TEST(LocalityBoards, ACrossbarMachineHasNoBoards) {
  EXPECT_EQ(failure(loadMachine("bgq", {})),
            "locality: machine bgq has no boards (node.interconnect = crossbar): its memory is one "
            "node's; try --machine sunfire");
}

TEST(LocalityBoards, EachBoardsHardwareThreadsMustBeAPowerOfTwo) {
  const MachineConfig three = loadMachine("sunfire", {"node.cores=12", "fireplane.boards=4"});
  EXPECT_EQ(failure(three),
            "locality: 3 hardware threads per board: the source trits select a board only when "
            "that is a power of two");
  const Boards b = localityBoards(loadMachine("sunfire", {"node.cores=8", "fireplane.boards=4"}));
  EXPECT_EQ(b.boards, 4u);
  EXPECT_EQ(b.cpus_per_board, 2u);
  EXPECT_EQ(b.threads_per_board, 2u);
}

TEST(LocalityPairs, ThePairsAreRequesterMajorAndCountedFromZero) {
  const std::vector<PairRecord> pairs = boardPairs(3);
  ASSERT_EQ(pairs.size(), 9u);
  for (u32 i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(pairs[i].requester, i / 3);
    EXPECT_EQ(pairs[i].home, i % 3);
    EXPECT_EQ(pairs[i].counted, 0u);
    EXPECT_EQ(pairs[i].observed, 0u);
  }
}

TEST(LocalityPairs, ThePairsGetTheCountersButTheFirstTwoAtMostOneEach) {
  EXPECT_EQ(pairCounters(4, 16), 2u);
  EXPECT_EQ(pairCounters(18, 16), 16u);
  EXPECT_EQ(pairCounters(20, 16), 16u);
}

// A coherent transaction from hardware thread `source` to an address on board `home`.
probe::Transaction toBoard(u32 home, u32 source, probe::TransactionType type) {
  probe::Transaction t;
  t.type = type;
  t.address = (u64{home} << mem::kBoardShift) | 0x12345c0;
  t.source = source;
  t.id = 77;
  return t;
}

TEST(LocalityPairs, ATransactionMatchesTheFilterOfItsRequesterAndHomeBoardsOnly) {
  const Boards boards{.boards = 4, .cpus_per_board = 2, .threads_per_board = 4};
  const std::vector<PairRecord> pairs = boardPairs(boards.boards);
  for (u32 source = 0; source < 16; ++source) {
    for (u32 home = 0; home < boards.boards; ++home) {
      const probe::Transaction t = toBoard(home, source, probe::TransactionType::kReadToOwn);
      for (const PairRecord& p : pairs) {
        EXPECT_EQ(pairFilter(p, boards).matches(t), p.requester == source / 4 && p.home == home)
            << "thread " << source << " to board " << home << ": pair " << p.requester << ","
            << p.home;
      }
    }
  }
}

TEST(LocalityPairs, OnlyCoherentTransactionsAreCounted) {
  const Boards boards{.boards = 2, .cpus_per_board = 4, .threads_per_board = 4};
  const PairRecord pair{.requester = 1, .home = 0, .counted = 0, .observed = 0};
  for (probe::TransactionType type :
       {probe::TransactionType::kReadToShare, probe::TransactionType::kReadToShareAlways,
        probe::TransactionType::kReadToOwn, probe::TransactionType::kReadToOwnUpgrade,
        probe::TransactionType::kWriteBack}) {
    EXPECT_TRUE(pairFilter(pair, boards).matches(toBoard(0, 5, type)));
  }
  for (probe::TransactionType type :
       {probe::TransactionType::kReadStream, probe::TransactionType::kWriteStream,
        probe::TransactionType::kReadIO, probe::TransactionType::kInterrupt}) {
    EXPECT_FALSE(pairFilter(pair, boards).matches(toBoard(0, 5, type)));
  }
}

}  // namespace
}  // namespace hpm::tools
