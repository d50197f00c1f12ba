/* False sharing for `hpmsim c2c` (docs/interconnect.md): THREADS threads each increment their
 * own counter ROUNDS times. Packed, the counters share one cache line, which the threads' cores
 * then pass between them (each store invalidates the others' copies, each load fetches it again
 * from the L2); padded, each counter has a line of its own.
 *
 *   false_sharing packed|padded THREADS ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define LINE 128

static struct { volatile long packed[MAX_THREADS]; } __attribute__((aligned(LINE))) packed_counters;

static struct {
  volatile long value;
  char pad[LINE - sizeof(long)];
} __attribute__((aligned(LINE))) padded_counters[MAX_THREADS];

static int padded;
static long rounds;

static void* worker(void* arg) {
  const long id = (long)arg;
  volatile long* counter = padded ? &padded_counters[id].value : &packed_counters.packed[id];
  for (long r = 0; r < rounds; ++r) *counter += 1;
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 4 || (strcmp(argv[1], "packed") != 0 && strcmp(argv[1], "padded") != 0)) {
    fprintf(stderr, "usage: false_sharing packed|padded THREADS ROUNDS\n");
    return 2;
  }
  padded = strcmp(argv[1], "padded") == 0;
  const long threads = atol(argv[2]);
  rounds = atol(argv[3]);
  if (threads < 1 || threads > MAX_THREADS) return 2;
  pthread_t t[MAX_THREADS];
  for (long i = 0; i < threads; ++i) pthread_create(&t[i], 0, worker, (void*)i);
  long sum = 0;
  for (long i = 0; i < threads; ++i) {
    pthread_join(t[i], 0);
    sum += padded ? padded_counters[i].value : packed_counters.packed[i];
  }
  printf("false_sharing: %s, %ld threads x %ld rounds, sum %ld, counters at %p\n", argv[1], threads,
         rounds, sum, padded ? (void*)padded_counters : (void*)packed_counters.packed);
  return sum == threads * rounds ? 0 : 1;
}
