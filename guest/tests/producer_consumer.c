// Producer/consumer on a bounded ring buffer guarded by a mutex and two condition variables
// (not full, not empty): 4 producers each put 1500 numbered items, 3 consumers take until
// every producer is done and the buffer is empty. Every item arrives exactly once (a bitmap),
// the consumed sum equals the produced sum, the buffer never holds more than its capacity, and
// each producer's items come out in the order it put them (FIFO per producer). The argument
// sets the capacity (default 8; 1 forces a hand-off per item).
#include <string.h>

#include "thread_util.h"

enum { kProducers = 4, kConsumers = 3, kItemsPerProducer = 1500, kMaxCapacity = 64 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int buffer[kMaxCapacity];
static int capacity = 8;
static int head, count, max_count;
static int producers_done;
static unsigned char seen[kProducers * kItemsPerProducer];
static long consumed_sum;
static int consumed_items;
static int last_from[kProducers];
static int out_of_order;

static void* producer(void* arg) {
  int id = (int)(intptr_t)arg;
  for (int i = 0; i < kItemsPerProducer; ++i) {
    int item = id * kItemsPerProducer + i;
    CHECK(pthread_mutex_lock(&lock) == 0);
    while (count == capacity) CHECK(pthread_cond_wait(&not_full, &lock) == 0);
    buffer[(head + count) % capacity] = item;
    ++count;
    if (count > max_count) max_count = count;
    CHECK(pthread_cond_signal(&not_empty) == 0);
    CHECK(pthread_mutex_unlock(&lock) == 0);
  }
  CHECK(pthread_mutex_lock(&lock) == 0);
  ++producers_done;
  CHECK(pthread_cond_broadcast(&not_empty) == 0);  // consumers may be waiting for the end
  CHECK(pthread_mutex_unlock(&lock) == 0);
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  long taken = 0;
  for (;;) {
    CHECK(pthread_mutex_lock(&lock) == 0);
    while (count == 0 && producers_done < kProducers) {
      CHECK(pthread_cond_wait(&not_empty, &lock) == 0);
    }
    if (count == 0) {  // every producer is done and the buffer is drained
      CHECK(pthread_mutex_unlock(&lock) == 0);
      break;
    }
    int item = buffer[head];
    head = (head + 1) % capacity;
    --count;
    // Items leave the buffer under the lock, so each producer's come out in order.
    int from = item / kItemsPerProducer;
    if (item % kItemsPerProducer != last_from[from]) ++out_of_order;
    last_from[from] = item % kItemsPerProducer + 1;
    CHECK(pthread_cond_signal(&not_full) == 0);
    ++seen[item];
    consumed_sum += item;
    ++consumed_items;
    CHECK(pthread_mutex_unlock(&lock) == 0);
    ++taken;
  }
  return (void*)taken;
}

int main(int argc, char** argv) {
  if (argc > 1) capacity = atoi(argv[1]);
  CHECK(capacity >= 1 && capacity <= kMaxCapacity);
  pthread_t c[kConsumers], p[kProducers];
  for (int i = 0; i < kConsumers; ++i) c[i] = start_thread(consumer, NULL);
  for (int i = 0; i < kProducers; ++i) p[i] = start_thread(producer, (void*)(intptr_t)i);
  for (int i = 0; i < kProducers; ++i) join_thread(p[i]);
  long taken = 0;
  for (int i = 0; i < kConsumers; ++i) taken += (long)join_thread(c[i]);
  const int total = kProducers * kItemsPerProducer;
  long expected_sum = (long)total * (total - 1) / 2;
  int duplicates = 0, missing = 0;
  for (int i = 0; i < total; ++i) {
    if (seen[i] == 0) ++missing;
    if (seen[i] > 1) ++duplicates;
  }
  printf("capacity %d: consumed %d items (%ld counted by the consumers), expected %d\n", capacity,
         consumed_items, taken, total);
  printf("sum %ld expected %ld, missing %d, duplicates %d, out of order %d\n", consumed_sum,
         expected_sum, missing, duplicates, out_of_order);
  printf("buffer never over capacity: %d\n", max_count <= capacity);
  CHECK(consumed_items == total && taken == total && consumed_sum == expected_sum);
  CHECK(missing == 0 && duplicates == 0 && out_of_order == 0 && max_count <= capacity);
  return 0;
}
