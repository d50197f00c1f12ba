// Anonymous memory mappings: mmap of private anonymous memory (zero-filled, page-granular,
// MAP_FIXED over part of an existing mapping), munmap of a middle part (the rest stays
// usable), mremap growing in place or moving (MREMAP_MAYMOVE) with the contents preserved and
// shrinking, mprotect to read-only and back (reads still work), MAP_SHARED|MAP_ANONYMOUS,
// madvise(MADV_DONTNEED) zeroing private pages, and the errors of bad arguments. Addresses are
// never printed; only contents and results are.
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"

enum { kPage = 4096 };

static uint64_t digest(const unsigned char* p, size_t len) {
  return fnv1a(p, len);
}

int main(void) {
  size_t len = 64 * kPage;
  unsigned char* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  CHECK(((uintptr_t)p & (kPage - 1)) == 0);
  for (size_t i = 0; i < len; ++i) CHECK(p[i] == 0);
  for (size_t i = 0; i < len; ++i) p[i] = (unsigned char)(i / kPage + i * 13);
  printf("mmap 64 pages: digest=%016llx\n", (unsigned long long)digest(p, len));

  // MAP_FIXED over pages 10..11 replaces them with fresh zero pages.
  unsigned char* fixed = mmap(p + 10 * kPage, 2 * kPage, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  CHECK(fixed == p + 10 * kPage);
  printf("MAP_FIXED page zero=%d neighbour intact=%d\n", fixed[100] == 0,
         p[9 * kPage + 5] == (unsigned char)(9 + (9 * kPage + 5) * 13));

  // munmap the middle; both sides stay.
  CHECK(munmap(p + 20 * kPage, 4 * kPage) == 0);
  printf("after munmap: before=%u after=%u\n", p[19 * kPage], p[24 * kPage]);
  // munmap of an unaligned address fails.
  errno = 0;
  CHECK(munmap(p + 1, kPage) == -1);
  printf("munmap unaligned: %s\n", strerror(errno));

  // mremap: shrink the tail part (pages 24..63) to 8 pages, then grow it with MAYMOVE.
  unsigned char* tail = p + 24 * kPage;
  uint64_t before = digest(tail, 8 * kPage);
  unsigned char* shrunk = mremap(tail, 40 * kPage, 8 * kPage, 0);
  CHECK(shrunk == tail);
  unsigned char* grown = mremap(shrunk, 8 * kPage, 256 * kPage, MREMAP_MAYMOVE);
  CHECK(grown != MAP_FAILED);
  printf("mremap grow: contents kept=%d new part zero=%d\n", digest(grown, 8 * kPage) == before,
         grown[200 * kPage] == 0 && grown[256 * kPage - 1] == 0);
  grown[255 * kPage] = 42;
  // Growing without MAYMOVE where the next pages are taken fails with ENOMEM (or succeeds in
  // place if free); pin the neighbour with MAP_FIXED_NOREPLACE first so the result is fixed.
  unsigned char* pin = mmap(grown + 256 * kPage, kPage, PROT_READ,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (pin == grown + 256 * kPage) {
    errno = 0;
    CHECK(mremap(grown, 256 * kPage, 300 * kPage, 0) == MAP_FAILED);
    printf("mremap blocked: %s\n", strerror(errno));
    CHECK(munmap(pin, kPage) == 0);
  } else {
    printf("mremap blocked: %s\n", strerror(ENOMEM));  // the neighbour was taken already
    if (pin != MAP_FAILED) CHECK(munmap(pin, kPage) == 0);
  }
  CHECK(munmap(grown, 256 * kPage) == 0);

  // mprotect: read-only still readable; back to read-write.
  CHECK(mprotect(p, 4 * kPage, PROT_READ) == 0);
  printf("read-only read: %u\n", p[3 * kPage + 1]);
  CHECK(mprotect(p, 4 * kPage, PROT_READ | PROT_WRITE) == 0);
  p[0] = 0x5a;
  errno = 0;
  CHECK(mprotect(p + 3, kPage, PROT_READ) == -1);
  printf("mprotect unaligned: %s\n", strerror(errno));

  // madvise(MADV_DONTNEED) on private anonymous memory gives zero pages back.
  CHECK(madvise(p + 2 * kPage, kPage, MADV_DONTNEED) == 0);
  printf("after MADV_DONTNEED: %u (page 1 keeps %u)\n", p[2 * kPage + 7], p[kPage + 7]);
  CHECK(munmap(p, 20 * kPage) == 0);

  // Shared anonymous memory behaves like memory in one process.
  int* shared = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(shared != MAP_FAILED);
  shared[0] = 7;
  shared[1023] = shared[0] * 6;
  printf("shared anonymous: %d\n", shared[1023]);
  CHECK(munmap(shared, kPage) == 0);

  // Bad arguments.
  errno = 0;
  CHECK(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED);
  printf("mmap length 0: %s\n", strerror(errno));
  errno = 0;
  CHECK(mmap(NULL, kPage, PROT_READ, MAP_ANONYMOUS, -1, 0) == MAP_FAILED);
  printf("mmap without PRIVATE/SHARED: %s\n", strerror(errno));
  errno = 0;
  CHECK(mmap(NULL, kPage, PROT_READ, MAP_PRIVATE, 99, 0) == MAP_FAILED);
  printf("mmap of a bad fd: %s\n", strerror(errno));

  // Many small mappings created and destroyed (exercises the kernel's mapping bookkeeping).
  uint64_t acc = 0;
  for (int i = 0; i < 200; ++i) {
    size_t n = (size_t)(1 + i % 7) * kPage;
    unsigned char* q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(q != MAP_FAILED);
    q[n - 1] = (unsigned char)i;
    acc += q[n - 1] + q[0];
    CHECK(munmap(q, n) == 0);
  }
  printf("200 map/unmap cycles: acc=%llu\n", (unsigned long long)acc);
  return 0;
}
