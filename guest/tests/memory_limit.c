// The node's memory bounds the guest (hpmsim only: under qemu-user the host's memory is the
// limit). Run on a node with little memory (--set node.memory_mib=256), it asks for more than
// the node has in every way a program can, and expects what a compute node without swap gives:
// malloc, mmap, brk, mprotect and mremap fail with ENOMEM; address space reserved with
// PROT_NONE costs nothing until it is made accessible; memory given back can be taken again.
// It then takes 16 MiB blocks, touching every page, until malloc fails, and prints how much it
// got ("touched_mib=N"): the test holds N below the node's memory and hpmsim's own peak host
// memory below the node's memory plus its documented overhead. First it prints where its stack
// ends ("stack_end_mib=N", from /proc/self/maps): the top of the guest's address space.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "common.h"

enum { kBlockMib = 16 };

// The end of the [stack] mapping in /proc/self/maps.
static unsigned long long stackEnd(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  CHECK(maps != NULL);
  char line[512];
  unsigned long long start = 0, end = 0;
  while (fgets(line, sizeof line, maps) != NULL) {
    if (strstr(line, "[stack]") != NULL) CHECK(sscanf(line, "%llx-%llx", &start, &end) == 2);
  }
  fclose(maps);
  CHECK(end != 0);
  return end;
}

int main(void) {
  struct sysinfo info;
  CHECK(sysinfo(&info) == 0);
  const size_t node = (size_t)info.totalram * info.mem_unit;
  CHECK(node >= (size_t)64 << 20);
  printf("node_mib=%zu\n", node >> 20);
  printf("stack_end_mib=%llu\n", stackEnd() >> 20);

  // One allocation larger than the node: glibc's malloc asks mmap, which refuses it.
  errno = 0;
  void* big = malloc(2 * node);
  CHECK(big == NULL && errno == ENOMEM);
  errno = 0;
  CHECK(mmap(NULL, 2 * node, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
            MAP_FAILED &&
        errno == ENOMEM);
  errno = 0;
  CHECK(sbrk((intptr_t)(2 * node)) == (void*)-1 && errno == ENOMEM);
  printf("oversized malloc, mmap and sbrk: ENOMEM\n");

  // A reservation without access is free; making all of it accessible is not.
  char* reserve = mmap(NULL, 4 * node, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(reserve != MAP_FAILED);
  errno = 0;
  CHECK(mprotect(reserve, 2 * node, PROT_READ | PROT_WRITE) == -1 && errno == ENOMEM);
  CHECK(mprotect(reserve, (size_t)1 << 20, PROT_READ | PROT_WRITE) == 0);
  memset(reserve, 7, (size_t)1 << 20);
  // Growing the accessible part past the node's memory with mremap is refused too.
  errno = 0;
  CHECK(mremap(reserve, (size_t)1 << 20, 2 * node, MREMAP_MAYMOVE) == MAP_FAILED &&
        errno == ENOMEM);
  CHECK(reserve[12345] == 7);
  CHECK(munmap(reserve, 4 * node) == 0);
  printf("PROT_NONE reservation of 4x the node: free; mprotect and mremap past it: ENOMEM\n");

  // Fill the node, touching every page, until malloc says no.
  enum { kMaxBlocks = 4096 };
  static char* blocks[kMaxBlocks];
  size_t n = 0;
  while (n < kMaxBlocks) {
    char* b = malloc((size_t)kBlockMib << 20);
    if (b == NULL) {
      CHECK(errno == ENOMEM);
      break;
    }
    for (size_t off = 0; off < ((size_t)kBlockMib << 20); off += 4096) b[off] = (char)n;
    blocks[n++] = b;
  }
  CHECK(n < kMaxBlocks);
  const size_t touched = n * kBlockMib;
  CHECK(touched < (node >> 20));
  CHECK(touched + 4 * kBlockMib >= (node >> 20));  // all but the program, stack and slack
  for (size_t i = 0; i < n; ++i) CHECK(blocks[i][4096 * 3] == (char)i);
  printf("touched_mib=%zu\n", touched);

  // Given back, it can be taken again.
  for (size_t i = 0; i < n; ++i) free(blocks[i]);
  char* again = malloc((size_t)(touched / 2) << 20);
  CHECK(again != NULL);
  memset(again, 1, (size_t)(touched / 2) << 20);
  free(again);
  printf("freed and taken again\n");
  return 0;
}
