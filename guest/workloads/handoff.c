/* A producer and a consumer pass a buffer back and forth for `hpmsim c2c` (docs/sunfire.md,
 * seed 004 section 4.2): each round the producer writes LINES cache lines and raises a flag, the
 * consumer waits for it, sums the lines and answers. On a snooping machine every line the
 * consumer reads comes from the producer's cache (a cache-to-cache transfer), and every line
 * the producer writes again takes ownership back from the consumer.
 *
 *   handoff LINES ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LINE 64
#define MAX_LINES 1024

static long buffer[MAX_LINES * LINE / sizeof(long)] __attribute__((aligned(LINE)));
static struct {
  volatile long round;
  char pad[LINE - sizeof(long)];
} ready __attribute__((aligned(LINE))), done __attribute__((aligned(LINE)));
static long lines, rounds, total;

static void* consumer(void* arg) {
  (void)arg;
  for (long r = 1; r <= rounds; ++r) {
    while (__atomic_load_n(&ready.round, __ATOMIC_ACQUIRE) != r) {
    }
    for (long l = 0; l < lines; ++l) total += buffer[l * (LINE / sizeof(long))];
    __atomic_store_n(&done.round, r, __ATOMIC_RELEASE);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: handoff LINES ROUNDS\n");
    return 2;
  }
  lines = atol(argv[1]);
  rounds = atol(argv[2]);
  if (lines < 1 || lines > MAX_LINES || rounds < 1) return 2;
  pthread_t tid;
  pthread_create(&tid, 0, consumer, 0);
  long expected = 0;
  for (long r = 1; r <= rounds; ++r) {
    for (long l = 0; l < lines; ++l) buffer[l * (LINE / sizeof(long))] = r + l;
    __atomic_store_n(&ready.round, r, __ATOMIC_RELEASE);
    while (__atomic_load_n(&done.round, __ATOMIC_ACQUIRE) != r) {
    }
    expected += r * lines + lines * (lines - 1) / 2;
  }
  pthread_join(tid, 0);
  printf("handoff: %ld lines x %ld rounds, sum %ld (%s)\n", lines, rounds, total,
         total == expected ? "right" : "WRONG");
  return total == expected ? 0 : 1;
}
