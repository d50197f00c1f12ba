// The tables abi.h's functions read, generated from kernel/syscall_table.h.
#include "kernel/abi.h"

#include <array>

namespace hpm::abi {
namespace {

constexpr SyscallRow kRows[] = {
#define HPM_SYSCALL_ROW(id, number, name, category, handler) \
  {number, #name, SyscallCategory::category},
    HPM_SYSCALL_TABLE(HPM_SYSCALL_ROW)
#undef HPM_SYSCALL_ROW
};

// Every row has a number of its own and a name of its own (the enumeration would accept a
// number twice; the tables below would silently keep the later row).
constexpr bool rowsDistinct() {
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    for (std::size_t j = i + 1; j < std::size(kRows); ++j) {
      if (kRows[i].number == kRows[j].number || kRows[i].name == kRows[j].name) return false;
    }
  }
  return true;
}
static_assert(rowsDistinct(), "two rows of kernel/syscall_table.h share a number or a name");

// By number: a load each, as the switches they replace.
constexpr auto kNames = [] {
  std::array<std::string_view, kSyscallLimit> names{};
  names.fill("unknown");
  for (const SyscallRow& row : kRows) names[row.number] = row.name;
  return names;
}();
constexpr auto kCategories = [] {
  std::array<SyscallCategory, kSyscallLimit> categories{};
  categories.fill(SyscallCategory::kOther);
  for (const SyscallRow& row : kRows) categories[row.number] = row.category;
  return categories;
}();

}  // namespace

std::span<const SyscallRow> syscallRows() {
  return kRows;
}

SyscallCategory syscallCategory(u64 number) {
  return number < kCategories.size() ? kCategories[number] : SyscallCategory::kOther;
}

std::string_view syscallName(u64 number) {
  return number < kNames.size() ? kNames[number] : "unknown";
}

}  // namespace hpm::abi
