// Fuzzes the ELF loader: arbitrary bytes are either refused with hpm::Error naming the problem
// (never ExitCode::kInternal, which would be a broken invariant) or load into a guest address
// space as the kernel loads them, against a node of 16 GiB; nothing else (no crash, no other
// exception) is acceptable. scripts/test.sh runs it with a one-second limit per input.
#include <cstdlib>
#include <vector>

#include "base/error.h"
#include "kernel/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  static hpm::GuestMemory* memory = new hpm::GuestMemory();  // reserved once: 256 GiB of VA
  constexpr hpm::u64 kNodeBytes = hpm::u64{16} << 30;        // bgq's node.memory_mib
  std::vector<hpm::u8> bytes(data, data + size);
  try {
    const hpm::ElfImage image = hpm::ElfImage::parse(std::move(bytes), "fuzz");
    const hpm::u64 bias = image.isPie() ? 0x2aaaaaa000 : 0;
    image.requireMemory(kNodeBytes, "fuzz");
    image.mapInto(*memory, bias);
    (void)image.symbolFor(image.entry());
    for (const hpm::ElfSegment& seg : image.segments()) {
      const hpm::u64 start = (seg.vaddr + bias) & ~0xfffull;
      memory->unmap(start, ((seg.vaddr + bias + seg.memsz + 0xfff) & ~0xfffull) - start);
    }
  } catch (const hpm::Error& e) {
    if (e.code() == hpm::ExitCode::kInternal) std::abort();
  }
  return 0;
}
