// Static RV64 ELF executables: validation, loading and symbols.
//
// Accepted: ELF64, little-endian, EM_RISCV, ET_EXEC or ET_DYN without PT_INTERP (static-PIE).
// Everything else is refused with an hpm::Error (ExitCode::kProgram) that names the problem.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "hart/memory.h"

namespace hpm {

struct ElfSegment {
  u64 vaddr = 0;
  u64 offset = 0;
  u64 filesz = 0;
  u64 memsz = 0;
  u8 perm = 0;    // GuestMemory::Perm bits
  u32 index = 0;  // its program header's index, to name it in messages
};

struct ElfSymbol {
  u64 addr = 0;
  u64 size = 0;
  std::string name;
};

class ElfImage {
 public:
  // Parses and validates `bytes` (the whole file); `path` names it in error messages.
  static ElfImage parse(std::vector<u8> bytes, std::string_view path);
  // Reads and parses the file at `path`.
  static ElfImage load(const std::string& path);

  bool isPie() const { return pie_; }
  u64 entry() const { return entry_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  u64 phoff() const { return phoff_; }
  u64 phnum() const { return phnum_; }
  bool executableStack() const { return exec_stack_; }
  const std::optional<ElfSegment>& tls() const { return tls_; }

  // Refuses (hpm::Error, ExitCode::kProgram) an image with a segment larger than `node_bytes`
  // of memory, naming the segment: it could never be backed, and is refused before any of it is
  // mapped. `path` names the program.
  void requireMemory(u64 node_bytes, std::string_view path) const;
  // Maps every PT_LOAD segment at its address plus `bias` (zero unless PIE) and copies in its
  // file contents: one host mapping per run of pages, so the time does not grow with the size.
  // Returns the guest address of the program headers (for AT_PHDR).
  u64 mapInto(GuestMemory& memory, u64 bias) const;
  // The page-aligned end of the highest segment (where the heap begins), plus `bias`.
  u64 endOfImage(u64 bias) const;

  // The contents of the section called `name`, if the file has one (with file contents).
  std::optional<std::span<const u8>> section(std::string_view name) const;

  // The function symbol containing `addr` (after subtracting the load bias), if any.
  const ElfSymbol* symbolFor(u64 addr) const;
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }

 private:
  void readSymbols(std::string_view path);

  std::vector<u8> bytes_;
  bool pie_ = false;
  u64 entry_ = 0;
  u64 phoff_ = 0;
  u64 phnum_ = 0;
  u64 phdr_vaddr_ = 0;
  bool exec_stack_ = false;
  std::vector<ElfSegment> segments_;
  std::optional<ElfSegment> tls_;
  std::vector<ElfSymbol> symbols_;  // function symbols sorted by address
};

}  // namespace hpm
