// Unit tests of the L1P's list prefetcher (mem/list_prefetcher.h): recording, the matching rules
// of a replay (match, skip 1..7, mismatch, abandon, overrun), the list's memory (end mark,
// overflow), and the memory system around it (list-prefetched lines hit in the L1P, and no list
// costs nothing). Also the guest's header (guest/include/hpm/l1p.h) against the model's layout.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "guest/include/hpm/l1p.h"
#include "mem/list_prefetcher.h"
#include "mem/memory_system.h"

namespace hpm::mem {
namespace {

using namespace l1plist;

// The guest's header restates the model's contract.
static_assert(HPM_L1P_CTRL == kCtrl && HPM_L1P_STATUS == kStatus && HPM_L1P_MAXTOL == kMaxTol);
static_assert(HPM_L1P_READ_BASE == kReadBase && HPM_L1P_WRITE_BASE == kWriteBase);
static_assert(HPM_L1P_SIZE == kSize && HPM_L1P_READ_POS == kReadPos);
static_assert(HPM_L1P_WRITE_POS == kWritePos && HPM_L1P_WINDOW_BYTES == kWindowBytes);
static_assert(HPM_L1P_START == kStart && HPM_L1P_LOAD == kLoad && HPM_L1P_INHIBIT == kInhibit);
static_assert(HPM_L1P_PAUSE == kPause && HPM_L1P_DEPTH_SHIFT == kDepthShift);
static_assert(HPM_L1P_FINISHED == kFinished && HPM_L1P_ABANDONED == kAbandoned);
static_assert(HPM_L1P_MAXLENGTH == kMaxLength && HPM_L1P_ENDOFLIST == kEndOfList);
static_assert(HPM_L1P_ENTRY_BYTES == kEntryBytes && HPM_L1P_END_MARK == kEndMark);

// Guest memory as a map of 4-byte words; `limit`: the first address it cannot access.
struct FakeMemory final : ListMemory {
  std::map<u64, u32> words;
  u64 limit = ~u64{0};
  bool read32(u64 addr, u32& value) override {
    if (addr >= limit) return false;
    auto it = words.find(addr);
    value = it == words.end() ? kEndMark : it->second;
    return true;
  }
  bool write32(u64 addr, u32 value) override {
    if (addr >= limit) return false;
    words[addr] = value;
    return true;
  }
};

constexpr u64 kRead = 0x1000, kWrite = 0x8000;

// A list prefetcher with lists of `entries` entries at kRead and kWrite.
ListPrefetcher configured(FakeMemory& mem, u64 entries) {
  ListPrefetcher l;
  l.write(kReadBase, kRead, mem);
  l.write(kWriteBase, kWrite, mem);
  l.write(kSize, entries * kEntryBytes, mem);
  return l;
}

void putList(FakeMemory& mem, const std::vector<u32>& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) mem.words[kRead + i * kEntryBytes] = lines[i];
}

TEST(ListPrefetcher, ARecordingRunWritesEveryMissAndTheStopEndsTheList) {
  FakeMemory mem;
  ListPrefetcher l = configured(mem, 16);
  EXPECT_EQ(l.write(kCtrl, kStart, mem), ListPrefetcher::Change::kStarted);
  EXPECT_TRUE(l.active());
  ListOutcome o;
  for (u64 line : {100, 7, 55}) {
    l.onMiss(line, mem, o);
    EXPECT_FALSE(o.compared);  // kLoad not set: nothing replayed
  }
  EXPECT_EQ(l.read(kWritePos), 3u);
  EXPECT_EQ(l.write(kCtrl, 0, mem), ListPrefetcher::Change::kStopped);
  EXPECT_EQ(mem.words[kWrite], 100u);
  EXPECT_EQ(mem.words[kWrite + 4], 7u);
  EXPECT_EQ(mem.words[kWrite + 8], 55u);
  EXPECT_EQ(mem.words[kWrite + 12], kEndMark);
  EXPECT_EQ(l.read(kStatus) & kFinished, kFinished);
}

TEST(ListPrefetcher, AnInhibitedRunRecordsNothingAndWritesNoEndMark) {
  FakeMemory mem;
  ListPrefetcher l = configured(mem, 16);
  l.write(kCtrl, kStart | kInhibit, mem);
  ListOutcome o;
  l.onMiss(5, mem, o);
  l.write(kCtrl, 0, mem);
  EXPECT_TRUE(mem.words.empty());
  EXPECT_EQ(l.read(kWritePos), 0u);
}

TEST(ListPrefetcher, AMatchAtTheHeadPrefetchesTheEntriesUpToTheDepthOnce) {
  FakeMemory mem;
  putList(mem, {10, 20, 30, 40, 50, 60, 70});
  ListPrefetcher l = configured(mem, 16);
  l.write(kCtrl, kStart | kLoad | kInhibit | (3u << kDepthShift), mem);
  ListOutcome o;
  l.onMiss(10, mem, o);
  EXPECT_TRUE(o.compared);
  EXPECT_EQ(o.skip, 0u);
  EXPECT_FALSE(o.mismatch);
  EXPECT_TRUE(o.overrun);  // nothing was requested before the first match
  EXPECT_EQ(o.lines, (std::vector<u64>{20, 30, 40}));
  l.onMiss(20, mem, o);
  EXPECT_FALSE(o.overrun);                     // 20 was requested ahead of its miss
  EXPECT_EQ(o.lines, (std::vector<u64>{50}));  // only the entry not yet requested
  EXPECT_EQ(l.read(kReadPos), 2u);
}

TEST(ListPrefetcher, AMatchKEntriesAheadIsASkipOfKForKFrom1To7) {
  for (u32 k = 1; k <= 7; ++k) {
    FakeMemory mem;
    std::vector<u32> list;
    for (u32 i = 0; i < 20; ++i) list.push_back(1000 + i);
    putList(mem, list);
    ListPrefetcher l = configured(mem, 32);
    l.write(kCtrl, kStart | kLoad | kInhibit, mem);
    ListOutcome o;
    l.onMiss(1000 + k, mem, o);
    EXPECT_TRUE(o.compared) << k;
    EXPECT_EQ(o.skip, k);
    EXPECT_FALSE(o.mismatch);
    EXPECT_EQ(l.read(kReadPos), k + 1);
  }
}

TEST(ListPrefetcher, AMissEightEntriesAheadOrOffTheListIsAMismatchThatKeepsThePosition) {
  FakeMemory mem;
  std::vector<u32> list;
  for (u32 i = 0; i < 20; ++i) list.push_back(1000 + i);
  putList(mem, list);
  ListPrefetcher l = configured(mem, 32);
  l.write(kCtrl, kStart | kLoad | kInhibit, mem);
  ListOutcome o;
  l.onMiss(1008, mem, o);  // beyond the window of 8 (offsets 0..7)
  EXPECT_TRUE(o.mismatch);
  EXPECT_EQ(o.skip, 0u);
  l.onMiss(5, mem, o);
  EXPECT_TRUE(o.mismatch);
  EXPECT_EQ(l.read(kReadPos), 0u);
  l.onMiss(1000, mem, o);  // the head still matches
  EXPECT_FALSE(o.mismatch);
  EXPECT_EQ(l.read(kReadPos), 1u);
}

TEST(ListPrefetcher, MoreConsecutiveMismatchesThanTheThresholdAbandonTheListOnce) {
  FakeMemory mem;
  putList(mem, {1, 2, 3, 4});
  ListPrefetcher l = configured(mem, 8);
  l.write(kMaxTol, 2, mem);
  l.write(kCtrl, kStart | kLoad | kInhibit, mem);
  ListOutcome o;
  l.onMiss(90, mem, o);
  l.onMiss(1, mem, o);  // a match resets the run of mismatches
  l.onMiss(91, mem, o);
  l.onMiss(92, mem, o);
  EXPECT_FALSE(o.abandoned);
  l.onMiss(93, mem, o);  // the third in a row: more than 2
  EXPECT_TRUE(o.abandoned);
  EXPECT_EQ(l.read(kStatus) & kAbandoned, kAbandoned);
  l.onMiss(2, mem, o);  // abandoned: nothing is compared any more
  EXPECT_FALSE(o.compared);
  EXPECT_TRUE(o.lines.empty());
}

TEST(ListPrefetcher, TheEndOfTheListEndsTheComparesWithoutAMismatch) {
  FakeMemory mem;
  putList(mem, {1, 2});
  ListPrefetcher l = configured(mem, 8);
  l.write(kCtrl, kStart | kLoad | kInhibit, mem);
  ListOutcome o;
  l.onMiss(1, mem, o);
  l.onMiss(2, mem, o);
  l.onMiss(3, mem, o);
  EXPECT_FALSE(o.compared);
  EXPECT_FALSE(o.mismatch);
  EXPECT_EQ(l.read(kStatus) & kEndOfList, kEndOfList);
}

TEST(ListPrefetcher, ARecordingThatFillsTheListsMemoryOverflowsOnceAndKeepsItsEntries) {
  FakeMemory mem;
  ListPrefetcher l = configured(mem, 2);
  l.write(kCtrl, kStart, mem);
  ListOutcome o;
  l.onMiss(1, mem, o);
  l.onMiss(2, mem, o);
  EXPECT_FALSE(o.overflow);
  l.onMiss(3, mem, o);
  EXPECT_TRUE(o.overflow);
  l.onMiss(4, mem, o);
  EXPECT_FALSE(o.overflow);
  EXPECT_EQ(l.read(kStatus) & kMaxLength, kMaxLength);
  l.write(kCtrl, 0, mem);  // a full list has no room for the end mark
  EXPECT_EQ(mem.words.size(), 2u);
}

TEST(ListPrefetcher, AnEntryHoldsTheLow32BitsOfTheLineTheMissSuppliesTheRest) {
  FakeMemory mem;
  ListPrefetcher l = configured(mem, 8);
  l.write(kCtrl, kStart, mem);
  ListOutcome o;
  const u64 high = u64{5} << 32;
  l.onMiss(high | 9, mem, o);
  l.onMiss(high | 11, mem, o);
  l.write(kCtrl, 0, mem);
  EXPECT_EQ(mem.words[kWrite], 9u);
  // Replayed (the recorded list as the read list): the lines come back whole.
  l.write(kReadBase, kWrite, mem);
  l.write(kCtrl, kStart | kLoad | kInhibit, mem);
  l.onMiss(high | 9, mem, o);
  EXPECT_EQ(o.lines, (std::vector<u64>{high | 11}));
}

TEST(ListPrefetcher, APausedListSeesNoMisses) {
  FakeMemory mem;
  ListPrefetcher l = configured(mem, 8);
  l.write(kCtrl, kStart | kLoad, mem);
  l.write(kCtrl, kStart | kLoad | kPause, mem);
  EXPECT_FALSE(l.active());
  l.write(kCtrl, kStart | kLoad, mem);
  EXPECT_TRUE(l.active());
  EXPECT_EQ(l.read(kWritePos), 0u);
}

// ---- in the memory system ----

MemParams oneCore() {
  MemParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  p.l1p.prefetch = false;  // (the list prefetcher alone)
  return p;
}

// Loads one word of each line of `lines` (128-byte lines) from thread `t`, each after the one
// before is ready; returns the cycle the last is ready.
Cycle chase(MemorySystem& m, u32 t, const std::vector<u64>& lines, Cycle at) {
  m.setRequesterThread(t);
  for (u64 line : lines) at = m.load(0, line * 128, at, 0).ready;
  return at;
}

TEST(MemorySystemLists, AReplayedRunFindsItsLinesInTheL1pAndIsFaster) {
  MemParams p = oneCore();
  MemorySystem m(p);
  FakeMemory mem;
  m.setListMemory(&mem);
  std::vector<u64> lines;
  // More lines than the L1D holds (256 of 64 bytes), in a scattered order, so each run misses.
  for (u64 i = 0; i < 600; ++i) lines.push_back(0x4000 + (i * 37) % 600 * 3);
  const u32 t = 2;
  m.listWrite(t, kReadBase, kRead);
  m.listWrite(t, kWriteBase, kWrite);
  m.listWrite(t, kSize, 4096);
  chase(m, t, lines, 0);  // the lines reach the L2
  m.listWrite(t, kCtrl, kStart | kLoad);
  const Cycle record_start = 1'000'000;
  const Cycle record = chase(m, t, lines, record_start) - record_start;
  m.listWrite(t, kCtrl, 0);
  EXPECT_EQ(m.listStats(t).started, 1u);
  EXPECT_EQ(m.listStats(t).compares, 0u);  // the read list was empty
  // The recorded list is the one replayed.
  m.listWrite(t, kReadBase, kWrite);
  m.listWrite(t, kWriteBase, kRead);
  m.listWrite(t, kCtrl, kStart | kLoad | kInhibit);
  const Cycle replay_start = 2'000'000;
  const Cycle replay = chase(m, t, lines, replay_start) - replay_start;
  m.listWrite(t, kCtrl, 0);
  const ListStats& s = m.listStats(t);
  EXPECT_EQ(s.compares, lines.size());
  EXPECT_EQ(s.mismatches, 0u);
  EXPECT_EQ(s.prefetches, lines.size() - 1);  // every line but the first, each once
  EXPECT_EQ(m.l1pExtraStats(0).list_hits, lines.size() - 1);
  EXPECT_LT(replay * 2, record);
  // Another thread's list saw nothing.
  EXPECT_EQ(m.listStats(1).started, 0u);
}

TEST(MemorySystemLists, ListsThatNeverStartChangeNoResult) {
  MemParams p = oneCore();
  MemorySystem with(p), without(p);
  FakeMemory mem;
  with.setListMemory(&mem);
  with.listWrite(0, kReadBase, kRead);  // configured, never started
  std::vector<u64> lines;
  for (u64 i = 0; i < 40; ++i) lines.push_back(0x9000 + i * 5);
  EXPECT_EQ(chase(with, 0, lines, 0), chase(without, 0, lines, 0));
  EXPECT_EQ(with.l1pStats(0).hits, without.l1pStats(0).hits);
  EXPECT_TRUE(mem.words.empty());
}

// ---- the stream prefetcher's internals ----

TEST(MemorySystemStreams, AStreamIsEstablishedOnceWhenAMissContinuesIt) {
  MemParams p;
  p.cores = 1;
  MemorySystem m(p);
  Cycle at = 0;
  for (u64 line = 0x100; line < 0x110; ++line) at = m.load(0, line * 128, at, 0).ready;
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
  at = m.load(0, 0x900 * 128, at, 0).ready;  // a new candidate, never continued
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
}

TEST(MemorySystemStreams, PrefetchedLinesEvictedBeforeADemandHitAreCountedUnused) {
  MemParams p;
  p.cores = 1;
  p.l1p.entries = 4;
  p.l1p.prefetch_depth = 2;
  MemorySystem m(p);
  Cycle at = 0;
  // A stream of two misses prefetches the next two lines; random misses then evict them.
  at = m.load(0, 0x100 * 128, at, 0).ready;
  at = m.load(0, 0x101 * 128, at, 0).ready;
  EXPECT_EQ(m.l1pStats(0).prefetches, 2u);
  for (u64 line : {0x500, 0x700, 0x900, 0xb00}) at = m.load(0, line * 128, at, 0).ready;
  EXPECT_EQ(m.l1pExtraStats(0).evict_unused, 2u);
}

}  // namespace
}  // namespace hpm::mem
