/* A device-polling loop, as an MPI library polls its network device: each of T threads (main and
 * T - 1 others, one per core) loads UPC-P's UNIT_INFO register (a read-only register) N times and
 * stores 0 to COUNTER[0] (an input no event of the catalogue's counts on) M times, through the
 * unit's mapped registers: N uncached reads and M uncached writes of the device bus per thread's
 * core (docs/timing.md "Device buses"). The host may count meanwhile: neither access changes a
 * counter it programs but counter 0. Prints "polled N reads, M writes on T threads" and exits 0
 * when every UNIT_INFO read saw 256 counters. Arguments: N M T (default 1000 100 2). */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define UNIT_INFO (0x930 / 8)

static volatile uint64_t* upc;
static unsigned long reads, writes;

static void* poll(void* arg) {
  (void)arg;
  long bad = 0;
  for (unsigned long i = 0; i < reads; ++i) bad += (upc[UNIT_INFO] & 0xffff) != 256;
  for (unsigned long i = 0; i < writes; ++i) upc[0] = 0;
  return (void*)bad;
}

int main(int argc, char** argv) {
  reads = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
  writes = argc > 2 ? strtoul(argv[2], NULL, 0) : 100;
  const int threads = argc > 3 ? atoi(argv[3]) : 2;
  if (threads < 1 || threads > 4) return 2;
  const int fd = open("/dev/hpm/upc", O_RDWR);
  if (fd < 0) {
    printf("no /dev/hpm/upc\n");
    return 2;
  }
  upc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (upc == MAP_FAILED) return 2;
  pthread_t others[3];
  for (int t = 1; t < threads; ++t) pthread_create(&others[t - 1], NULL, poll, NULL);
  long bad = (long)poll(NULL);
  for (int t = 1; t < threads; ++t) {
    void* r;
    pthread_join(others[t - 1], &r);
    bad += (long)r;
  }
  printf("polled %lu reads, %lu writes on %d threads\n", reads, writes, threads);
  return bad == 0 ? 0 : 1;
}
