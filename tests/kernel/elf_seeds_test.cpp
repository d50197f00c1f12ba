// The malformed-ELF seeds (tests/fuzz/elf_seeds.h) through the loader as the kernel drives it, on
// every test run (the fuzzer mutates them further for a bounded time in scripts/test.sh).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "base/error.h"
#include "kernel/elf.h"
#include "tests/fuzz/elf_seeds.h"

namespace hpm {
namespace {

std::vector<u8> tinyStatic() {
  std::ifstream in(std::string(HPM_TEST_SOURCE_DIR) + "/tests/fuzz/corpus/elf/tiny_static",
                   std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ElfSeeds, EveryMalformedSeedLoadsOrIsRefusedWithAMessageNeverAsAnInternalError) {
  const std::vector<u8> real = tinyStatic();
  ASSERT_GT(real.size(), 1000u);
  const std::vector<test::ElfSeed> seeds = test::malformedElfSeeds(real);
  ASSERT_GT(seeds.size(), 600u);
  GuestMemory memory;
  constexpr u64 kNode = u64{16} << 30;
  int refused = 0;
  for (const test::ElfSeed& seed : seeds) {
    try {
      const ElfImage image = ElfImage::parse(seed.bytes, seed.name);
      const u64 bias = image.isPie() ? 0x2aaaaaa000 : 0;
      image.requireMemory(kNode, seed.name);
      image.mapInto(memory, bias);
      for (const ElfSegment& seg : image.segments()) {
        const u64 first = alignDown(seg.vaddr + bias, GuestMemory::kPageSize);
        memory.unmap(first, alignUp(seg.vaddr + bias + seg.memsz, GuestMemory::kPageSize) - first);
      }
    } catch (const Error& e) {
      ++refused;
      EXPECT_EQ(e.code(), ExitCode::kProgram) << seed.name << ": " << e.what();
      EXPECT_GT(std::string(e.what()).size(), 10u) << seed.name;
    }
  }
  EXPECT_GT(refused, 50) << "most oversized and misplaced seeds are refused";
}

TEST(ElfSeeds, ASegmentLargerThanTheNodeIsRefusedNamingIt) {
  const std::vector<test::ElfSeed> seeds = test::malformedElfSeeds(tinyStatic());
  for (const test::ElfSeed& seed : seeds) {
    if (seed.name != "memsz_17g") continue;
    const ElfImage image = ElfImage::parse(seed.bytes, "prog");
    try {
      image.requireMemory(u64{16} << 30, "prog");
      FAIL() << "a 17 GiB segment fits a 16 GiB node";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "'prog': segment 1 needs 18253611008 bytes of memory (17408 MiB), more than the "
                "node's 16384 MiB (node.memory_mib)");
    }
    return;
  }
  FAIL() << "no memsz_17g seed";
}

TEST(ElfSeeds, AnEightGibBssMapsAndReadsZeroAtItsEnd) {
  for (const test::ElfSeed& seed : test::malformedElfSeeds(tinyStatic())) {
    if (seed.name != "memsz_8g") continue;
    const ElfImage image = ElfImage::parse(seed.bytes, "prog");
    GuestMemory memory;
    image.mapInto(memory, 0);
    const u64 last = image.segments()[0].vaddr + (u64{8} << 30) - 8;
    u64 value = 1;
    ASSERT_TRUE(memory.load(last, value));
    EXPECT_EQ(value, 0u);
    return;
  }
  FAIL() << "no memsz_8g seed";
}

}  // namespace
}  // namespace hpm
