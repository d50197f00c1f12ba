/* Cartesian topologies and the reductions that scatter or scan: MPI_Dims_create, a periodic 2D
 * grid (MPI_Cart_create, coords, rank, shift, a neighbour exchange along each dimension),
 * MPI_Cart_sub rows summed with MPI_Allreduce, MPI_Exscan and MPI_Reduce_scatter_block. Every
 * rank prints its coordinates, neighbours and what it received; the output is the same under
 * any MPI library (the host build runs under Open MPI). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    const int cases[][2] = {{12, 2}, {8, 3}, {6, 2}, {16, 2}, {7, 2}, {36, 3}};
    for (int k = 0; k < 6; ++k) {
      int dims[3] = {0, 0, 0};
      MPI_Dims_create(cases[k][0], cases[k][1], dims);
      printf("dims_create %d in %d:", cases[k][0], cases[k][1]);
      for (int d = 0; d < cases[k][1]; ++d) printf(" %d", dims[d]);
      printf("\n");
    }
  }
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  int me, coords[2], back = -1, status = 0;
  MPI_Comm_rank(grid, &me);
  MPI_Cart_coords(grid, me, 2, coords);
  MPI_Cart_rank(grid, coords, &back);
  MPI_Topo_test(grid, &status);
  printf("rank %d of a %dx%d grid (periodic, open): coords (%d,%d), back to rank %d, cart %d\n", me,
         dims[0], dims[1], coords[0], coords[1], back, status == MPI_CART);
  for (int d = 0; d < 2; ++d) {
    int src, dst, got = -7;
    MPI_Cart_shift(grid, d, 1, &src, &dst);
    MPI_Sendrecv(&me, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, grid, MPI_STATUS_IGNORE);
    printf("rank %d dim %d: from %d to %d, received %d\n", me, d, src == MPI_PROC_NULL ? -1 : src,
           dst == MPI_PROC_NULL ? -1 : dst, src == MPI_PROC_NULL ? -1 : got);
  }
  int keep[2] = {0, 1}, row_rank, row_size, row_sum = 0;
  MPI_Comm row;
  MPI_Cart_sub(grid, keep, &row);
  MPI_Comm_rank(row, &row_rank);
  MPI_Comm_size(row, &row_size);
  MPI_Allreduce(&me, &row_sum, 1, MPI_INT, MPI_SUM, row);
  printf("rank %d row %d: rank %d of %d, ranks' sum %d\n", me, coords[0], row_rank, row_size,
         row_sum);
  long mine = me + 1, before = -1;
  MPI_Exscan(&mine, &before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank > 0) printf("rank %d exscan %ld\n", rank, before);
  long* contrib = malloc(sizeof(long) * 2 * (size_t)size);
  for (int i = 0; i < 2 * size; ++i) contrib[i] = (long)rank * 100 + i;
  long part[2];
  MPI_Reduce_scatter_block(contrib, part, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d reduce_scatter_block %ld %ld\n", rank, part[0], part[1]);
  free(contrib);
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
