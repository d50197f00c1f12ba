// Illegal instructions: argv[1] selects which encoding is executed after a flushed line:
//   zero32   the all-zero 32-bit word (.word 0)
//   zero16   the all-zero 16-bit parcel (.half 0, defined illegal)
//   ones     0xffffffff (a reserved encoding, >= 48-bit instruction prefix)
//   csr      a read of a CSR that does not exist in user mode (mhartid is machine mode)
//   unimp    the assembler's unimp (csrrw x0, cycle, x0: a write to a read-only CSR)
// Each must die of SIGILL; the illegal instruction does not retire.
#include <string.h>

#include "common.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "zero32";
  printf("executing illegal instruction: %s\n", which);
  fflush(stdout);
  if (strcmp(which, "zero32") == 0) {
    __asm__ volatile(".option push\n.option norvc\n.word 0\n.option pop");
  } else if (strcmp(which, "zero16") == 0) {
    __asm__ volatile(".half 0\n.half 0");
  } else if (strcmp(which, "ones") == 0) {
    __asm__ volatile(".word 0xffffffff");
  } else if (strcmp(which, "csr") == 0) {
    unsigned long v;
    __asm__ volatile("csrr %0, mhartid" : "=r"(v));
    printf("mhartid=%lu?!\n", v);
  } else if (strcmp(which, "unimp") == 0) {
    __asm__ volatile(".option push\n.option norvc\nunimp\n.option pop");
  } else {
    fprintf(stderr, "unknown variant %s\n", which);
    return 2;
  }
  printf("survived?!\n");
  return 0;
}
