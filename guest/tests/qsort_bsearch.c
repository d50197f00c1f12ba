// qsort and bsearch: integers (with duplicates, already sorted, reversed), strings through an
// array of pointers, structures sorted by a composite key, and a large array that takes
// glibc's merge-sort path with a temporary buffer; every result is checked to be sorted and a
// permutation of its input, then printed as a digest and a few elements.
#include <string.h>

#include "common.h"

static int cmp_int(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

typedef struct {
  int key;
  unsigned short minor;
  char name[10];
} Record;

static int cmp_record(const void* a, const void* b) {
  const Record* x = a;
  const Record* y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->minor != y->minor) return x->minor < y->minor ? -1 : 1;
  return strcmp(x->name, y->name);
}

static uint64_t sum_and_check_sorted(const int* v, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) CHECK(v[i - 1] <= v[i]);
    sum += (uint64_t)(int64_t)v[i] * (i + 1);
  }
  return sum;
}

static void sort_ints(const char* label, int* v, size_t n) {
  int64_t before = 0;
  for (size_t i = 0; i < n; ++i) before += v[i];
  qsort(v, n, sizeof *v, cmp_int);
  int64_t after = 0;
  for (size_t i = 0; i < n; ++i) after += v[i];
  CHECK(before == after);
  printf("%s: n=%zu weighted=%016llx first=%d last=%d\n", label, n,
         (unsigned long long)sum_and_check_sorted(v, n), n ? v[0] : 0, n ? v[n - 1] : 0);
}

int main(void) {
  Rng rng = {42};
  enum { N = 10000 };
  static int v[N];
  for (int i = 0; i < N; ++i) v[i] = (int)(rng_next(&rng) >> 33) - (1 << 30);
  sort_ints("random", v, N);
  sort_ints("sorted", v, N);
  for (int i = 0; i < N; ++i) v[i] = N - i;
  sort_ints("reversed", v, N);
  for (int i = 0; i < N; ++i) v[i] = (int)rng_below(&rng, 10);
  sort_ints("few distinct", v, N);
  sort_ints("empty", v, 0);
  sort_ints("single", v, 1);

  // bsearch for present and absent keys.
  for (int i = 0; i < N; ++i) v[i] = 3 * i;
  int found = 0, missing = 0;
  for (int key = -5; key < 3 * N + 5; key += 7) {
    int* p = bsearch(&key, v, N, sizeof *v, cmp_int);
    if (p != NULL) {
      CHECK(*p == key && (p - v) == key / 3);
      ++found;
    } else {
      CHECK(key % 3 != 0 || key < 0 || key >= 3 * N);
      ++missing;
    }
  }
  printf("bsearch found=%d missing=%d\n", found, missing);

  // Strings through pointers.
  const char* words[] = {"pear",  "apple",      "fig",   "banana", "cherry", "apple", "date",
                         "Zebra", "elderberry", "grape", "",       "kiwi",   "lemon", "mango"};
  size_t nw = sizeof words / sizeof words[0];
  qsort(words, nw, sizeof words[0], cmp_str);
  printf("words:");
  for (size_t i = 0; i < nw; ++i) printf(" '%s'", words[i]);
  printf("\n");
  const char* key = "fig";
  const char** hit = bsearch(&key, words, nw, sizeof words[0], cmp_str);
  CHECK(hit != NULL);
  printf("bsearch fig at %td\n", hit - words);

  // Records by a composite key.
  enum { R = 3000 };
  static Record recs[R];
  for (int i = 0; i < R; ++i) {
    recs[i].key = (int)rng_below(&rng, 50);
    recs[i].minor = (unsigned short)rng_below(&rng, 5);
    snprintf(recs[i].name, sizeof recs[i].name, "r%05d", (int)rng_below(&rng, 100000));
  }
  qsort(recs, R, sizeof recs[0], cmp_record);
  uint64_t h = 0;
  for (int i = 0; i < R; ++i) {
    if (i > 0) CHECK(cmp_record(&recs[i - 1], &recs[i]) <= 0);
    h = h * 1000003 + fnv1a(&recs[i], sizeof recs[i]);
  }
  printf("records digest=%016llx first=%d/%u/%s last=%d/%u/%s\n", (unsigned long long)h,
         recs[0].key, recs[0].minor, recs[0].name, recs[R - 1].key, recs[R - 1].minor,
         recs[R - 1].name);
  return 0;
}
