#include "kernel/elf.h"

#include <elf.h>
#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/bits.h"
#include "base/error.h"

namespace hpm {
namespace {

constexpr u64 kMaxProgramHeaders = 1024;  // Linux refuses tables larger than 64 KiB as well

template <class... Args>
[[noreturn]] void bad(fmt::format_string<Args...> format, Args&&... args) {
  fail(ExitCode::kProgram, format, std::forward<Args>(args)...);
}

std::string_view machineName(u16 machine) {
  switch (machine) {
    case EM_386: return "i386";
    case EM_X86_64: return "x86-64";
    case EM_ARM: return "ARM";
    case EM_AARCH64: return "AArch64";
    case EM_PPC: return "PowerPC";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "S/390";
    case EM_MIPS: return "MIPS";
    case EM_RISCV: return "RISC-V";
    default: return "unknown";
  }
}

// Whether [offset, offset + length) lies within a file of `size` bytes, without overflow.
bool inFile(u64 offset, u64 length, u64 size) {
  return offset <= size && length <= size - offset;
}

// Why [offset, offset + length) is not within a file of `size` bytes (!inFile), in numbers that
// are the header's own: an end past 2^64 is said to overflow, never printed wrapped.
std::string outsideFile(u64 offset, u64 length, u64 size) {
  if (offset > size) {
    return fmt::format("starts at byte {}, past the file's end ({} bytes)", offset, size);
  }
  if (length > ~u64{0} - offset) {
    return fmt::format(
        "has {} bytes from byte {}: offset + size overflows 64 bits (the file has "
        "{} bytes)",
        length, offset, size);
  }
  return fmt::format("ends at byte {}, past the file's end ({} bytes)", offset + length, size);
}

template <class T>
T readAt(const std::vector<u8>& bytes, u64 offset) {
  return loadUnaligned<T>(bytes.data() + offset);
}

}  // namespace

ElfImage ElfImage::load(const std::string& path) {
  // What the path is, before opening it: opening a directory succeeds (reading it then throws
  // from inside the stream), and opening a FIFO waits for a writer, for ever if none comes.
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec) bad("cannot open '{}': {}", path, ec.message());
  if (!std::filesystem::is_regular_file(status)) {
    using std::filesystem::file_type;
    const file_type type = status.type();
    bad("'{}' is not a regular file{}", path,
        type == file_type::directory                               ? " (a directory)"
        : type == file_type::fifo                                  ? " (a FIFO)"
        : type == file_type::socket                                ? " (a socket)"
        : type == file_type::character || type == file_type::block ? " (a device)"
                                                                   : "");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) bad("cannot open '{}': {}", path, std::strerror(errno));
  std::vector<u8> bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    bad("cannot read '{}': {}", path, std::strerror(errno));
  }
  if (in.bad()) bad("cannot read '{}': {}", path, std::strerror(errno));
  return parse(std::move(bytes), path);
}

ElfImage ElfImage::parse(std::vector<u8> bytes, std::string_view path) {
  ElfImage image;
  const u64 size = bytes.size();
  if (size < SELFMAG || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    bad("'{}' is not an ELF file", path);
  }
  if (size < EI_NIDENT + 4) bad("'{}' is truncated: the ELF header is incomplete", path);
  const u16 machine = readAt<u16>(bytes, offsetof(Elf64_Ehdr, e_machine));
  if (machine != EM_RISCV) {
    bad("'{}' is not a RISC-V program (machine: {}); hpmsim runs RV64 Linux programs", path,
        machineName(machine));
  }
  if (bytes[EI_CLASS] == ELFCLASS32) {
    bad("'{}' is a 32-bit ELF (RV32); hpmsim runs 64-bit RISC-V (RV64) programs", path);
  }
  if (bytes[EI_CLASS] != ELFCLASS64) bad("'{}' has an invalid ELF class", path);
  if (bytes[EI_DATA] != ELFDATA2LSB) bad("'{}' is not little-endian", path);
  if (size < sizeof(Elf64_Ehdr)) bad("'{}' is truncated: the ELF header is incomplete", path);

  const auto eh = readAt<Elf64_Ehdr>(bytes, 0);
  if (eh.e_type == ET_REL) bad("'{}' is an object file, not an executable", path);
  if (eh.e_type == ET_CORE) bad("'{}' is a core dump, not an executable", path);
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) bad("'{}' is not an executable", path);
  if (eh.e_phnum == 0) bad("'{}' has no program headers", path);
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) {
    bad("'{}' has program headers of {} bytes (expected {})", path, eh.e_phentsize,
        sizeof(Elf64_Phdr));
  }
  if (eh.e_phnum > kMaxProgramHeaders) {
    bad("'{}': the program header table is too large ({} entries)", path, eh.e_phnum);
  }
  const u64 table_bytes = u64{eh.e_phnum} * eh.e_phentsize;
  if (!inFile(eh.e_phoff, table_bytes, size)) {
    bad("'{}' is truncated: its program header table {}", path,
        outsideFile(eh.e_phoff, table_bytes, size));
  }
  const u64 table_end = eh.e_phoff + table_bytes;  // (within the file: no overflow)

  image.entry_ = eh.e_entry;
  image.phoff_ = eh.e_phoff;
  image.phnum_ = eh.e_phnum;
  image.pie_ = eh.e_type == ET_DYN;
  bool have_phdr_segment = false;
  for (u64 i = 0; i < eh.e_phnum; ++i) {
    const auto ph = readAt<Elf64_Phdr>(bytes, eh.e_phoff + i * sizeof(Elf64_Phdr));
    switch (ph.p_type) {
      case PT_INTERP:
        bad("'{}': dynamically linked programs are not supported: link with -static", path);
      case PT_GNU_STACK: image.exec_stack_ = (ph.p_flags & PF_X) != 0; break;
      case PT_PHDR:
        image.phdr_vaddr_ = ph.p_vaddr;
        have_phdr_segment = true;
        break;
      case PT_LOAD:
      case PT_TLS: {
        if (ph.p_memsz >= GuestMemory::kMaxVaLimit || ph.p_vaddr >= GuestMemory::kMaxVaLimit ||
            ph.p_vaddr + ph.p_memsz > GuestMemory::kMaxVaLimit) {
          bad("'{}': segment {} is too large for the address space (address {:#x}, size {:#x})",
              path, i, ph.p_vaddr, ph.p_memsz);
        }
        if (ph.p_filesz > ph.p_memsz) {
          bad("'{}': segment {} has more file bytes ({}) than memory bytes ({})", path, i,
              ph.p_filesz, ph.p_memsz);
        }
        if (!inFile(ph.p_offset, ph.p_filesz, size)) {
          bad("'{}': segment {} extends beyond the end of the file: it {}", path, i,
              outsideFile(ph.p_offset, ph.p_filesz, size));
        }
        ElfSegment seg{ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, 0, static_cast<u32>(i)};
        if (ph.p_flags & PF_R) seg.perm |= GuestMemory::kRead;
        if (ph.p_flags & PF_W) seg.perm |= GuestMemory::kWrite;
        if (ph.p_flags & PF_X) seg.perm |= GuestMemory::kExec;
        if (ph.p_type == PT_TLS) {
          image.tls_ = seg;
        } else {
          if ((ph.p_vaddr - ph.p_offset) % GuestMemory::kPageSize != 0) {
            bad("'{}': segment {} is not page-aligned with its file offset", path, i);
          }
          image.segments_.push_back(seg);
        }
        break;
      }
      default: break;
    }
  }
  if (image.segments_.empty()) bad("'{}' has no loadable segments", path);
  if (!have_phdr_segment) {
    // As Linux does: the headers are at the address where their file offset is loaded.
    for (const ElfSegment& seg : image.segments_) {
      if (eh.e_phoff >= seg.offset && table_end <= seg.offset + seg.filesz) {
        image.phdr_vaddr_ = seg.vaddr + (eh.e_phoff - seg.offset);
      }
    }
  }
  image.bytes_ = std::move(bytes);
  image.readSymbols(path);
  return image;
}

void ElfImage::readSymbols(std::string_view) {
  const auto eh = readAt<Elf64_Ehdr>(bytes_, 0);
  const u64 size = bytes_.size();
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !inFile(eh.e_shoff, u64{eh.e_shnum} * sizeof(Elf64_Shdr), size)) {
    return;  // no usable section headers: symbols are optional
  }
  for (u64 i = 0; i < eh.e_shnum; ++i) {
    const auto sh = readAt<Elf64_Shdr>(bytes_, eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
    if (sh.sh_link >= eh.e_shnum || !inFile(sh.sh_offset, sh.sh_size, size)) continue;
    const auto strtab = readAt<Elf64_Shdr>(bytes_, eh.e_shoff + sh.sh_link * sizeof(Elf64_Shdr));
    if (!inFile(strtab.sh_offset, strtab.sh_size, size)) continue;
    for (u64 off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      const auto sym = readAt<Elf64_Sym>(bytes_, sh.sh_offset + off);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0) continue;
      if (sym.st_name >= strtab.sh_size) continue;
      const char* name =
          reinterpret_cast<const char*>(bytes_.data() + strtab.sh_offset + sym.st_name);
      const std::size_t max_len = strtab.sh_size - sym.st_name;
      symbols_.push_back(
          ElfSymbol{sym.st_value, sym.st_size, std::string(name, strnlen(name, max_len))});
    }
  }
  std::sort(symbols_.begin(), symbols_.end(),
            [](const ElfSymbol& a, const ElfSymbol& b) { return a.addr < b.addr; });
}

void ElfImage::requireMemory(u64 node_bytes, std::string_view path) const {
  for (const ElfSegment& seg : segments_) {
    if (seg.memsz > node_bytes) {
      fail(ExitCode::kProgram,
           "'{}': segment {} needs {} bytes of memory ({} MiB), more than the node's {} MiB "
           "(node.memory_mib)",
           path, seg.index, seg.memsz, alignUp(seg.memsz, u64{1} << 20) >> 20, node_bytes >> 20);
    }
  }
}

u64 ElfImage::mapInto(GuestMemory& memory, u64 bias) const {
  // (parse() checked each segment against the largest space without the bias; the bias, or a
  // smaller space (kernel.address_space_gib), may push one past the end.)
  for (const ElfSegment& seg : segments_) {
    if (seg.vaddr + bias < seg.vaddr || seg.vaddr + bias + seg.memsz > memory.limit()) {
      fail(ExitCode::kProgram,
           "segment {} does not fit in the address space at load address {:#x} (size {:#x}; "
           "the space ends at {:#x}, kernel.address_space_gib)",
           seg.index, seg.vaddr + bias, seg.memsz, memory.limit());
    }
  }
  // Pages shared by two segments get the union of their permissions, as with Linux's mmaps.
  for (const ElfSegment& seg : segments_) {
    const u64 start = alignDown(seg.vaddr + bias, GuestMemory::kPageSize);
    const u64 end = alignUp(seg.vaddr + bias + seg.memsz, GuestMemory::kPageSize);
    // One host mapping per run of pages no earlier segment took (lazily backed, so the time
    // does not grow with the size); the shared pages are only re-protected.
    for (u64 page = start; page < end;) {
      u64 run_end = page + GuestMemory::kPageSize;
      const u8 old = memory.pagePerm(page);
      if (old == GuestMemory::kNone) {
        while (run_end < end && memory.pagePerm(run_end) == GuestMemory::kNone) {
          run_end += GuestMemory::kPageSize;
        }
        memory.map(page, run_end - page, seg.perm);
      } else {
        memory.protect(page, GuestMemory::kPageSize, old | seg.perm);
      }
      page = run_end;
    }
    if (seg.filesz != 0) {
      std::memcpy(memory.hostUnchecked(seg.vaddr + bias), bytes_.data() + seg.offset, seg.filesz);
    }
  }
  return phdr_vaddr_ + bias;
}

u64 ElfImage::endOfImage(u64 bias) const {
  u64 end = 0;
  for (const ElfSegment& seg : segments_) end = std::max(end, seg.vaddr + seg.memsz);
  return alignUp(end + bias, GuestMemory::kPageSize);
}

std::optional<std::span<const u8>> ElfImage::section(std::string_view name) const {
  const auto eh = readAt<Elf64_Ehdr>(bytes_, 0);
  const u64 size = bytes_.size();
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
      !inFile(eh.e_shoff, u64{eh.e_shnum} * sizeof(Elf64_Shdr), size)) {
    return std::nullopt;
  }
  const auto names = readAt<Elf64_Shdr>(bytes_, eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr));
  if (!inFile(names.sh_offset, names.sh_size, size)) return std::nullopt;
  for (u64 i = 0; i < eh.e_shnum; ++i) {
    const auto sh = readAt<Elf64_Shdr>(bytes_, eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (sh.sh_name >= names.sh_size || sh.sh_type == SHT_NOBITS) continue;
    const char* text = reinterpret_cast<const char*>(bytes_.data() + names.sh_offset + sh.sh_name);
    if (std::string_view(text, strnlen(text, names.sh_size - sh.sh_name)) != name) continue;
    if (!inFile(sh.sh_offset, sh.sh_size, size)) return std::nullopt;
    return std::span<const u8>(bytes_.data() + sh.sh_offset, sh.sh_size);
  }
  return std::nullopt;
}

const ElfSymbol* ElfImage::symbolFor(u64 addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](u64 a, const ElfSymbol& s) { return a < s.addr; });
  if (it == symbols_.begin()) return nullptr;
  --it;
  if (addr < it->addr + std::max<u64>(it->size, 1)) return &*it;
  return nullptr;
}

}  // namespace hpm
