#include "kernel/elf.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"

namespace hpm {
namespace {

// A minimal valid static RV64 executable: header, one PT_LOAD of the whole file.
std::vector<u8> minimalElf() {
  std::vector<u8> bytes(sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + 8, 0);
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_RISCV;
  eh.e_version = EV_CURRENT;
  eh.e_entry = 0x10000 + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_X;
  ph.p_vaddr = 0x10000;
  ph.p_filesz = ph.p_memsz = bytes.size();
  ph.p_align = 0x1000;
  std::memcpy(bytes.data(), &eh, sizeof eh);
  std::memcpy(bytes.data() + sizeof eh, &ph, sizeof ph);
  return bytes;
}

Elf64_Phdr& phdr(std::vector<u8>& bytes) {
  return *reinterpret_cast<Elf64_Phdr*>(bytes.data() + sizeof(Elf64_Ehdr));
}
Elf64_Ehdr& ehdr(std::vector<u8>& bytes) {
  return *reinterpret_cast<Elf64_Ehdr*>(bytes.data());
}

std::string errorOf(std::vector<u8> bytes) {
  try {
    ElfImage::parse(std::move(bytes), "prog");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kProgram);
    return e.what();
  }
  return "";
}

TEST(Elf, MinimalStaticExecutableLoads) {
  ElfImage image = ElfImage::parse(minimalElf(), "prog");
  GuestMemory memory;
  const u64 phdr_addr = image.mapInto(memory, 0);
  EXPECT_EQ(phdr_addr, 0x10000 + sizeof(Elf64_Ehdr));
  EXPECT_EQ(memory.pagePerm(0x10000), GuestMemory::kRead | GuestMemory::kExec);
  EXPECT_EQ(image.endOfImage(0), 0x11000u);
}

// minimalElf() with a PT_GNU_STACK header (flags `flags`) after its PT_LOAD.
std::vector<u8> withGnuStack(u32 flags) {
  std::vector<u8> bytes = minimalElf();
  Elf64_Phdr stack{};
  stack.p_type = PT_GNU_STACK;
  stack.p_flags = flags;
  const auto* raw = reinterpret_cast<const u8*>(&stack);
  bytes.insert(bytes.begin() + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), raw, raw + sizeof stack);
  ehdr(bytes).e_phnum = 2;
  phdr(bytes).p_filesz = phdr(bytes).p_memsz = bytes.size();
  ehdr(bytes).e_entry += sizeof stack;
  return bytes;
}

TEST(Elf, GnuStackDecidesWhetherTheStackIsExecutable) {
  EXPECT_FALSE(ElfImage::parse(withGnuStack(PF_R | PF_W), "prog").executableStack());
  EXPECT_TRUE(ElfImage::parse(withGnuStack(PF_R | PF_W | PF_X), "prog").executableStack());
}

TEST(Elf, RejectionsNameTheProblem) {
  EXPECT_NE(errorOf({'h', 'i'}).find("not an ELF file"), std::string::npos);
  EXPECT_NE(errorOf({}).find("not an ELF file"), std::string::npos);
  auto header_only = minimalElf();
  header_only.resize(sizeof(Elf64_Ehdr));
  EXPECT_NE(errorOf(header_only).find("truncated"), std::string::npos);
  auto cut = minimalElf();
  cut.resize(20);
  EXPECT_NE(errorOf(cut).find("truncated"), std::string::npos);

  auto x86 = minimalElf();
  ehdr(x86).e_machine = EM_X86_64;
  EXPECT_NE(errorOf(x86).find("not a RISC-V program (machine: x86-64)"), std::string::npos);
  auto rv32 = minimalElf();
  rv32[EI_CLASS] = ELFCLASS32;
  EXPECT_NE(errorOf(rv32).find("32-bit"), std::string::npos);
  auto big_endian = minimalElf();
  big_endian[EI_DATA] = ELFDATA2MSB;
  EXPECT_NE(errorOf(big_endian).find("little-endian"), std::string::npos);

  auto dynamic = minimalElf();
  phdr(dynamic).p_type = PT_INTERP;
  EXPECT_NE(
      errorOf(dynamic).find("dynamically linked programs are not supported: link with -static"),
      std::string::npos);
  auto beyond = minimalElf();
  phdr(beyond).p_filesz = beyond.size() + 1;
  phdr(beyond).p_memsz = beyond.size() + 1;
  EXPECT_NE(errorOf(beyond).find("beyond the end of the file"), std::string::npos);
  auto huge = minimalElf();
  phdr(huge).p_memsz = u64{1} << 62;
  EXPECT_NE(errorOf(huge).find("too large"), std::string::npos);
  auto many = minimalElf();
  ehdr(many).e_phnum = 0xffff;
  EXPECT_NE(errorOf(many).find("too large"), std::string::npos);
  auto relocatable = minimalElf();
  ehdr(relocatable).e_type = ET_REL;
  EXPECT_NE(errorOf(relocatable).find("object file"), std::string::npos);
}

// An offset near 2^64 is reported as the header gives it: the end it cannot have is said to
// overflow or to lie past the file's end, never printed wrapped round to a small number.
TEST(Elf, OffsetsWhoseEndOverflowsAreReportedWithoutWrapping) {
  const u64 size = minimalElf().size();
  auto segment = minimalElf();
  phdr(segment).p_offset = ~u64{0} - 7;  // + p_filesz wraps round to a small number
  const std::string segment_error = errorOf(segment);
  EXPECT_NE(segment_error.find("segment 0 extends beyond the end of the file: it starts at byte " +
                               std::to_string(~u64{0} - 7) + ", past the file's end (" +
                               std::to_string(size) + " bytes)"),
            std::string::npos)
      << segment_error;
  const std::string wrapped = std::to_string((~u64{0} - 7) + size);
  EXPECT_EQ(segment_error.find(wrapped), std::string::npos) << segment_error;

  auto past = minimalElf();
  phdr(past).p_offset = 1000;
  phdr(past).p_filesz = 8;
  EXPECT_NE(errorOf(past).find("it starts at byte 1000, past the file's end (" +
                               std::to_string(size) + " bytes)"),
            std::string::npos)
      << errorOf(past);

  auto table = minimalElf();
  ehdr(table).e_phoff = ~u64{0} - 8;
  const std::string table_error = errorOf(table);
  EXPECT_NE(table_error.find("its program header table starts at byte " +
                             std::to_string(~u64{0} - 8) + ", past the file's end"),
            std::string::npos)
      << table_error;
}

TEST(Elf, SymbolLookupFindsTheContainingFunction) {
  // No section headers: lookups find nothing rather than failing.
  ElfImage image = ElfImage::parse(minimalElf(), "prog");
  EXPECT_EQ(image.symbolFor(0x10040), nullptr);
}

}  // namespace
}  // namespace hpm
