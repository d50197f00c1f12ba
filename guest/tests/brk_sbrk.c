// The program break: sbrk(0) is page-independent of the executable's end in value, so only
// differences are printed: growth by odd sizes (the returned old break moves by exactly the
// increment), writes up to the new break, shrinking with a negative increment, growth again,
// brk(2) directly to an absolute address, and a huge increment that must fail with ENOMEM
// while leaving the break unchanged.
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

int main(void) {
  char* start = sbrk(0);
  CHECK(start != (char*)-1);
  char* old = sbrk(100000);
  CHECK(old == start);
  char* now = sbrk(0);
  printf("grow 100000: moved by %td\n", now - start);
  memset(start, 0x5a, 100000);  // the whole new range is writable
  uint64_t h = fnv1a(start, 100000);
  printf("digest of grown area: %016llx\n", (unsigned long long)h);

  old = sbrk(12345);
  printf("grow 12345: old break at +%td, now +%td\n", old - start, (char*)sbrk(0) - start);
  start[112344] = 1;

  old = sbrk(-50000);
  printf("shrink 50000: old +%td, now +%td\n", old - start, (char*)sbrk(0) - start);
  old = sbrk(8192);
  printf("grow 8192: old +%td, now +%td\n", old - start, (char*)sbrk(0) - start);
  start[62345 + 8191] = 2;

  // brk(2) to an absolute address.
  CHECK(brk(start + 4096 * 50) == 0);
  printf("brk(start+50 pages): now +%td\n", (char*)sbrk(0) - start);
  start[4096 * 50 - 1] = 3;
  CHECK(brk(start + 4096) == 0);
  printf("brk(start+1 page): now +%td\n", (char*)sbrk(0) - start);

  // A huge request fails and leaves the break alone.
  errno = 0;
  void* r = sbrk((intptr_t)1 << 46);
  printf("huge sbrk failed=%d errno=%s now +%td\n", r == (void*)-1, strerror(errno),
         (char*)sbrk(0) - start);

  // Back to the start; malloc still works afterwards (it uses the break or mmap).
  CHECK(brk(start) == 0);
  printf("back to start: now +%td\n", (char*)sbrk(0) - start);
  char* m = malloc(1000);
  CHECK(m != NULL);
  strcpy(m, "malloc after brk games");
  puts(m);
  free(m);
  return 0;
}
