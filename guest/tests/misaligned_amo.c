// A misaligned atomic: amoadd.w on an address that is not 4-byte aligned raises an address-
// misaligned exception, which Linux reports as SIGBUS (atomics are not emulated, unlike plain
// misaligned loads and stores). Prints a flushed line first.
#include "common.h"

int main(void) {
  static _Alignas(8) unsigned char buf[16];
  printf("amoadd.w on buf+2\n");
  fflush(stdout);
  int old;
  __asm__ volatile("amoadd.w %0, %1, (%2)" : "=r"(old) : "r"(1), "r"(buf + 2) : "memory");
  printf("survived?! %d\n", old);
  return 0;
}
