// demo: the bundled example workload. Solves the Poisson equation -laplace(u) = f on the unit
// square with zero boundary values, discretised on an N x N interior grid (5-point stencil),
// by the conjugate gradient method, for a right-hand side whose exact solution is known
// (u = g(x) g(y) with g(t) = t (1 - t) e^t, which excites every mode of the discrete operator,
// so CG needs many iterations), then reports the iteration count, the final residual and the
// discretisation error. About 210 million instructions at the default N = 100 (the optional
// argument), with a mix of streaming loads, floating-point multiply-adds and reductions.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int n;  // interior points per side

// The exact solution's factor g(t) = t (1 - t) e^t, and -g''(t) = t (3 + t) e^t.
static double g(double t) {
  return t * (1.0 - t) * exp(t);
}
static double minus_g2(double t) {
  return t * (3.0 + t) * exp(t);
}

// y = A x for the 5-point Laplacian scaled by h^2 (A = 4 on the diagonal, -1 off it).
static void apply(const double* x, double* y) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double v = 4.0 * x[i * n + j];
      if (i > 0) v -= x[(i - 1) * n + j];
      if (i < n - 1) v -= x[(i + 1) * n + j];
      if (j > 0) v -= x[i * n + j - 1];
      if (j < n - 1) v -= x[i * n + j + 1];
      y[i * n + j] = v;
    }
  }
}

static double dot(const double* a, const double* b, int len) {
  double s = 0.0;
  for (int k = 0; k < len; ++k) s += a[k] * b[k];
  return s;
}

int main(int argc, char** argv) {
  n = argc > 1 ? atoi(argv[1]) : 100;
  if (n < 4 || n > 2000) {
    fprintf(stderr, "usage: demo [N] with 4 <= N <= 2000\n");
    return 2;
  }
  int len = n * n;
  double h = 1.0 / (n + 1);
  double* u = calloc((size_t)len, sizeof *u);
  double* r = malloc((size_t)len * sizeof *r);
  double* p = malloc((size_t)len * sizeof *p);
  double* ap = malloc((size_t)len * sizeof *ap);
  if (!u || !r || !p || !ap) {
    fprintf(stderr, "demo: out of memory\n");
    return 1;
  }
  // Right-hand side h^2 f with f = -laplace(u) = -g''(x) g(y) - g(x) g''(y); r = b - A*0.
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double x = (i + 1) * h, y = (j + 1) * h;
      r[i * n + j] = h * h * (minus_g2(x) * g(y) + g(x) * minus_g2(y));
      p[i * n + j] = r[i * n + j];
    }
  }
  double rr = dot(r, r, len);
  double rr0 = rr;
  int iter = 0;
  while (iter < 10 * n && rr > 1e-24 * rr0) {
    apply(p, ap);
    double alpha = rr / dot(p, ap, len);
    for (int k = 0; k < len; ++k) {
      u[k] += alpha * p[k];
      r[k] -= alpha * ap[k];
    }
    double rr_new = dot(r, r, len);
    double beta = rr_new / rr;
    for (int k = 0; k < len; ++k) p[k] = r[k] + beta * p[k];
    rr = rr_new;
    ++iter;
  }
  double max_err = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double exact = g((i + 1) * h) * g((j + 1) * h);
      double e = fabs(u[i * n + j] - exact);
      if (e > max_err) max_err = e;
    }
  }
  printf("Poisson %dx%d: conjugate gradient converged in %d iterations\n", n, n, iter);
  printf("relative residual %.3e, max error vs exact solution %.6e\n", sqrt(rr / rr0), max_err);
  double c = (n / 2 + 1) * h;
  printf("u(center) = %.12f (exact %.12f)\n", u[(n / 2) * n + n / 2], g(c) * g(c));
  free(u);
  free(r);
  free(p);
  free(ap);
  return 0;
}
