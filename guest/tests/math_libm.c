// libm: elementary and special functions in double and float, printed to full precision
// (%.17g and %a for double, %.9g for float), including edge arguments (zeros, infinities, NaN,
// huge and tiny values), plus the decomposition functions and errno/fenv-independent results.
// glibc's libm is deterministic given the same inputs and rounding mode, so the simulator must
// reproduce each result bit for bit.
#include <float.h>
#include <math.h>

#include "common.h"

typedef double (*Fn1)(double);
typedef double (*Fn2)(double, double);
typedef float (*Fn1f)(float);

static void show(const char* name, double arg, double r) {
  printf("%s(%.17g) = %.17g %a\n", name, arg, r, r);
}

static void show2(const char* name, double a, double b, double r) {
  printf("%s(%.17g, %.17g) = %.17g %a\n", name, a, b, r, r);
}

int main(void) {
  static const struct {
    const char* name;
    Fn1 fn;
  } unary[] = {
      {"sin", sin},
      {"cos", cos},
      {"tan", tan},
      {"asin", asin},
      {"acos", acos},
      {"atan", atan},
      {"sinh", sinh},
      {"cosh", cosh},
      {"tanh", tanh},
      {"asinh", asinh},
      {"acosh", acosh},
      {"atanh", atanh},
      {"exp", exp},
      {"exp2", exp2},
      {"expm1", expm1},
      {"log", log},
      {"log2", log2},
      {"log10", log10},
      {"log1p", log1p},
      {"sqrt", sqrt},
      {"cbrt", cbrt},
      {"erf", erf},
      {"erfc", erfc},
      {"lgamma", lgamma},
      {"tgamma", tgamma},
      {"floor", floor},
      {"ceil", ceil},
      {"round", round},
      {"trunc", trunc},
      {"rint", rint},
      {"nearbyint", nearbyint},
      {"fabs", fabs},
      {"logb", logb},
  };
  static const double args[] = {0.0,   -0.0,  0.5,   -0.5,   1.0,      -1.0,
                                2.5,   3.0,   10.0,  -7.25,  1e-8,     0.7853981633974483,
                                100.0, 710.0, 1e300, 1e-310, INFINITY, -INFINITY,
                                NAN};
  for (size_t f = 0; f < sizeof unary / sizeof unary[0]; ++f) {
    for (size_t i = 0; i < sizeof args / sizeof args[0]; ++i) {
      show(unary[f].name, args[i], unary[f].fn(args[i]));
    }
  }

  static const struct {
    const char* name;
    Fn2 fn;
  } binary[] = {{"pow", pow},
                {"atan2", atan2},
                {"hypot", hypot},
                {"fmod", fmod},
                {"remainder", remainder},
                {"fmin", fmin},
                {"fmax", fmax},
                {"fdim", fdim},
                {"copysign", copysign},
                {"nextafter", nextafter}};
  static const double pairs[][2] = {
      {2.0, 10.0}, {2.0, 0.5},     {-8.0, 1.0 / 3.0}, {10.0, -3.0},   {0.0, -1.0}, {-0.0, 3.0},
      {1.0, NAN},  {NAN, 0.0},     {-1.0, INFINITY},  {1.5, 1e300},   {7.5, 2.0},  {-7.5, 2.0},
      {3.0, 4.0},  {1e308, 1e308}, {5e-324, -5e-324}, {INFINITY, 0.0}};
  for (size_t f = 0; f < sizeof binary / sizeof binary[0]; ++f) {
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
      show2(binary[f].name, pairs[i][0], pairs[i][1], binary[f].fn(pairs[i][0], pairs[i][1]));
    }
  }

  // Three-argument and decomposition functions.
  printf("fma = %a %a\n", fma(0.1, 10.0, -1.0), fma(1.0 + DBL_EPSILON, 1.0 - DBL_EPSILON, -1.0));
  for (size_t i = 0; i < sizeof args / sizeof args[0]; ++i) {
    int e = 0;
    double m = frexp(args[i], &e);
    double ip = 0;
    double fp = modf(args[i], &ip);
    int quo = 0;
    double rq = remquo(args[i], 0.75, &quo);
    printf("frexp(%g) = %a * 2^%d; modf = %a + %a; ilogb = %d; remquo = %a q%d; lrint = %ld\n",
           args[i], m, isfinite(args[i]) ? e : 0, ip, fp, isfinite(args[i]) ? ilogb(args[i]) : 0,
           rq, quo & 7, isfinite(args[i]) && fabs(args[i]) < 1e18 ? lrint(args[i]) : 0L);
  }
  printf("ldexp = %a %a %a\n", ldexp(1.0, 1023), ldexp(1.0, -1074), ldexp(3.0, -1076));
  printf("scalbn = %a %a\n", scalbn(1.5, 100), scalbn(-1.5, -1060));

  // Single precision.
  static const struct {
    const char* name;
    Fn1f fn;
  } unaryf[] = {{"sinf", sinf},   {"cosf", cosf},   {"expf", expf},   {"logf", logf},
                {"sqrtf", sqrtf}, {"tanhf", tanhf}, {"cbrtf", cbrtf}, {"erff", erff}};
  static const float argsf[] = {0.0f, 0.1f, 1.0f, -2.5f, 88.0f, 1e-40f, 3.4e38f, -INFINITY};
  for (size_t f = 0; f < sizeof unaryf / sizeof unaryf[0]; ++f) {
    for (size_t i = 0; i < sizeof argsf / sizeof argsf[0]; ++i) {
      float r = unaryf[f].fn(argsf[i]);
      printf("%s(%.9g) = %.9g %a\n", unaryf[f].name, (double)argsf[i], (double)r, (double)r);
    }
  }
  printf("powf = %.9g hypotf = %.9g atan2f = %.9g\n", (double)powf(1.0001f, 10000.0f),
         (double)hypotf(3e19f, 4e19f), (double)atan2f(-1.0f, -0.0f));

  // A sum whose value depends on every rounding: Kahan-compensated and naive.
  double naive = 0.0, sum = 0.0, comp = 0.0;
  for (int i = 1; i <= 100000; ++i) {
    double term = 1.0 / ((double)i * (double)i);
    naive += term;
    double y = term - comp;
    double t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
  printf("basel naive=%.17g kahan=%.17g pi^2/6=%.17g\n", naive, sum, M_PI * M_PI / 6.0);
  return 0;
}
