// ebreak: argv[1] "ebreak" (the 32-bit encoding) or "c.ebreak" (the compressed one) is
// executed after a flushed line. With no debugger attached the program dies of SIGTRAP.
#include <string.h>

#include "common.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "ebreak";
  printf("executing %s\n", which);
  fflush(stdout);
  if (strcmp(which, "c.ebreak") == 0) {
    __asm__ volatile("c.ebreak");
  } else {
    __asm__ volatile(".option push\n.option norvc\nebreak\n.option pop");
  }
  printf("survived?!\n");
  return 0;
}
