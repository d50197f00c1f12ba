// The printf family: integer and floating-point conversions with flags, widths and precisions,
// %a hex floats, %n, positional arguments, snprintf truncation, the wide/narrow stdio paths,
// and output to stdout and stderr (stderr is unbuffered, stdout a pipe, so fully buffered).
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "common.h"

static int my_vprintf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vprintf(fmt, ap);
  va_end(ap);
  return n;
}

int main(void) {
  // Integers at their limits in every base and with every flag.
  printf("[%d] [%i] [%u] [%x] [%X] [%o]\n", INT_MIN, INT_MAX, UINT_MAX, 0xdeadbeefu, 0xcafeu,
         0777u);
  printf("[%ld] [%lu] [%lld] [%llx]\n", LONG_MIN, ULONG_MAX, LLONG_MAX, 0x0123456789abcdefULL);
  printf("[%hhd] [%hhu] [%hd] [%hu]\n", (signed char)-128, (unsigned char)255, (short)-32768,
         (unsigned short)65535);
  printf("[%zu] [%zd] [%td] [%jd]\n", (size_t)12345, (ssize_t)-5, (ptrdiff_t)-7, INTMAX_MIN);
  printf("[%" PRId64 "] [%" PRIu64 "] [%" PRIx32 "]\n", INT64_MIN, UINT64_MAX, UINT32_MAX);
  printf("[%8d] [%-8d] [%08d] [%+d] [% d] [%+.3d] [%.0d] [%#x] [%#o] [%#X]\n", 42, 42, -42, 42, 42,
         7, 0, 255u, 8u, 0xabu);
  printf("[%*d] [%-*d] [%.*d]\n", 6, 12, 6, 12, 5, 12);
  printf("[%c] [%5c] [%-5c] [%%]\n", 'A', 'B', 'C');
  printf("[%s] [%10s] [%-10s] [%.3s] [%10.2s]\n", "text", "right", "left", "truncate", "ab");

  // Floating point: fixed, exponent, shortest, hex; rounding of ties; limits; inf and nan.
  double values[] = {0.0,     -0.0,         1.0,           -1.5,        0.1,   2.5,       3.5,
                     1e-300,  1e300,        123.456,       -9.995,      0.125, 1.0 / 3.0, DBL_MAX,
                     DBL_MIN, DBL_TRUE_MIN, 6.02214076e23, 299792458.0, 1e-5,  65536.0};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
    double v = values[i];
    printf("%.17g | %f | %.3e | %g | %G | %a | %.2a | %10.4f | %-12.3g| %+.0f | %#.0f\n", v, v, v,
           v, v, v, v, v, v, v, v);
  }
  printf("[%f] [%F] [%e] [%g] [%a]\n", INFINITY, -INFINITY, NAN, -NAN, INFINITY);
  printf("[%5.1f] [%05.1f] [%-7.2f|] [%+.2e]\n", 2.25, -2.25, 0.005, 12345.678);
  float f = 3.14159265f;
  printf("[%f] [%.10f] [%a]\n", f, f, f);
  long double ld = 1.0L / 3.0L;  // 128-bit IEEE quad on RISC-V, computed in soft-float
  printf("[%.30Lf] [%La] [%Lg]\n", ld, ld, ld);
  printf("[%.40f]\n", 0.1);
  printf("[%.60e]\n", DBL_TRUE_MIN);

  // %n, positional arguments, and the return value.
  int count = 0;
  int ret = printf("abc%ndef\n", &count);
  printf("n=%d ret=%d\n", count, ret);
  printf("%2$s %1$s %2$s\n", "world", "hello");

  // snprintf truncation and return values.
  char buf[8];
  const char* volatile word = "truncated";  // runtime value: truncation is the point
  int want = snprintf(buf, sizeof buf, "%s-%d", word, 12345);
  printf("snprintf want=%d got=[%s] len=%zu\n", want, buf, strlen(buf));
  CHECK(snprintf(NULL, 0, "%d", 1000000) == 7);
  char big[64];
  sprintf(big, "%08.3f|%x|%s", -3.14159, 48879u, "end");
  puts(big);

  // vprintf through a variadic wrapper, fputs/putchar/fputc, and stderr.
  ret = my_vprintf("vprintf %d %s %.2f\n", 7, "seven", 7.0);
  printf("vprintf returned %d\n", ret);
  fputs("fputs line\n", stdout);
  putchar('p');
  fputc('\n', stdout);
  fprintf(stderr, "to stderr: %d %s\n", -1, "err");
  fputs("stderr fputs\n", stderr);
  fwrite("fwrite!\n", 1, 8, stdout);
  return 0;
}
