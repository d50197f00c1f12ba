// bench_omp: an OpenMP workload for simulator-speed measurements with many threads.
// ROUNDS (argument, default 40) rounds of: a 2-D Jacobi sweep over a 512 x 512 grid (parallel
// for, static schedule), a dot-product reduction, and a histogram with atomics. The work is the
// same whatever the thread count (OMP_NUM_THREADS, default: the machine's hardware threads),
// so instructions per second can be compared across thread counts. Prints a checksum.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { kN = 512, kBins = 64 };

static double grid[2][kN][kN];

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 40;
  for (int i = 0; i < kN; ++i) {
    for (int j = 0; j < kN; ++j) grid[0][i][j] = grid[1][i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
  }
  long histogram[kBins] = {0};
  double dot = 0.0;
  int cur = 0;
  for (int r = 0; r < rounds; ++r) {
    const int next = cur ^ 1;
#pragma omp parallel for schedule(static)
    for (int i = 1; i < kN - 1; ++i) {
      for (int j = 1; j < kN - 1; ++j) {
        grid[next][i][j] = 0.25 * (grid[cur][i - 1][j] + grid[cur][i + 1][j] + grid[cur][i][j - 1] +
                                   grid[cur][i][j + 1]);
      }
    }
    cur = next;
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int i = 0; i < kN; ++i) {
      for (int j = 0; j < kN; ++j) sum += grid[cur][i][j] * grid[cur][j][i];
    }
    dot += sum;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < kN * 8; ++i) {
      const unsigned bin = (unsigned)(i * 2654435761u + (unsigned)r) % kBins;
#pragma omp atomic
      histogram[bin]++;
    }
  }
  long check = 0;
  for (int b = 0; b < kBins; ++b) check += histogram[b] * (b + 1);
  printf("bench_omp: rounds %d dot %.9e histogram %ld\n", rounds, dot, check);
  return 0;
}
