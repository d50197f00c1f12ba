// Malformed ELF files made from a real static binary, for the ELF fuzzer's seeds (written by
// elf_seeds_main.cpp) and for the loader's unit test (tests/kernel/elf_seeds_test.cpp): random
// flips of the ELF header and of the program headers, oversized p_memsz, overlapping segments,
// an entry outside every segment, tables and segments past the end of the file. Deterministic:
// the same binary gives the same seeds.
#pragma once

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace hpm::test {

struct ElfSeed {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

namespace elf_seeds_detail {

inline std::uint64_t next(std::uint64_t& state) {  // xorshift64*
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1DULL;
}

template <class T>
T read(const std::vector<std::uint8_t>& b, std::size_t at) {
  T v{};
  if (at + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

template <class T>
void write(std::vector<std::uint8_t>& b, std::size_t at, const T& v) {
  if (at + sizeof(T) <= b.size()) std::memcpy(b.data() + at, &v, sizeof(T));
}

}  // namespace elf_seeds_detail

// The seeds for `real`, a valid static RV64 executable with at least two program headers.
inline std::vector<ElfSeed> malformedElfSeeds(const std::vector<std::uint8_t>& real) {
  using namespace elf_seeds_detail;
  std::vector<ElfSeed> out;
  const auto eh = read<Elf64_Ehdr>(real, 0);
  const std::size_t table = eh.e_phoff;
  const std::size_t table_bytes = std::size_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  auto phdrAt = [&](std::size_t i) { return table + i * sizeof(Elf64_Phdr); };
  std::size_t first_load = 0;
  for (std::size_t i = 0; i < eh.e_phnum; ++i) {
    if (read<Elf64_Phdr>(real, phdrAt(i)).p_type == PT_LOAD) {
      first_load = i;
      break;
    }
  }
  const std::size_t other = first_load == 0 ? 1 : 0;  // a second header to turn into a LOAD

  // Random flips: 1 to 4 random bits in the ELF header, then in the program header table.
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (int region = 0; region < 2; ++region) {
    const std::size_t base = region == 0 ? 0 : table;
    const std::size_t span = region == 0 ? sizeof(Elf64_Ehdr) : table_bytes;
    for (int n = 0; n < 300; ++n) {
      std::vector<std::uint8_t> b = real;
      const int flips = 1 + static_cast<int>(next(state) % 4);
      for (int f = 0; f < flips; ++f) {
        const std::size_t at = base + next(state) % span;
        if (at < b.size()) b[at] ^= static_cast<std::uint8_t>(1u << (next(state) % 8));
      }
      out.push_back({(region == 0 ? "flip_header_" : "flip_phdrs_") + std::to_string(n), b});
    }
  }

  auto withLoad = [&](const std::string& name, auto&& edit) {
    std::vector<std::uint8_t> b = real;
    auto ph = read<Elf64_Phdr>(b, phdrAt(first_load));
    edit(ph, b);
    write(b, phdrAt(first_load), ph);
    out.push_back({name, std::move(b)});
  };
  // Oversized p_memsz: past the node (17 GiB), the 248 GiB of the hardening report, past the
  // address space, the largest value; and a large but valid .bss (8 GiB).
  const std::pair<const char*, std::uint64_t> sizes[] = {{"memsz_8g", std::uint64_t{8} << 30},
                                                         {"memsz_17g", std::uint64_t{17} << 30},
                                                         {"memsz_248g", std::uint64_t{248} << 30},
                                                         {"memsz_2e38", std::uint64_t{1} << 38},
                                                         {"memsz_max", ~std::uint64_t{0}}};
  for (const auto& [name, size] : sizes) {
    withLoad(name, [size = size](Elf64_Phdr& ph, auto&) { ph.p_memsz = size; });
  }
  withLoad("filesz_past_file", [](Elf64_Phdr& ph, auto&) { ph.p_filesz = ph.p_memsz = 1 << 20; });
  withLoad("offset_past_file", [](Elf64_Phdr& ph, auto&) { ph.p_offset = 1 << 30; });
  withLoad("offset_misaligned", [](Elf64_Phdr& ph, auto&) { ph.p_offset += 1; });
  withLoad("vaddr_at_top",
           [](Elf64_Phdr& ph, auto&) { ph.p_vaddr = (std::uint64_t{1} << 38) - 4096; });
  withLoad("vaddr_wraps", [](Elf64_Phdr& ph, auto&) { ph.p_vaddr = ~std::uint64_t{0} - 4095; });
  withLoad("no_permissions", [](Elf64_Phdr& ph, auto&) { ph.p_flags = 0; });

  // Overlapping segments: a second LOAD over the first, whole or in part, writable.
  for (int shift = 0; shift < 3; ++shift) {
    std::vector<std::uint8_t> b = real;
    const auto load = read<Elf64_Phdr>(b, phdrAt(first_load));
    Elf64_Phdr over = load;
    over.p_vaddr = load.p_vaddr + static_cast<std::uint64_t>(shift) * 2048;
    over.p_offset = load.p_offset + static_cast<std::uint64_t>(shift) * 2048;
    over.p_filesz = shift == 2 ? 0 : load.p_filesz / 2;
    over.p_memsz = load.p_memsz + 8192;
    over.p_flags = PF_R | PF_W;
    write(b, phdrAt(other), over);
    out.push_back({"overlap_" + std::to_string(shift), std::move(b)});
  }

  // Entries outside every segment, and header tables out of place.
  auto withHeader = [&](const std::string& name, auto&& edit) {
    std::vector<std::uint8_t> b = real;
    auto h = eh;
    edit(h);
    write(b, 0, h);
    out.push_back({name, std::move(b)});
  };
  const std::pair<const char*, std::uint64_t> entries[] = {{"entry_zero", 0},
                                                           {"entry_unmapped", 0xdeadbeef000},
                                                           {"entry_past_space", ~std::uint64_t{0}}};
  for (const auto& [name, entry] : entries) {
    withHeader(name, [entry = entry](Elf64_Ehdr& h) { h.e_entry = entry; });
  }
  const std::pair<const char*, std::uint64_t> phoffs[] = {
      {"phoff_past_file", 1 << 20}, {"phoff_wraps", ~std::uint64_t{0} - 8}, {"phoff_inside", 1}};
  for (const auto& [name, phoff] : phoffs) {
    withHeader(name, [phoff = phoff](Elf64_Ehdr& h) { h.e_phoff = phoff; });
  }
  for (const std::uint16_t phnum : {0, 0xffff}) {
    withHeader("phnum_" + std::to_string(phnum), [phnum](Elf64_Ehdr& h) { h.e_phnum = phnum; });
  }
  // Truncated files: inside the header, inside the program headers, inside the segment.
  for (const std::size_t size : {std::size_t{10}, table + 20, real.size() / 2}) {
    out.push_back(
        {"truncated_" + std::to_string(size),
         std::vector<std::uint8_t>(real.begin(), real.begin() + std::min(size, real.size()))});
  }
  return out;
}

}  // namespace hpm::test
