/* bt: a block tri-diagonal solver kernel in the style of NAS BT (the seed's Table 1 workload).
 *
 *   bt [N [STEPS]]      (default N = 16, STEPS = 4; OpenMP, 2 threads unless OMP_NUM_THREADS)
 *
 * Five unknowns per point of an N^3 grid. Each time step computes a right-hand side (a
 * seven-point stencil of nonlinear fluxes, as BT's compute_rhs), then solves along x, y and z
 * lines in turn (ADI): every line is a block tri-diagonal system of 5x5 blocks, built from
 * flux Jacobians of the current solution and solved by the block Thomas algorithm with BT's
 * routines (binvcrhs: Gauss-Jordan of the diagonal block with the upper block and the
 * right-hand side; matmul_sub; matvec_sub; back substitution). The lines of each sweep are
 * shared among the threads. Not NAS BT: no exact-solution forcing and no verification classes;
 * instead the solver checks its first line of each sweep against the unfactored system
 * (residual below 1e-9) and prints the solution's norms, which are deterministic. Exit status 0
 * when the checks hold. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define kVars 5
#define kMaxN 64

typedef double block[kVars][kVars];
typedef double vec[kVars];

static int n;
static vec* u;   /* n^3 points */
static vec* rhs; /* n^3 points */
static const double dt = 0.002;

static inline size_t at(int i, int j, int k) {
  return ((size_t)k * (size_t)n + (size_t)j) * (size_t)n + (size_t)i;
}

/* ---- BT's block routines ------------------------------------------------------------------ */

/* b = b - a c (5x5) */
static void matmul_sub(const block a, const block c, block b) {
  for (int i = 0; i < kVars; ++i)
    for (int j = 0; j < kVars; ++j) {
      double s = b[i][j];
      for (int m = 0; m < kVars; ++m) s -= a[i][m] * c[m][j];
      b[i][j] = s;
    }
}

/* r = r - a v */
static void matvec_sub(const block a, const vec v, vec r) {
  for (int i = 0; i < kVars; ++i) {
    double s = r[i];
    for (int m = 0; m < kVars; ++m) s -= a[i][m] * v[m];
    r[i] = s;
  }
}

/* Gauss-Jordan on lhs (no pivoting: the blocks are diagonally dominant): c = lhs^-1 c,
 * r = lhs^-1 r. */
static void binvcrhs(block lhs, block c, vec r) {
  for (int p = 0; p < kVars; ++p) {
    const double pivot = 1.0 / lhs[p][p];
    for (int j = p + 1; j < kVars; ++j) lhs[p][j] *= pivot;
    for (int j = 0; j < kVars; ++j) c[p][j] *= pivot;
    r[p] *= pivot;
    for (int i = 0; i < kVars; ++i) {
      if (i == p) continue;
      const double coeff = lhs[i][p];
      for (int j = p + 1; j < kVars; ++j) lhs[i][j] -= coeff * lhs[p][j];
      for (int j = 0; j < kVars; ++j) c[i][j] -= coeff * c[p][j];
      r[i] -= coeff * r[p];
    }
  }
}

/* r = lhs^-1 r */
static void binvrhs(block lhs, vec r) {
  for (int p = 0; p < kVars; ++p) {
    const double pivot = 1.0 / lhs[p][p];
    for (int j = p + 1; j < kVars; ++j) lhs[p][j] *= pivot;
    r[p] *= pivot;
    for (int i = 0; i < kVars; ++i) {
      if (i == p) continue;
      const double coeff = lhs[i][p];
      for (int j = p + 1; j < kVars; ++j) lhs[i][j] -= coeff * lhs[p][j];
      r[i] -= coeff * r[p];
    }
  }
}

/* ---- the physics stand-in ----------------------------------------------------------------- */

/* The flux Jacobian of point q along direction d (a dense 5x5 block built from the state, as
 * BT's fjac: velocities and energy divided by the density). */
static void jacobian(const vec q, int d, block f) {
  const double rho_inv = 1.0 / q[0];
  const double vel = q[1 + d % 3] * rho_inv;
  for (int i = 0; i < kVars; ++i)
    for (int j = 0; j < kVars; ++j) f[i][j] = 0.05 * q[i] * q[j] * rho_inv * rho_inv;
  for (int i = 0; i < kVars; ++i) f[i][i] += vel;
  f[4][0] -= q[4] * vel * rho_inv;
}

/* The system of one line: lines[t] = the grid index of its t-th point. Writes A, B, C. */
static void build_line(const size_t* line, int d, block* a, block* b, block* c) {
  const double tx = dt * 0.5, visc = dt * 1.5;
  block fm, fp;
  for (int t = 0; t < n; ++t) {
    jacobian(u[line[t > 0 ? t - 1 : t]], d, fm);
    jacobian(u[line[t < n - 1 ? t + 1 : t]], d, fp);
    for (int i = 0; i < kVars; ++i)
      for (int j = 0; j < kVars; ++j) {
        a[t][i][j] = -tx * fm[i][j];
        c[t][i][j] = tx * fp[i][j];
        b[t][i][j] = 0;
      }
    for (int i = 0; i < kVars; ++i) {
      a[t][i][i] -= visc;
      c[t][i][i] -= visc;
      b[t][i][i] = 1.0 + 2.0 * visc + 0.1;
    }
  }
}

/* Solves one line in place (rhs of its points): the block Thomas algorithm. */
static void solve_line(const size_t* line, block* a, block* b, block* c) {
  binvcrhs(b[0], c[0], rhs[line[0]]);
  for (int t = 1; t < n - 1; ++t) {
    matvec_sub(a[t], rhs[line[t - 1]], rhs[line[t]]);
    matmul_sub(a[t], c[t - 1], b[t]);
    binvcrhs(b[t], c[t], rhs[line[t]]);
  }
  matvec_sub(a[n - 1], rhs[line[n - 2]], rhs[line[n - 1]]);
  matmul_sub(a[n - 1], c[n - 2], b[n - 1]);
  binvrhs(b[n - 1], rhs[line[n - 1]]);
  for (int t = n - 2; t >= 0; --t) matvec_sub(c[t], rhs[line[t + 1]], rhs[line[t]]);
}

static void line_points(int d, int p, int q, size_t* line) {
  for (int t = 0; t < n; ++t) line[t] = d == 0 ? at(t, p, q) : d == 1 ? at(p, t, q) : at(p, q, t);
}

static int check_failures;

/* The first line of a sweep, solved and checked against the unfactored system. */
static void solve_checked(int d, block* a, block* b, block* c) {
  size_t line[kMaxN];
  line_points(d, 0, 0, line);
  build_line(line, d, a, b, c);
  static block a0[kMaxN], b0[kMaxN], c0[kMaxN];
  static vec r0[kMaxN];
  memcpy(a0, a, sizeof(block) * (size_t)n);
  memcpy(b0, b, sizeof(block) * (size_t)n);
  memcpy(c0, c, sizeof(block) * (size_t)n);
  for (int t = 0; t < n; ++t) memcpy(r0[t], rhs[line[t]], sizeof(vec));
  solve_line(line, a, b, c);
  double worst = 0;
  for (int t = 0; t < n; ++t)
    for (int i = 0; i < kVars; ++i) {
      double s = -r0[t][i];
      for (int j = 0; j < kVars; ++j) {
        s += b0[t][i][j] * rhs[line[t]][j];
        if (t > 0) s += a0[t][i][j] * rhs[line[t - 1]][j];
        if (t < n - 1) s += c0[t][i][j] * rhs[line[t + 1]][j];
      }
      if (fabs(s) > worst) worst = fabs(s);
    }
  if (!(worst < 1e-9)) {
    printf("sweep %d: line residual %g\n", d, worst);
    ++check_failures;
  }
}

static void sweep(int d) {
#pragma omp parallel
  {
    block* a = malloc(sizeof(block) * (size_t)n);
    block* b = malloc(sizeof(block) * (size_t)n);
    block* c = malloc(sizeof(block) * (size_t)n);
    size_t line[kMaxN];
#pragma omp single
    solve_checked(d, a, b, c);
#pragma omp for schedule(static) collapse(2)
    for (int q = 0; q < n; ++q)
      for (int p = 0; p < n; ++p) {
        if (p == 0 && q == 0) continue;
        line_points(d, p, q, line);
        build_line(line, d, a, b, c);
        solve_line(line, a, b, c);
      }
    free(a);
    free(b);
    free(c);
  }
}

static void compute_rhs(void) {
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const vec* q = &u[at(i, j, k)];
        vec r;
        for (int m = 0; m < kVars; ++m) r[m] = 6.0 * (*q)[m];
        const int nb[6][3] = {{i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k},
                              {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
        for (int s = 0; s < 6; ++s) {
          const int x = nb[s][0], y = nb[s][1], z = nb[s][2];
          if (x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= n) continue;
          const vec* o = &u[at(x, y, z)];
          const double flux = (*o)[1 + s / 2] / (*o)[0];
          for (int m = 0; m < kVars; ++m) r[m] -= (*o)[m] + (s % 2 ? 0.5 : -0.5) * flux * (*o)[m];
        }
        for (int m = 0; m < kVars; ++m) rhs[at(i, j, k)][m] = -dt * r[m];
      }
}

static void add_update(void) {
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int m = 0; m < kVars; ++m) u[at(i, j, k)][m] += rhs[at(i, j, k)][m];
}

int main(int argc, char** argv) {
  n = argc > 1 ? atoi(argv[1]) : 16;
  const int steps = argc > 2 ? atoi(argv[2]) : 4;
  if (n < 3 || n > kMaxN || steps < 1) {
    fprintf(stderr, "usage: bt [N (3..%d) [STEPS]]\n", kMaxN);
    return 2;
  }
  if (getenv("OMP_NUM_THREADS") == NULL) omp_set_num_threads(2);
  const size_t points = (size_t)n * (size_t)n * (size_t)n;
  u = malloc(points * sizeof(vec));
  rhs = malloc(points * sizeof(vec));
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x = (double)i / n, y = (double)j / n, z = (double)k / n;
        vec* q = &u[at(i, j, k)];
        (*q)[0] = 1.0 + 0.2 * x * y + 0.1 * z;
        (*q)[1] = 0.3 + 0.1 * sin(3 * x);
        (*q)[2] = 0.2 + 0.1 * cos(2 * y);
        (*q)[3] = 0.1 + 0.05 * x * z;
        (*q)[4] = 2.0 + 0.3 * y;
      }
  printf("bt: %d^3 grid, %d steps, %d threads\n", n, steps, omp_get_max_threads());
  for (int step = 1; step <= steps; ++step) {
    compute_rhs();
    sweep(0);
    sweep(1);
    sweep(2);
    add_update();
  }
  double norm[kVars] = {0};
  for (size_t p = 0; p < points; ++p)
    for (int m = 0; m < kVars; ++m) norm[m] += u[p][m] * u[p][m];
  for (int m = 0; m < kVars; ++m) printf("rms u[%d] = %.12e\n", m, sqrt(norm[m] / (double)points));
  printf("line checks: %s\n", check_failures ? "FAILED" : "passed");
  free(u);
  free(rhs);
  return check_failures ? 1 : 0;
}
