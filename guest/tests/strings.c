// string.h and the number parsers: mem*/str* functions on buffers at every alignment (the
// word-at-a-time implementations take different paths), overlapping memmove, strtok/strsep,
// strstr/strspn, strtod/strtof (rounding of decimal input, hex floats, inf/nan, subnormals,
// overflow with ERANGE), strtol/strtoul/strtoll in several bases with end pointers and ERANGE,
// atoi, snprintf into exact-size buffers, and strerror of common errno values.
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "common.h"

static void test_mem_alignments(void) {
  unsigned char src[160], dst[160];
  uint64_t acc = 0;
  for (int i = 0; i < 160; ++i) src[i] = (unsigned char)(i * 37 + 11);
  for (size_t so = 0; so < 8; ++so) {
    for (size_t d = 0; d < 8; ++d) {
      for (size_t len = 0; len < 70; len += 3) {
        memset(dst, 0xEE, sizeof dst);
        memcpy(dst + d, src + so, len);
        CHECK(memcmp(dst + d, src + so, len) == 0);
        acc = acc * 31 + fnv1a(dst, sizeof dst);
        memset(dst + d, (int)len, len);
        acc = acc * 31 + fnv1a(dst, sizeof dst);
        // Make a string of length len at offset so and measure it.
        char s[160];
        memset(s, 'a', sizeof s);
        s[so + len] = '\0';
        CHECK(strlen(s + so) == len);
        CHECK(strnlen(s + so, len / 2) == len / 2);
        if (len > 0) {
          s[so + len - 1] = 'z';
          CHECK(strchr(s + so, 'z') == s + so + len - 1);
          CHECK(memchr(s + so, 'z', len) == s + so + len - 1);
          CHECK(strrchr(s + so, 'a') == (len > 1 ? s + so + len - 2 : NULL));
        }
      }
    }
  }
  printf("mem alignment digest %016llx\n", (unsigned long long)acc);
}

static void test_str_functions(void) {
  char buf[64] = "The quick brown fox";
  memmove(buf + 4, buf, 10);  // overlapping, forward
  printf("memmove fwd: %s\n", buf);
  memmove(buf, buf + 6, 10);  // overlapping, backward
  printf("memmove back: %s\n", buf);

  char a[32];
  strcpy(a, "alpha");
  strcat(a, "-beta");
  const char* volatile tail = "-gamma-delta";  // runtime value: truncation is the point
  strncat(a, tail, 6);
  printf("strcat: %s len=%zu\n", a, strlen(a));
  char n[8];
  strncpy(n, "ab", sizeof n);  // pads with zeros
  printf("strncpy pad: %d %d %d\n", n[2], n[5], n[7]);
  printf("cmp: %d %d %d %d %d\n", strcmp("abc", "abd") < 0, strcmp("b", "a") > 0,
         strncmp("abcdef", "abcxyz", 3), strcasecmp("HeLLo", "hello"),
         memcmp("\x80", "\x7f", 1) > 0);
  printf("strstr: %s | %s\n", strstr("needle in a haystack", "hay"),
         strstr("abc", "") == NULL ? "null" : "whole");
  printf("strspn=%zu strcspn=%zu strpbrk=%s\n", strspn("aaabbbccc", "ab"),
         strcspn("hello world", " "), strpbrk("key=value", "=:"));

  char line[] = "  one, two;;three ,four  ";
  printf("strtok:");
  for (char* t = strtok(line, " ,;"); t != NULL; t = strtok(NULL, " ,;")) printf(" [%s]", t);
  printf("\n");
  char line2[] = "a::b:c";
  char* rest = line2;
  printf("strsep:");
  for (char* t; (t = strsep(&rest, ":")) != NULL;) printf(" [%s]", t);
  printf("\n");
  char* dup = strdup("duplicate me");
  CHECK(dup != NULL);
  for (char* p = dup; *p; ++p) *p = (char)toupper((unsigned char)*p);
  printf("strdup+toupper: %s\n", dup);
  free(dup);
}

static void test_strtod(void) {
  static const char* inputs[] = {"0",
                                 "-0",
                                 "1.5",
                                 "  +3.25e2xyz",
                                 "0.1",
                                 "1e-320",
                                 "4.9e-324",
                                 "2.4703282292062327e-324",
                                 "2.4703282292062328e-324",
                                 "1e309",
                                 "-1e309",
                                 "0x1.8p1",
                                 "0X.1P-4",
                                 "inf",
                                 "-Infinity",
                                 "nan",
                                 "nan(0x123)",
                                 "1e",
                                 ".e1",
                                 "9007199254740993",
                                 "179769313486231580793728971405303415079934132710037826936"
                                 "173778980444968292764750946649017977587207096330286416692887"
                                 "910946555547851940402630657488671505820681908902000708383676"
                                 "273854845817711531764475730270069855571366959622842914819860"
                                 "834936475292719074168444365510704342711559699508093042880177"
                                 "904174497791.9999999999"};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; ++i) {
    char* end = NULL;
    errno = 0;
    double d = strtod(inputs[i], &end);
    int e = errno;
    errno = 0;
    float f = strtof(inputs[i], NULL);
    printf("strtod(\"%.30s\") = %a (%.17g) consumed=%td erange=%d | strtof = %a erange=%d\n",
           inputs[i], d, d, end - inputs[i], e == ERANGE, (double)f, errno == ERANGE);
  }
}

static void test_strtol(void) {
  static const struct {
    const char* s;
    int base;
  } cases[] = {{"12345", 10},
               {"-0x7fffffffffffffff", 16},
               {"0x8000000000000000", 0},
               {"-9223372036854775809", 10},
               {"0777", 0},
               {"0b101", 0},
               {"zz", 36},
               {"  -42abc", 10},
               {"", 10},
               {"18446744073709551615", 10},
               {"18446744073709551616", 10},
               {"-1", 10},
               {"+7", 8},
               {"1010", 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char* end = NULL;
    errno = 0;
    long l = strtol(cases[i].s, &end, cases[i].base);
    int el = errno;
    errno = 0;
    unsigned long u = strtoul(cases[i].s, NULL, cases[i].base);
    int eu = errno;
    errno = 0;
    long long ll = strtoll(cases[i].s, NULL, cases[i].base);
    printf("\"%s\" base %d: strtol=%ld consumed=%td erange=%d strtoul=%lu erange=%d strtoll=%lld\n",
           cases[i].s, cases[i].base, l, end - cases[i].s, el == ERANGE, u, eu == ERANGE, ll);
  }
  printf("atoi=%d atol=%ld atof=%g\n", atoi("  -123xyz"), atol("99999999999"), atof("2.5e3"));
}

static void test_snprintf_and_strerror(void) {
  char exact[6];
  int n = snprintf(exact, sizeof exact, "%05d", 42);
  printf("exact fit: n=%d [%s]\n", n, exact);
  volatile int too_long = 1234567;  // truncation is the point
  n = snprintf(exact, sizeof exact, "%d", too_long);
  printf("overflow: n=%d [%s]\n", n, exact);
  static const int errs[] = {EPERM, ENOENT, EBADF, ENOMEM, EACCES, EEXIST, EINVAL, ENOSYS, ERANGE};
  for (size_t i = 0; i < sizeof errs / sizeof errs[0]; ++i) {
    printf("strerror(%d) = %s\n", errs[i], strerror(errs[i]));
  }
}

int main(void) {
  test_mem_alignments();
  test_str_functions();
  test_strtod();
  test_strtol();
  test_snprintf_and_strerror();
  return 0;
}
