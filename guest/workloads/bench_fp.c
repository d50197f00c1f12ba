// bench_fp: a floating-point benchmark of size SIZE (argument, default 320): a blocked dense
// matrix multiply of SIZE x SIZE doubles, a Jacobi relaxation of a (2 SIZE)^2 grid for 40
// sweeps, and an N-body simulation of SIZE/2 bodies (with sqrt and division) for 20 steps.
// Prints a checksum. Roughly 570 million instructions at the default size.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double matmul(int n) {
  double* a = malloc((size_t)n * n * sizeof *a);
  double* b = malloc((size_t)n * n * sizeof *b);
  double* c = calloc((size_t)n * n, sizeof *c);
  if (!a || !b || !c) exit(1);
  for (int i = 0; i < n * n; ++i) {
    a[i] = (double)(i % 17) * 0.25 - 1.0;
    b[i] = (double)(i % 13) * 0.125 + 0.5;
  }
  enum { B = 32 };
  for (int ii = 0; ii < n; ii += B) {
    for (int kk = 0; kk < n; kk += B) {
      for (int jj = 0; jj < n; jj += B) {
        for (int i = ii; i < ii + B && i < n; ++i) {
          for (int k = kk; k < kk + B && k < n; ++k) {
            double aik = a[i * n + k];
            for (int j = jj; j < jj + B && j < n; ++j) c[i * n + j] += aik * b[k * n + j];
          }
        }
      }
    }
  }
  double trace = 0.0;
  for (int i = 0; i < n; ++i) trace += c[i * n + i] + c[i * n + (n - 1 - i)];
  free(a);
  free(b);
  free(c);
  return trace;
}

static double jacobi(int m, int sweeps) {
  double* u = calloc((size_t)m * m, sizeof *u);
  double* v = calloc((size_t)m * m, sizeof *v);
  if (!u || !v) exit(1);
  for (int j = 0; j < m; ++j) u[j] = v[j] = 1.0;  // a hot top edge
  for (int s = 0; s < sweeps; ++s) {
    for (int i = 1; i < m - 1; ++i) {
      for (int j = 1; j < m - 1; ++j) {
        v[i * m + j] =
            0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
      }
    }
    double* t = u;
    u = v;
    v = t;
  }
  double sum = 0.0;
  for (int i = 0; i < m * m; ++i) sum += u[i];
  free(u);
  free(v);
  return sum;
}

static double nbody(int bodies, int steps) {
  double* x = malloc((size_t)bodies * 7 * sizeof *x);
  if (!x) exit(1);
  double *y = x + bodies, *z = y + bodies, *vx = z + bodies, *vy = vx + bodies, *vz = vy + bodies,
         *m = vz + bodies;
  for (int i = 0; i < bodies; ++i) {
    x[i] = cos(i * 0.7) * (1 + i % 5);
    y[i] = sin(i * 1.3) * (1 + i % 3);
    z[i] = (i % 11) * 0.1 - 0.5;
    vx[i] = vy[i] = vz[i] = 0.0;
    m[i] = 1.0 + (i % 4) * 0.5;
  }
  const double dt = 0.01, soft = 1e-3;
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < bodies; ++i) {
      double ax = 0, ay = 0, az = 0;
      for (int j = 0; j < bodies; ++j) {
        double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        double d2 = dx * dx + dy * dy + dz * dz + soft;
        double inv = m[j] / (d2 * sqrt(d2));
        ax += dx * inv;
        ay += dy * inv;
        az += dz * inv;
      }
      vx[i] += dt * ax;
      vy[i] += dt * ay;
      vz[i] += dt * az;
    }
    for (int i = 0; i < bodies; ++i) {
      x[i] += dt * vx[i];
      y[i] += dt * vy[i];
      z[i] += dt * vz[i];
    }
  }
  double e = 0.0;
  for (int i = 0; i < bodies; ++i)
    e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
  free(x);
  return e;
}

int main(int argc, char** argv) {
  int size = argc > 1 ? atoi(argv[1]) : 320;
  if (size < 8 || size > 4096) {
    fprintf(stderr, "usage: bench_fp [SIZE in 8..4096]\n");
    return 2;
  }
  double t = matmul(size);
  double j = jacobi(2 * size, 40);
  double e = nbody(size / 2, 20);
  printf("bench_fp size=%d matmul_trace=%.10e jacobi_sum=%.10e nbody_energy=%.10e\n", size, t, j,
         e);
  return 0;
}
