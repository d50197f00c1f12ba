// Reserved rounding modes: an FP instruction whose static rm field is 5 or 6, or that uses
// `dyn` while frm holds 5, 6 or 7, is an illegal instruction (SIGILL). Merely writing such a
// value into frm is allowed (isa_csr checks that). argv[1] selects the variant: static5,
// static6, dyn5, dyn6 or dyn7. The program prints a flushed line before the faulting one.
#include <string.h>

#include "common.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "dyn5";
  printf("fadd.d with %s\n", which);
  fflush(stdout);
  if (strcmp(which, "static5") == 0) {
    // fadd.d ft2, ft0, ft1 with rm = 5: opcode OP-FP, funct7 0000001.
    __asm__ volatile(".insn r 0x53, 5, 1, ft2, ft0, ft1" ::: "ft2");
  } else if (strcmp(which, "static6") == 0) {
    __asm__ volatile(".insn r 0x53, 6, 1, ft2, ft0, ft1" ::: "ft2");
  } else if (strncmp(which, "dyn", 3) == 0) {
    unsigned long rm = strtoul(which + 3, NULL, 10);
    __asm__ volatile("fsrm %0\n fadd.d ft2, ft0, ft1, dyn" : : "r"(rm) : "ft2");
  } else {
    fprintf(stderr, "unknown variant %s\n", which);
    return 2;
  }
  printf("survived?!\n");
  return 0;
}
