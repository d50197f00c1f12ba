/* libpapi's overflow modes and profiling on the bgq node (tests/papi): software overflow on the
 * simulated interval timer (PAPI_OVERFLOW_FORCE_SW), PAPI_profil with 16-, 32- and 64-bit
 * buckets, its scale convention, PAPI_PROFIL_RANDOM and PAPI_sprofil. Prints one "ok ..." or
 * "FAIL ..." line per check and a final PASSED/FAILED line (guest/counters' contract). */
#include <papi.h>
#include <string.h>

#include "ctr_common.h"

/* 2n instructions in a function of its own, whose address range the profile checks. */
__attribute__((noinline, aligned(64))) static void hot(long long n) {
  __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

static long long calls;
static void count_call(int set, void* pc, long long vector, void* context) {
  (void)set;
  (void)vector;
  (void)context;
  if (pc != NULL) ++calls;
}

static long long run(int set, long long n) {
  long long v = 0;
  PAPI_start(set);
  hot(n);
  PAPI_stop(set, &v);
  return v;
}

static unsigned long long sum16(const unsigned short* b, size_t n) {
  unsigned long long s = 0;
  for (size_t i = 0; i < n; ++i) s += b[i];
  return s;
}

int main(void) {
  PAPI_library_init(PAPI_VER_CURRENT);
  const long long n = 1000000, threshold = 20000;
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  PAPI_add_event(set, PAPI_TOT_INS);

  /* Software overflow: the handler once per threshold period, from the interval timer. */
  PAPI_option_t opt;
  memset(&opt, 0, sizeof opt);
  opt.itimer.ns = 50000; /* 50 us of simulated CPU time */
  check_true("PAPI_set_opt(PAPI_DEF_ITIMER_NS)", PAPI_set_opt(PAPI_DEF_ITIMER_NS, &opt) == PAPI_OK);
  check_eq("  PAPI_get_opt gives it back", (uint64_t)PAPI_get_opt(PAPI_DEF_ITIMER_NS, NULL), 50000);
  check_true("PAPI_overflow(..., PAPI_OVERFLOW_FORCE_SW)",
             PAPI_overflow(set, PAPI_TOT_INS, (int)threshold, PAPI_OVERFLOW_FORCE_SW, count_call) ==
                 PAPI_OK);
  long long count = run(set, n);
  /* The timer samples: the periods passed after its last tick before the stop are not seen (as
   * in PAPI). One tick's 50 us is 80,000 cycles of the 1600 MHz node, so at most 80,000
   * instructions (one per cycle per thread): at most 4 periods of 20,000. */
  const long long lag = 50000LL * 1600 / 1000 / threshold;
  check_range("software overflow: handler calls = floor(count / threshold), less one tick's",
              (uint64_t)calls, (uint64_t)(count / threshold - lag), (uint64_t)(count / threshold));
  PAPI_overflow(set, PAPI_TOT_INS, 0, 0, NULL);

  /* Profiles: one bucket per 16 bytes of text over the whole program. */
  const PAPI_exe_info_t* exe = PAPI_get_executable_info();
  const vptr_t start = exe->address_info.text_start;
  const size_t text = (size_t)(exe->address_info.text_end - start);
  const unsigned scale = 65536 / 8; /* 8 halfwords (16 bytes) per bucket */
  const size_t buckets = text / 16 + 1;
  unsigned short* b16 = calloc(buckets, sizeof *b16);
  unsigned* b32 = calloc(buckets, sizeof *b32);
  unsigned long long* b64 = calloc(buckets, sizeof *b64);
  const size_t hot_bucket = (size_t)((vptr_t)hot - start) / 16;

  check_true("PAPI_profil, 16-bit buckets",
             PAPI_profil(b16, (unsigned)(buckets * 2), start, scale, set, PAPI_TOT_INS,
                         (int)threshold, PAPI_PROFIL_POSIX) == PAPI_OK);
  int state = 0;
  PAPI_state(set, &state);
  check_true("  the set is profiling", (state & PAPI_PROFILING) != 0);
  count = run(set, n);
  const unsigned long long total16 = sum16(b16, buckets);
  check_eq("16-bit buckets hold floor(count / threshold) samples", total16,
           (uint64_t)(count / threshold));
  check_true(
      "  almost all in the loop's bucket",
      (unsigned long long)b16[hot_bucket] + (hot_bucket + 1 < buckets ? b16[hot_bucket + 1] : 0u) >=
          total16 * 95 / 100);

  PAPI_profil(b32, (unsigned)(buckets * 4), start, scale, set, PAPI_TOT_INS, (int)threshold,
              PAPI_PROFIL_BUCKET_32);
  count = run(set, n);
  unsigned long long total32 = 0;
  for (size_t i = 0; i < buckets; ++i) total32 += b32[i];
  check_eq("32-bit buckets", total32, (uint64_t)(count / threshold));

  PAPI_profil(b64, (unsigned)(buckets * 8), start, scale, set, PAPI_TOT_INS, (int)threshold,
              PAPI_PROFIL_BUCKET_64 | PAPI_PROFIL_FORCE_SW);
  count = run(set, n);
  unsigned long long total64 = 0;
  for (size_t i = 0; i < buckets; ++i) total64 += b64[i];
  check_range("64-bit buckets, software overflow (less one tick's)", total64,
              (uint64_t)(count / threshold - lag), (uint64_t)(count / threshold));

  /* Scale 2: every pc in bucket 0 (profil(3)'s convention). */
  unsigned short all[4] = {0, 0, 0, 0};
  PAPI_profil(all, sizeof all, start, 2, set, PAPI_TOT_INS, (int)threshold, PAPI_PROFIL_POSIX);
  count = run(set, n);
  check_true("scale 2 maps the whole program to bucket 0",
             all[0] == (unsigned)(count / threshold) && all[1] == 0);

  /* PAPI_PROFIL_RANDOM drops about a quarter of the samples. */
  memset(b16, 0, buckets * sizeof *b16);
  PAPI_profil(b16, (unsigned)(buckets * 2), start, scale, set, PAPI_TOT_INS, (int)threshold,
              PAPI_PROFIL_RANDOM);
  count = run(set, 2 * n);
  const unsigned long long kept = sum16(b16, buckets);
  check_range("PAPI_PROFIL_RANDOM keeps about three quarters", kept * 100,
              (uint64_t)(count / threshold) * 60, (uint64_t)(count / threshold) * 90);

  /* PAPI_sprofil: two regions, the loop's alone in the second. */
  unsigned short r0[8] = {0}, r1[8] = {0};
  PAPI_sprofil_t regions[2] = {{r0, sizeof r0, (vptr_t)hot + 4096, 65536},
                               {r1, sizeof r1, (vptr_t)hot, 65536 / 8}};
  check_true("PAPI_sprofil", PAPI_sprofil(regions, 2, set, PAPI_TOT_INS, (int)threshold,
                                          PAPI_PROFIL_POSIX) == PAPI_OK);
  count = run(set, n);
  check_true(
      "  the loop's samples in its region",
      sum16(r1, 8) >= (unsigned long long)(count / threshold) * 95 / 100 && sum16(r0, 8) == 0);
  check_true("threshold 0 ends profiling",
             PAPI_profil(b16, 0, 0, 0, set, PAPI_TOT_INS, 0, 0) == PAPI_OK &&
                 PAPI_state(set, &state) == PAPI_OK && (state & PAPI_PROFILING) == 0);
  return finish();
}
