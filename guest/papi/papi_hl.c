/* PAPI's high-level API on the bgq node (tests/papi reads the JSON report it leaves): a region
 * around a loop of 1000 and one of 51000 iterations (2 instructions each, so PAPI_TOT_INS of the
 * second less the first's is 100000), two nested regions, and a region read midway. */
#include <papi.h>

__attribute__((noinline)) static void loop(long long n) {
  __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

/* The same code around both loops. */
__attribute__((noinline)) static void region(const char* name, long long n) {
  PAPI_hl_region_begin(name);
  loop(n);
  PAPI_hl_region_end(name);
}

int main(void) {
  region("loop", 1000);
  region("loop", 51000);
  PAPI_hl_region_begin("outer");
  PAPI_hl_region_begin("inner");
  loop(100);
  PAPI_hl_region_end("inner");
  PAPI_hl_region_end("outer");
  PAPI_hl_region_begin("reading");
  loop(10);
  PAPI_hl_read("reading");
  loop(10);
  PAPI_hl_region_end("reading");
  return PAPI_hl_region_end("never begun") == PAPI_ENOTRUN ? 0 : 1;
}
