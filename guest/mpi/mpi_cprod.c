/* Complex products in reductions (MPI_PROD on MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX and
 * Fortran's MPI_COMPLEX and MPI_DOUBLE_COMPLEX): every rank prints, as hexadecimal floats, what
 * MPI_Allreduce and MPI_Reduce give, for the host build under Open MPI to print the same.
 *
 * Element k of each vector is the product of two values, v[k] from rank k % size and w[k] from
 * rank (k + 1) % size; every other rank gives 1 + 0i, whose product with any number is that
 * number exactly. So the result is the one product v[k] * w[k], whatever order the library
 * combines the ranks in, and it is the same bits as Open MPI's only if libmpi rounds a * c - b * d
 * and a * d + b * c as the host does, each product rounded apart (libmpi was built fusing them
 * into multiply-adds, as GCC does for RISC-V unless told not to, and printed other bits than Open
 * MPI on x86-64 even for programs built without fusing). Run on 2 or more ranks. */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>

enum { kCount = 8 };

static double part(int k, int which) {
  switch (which) {
    case 0: return 1.0 / 3 + k / 7.0;
    case 1: return 2.0 / 3 - k / 11.0;
    case 2: return 5.0 / 7 + k / 13.0;
    default: return 1.0 / 9 + k / 17.0;
  }
}

static double _Complex mine(int k, int rank, int size) {
  if (rank == k % size) return part(k, 0) + part(k, 1) * I;
  if (rank == (k + 1) % size) return part(k, 2) + part(k, 3) * I;
  return 1.0;
}

static void show(const char* what, int rank, const double _Complex* z) {
  printf("rank %d %s:", rank, what);
  for (int k = 0; k < kCount; ++k) printf(" %a%+ai", creal(z[k]), cimag(z[k]));
  printf("\n");
}

static void show_float(const char* what, int rank, const float _Complex* z) {
  printf("rank %d %s:", rank, what);
  for (int k = 0; k < kCount; ++k) printf(" %a%+ai", (double)crealf(z[k]), (double)cimagf(z[k]));
  printf("\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d of %d\n", rank, size);
  double _Complex d[kCount], dr[kCount];
  float _Complex f[kCount], fr[kCount];
  for (int k = 0; k < kCount; ++k) {
    d[k] = mine(k, rank, size);
    f[k] = (float)creal(d[k]) + (float)cimag(d[k]) * I;
  }
  const struct {
    MPI_Datatype type;
    const char* name;
  } doubles[] = {{MPI_C_DOUBLE_COMPLEX, "C_DOUBLE_COMPLEX"},
                 {MPI_DOUBLE_COMPLEX, "DOUBLE_COMPLEX"}},
    floats[] = {{MPI_C_FLOAT_COMPLEX, "C_FLOAT_COMPLEX"}, {MPI_COMPLEX, "COMPLEX"}};
  char what[64];
  for (int t = 0; t < 2; ++t) {
    MPI_Allreduce(d, dr, kCount, doubles[t].type, MPI_PROD, MPI_COMM_WORLD);
    snprintf(what, sizeof what, "allreduce %s", doubles[t].name);
    show(what, rank, dr);
    MPI_Allreduce(f, fr, kCount, floats[t].type, MPI_PROD, MPI_COMM_WORLD);
    snprintf(what, sizeof what, "allreduce %s", floats[t].name);
    show_float(what, rank, fr);
  }
  const int root = size - 1;
  for (int k = 0; k < kCount; ++k) dr[k] = 0;
  MPI_Reduce(d, dr, kCount, MPI_C_DOUBLE_COMPLEX, MPI_PROD, root, MPI_COMM_WORLD);
  if (rank == root) show("reduce C_DOUBLE_COMPLEX", rank, dr);
  MPI_Finalize();
  return 0;
}
