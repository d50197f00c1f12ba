// amg: an AMGmk-like OpenMP kernel (the Sequoia micro-kernel of seed 003's what-if experiments,
// docs/whatif.md). A 27-point Laplacian on an N x N x N grid in CSR form (diagonal first in each
// row, as hypre stores it), and REPS rounds of its three phases, each a region:
//   matvec  y = A x + y, rows split among the threads (omp for, static); the sum accumulates in
//           y[i] itself, as hypre's hypre_CSRMatrixMatvec does, so every nonzero loads and
//           stores y[i] (nothing tells the compiler that y does not alias A or x)
//   relax   one hybrid Gauss-Seidel sweep (hypre relax type 3, AMGmk's Relax): u is copied to
//           tmp, then each thread sweeps its block of rows with the newest u inside the block
//           and the old tmp outside it, dividing by the diagonal
//   axpy    y = alpha x + y, serial (the reference code has no parallelism there)
// Every thread marks matvec and relax (inside the parallel region, after the loop's barrier, so
// each thread's region lasts the whole phase); the main thread marks axpy.
//
//   amg [N [REPS]]      (default 20 and 2; threads: OMP_NUM_THREADS)
//
// Prints checksums of y and u: the same on every run with the same thread count (the hybrid
// sweep's blocks, and so u, depend on the thread count).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpm/region.h"

HPM_REGION_NAME(1, "matvec");
HPM_REGION_NAME(2, "relax");
HPM_REGION_NAME(3, "axpy");

typedef struct {
  int rows;
  int* row_start;  // rows + 1
  int* col;
  double* val;
} Csr;

static void* xmalloc(size_t bytes) {
  void* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "amg: out of memory\n");
    exit(1);
  }
  return p;
}

static Csr laplacian27(int n) {
  Csr a;
  a.rows = n * n * n;
  a.row_start = xmalloc(sizeof(int) * (size_t)(a.rows + 1));
  a.col = xmalloc(sizeof(int) * (size_t)a.rows * 27);
  a.val = xmalloc(sizeof(double) * (size_t)a.rows * 27);
  int nz = 0;
  for (int z = 0; z < n; ++z) {
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) {
        const int row = (z * n + y) * n + x;
        a.row_start[row] = nz;
        a.col[nz] = row;  // the diagonal first
        a.val[nz++] = 26.0;
        // The neighbours inside the grid, in increasing column order.
        for (int zz = z > 0 ? z - 1 : 0; zz <= z + 1 && zz < n; ++zz) {
          for (int yy = y > 0 ? y - 1 : 0; yy <= y + 1 && yy < n; ++yy) {
            for (int xx = x > 0 ? x - 1 : 0; xx <= x + 1 && xx < n; ++xx) {
              const int c = (zz * n + yy) * n + xx;
              if (c == row) continue;
              a.col[nz] = c;
              a.val[nz++] = -1.0;
            }
          }
        }
      }
    }
  }
  a.row_start[a.rows] = nz;
  return a;
}

// y = A x + y: hypre's loop shape (the sum lives in y[i]).
static void matvec(const Csr* a, const double* x, double* y) {
#pragma omp parallel
  {
    HPM_REGION_BEGIN(1);
#pragma omp for schedule(static)
    for (int i = 0; i < a->rows; ++i) {
      for (int jj = a->row_start[i]; jj < a->row_start[i + 1]; ++jj) {
        y[i] += a->val[jj] * x[a->col[jj]];
      }
    }
    HPM_REGION_END(1);
  }
}

// One hybrid Gauss-Seidel sweep of A u = f (AMGmk's Relax).
static void relax(const Csr* a, const double* f, double* u, double* tmp) {
#pragma omp parallel
  {
    HPM_REGION_BEGIN(2);
#pragma omp for schedule(static)
    for (int i = 0; i < a->rows; ++i) tmp[i] = u[i];
    const int threads = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int t = 0; t < threads; ++t) {
      const int size = a->rows / threads, rest = a->rows % threads;
      const int ns = t * size + (t < rest ? t : rest);
      const int ne = ns + size + (t < rest ? 1 : 0);
      for (int i = ns; i < ne; ++i) {
        const double diag = a->val[a->row_start[i]];
        if (diag == 0.0) continue;
        double res = f[i];
        for (int jj = a->row_start[i] + 1; jj < a->row_start[i + 1]; ++jj) {
          const int ii = a->col[jj];
          if (ii >= ns && ii < ne) {
            res -= a->val[jj] * u[ii];
          } else {
            res -= a->val[jj] * tmp[ii];
          }
        }
        u[i] = res / diag;
      }
    }
    HPM_REGION_END(2);
  }
}

// y = alpha x + y, serial.
static void axpy(int rows, double alpha, const double* x, double* y) {
  HPM_REGION_BEGIN(3);
  for (int i = 0; i < rows; ++i) y[i] += alpha * x[i];
  HPM_REGION_END(3);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 20;
  const int reps = argc > 2 ? atoi(argv[2]) : 2;
  if (n < 2 || n > 200 || reps < 1) {
    fprintf(stderr, "usage: amg [N (2..200) [REPS]]\n");
    return 2;
  }
  const Csr a = laplacian27(n);
  double* x = xmalloc(sizeof(double) * (size_t)a.rows);
  double* y = xmalloc(sizeof(double) * (size_t)a.rows);
  double* f = xmalloc(sizeof(double) * (size_t)a.rows);
  double* u = xmalloc(sizeof(double) * (size_t)a.rows);
  double* tmp = xmalloc(sizeof(double) * (size_t)a.rows);
  for (int i = 0; i < a.rows; ++i) {
    x[i] = 1.0 + (double)(i % 7) / 8.0;
    y[i] = 0.0;
    f[i] = 1.0;
    u[i] = 0.0;
  }
  for (int r = 0; r < reps; ++r) {
    matvec(&a, x, y);
    relax(&a, f, u, tmp);
    axpy(a.rows, 0.5, u, y);
  }
  double sum_y = 0.0, sum_u = 0.0;
  for (int i = 0; i < a.rows; ++i) {
    sum_y += y[i];
    sum_u += u[i];
  }
  printf("amg: n %d rows %d nonzeros %d reps %d sum(y) %.10e sum(u) %.10e\n", n, a.rows,
         a.row_start[a.rows], reps, sum_y, sum_u);
  return 0;
}
