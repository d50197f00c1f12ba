/* Every collective and the point-to-point features, each checked on every rank against the
 * result computed sequentially; rank 0 prints one line per check with the number of ranks that
 * passed it. Exit status 1 if any rank failed a check. Integer and exactly representable data,
 * so the results are the same under any MPI (the host build runs under Open MPI). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

static void check(const char* what, int ok) {
  int passed = 0;
  MPI_Reduce(&ok, &passed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!ok) ++failures;
  if (rank == 0) printf("%-28s %d/%d\n", what, passed, size);
}

static long value(int r, int i) {
  return 1000L * r + i;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 300; /* elements: > one packet of longs */
  long* a = malloc(sizeof(long) * (size_t)n * size);
  long* b = malloc(sizeof(long) * (size_t)n * size);
  int ok;

  MPI_Barrier(MPI_COMM_WORLD);
  check("barrier", 1);

  for (int root = 0; root<size; root += size> 2 ? size - 1 : 1) {
    for (int i = 0; i < n; ++i) a[i] = rank == root ? value(root, i) : -1;
    MPI_Bcast(a, n, MPI_LONG, root, MPI_COMM_WORLD);
    ok = 1;
    for (int i = 0; i < n; ++i) ok &= a[i] == value(root, i);
    char name[64];
    snprintf(name, sizeof name, "bcast root %d", root);
    check(name, ok);
  }

  for (int i = 0; i < n; ++i) a[i] = value(rank, i);
  MPI_Reduce(a, b, n, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD);
  ok = 1;
  if (rank == size - 1) {
    for (int i = 0; i < n; ++i) ok &= b[i] == 1000L * size * (size - 1) / 2 + (long)i * size;
  }
  check("reduce sum long", ok);

  double d = rank + 0.5, dmax = 0, dsum = 0;
  MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  check("allreduce max/sum double",
        dmax == size - 0.5 && dsum == size * (size - 1) / 2.0 + 0.5 * size);

  /* (Products and bit masks that fit an int for any rank count.) */
  int v = rank % 4 == 0 ? 2 : 1, mn_in = rank + 1, prod = 0, mn = 0, band = 0, lor = 0;
  MPI_Allreduce(&v, &prod, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  MPI_Allreduce(&mn_in, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int bits = ~(1 << (rank % 31));
  MPI_Allreduce(&bits, &band, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD);
  int flag = rank == size - 1;
  MPI_Allreduce(&flag, &lor, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  int expect_prod = 1, expect_band = ~0;
  for (int r = 0; r < size; ++r) {
    if (r % 4 == 0) expect_prod *= 2;
    expect_band &= ~(1 << (r % 31));
  }
  check("allreduce prod/min/band/lor",
        prod == expect_prod && mn == 1 && band == expect_band && lor == 1);

  long inplace = rank;
  MPI_Allreduce(MPI_IN_PLACE, &inplace, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  check("allreduce in place", inplace == (long)size * (size - 1) / 2);

  struct {
    double v;
    int i;
  } loc = {rank == 1 ? 7.0 : (double)(rank % 3), rank}, maxloc;
  MPI_Allreduce(&loc, &maxloc, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  check("allreduce maxloc", size > 1 ? maxloc.v == 7.0 && maxloc.i == 1 : maxloc.i == 0);

  for (int i = 0; i < n; ++i) a[i] = value(rank, i);
  MPI_Gather(a, n, MPI_LONG, b, n, MPI_LONG, 0, MPI_COMM_WORLD);
  ok = 1;
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) ok &= b[(size_t)r * n + i] == value(r, i);
  }
  check("gather", ok);

  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = r + 1;
    displs[r] = total;
    total += r + 1;
  }
  for (int i = 0; i <= rank; ++i) a[i] = value(rank, i);
  MPI_Allgatherv(a, rank + 1, MPI_LONG, b, counts, displs, MPI_LONG, MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i) ok &= b[displs[r] + i] == value(r, i);
  check("allgatherv", ok);

  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) a[(size_t)r * n + i] = value(r, i) * 3;
  }
  MPI_Scatter(a, n, MPI_LONG, b, n, MPI_LONG, 0, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < n; ++i) ok &= b[i] == value(rank, i) * 3;
  check("scatter", ok);

  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= r; ++i) a[displs[r] + i] = -value(r, i);
  }
  MPI_Scatterv(a, counts, displs, MPI_LONG, b, rank + 1, MPI_LONG, 0, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i <= rank; ++i) ok &= b[i] == -value(rank, i);
  check("scatterv", ok);

  int mine = rank * 10;
  int* all = malloc(sizeof(int) * size);
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < size; ++r) ok &= all[r] == r * 10;
  check("allgather", ok);

  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) a[(size_t)r * n + i] = value(rank, r * n + i);
  MPI_Alltoall(a, n, MPI_LONG, b, n, MPI_LONG, MPI_COMM_WORLD);
  ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) ok &= b[(size_t)r * n + i] == value(r, rank * n + i);
  check("alltoall", ok);

  long scan = 0, me = rank + 1;
  MPI_Scan(&me, &scan, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  check("scan", scan == (long)(rank + 1) * (rank + 2) / 2);

  /* Communicators: even and odd ranks, ordered by descending rank (key). */
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hrank, hsize, hsum = 0;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, half);
  int expect = 0, members = 0, above = 0;
  for (int r = rank % 2; r < size; r += 2) {
    expect += r;
    ++members;
    if (r > rank) ++above;
  }
  check("comm_split", hsize == members && hrank == above && hsum == expect);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int token = rank, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT, (rank + size - 1) % size,
               5, dup, MPI_STATUS_IGNORE);
  check("comm_dup sendrecv", got == (rank + size - 1) % size);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);

  /* Wildcards, probe, waitany, testall: every other rank sends rank 0 two tagged messages. */
  ok = 1;
  if (rank == 0) {
    int received = 0;
    long sum = 0;
    for (int k = 0; k < 2 * (size - 1); ++k) {
      MPI_Status st;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      int count = 0;
      MPI_Get_count(&st, MPI_LONG, &count);
      long msg[4] = {0};
      MPI_Recv(msg, 4, MPI_LONG, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
      ok &= count == st.MPI_TAG && msg[0] == st.MPI_SOURCE;
      sum += msg[count - 1];
      ++received;
    }
    long expect_sum = 0;
    for (int r = 1; r < size; ++r) expect_sum += 2L * r + 10L * r;
    ok &= received == 2 * (size - 1) && sum == expect_sum;
  } else {
    long m2[2] = {rank, 2L * rank}, m3[3] = {rank, 0, 10L * rank};
    MPI_Request req[2];
    MPI_Isend(m2, 2, MPI_LONG, 0, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(m3, 3, MPI_LONG, 0, 3, MPI_COMM_WORLD, &req[1]);
    int index = -1, done = 0;
    MPI_Waitany(2, req, &index, MPI_STATUS_IGNORE);
    ok &= index == 0 || index == 1;
    while (!done) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
    ok &= req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL;
  }
  check("probe/waitany/testall", ok);

  if (rank == 0) printf("collectives: %d ranks, %s\n", size, failures ? "FAILED" : "all passed");
  free(a);
  free(b);
  free(counts);
  free(displs);
  free(all);
  MPI_Finalize();
  return failures != 0;
}
