// A program whose .bss is 1.5 GiB (the largest a static riscv64 program links with, medany code
// reaching its data within 2 GiB) and touches two of its pages: what loading a large segment
// costs (bench/load_time.sh, docs/PERFORMANCE.md "Loading").
static char big[1536UL << 20];

int main(void) {
  big[sizeof big - 1] = 1;
  return big[0] + big[sizeof big - 1] - 1;
}
