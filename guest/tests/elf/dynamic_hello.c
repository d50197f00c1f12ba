// A dynamically linked RISC-V program (built without -static): hpmsim must refuse it with
// "dynamically linked programs are not supported: link with -static". Under qemu it would need
// the target's dynamic loader, so it is only ever given to hpmsim.
#include <stdio.h>

int main(void) {
  puts("hello from a dynamically linked program");
  return 0;
}
