// A segmentation fault: after printing (and flushing) a line, the program stores to an
// address that is not mapped. It must die of SIGSEGV; the faulting store does not retire.
// The address is a page that was mapped and then unmapped, so nothing else can be there.
#include <sys/mman.h>

#include "common.h"

int main(void) {
  volatile int* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK((void*)p != MAP_FAILED);
  *p = 1;
  CHECK(munmap((void*)p, 4096) == 0);
  printf("about to store to an unmapped page\n");
  fflush(stdout);
  *p = 2;
  printf("survived the store?!\n");
  return 0;
}
