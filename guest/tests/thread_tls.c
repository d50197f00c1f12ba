// Thread-local storage and thread-specific data.
// __thread variables: every thread starts with the initial values (a scalar, a string, and a
// 16 KiB array whose initialised tail must be copied to each thread's block), changes its own
// copy without touching the others', and has its own address; the main thread's copy keeps
// its value. pthread keys: a destructor runs at thread exit for each thread whose value is
// non-NULL (with that thread's value), not for NULL values, not after pthread_key_delete, and
// again (up to PTHREAD_DESTRUCTOR_ITERATIONS times) when a destructor sets the value again;
// values are per thread (pthread_getspecific sees only the thread's own).
#include <limits.h>
#include <string.h>

#include "thread_util.h"

enum { kThreads = 6 };

static __thread int tls_counter = 7;
static __thread char tls_name[32] = "initial";
static __thread int tls_big[4096] = {[4095] = 99};
static __thread int tls_zero;

static void* tls_addresses[kThreads + 1];

static void* tls_worker(void* arg) {
  int id = (int)(intptr_t)arg;
  int ok = tls_counter == 7 && strcmp(tls_name, "initial") == 0 && tls_big[4095] == 99 &&
           tls_big[0] == 0 && tls_zero == 0;
  tls_addresses[id] = &tls_counter;
  for (int i = 0; i <= id; ++i) tls_counter += 10;
  snprintf(tls_name, sizeof tls_name, "thread %d", id);
  tls_big[4095] = id;
  tls_zero = id * 3;
  sleep_ms(1);  // the others run meanwhile and change their own copies
  ok = ok && tls_counter == 7 + 10 * (id + 1) && tls_big[4095] == id && tls_zero == id * 3;
  char expected[32];
  snprintf(expected, sizeof expected, "thread %d", id);
  ok = ok && strcmp(tls_name, expected) == 0;
  return (void*)(intptr_t)ok;
}

static pthread_key_t key_plain, key_renew, key_deleted;
static int plain_destructor_calls, plain_destructor_sum;
static int renew_destructor_calls;
static int deleted_destructor_calls;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void plain_destructor(void* value) {
  CHECK(pthread_mutex_lock(&count_lock) == 0);
  ++plain_destructor_calls;
  plain_destructor_sum += *(int*)value;
  CHECK(pthread_mutex_unlock(&count_lock) == 0);
  free(value);
}

static void renew_destructor(void* value) {
  CHECK(pthread_mutex_lock(&count_lock) == 0);
  ++renew_destructor_calls;
  CHECK(pthread_mutex_unlock(&count_lock) == 0);
  // Setting a value again makes the thread run destructors again.
  CHECK(pthread_setspecific(key_renew, value) == 0);
}

static void deleted_destructor(void* value) {
  (void)value;
  __atomic_add_fetch(&deleted_destructor_calls, 1, __ATOMIC_RELAXED);
}

static pthread_barrier_t values_set, key_deleted_now;

static void* key_worker(void* arg) {
  int id = (int)(intptr_t)arg;
  CHECK(pthread_getspecific(key_plain) == NULL);  // a new thread starts with NULL
  CHECK(pthread_setspecific(key_deleted, &deleted_destructor_calls) == 0);
  pthread_barrier_wait(&values_set);
  pthread_barrier_wait(&key_deleted_now);
  if (id % 2 == 0) {  // odd threads leave the value NULL: no destructor call
    int* value = malloc(sizeof *value);
    CHECK(value != NULL);
    *value = 100 + id;
    CHECK(pthread_setspecific(key_plain, value) == 0);
  }
  sleep_ms(1);
  int ok = id % 2 == 0 ? *(int*)pthread_getspecific(key_plain) == 100 + id
                       : pthread_getspecific(key_plain) == NULL;
  if (id == 0) CHECK(pthread_setspecific(key_renew, &renew_destructor_calls) == 0);
  return (void*)(intptr_t)ok;
}

int main(void) {
  pthread_t t[kThreads];
  for (int i = 0; i < kThreads; ++i) t[i] = start_thread(tls_worker, (void*)(intptr_t)i);
  int all_ok = 1;
  for (int i = 0; i < kThreads; ++i) all_ok &= (int)(intptr_t)join_thread(t[i]);
  tls_addresses[kThreads] = &tls_counter;
  int distinct = 1;
  for (int i = 0; i <= kThreads; ++i) {
    for (int j = 0; j < i; ++j) distinct &= tls_addresses[i] != tls_addresses[j];
  }
  printf("__thread: every thread saw the initial values and kept its own: %d\n", all_ok);
  printf("__thread: %d distinct addresses of one variable: %d\n", kThreads + 1, distinct);
  printf("__thread: main's copies unchanged: counter=%d name=%s big=%d zero=%d\n", tls_counter,
         tls_name, tls_big[4095], tls_zero);
  CHECK(all_ok && distinct && tls_counter == 7 && tls_big[4095] == 99);

  CHECK(pthread_key_create(&key_plain, plain_destructor) == 0);
  CHECK(pthread_key_create(&key_renew, renew_destructor) == 0);
  CHECK(pthread_key_create(&key_deleted, deleted_destructor) == 0);
  int main_value = 5;
  CHECK(pthread_setspecific(key_plain, &main_value) == 0);
  CHECK(pthread_barrier_init(&values_set, NULL, kThreads + 1) == 0);
  CHECK(pthread_barrier_init(&key_deleted_now, NULL, kThreads + 1) == 0);
  for (int i = 0; i < kThreads; ++i) t[i] = start_thread(key_worker, (void*)(intptr_t)i);
  // Deleting a key while threads have values: their destructors for it never run.
  pthread_barrier_wait(&values_set);
  CHECK(pthread_key_delete(key_deleted) == 0);
  pthread_barrier_wait(&key_deleted_now);
  all_ok = 1;
  for (int i = 0; i < kThreads; ++i) all_ok &= (int)(intptr_t)join_thread(t[i]);
  printf("keys: values are per thread: %d, main's value kept: %d\n", all_ok,
         pthread_getspecific(key_plain) == &main_value);
  printf("keys: destructor calls %d (sum of values %d), for the deleted key %d\n",
         plain_destructor_calls, plain_destructor_sum, deleted_destructor_calls);
  printf(
      "keys: a destructor that sets the value again ran %d times (PTHREAD_DESTRUCTOR_ITERATIONS "
      "%d)\n",
      renew_destructor_calls, PTHREAD_DESTRUCTOR_ITERATIONS);
  CHECK(all_ok && plain_destructor_calls == 3 && plain_destructor_sum == 100 + 102 + 104);
  CHECK(deleted_destructor_calls == 0 && renew_destructor_calls == PTHREAD_DESTRUCTOR_ITERATIONS);
  CHECK(pthread_key_delete(key_plain) == 0 && pthread_key_delete(key_renew) == 0);
  return 0;
}
