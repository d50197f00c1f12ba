// Writes the malformed-ELF seeds (elf_seeds.h) made from a real static binary into a directory,
// for the ELF fuzzer: `elf_seeds BINARY DIR`.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/fuzz/elf_seeds.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: elf_seeds BINARY DIR\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<std::uint8_t> real{std::istreambuf_iterator<char>(in),
                                       std::istreambuf_iterator<char>()};
  if (real.size() < sizeof(Elf64_Ehdr)) {
    std::fprintf(stderr, "elf_seeds: cannot read an ELF file from '%s'\n", argv[1]);
    return 1;
  }
  std::filesystem::create_directories(argv[2]);
  for (const hpm::test::ElfSeed& seed : hpm::test::malformedElfSeeds(real)) {
    std::ofstream out(std::filesystem::path(argv[2]) / seed.name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(seed.bytes.data()),
              static_cast<std::streamsize>(seed.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "elf_seeds: cannot write '%s'\n", seed.name.c_str());
      return 1;
    }
  }
  return 0;
}
