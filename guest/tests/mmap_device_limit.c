// Device windows and the mapping limit (hpmsim only: qemu-user has no /dev/hpm devices).
//
//   mmap_device_limit [DEVICE [COUNT]]   (default: /dev/hpm/sim, 70000)
//
// Maps one page of DEVICE's register window COUNT times: every mmap succeeds until the process
// has Linux's default vm.max_map_count (65,530) mappings, each one after fails with ENOMEM, and
// an munmap makes room for exactly one more. mprotect(PROT_EXEC) of a window fails with EACCES,
// as mmap with PROT_EXEC does, and other protections leave it a device window (its loads still
// read the device).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char** argv) {
  const char* device = argc > 1 ? argv[1] : "/dev/hpm/sim";
  const long count = argc > 2 ? strtol(argv[2], 0, 0) : 70000;
  const int fd = open(device, O_RDWR);
  CHECK(fd >= 0);
  const long page = sysconf(_SC_PAGESIZE);
  CHECK(mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) == MAP_FAILED &&
        errno == EACCES);

  volatile uint64_t** maps = malloc(count * sizeof *maps);
  CHECK(maps != NULL);
  long mapped = 0, refused = 0;
  for (long i = 0; i < count; ++i) {
    void* p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      CHECK(errno == ENOMEM);
      ++refused;
    } else {
      CHECK(refused == 0);  // (no success after the first refusal)
      maps[mapped++] = p;
    }
  }
  // The program's own mappings (its segments, stack, heap, ...) count too.
  CHECK(mapped > 65530 - 64 && mapped < 65530);
  CHECK(refused == count - mapped);
  // Every window reads the device's registers.
  (void)*maps[0];
  (void)*maps[mapped - 1];

  // One munmap, one more mapping; then the limit again.
  CHECK(munmap((void*)maps[mapped - 1], page) == 0);
  void* again = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(again != MAP_FAILED);
  CHECK(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == ENOMEM);

  // mprotect: PROT_EXEC refused as mmap refuses it; PROT_READ leaves a device window.
  CHECK(mprotect((void*)maps[0], page, PROT_READ | PROT_EXEC) == -1 && errno == EACCES);
  CHECK(mprotect((void*)maps[0], page, PROT_READ) == 0);
  (void)*maps[0];

  for (long i = 0; i + 1 < mapped; ++i) CHECK(munmap((void*)maps[i], page) == 0);
  printf("%s: %ld windows refused with ENOMEM past the limit, each munmap made room for one\n",
         device, refused);
  return 0;
}
