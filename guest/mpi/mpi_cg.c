/* Conjugate gradients on the 2D Poisson problem (5-point Laplacian, n x n unknowns, right-hand
 * side 1), rows of the grid in blocks over the ranks: a halo exchange per matrix-vector product
 * and two dot products per iteration. Dot products gather the ranks' partial sums and add them
 * in rank order (MPI_Allgather), so that the iterates, and the residuals rank 0 prints, are the
 * same bits under any MPI library with the same number of ranks. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, n, rows;
static double* partials;

static double dot(const double* a, const double* b) {
  double local = 0;
  for (int i = 0; i < rows * n; ++i) local += a[i] * b[i];
  MPI_Allgather(&local, 1, MPI_DOUBLE, partials, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  double sum = 0;
  for (int k = 0; k < size; ++k) sum += partials[k];
  return sum;
}

/* y = A x for the rank's rows; x has a halo row above and below (x[-n .. -1], x[rows*n ..]). */
static void matvec(double* x, double* y) {
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Request req[4];
  MPI_Irecv(x - n, n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(x + (size_t)rows * n, n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(x, n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(x + (size_t)(rows - 1) * n, n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < n; ++c) {
      const size_t i = (size_t)r * n + c;
      double s = 4 * x[i] - x[i - n] - x[i + n];
      if (c > 0) s -= x[i - 1];
      if (c < n - 1) s -= x[i + 1];
      y[i] = s;
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = argc > 1 ? atoi(argv[1]) : 48;
  const int max_iterations = argc > 2 ? atoi(argv[2]) : 200;
  const double tolerance = 1e-10;
  rows = n / size + (rank < n % size);
  partials = malloc(sizeof(double) * (size_t)size);
  /* Vectors with a zero halo row on each side (the grid's edge is the boundary: zero). */
  const size_t len = (size_t)(rows + 2) * n;
  double* x = calloc(len, sizeof(double));
  double* r = calloc(len, sizeof(double));
  double* p = calloc(len, sizeof(double));
  double* q = calloc(len, sizeof(double));
  double *xs = x + n, *rs = r + n, *ps = p + n, *qs = q + n;
  for (int i = 0; i < rows * n; ++i) rs[i] = ps[i] = 1.0; /* r = b - A 0 = b */
  double rho = dot(rs, rs);
  const double norm0 = sqrt(rho);
  int it = 0;
  while (it < max_iterations && sqrt(rho) > tolerance * norm0) {
    matvec(ps, qs);
    const double alpha = rho / dot(ps, qs);
    for (int i = 0; i < rows * n; ++i) {
      xs[i] += alpha * ps[i];
      rs[i] -= alpha * qs[i];
    }
    const double next = dot(rs, rs);
    const double beta = next / rho;
    rho = next;
    for (int i = 0; i < rows * n; ++i) ps[i] = rs[i] + beta * ps[i];
    ++it;
    if (rank == 0 && it % 10 == 0) printf("iteration %d residual %.15e\n", it, sqrt(rho) / norm0);
  }
  const double xsum = dot(xs, xs);
  if (rank == 0) {
    printf("cg: n %d, %d ranks, %d iterations, residual %.15e, |x|^2 %.15e\n", n, size, it,
           sqrt(rho) / norm0, xsum);
  }
  free(x);
  free(r);
  free(p);
  free(q);
  free(partials);
  MPI_Finalize();
  return it < max_iterations ? 0 : 1;
}
