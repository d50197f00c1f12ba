// malloc/calloc/realloc/free/posix_memalign/aligned_alloc heavy code: thousands of blocks of
// random sizes (small bins, large bins and above the mmap threshold), each filled with a
// pattern derived from its identity and verified before being resized or freed, so heap
// corruption or a lost realloc copy shows up as a failed check. Prints only digests of contents,
// never addresses; alignment is checked but not printed.
#include <malloc.h>
#include <string.h>

#include "common.h"

enum { kSlots = 512, kRounds = 5000 };

typedef struct {
  unsigned char* p;
  size_t size;
  unsigned tag;
} Block;

// Contents: the block's tag byte everywhere (memset: cheap even for large blocks), with a
// position-dependent byte every 61 bytes, so a block copied to the wrong offset or overlapped
// by another one is caught. Verification reads the first and last 256 bytes and every 61st.
static unsigned char expected_byte(const Block* b, size_t i) {
  return i % 61 == 0 ? (unsigned char)(b->tag * 31u + i * 7u + 1u) : (unsigned char)b->tag;
}

static void fill(Block* b) {
  memset(b->p, (unsigned char)b->tag, b->size);
  for (size_t i = 0; i < b->size; i += 61) b->p[i] = expected_byte(b, i);
}

static uint64_t verify(const Block* b, size_t len) {
  uint64_t h = 0;
  for (size_t i = 0; i < len; i = (i < 256 || i + 256 >= len) ? i + 1 : i + 61 - i % 61) {
    if (b->p[i] != expected_byte(b, i)) {
      fprintf(stderr, "corrupt block tag %u at %zu of %zu\n", b->tag, i, len);
      exit(1);
    }
    h = h * 31 + b->p[i];
  }
  return h;
}

static size_t random_size(Rng* r) {
  unsigned k = (unsigned)rng_below(r, 40);
  if (k < 2) return 0;
  if (k < 6) return 1 + rng_below(r, 8);
  if (k < 22) return 1 + rng_below(r, 256);
  if (k < 32) return 256 + rng_below(r, 4096);
  if (k < 38) return 4096 + rng_below(r, 65536);
  return 140000 + rng_below(r, 200000);  // above the default mmap threshold (128 KiB)
}

int main(void) {
  Rng rng = {0x1234567890abcdefULL};
  Block blocks[kSlots];
  memset(blocks, 0, sizeof blocks);
  unsigned next_tag = 1;
  uint64_t digest = 0;
  size_t live_bytes = 0, max_live = 0;
  unsigned mallocs = 0, reallocs = 0, frees = 0;

  for (int round = 0; round < kRounds; ++round) {
    Block* b = &blocks[rng_below(&rng, kSlots)];
    unsigned action = (unsigned)rng_below(&rng, 4);
    if (b->p == NULL) {
      b->size = random_size(&rng);
      b->tag = next_tag++;
      b->p = (action == 0) ? calloc(1, b->size) : malloc(b->size);
      CHECK(b->p != NULL || b->size == 0);
      if (b->p == NULL) b->p = malloc(1);  // glibc returns a unique pointer for 0 anyway
      CHECK(((uintptr_t)b->p & 15) == 0);
      if (action == 0) {
        for (size_t i = 0; i < b->size; i += i < 256 ? 1 : 61) CHECK(b->p[i] == 0);
        CHECK(b->size == 0 || b->p[b->size - 1] == 0);
      }
      fill(b);
      live_bytes += b->size;
      ++mallocs;
    } else if (action < 2) {
      // realloc: the common prefix must survive; the new tail gets fresh contents.
      size_t new_size = random_size(&rng);
      if (new_size == 0) new_size = 1;
      size_t keep = new_size < b->size ? new_size : b->size;
      unsigned char* q = realloc(b->p, new_size);
      CHECK(q != NULL);
      b->p = q;
      (void)verify(b, keep);
      live_bytes = live_bytes - b->size + new_size;
      b->size = new_size;
      fill(b);
      ++reallocs;
    } else {
      digest = digest * 1099511628211ULL ^ verify(b, b->size);
      free(b->p);
      live_bytes -= b->size;
      b->p = NULL;
      ++frees;
    }
    if (live_bytes > max_live) max_live = live_bytes;
  }

  // Aligned allocations.
  for (size_t align = 16; align <= 65536; align *= 4) {
    void* p = NULL;
    CHECK(posix_memalign(&p, align, 1000) == 0);
    CHECK(((uintptr_t)p & (align - 1)) == 0);
    memset(p, 0xab, 1000);
    void* q = aligned_alloc(align, align * 2);
    CHECK(q != NULL && ((uintptr_t)q & (align - 1)) == 0);
    free(p);
    free(q);
  }
  void* m = memalign(4096, 10);
  CHECK(m != NULL && ((uintptr_t)m & 4095) == 0);
  CHECK(malloc_usable_size(m) >= 10);
  free(m);

  for (int i = 0; i < kSlots; ++i) {
    if (blocks[i].p != NULL) {
      digest = digest * 1099511628211ULL ^ verify(&blocks[i], blocks[i].size);
      free(blocks[i].p);
    }
  }
  printf("mallocs=%u reallocs=%u frees=%u max_live=%zu\n", mallocs, reallocs, frees, max_live);
  printf("digest=%016llx\n", (unsigned long long)digest);

  // A long realloc growth chain (vector-like doubling) and shrinking back.
  size_t n = 1;
  unsigned* v = malloc(sizeof *v);
  CHECK(v != NULL);
  v[0] = 0;
  for (; n < 1u << 20; n *= 2) {
    v = realloc(v, 2 * n * sizeof *v);
    CHECK(v != NULL);
    for (size_t i = n; i < 2 * n; ++i) v[i] = (unsigned)(i * 2654435761u);
  }
  for (; n > 1; n /= 4) {
    v = realloc(v, n * sizeof *v);
    CHECK(v != NULL);
  }
  uint64_t s = 0;
  for (size_t i = 0; i < 4; ++i) s += v[i];
  printf("growth chain ok, head sum=%llu\n", (unsigned long long)s);
  free(v);
  return 0;
}
