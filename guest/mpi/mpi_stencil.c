/* A 2D Jacobi relaxation on an N x N grid, rows split into blocks over the ranks, with a halo
 * row exchanged with each neighbour every iteration (MPI_Isend/MPI_Irecv/MPI_Waitall). The
 * boundary is fixed (1 on the top edge, 0 elsewhere). Every `report` iterations rank 0 prints
 * the grid's sum, gathered from the ranks' partial sums and added in rank order, so that the
 * numbers are the same under any MPI library and any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  const int iterations = argc > 2 ? atoi(argv[2]) : 40;
  const int report = argc > 3 ? atoi(argv[3]) : 10;
  /* Rows [first, first + rows) of the interior rows 1..n-2 are this rank's. */
  const int interior = n - 2;
  const int rows = interior / size + (rank < interior % size);
  const int first =
      1 + rank * (interior / size) + (rank < interior % size ? rank : interior % size);
  double* u = calloc((size_t)(rows + 2) * n, sizeof(double));
  double* v = calloc((size_t)(rows + 2) * n, sizeof(double));
  /* Local row r (1..rows) is global row first + r - 1; rows 0 and rows + 1 are halos. */
  for (int r = 0; r < rows + 2; ++r) {
    if (first + r - 1 == 0) {
      for (int c = 0; c < n; ++c) u[(size_t)r * n + c] = v[(size_t)r * n + c] = 1.0;
    }
  }
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double* partials = malloc(sizeof(double) * (size_t)size);
  for (int it = 1; it <= iterations; ++it) {
    MPI_Request req[4];
    MPI_Irecv(u, n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(u + (size_t)(rows + 1) * n, n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(u + n, n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(u + (size_t)rows * n, n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    for (int r = 1; r <= rows; ++r) {
      for (int c = 1; c < n - 1; ++c) {
        const size_t i = (size_t)r * n + c;
        v[i] = 0.25 * (u[i - n] + u[i + n] + u[i - 1] + u[i + 1]);
      }
    }
    double* t = u;
    u = v;
    v = t;
    if (it % report == 0 || it == iterations) {
      double local = 0;
      for (int r = 1; r <= rows; ++r)
        for (int c = 0; c < n; ++c) local += u[(size_t)r * n + c];
      MPI_Gather(&local, 1, MPI_DOUBLE, partials, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        double sum = n; /* the top edge's row */
        for (int k = 0; k < size; ++k) sum += partials[k];
        printf("iteration %d sum %.15e\n", it, sum);
      }
    }
  }
  free(u);
  free(v);
  free(partials);
  MPI_Finalize();
  return 0;
}
