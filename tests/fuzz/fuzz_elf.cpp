// Fuzzes the ELF loader: arbitrary bytes are either refused with hpm::Error or load into a
// guest address space; nothing else (no crash, no other exception) is acceptable.
#include <vector>

#include "base/error.h"
#include "kernel/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  static hpm::GuestMemory* memory = new hpm::GuestMemory();  // reserved once: 256 GiB of VA
  std::vector<hpm::u8> bytes(data, data + size);
  try {
    const hpm::ElfImage image = hpm::ElfImage::parse(std::move(bytes), "fuzz");
    const hpm::u64 bias = image.isPie() ? 0x2aaaaaa000 : 0;
    // Huge images are valid but would only exercise the host's page allocator.
    hpm::u64 total = 0;
    for (const hpm::ElfSegment& seg : image.segments()) total += seg.memsz;
    if (total > (64u << 20)) return 0;
    image.mapInto(*memory, bias);
    (void)image.symbolFor(image.entry());
    for (const hpm::ElfSegment& seg : image.segments()) {
      const hpm::u64 start = (seg.vaddr + bias) & ~0xfffull;
      memory->unmap(start, ((seg.vaddr + bias + seg.memsz + 0xfff) & ~0xfffull) - start);
    }
  } catch (const hpm::Error&) {
  }
  return 0;
}
