// The address space (kernel/address_space.h): the break, mmap's placement, the node's memory
// limit, protections and remapping, and device windows, on guest memory.
#include "kernel/address_space.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <string_view>

#include "kernel/abi.h"

namespace hpm {
namespace {

constexpr u64 kPage = GuestMemory::kPageSize;
constexpr u64 kMiB = u64{1} << 20;

// A device provider of one 8 KiB register window.
struct OneDevice : DeviceProvider {
  int findDevice(std::string_view) const override { return 0; }
  u64 windowBytes(int) const override { return 2 * kPage; }
  probe::DeviceBus bus(int) const override { return probe::DeviceBus::kDevice; }
  u64 readRegister(int, u64) override { return 0; }
  void writeRegister(int, u64, u64) override {}
  void setInterruptTarget(int, int, int) override {}
};

struct AddressSpaceTest : ::testing::Test {
  static constexpr u64 kBrkStart = 0x100000;
  static constexpr u64 kMmapBase = u64{1} << 30;
  static constexpr u64 kStackTop = u64{2} << 30;

  GuestMemory memory{u64{4} << 30};
  CodeCache code{memory, kMiB};
  u64 refusals = 0;
  AddressSpace space{memory, code, 64 * kMiB, refusals};

  void SetUp() override { space.setLayout(kBrkStart, kMmapBase, kStackTop); }
  i64 anonymous(u64 length, u64 prot = PROT_READ | PROT_WRITE, u64 addr = 0, u64 flags = 0) {
    return space.mmap(addr, length, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, nullptr, 0);
  }
};

TEST_F(AddressSpaceTest, CnksStaticPagesAreTheLargestWhoseEveryMibBlockTheMappingsMeet) {
  const u64 base = u64{1} << 30;  // 1 GiB-aligned
  const u32 rw = GuestMemory::kRead | GuestMemory::kWrite;
  space.mapRange(base, 40 * kMiB, rw, "data");
  EXPECT_EQ(space.staticPageBits(base + 5), 24u);              // [0, 16 MiB) is mapped whole
  EXPECT_EQ(space.staticPageBits(base + 20 * kMiB), 24u);      // [16, 32 MiB)
  EXPECT_EQ(space.staticPageBits(base + 33 * kMiB), 20u);      // [32, 48 MiB) is not
  EXPECT_EQ(space.staticPageBits(base + 39 * kMiB + 7), 20u);  // at least a MiB
  // A hole smaller than a MiB leaves every MiB block of the 16 MiB page met; a whole MiB does not.
  space.unmapRange(base + 4 * kMiB + kPage, kPage);
  EXPECT_EQ(space.staticPageBits(base + 5), 24u);
  space.unmapRange(base + 8 * kMiB, kMiB);
  EXPECT_EQ(space.staticPageBits(base + 5), 20u);
  EXPECT_EQ(space.staticPageBits(base + 17 * kMiB), 24u);
  // A whole GiB mapped: one 1 GiB page.
  space.mapRange(2 * base, base, rw, "big");
  EXPECT_EQ(space.staticPageBits(2 * base + 12345), 30u);
}

TEST_F(AddressSpaceTest, TheBreakGrowsAsHeapAndShrinksAndStaysPutWhenAskedBelowItsStart) {
  EXPECT_EQ(space.brk(0), static_cast<i64>(kBrkStart));
  EXPECT_EQ(space.brk(kBrkStart + 3 * kPage + 5), static_cast<i64>(kBrkStart + 3 * kPage + 5));
  const Vma* heap = space.vmas().find(kBrkStart + 3 * kPage);
  ASSERT_NE(heap, nullptr);
  EXPECT_EQ(heap->name, "[heap]");
  EXPECT_EQ(heap->end, kBrkStart + 4 * kPage);
  EXPECT_EQ(space.brk(kBrkStart - kPage), static_cast<i64>(kBrkStart + 3 * kPage + 5));
  EXPECT_EQ(space.brk(kBrkStart + kPage), static_cast<i64>(kBrkStart + kPage));
  EXPECT_EQ(space.vmas().find(kBrkStart + 2 * kPage), nullptr);
}

TEST_F(AddressSpaceTest, AnonymousMappingsGoTopDownBelowTheMmapBaseAndUnmapWhole) {
  const i64 first = anonymous(kPage);
  const i64 second = anonymous(3 * kPage);
  EXPECT_EQ(first, static_cast<i64>(kMmapBase - kPage));
  EXPECT_EQ(second, static_cast<i64>(kMmapBase - 4 * kPage));
  EXPECT_EQ(space.munmap(static_cast<u64>(second), 3 * kPage), 0);
  EXPECT_EQ(space.vmas().find(static_cast<u64>(second)), nullptr);
  EXPECT_EQ(space.munmap(static_cast<u64>(second) + 1, kPage), -abi::kEINVAL);  // unaligned
  EXPECT_EQ(anonymous(0), -abi::kEINVAL);
}

TEST_F(AddressSpaceTest, CommittedMemoryPastTheNodesIsRefusedAndCountedButReservationsAreNot) {
  const u64 committed = space.vmas().committedBytes();
  EXPECT_EQ(anonymous(128 * kMiB), -abi::kENOMEM);
  EXPECT_EQ(refusals, 1u);
  EXPECT_EQ(space.vmas().committedBytes(), committed);
  const i64 reserved = anonymous(128 * kMiB, PROT_NONE);  // commits nothing
  ASSERT_GT(reserved, 0);
  EXPECT_EQ(space.mprotect(static_cast<u64>(reserved), 128 * kMiB, PROT_READ), -abi::kENOMEM);
  EXPECT_EQ(refusals, 2u);
  EXPECT_EQ(space.mprotect(static_cast<u64>(reserved), kMiB, PROT_READ), 0);
  EXPECT_EQ(refusals, 2u);
}

TEST_F(AddressSpaceTest, MprotectNeedsEveryPageMappedAndChangesOnlyTheRange) {
  const u64 at = static_cast<u64>(anonymous(4 * kPage));
  EXPECT_EQ(space.mprotect(at + kPage, kPage, PROT_READ), 0);
  EXPECT_EQ(memory.pagePerm(at + kPage), GuestMemory::kRead);
  EXPECT_EQ(memory.pagePerm(at), GuestMemory::kRead | GuestMemory::kWrite);
  EXPECT_EQ(space.vmas().find(at + kPage)->perm, GuestMemory::kRead);
  EXPECT_EQ(space.mprotect(at + 3 * kPage, 2 * kPage, PROT_READ), -abi::kENOMEM);  // past the end
}

TEST_F(AddressSpaceTest, MremapGrowsInPlaceWhenThePagesAfterAreFreeAndKeepsTheContents) {
  const u64 at = static_cast<u64>(anonymous(2 * kPage));
  ASSERT_TRUE(memory.write(at, "abc", 4));
  // (The pages above the mmap base are free: the gap below the stack.)
  const i64 grown = space.mremap(at, 2 * kPage, 4 * kPage, MREMAP_MAYMOVE, 0);
  ASSERT_EQ(grown, static_cast<i64>(at));
  char text[4] = {};
  ASSERT_TRUE(memory.read(static_cast<u64>(grown), text, 4));
  EXPECT_STREQ(text, "abc");
  EXPECT_EQ(space.mremap(static_cast<u64>(grown), 4 * kPage, kPage, 0, 0), grown);  // shrinks
  EXPECT_EQ(space.vmas().find(static_cast<u64>(grown) + kPage), nullptr);
}

TEST_F(AddressSpaceTest, MadviseDontneedReadsBackZero) {
  const u64 at = static_cast<u64>(anonymous(2 * kPage));
  ASSERT_TRUE(memory.write(at + kPage, "xyz", 4));
  EXPECT_EQ(space.madvise(at, 2 * kPage, MADV_DONTNEED), 0);
  char text[4] = {1, 1, 1, 1};
  ASSERT_TRUE(memory.read(at + kPage, text, 4));
  EXPECT_EQ(text[0], 0);
  EXPECT_EQ(space.madvise(at + 1, kPage, MADV_DONTNEED), -abi::kEINVAL);
}

TEST_F(AddressSpaceTest, ADeviceWindowIsSharedNeverExecutableAndGoesWithItsRange) {
  OneDevice device;
  space.setDevices(&device);
  FdEntry entry;
  entry.kind = FdKind::kDevice;
  entry.device = 0;
  entry.guest_path = "/dev/hpm/upc";
  EXPECT_EQ(space.mmap(0, kPage, PROT_READ, MAP_PRIVATE, &entry, 0), -abi::kEINVAL);
  EXPECT_EQ(space.mmap(0, kPage, PROT_READ | PROT_EXEC, MAP_SHARED, &entry, 0), -abi::kEACCES);
  EXPECT_EQ(space.mmap(0, 3 * kPage, PROT_READ, MAP_SHARED, &entry, 0), -abi::kEINVAL);  // > window
  const i64 at = space.mmap(0, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, &entry, 0);
  ASSERT_GT(at, 0);
  const AddressSpace::DeviceWindow* w = space.deviceWindow(static_cast<u64>(at) + 8, 8);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->length, 2 * kPage);
  EXPECT_EQ(space.deviceWindow(static_cast<u64>(at) + 2 * kPage - 4, 8), nullptr);  // straddles
  EXPECT_EQ(space.vmas().find(static_cast<u64>(at))->name, "/dev/hpm/upc");
  space.munmap(static_cast<u64>(at) + kPage, kPage);  // a part of the window unmaps all of it
  EXPECT_EQ(space.deviceWindow(static_cast<u64>(at) + 8, 8), nullptr);
}

}  // namespace
}  // namespace hpm
