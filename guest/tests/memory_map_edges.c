// The memory-map calls at the edges of the address space, where range arithmetic wraps around:
// each gets Linux's answer (an error, or a hint ignored), and the program's own memory is
// untouched. Found by syscall_storm: a mapping hint in the last pages of the 64-bit space made
// hpmsim stop with an internal error, and brk() near 2^64 unmapped the whole program.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

static const uint64_t kTop = 0xfffffffffffff000ull;  // the last page of the 64-bit space

static long raw(long nr, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e) {
  const long r = syscall(nr, a, b, c, d, e, 0);
  return r == -1 ? -errno : r;
}

static void expect(const char* what, long got, long want) {
  printf("%-58s %s\n", what, got == want ? "ok" : "WRONG");
  if (got != want) fprintf(stderr, "%s: got %ld, want %ld\n", what, got, want);
  CHECK(got == want);
}

static int data_word = 12345;  // must survive every call below

int main(void) {
  const long brk_now = raw(SYS_brk, 0, 0, 0, 0, 0);
  expect("brk(2^64 - 1) leaves the break", raw(SYS_brk, ~0ull, 0, 0, 0, 0), brk_now);
  expect("brk(2^64 - 4096) leaves the break", raw(SYS_brk, kTop, 0, 0, 0, 0), brk_now);

  // A hint that does not fit is ignored: the mapping lands elsewhere and works.
  const long hinted = raw(SYS_mmap, kTop, 0x82000, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1);
  CHECK(hinted > 0 && (uint64_t)hinted != kTop);
  memset((void*)hinted, 0x5a, 0x82000);
  expect("mmap with a hint in the last page lands elsewhere", ((char*)hinted)[0x81fff], 0x5a);
  expect("munmap of it", raw(SYS_munmap, (uint64_t)hinted, 0x82000, 0, 0, 0), 0);
  expect(
      "mmap MAP_FIXED in the last page",
      raw(SYS_mmap, kTop, 0x2000, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, (uint64_t)-1),
      -ENOMEM);

  expect("munmap wrapping past 2^64", raw(SYS_munmap, kTop, 0x2000, 0, 0, 0), -EINVAL);
  expect("munmap of a length that rounds to 0", raw(SYS_munmap, 0x10000, ~0ull, 0, 0, 0), -EINVAL);
  expect("mprotect wrapping past 2^64", raw(SYS_mprotect, kTop, 0x2000, PROT_READ, 0, 0), -ENOMEM);
  expect("mprotect of a length that rounds to 0",
         raw(SYS_mprotect, 0x10000, ~0ull, PROT_READ, 0, 0), -ENOMEM);
  expect("madvise(DONTNEED) wrapping past 2^64",
         raw(SYS_madvise, kTop, 0x2000, MADV_DONTNEED, 0, 0), -EINVAL);

  const long m =
      raw(SYS_mmap, 0, 0x4000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1);
  CHECK(m > 0);
  expect("mremap to a length that rounds to 0",
         raw(SYS_mremap, (uint64_t)m, 0x4000, ~0ull, MREMAP_MAYMOVE, 0), -EINVAL);
  expect("mremap MREMAP_FIXED into the last page",
         raw(SYS_mremap, (uint64_t)m, 0x4000, 0x2000, MREMAP_MAYMOVE | MREMAP_FIXED, kTop),
         -EINVAL);
  expect("mremap of a range wrapping past 2^64",
         raw(SYS_mremap, kTop, 0x2000, 0x1000, MREMAP_MAYMOVE, 0), -EFAULT);
  expect("munmap of the test mapping", raw(SYS_munmap, (uint64_t)m, 0x4000, 0, 0, 0), 0);

  expect("the program's data is intact", data_word, 12345);
  return 0;
}
