/* Derived datatypes (MPI 3.1, chapter 4): every constructor's size and bounds; packing; typed
 * point-to-point messages (a matrix column sent and received, a short message's counts and
 * elements, persistent and buffered sends, a type freed while its receive is pending); and
 * collectives on derived types (broadcast of a column, gathers and scatters of records, a
 * transpose by all-to-all, per-peer types, reductions and scans with user-defined operations on
 * a struct type, and non-blocking ones). Each rank prints what it computed, so that the
 * simulated run and the host build under Open MPI can be compared line by line. Plain MPI C, 2
 * to 8 ranks. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void describe(const char* name, MPI_Datatype t) {
  int sz;
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_size(t, &sz);
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &tlb, &textent);
  printf("%s: size %d lb %ld extent %ld", name, sz, (long)lb, (long)extent);
  /* (A type of no data has no true bounds: Open MPI prints its sentinels.) */
  if (sz > 0) printf(" true lb %ld true extent %ld", (long)tlb, (long)textent);
  printf("\n");
}

static void print_ints(const char* name, const int* v, int n) {
  printf("%s:", name);
  for (int i = 0; i < n; ++i) printf(" %d", v[i]);
  printf("\n");
}

typedef struct {
  int id;
  double value;
  char tag;
} record;

/* The struct type of `record`, resized to its C size (so arrays of records index right). */
static MPI_Datatype record_type(void) {
  const int lengths[3] = {1, 1, 1};
  const MPI_Aint displs[3] = {offsetof(record, id), offsetof(record, value), offsetof(record, tag)};
  const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype raw, t;
  MPI_Type_create_struct(3, lengths, displs, types, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(record), &t);
  MPI_Type_free(&raw);
  MPI_Type_commit(&t);
  return t;
}

/* A user-defined sum of records: ids added, values added, tags the larger. */
static void record_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const record* a = in;
  record* b = inout;
  for (int i = 0; i < *len; ++i) {
    b[i].id += a[i].id;
    b[i].value += a[i].value;
    if (a[i].tag > b[i].tag) b[i].tag = a[i].tag;
  }
}

static void constructors(void) {
  MPI_Datatype t;
  MPI_Type_contiguous(3, MPI_INT, &t);
  describe("contiguous 3 int", t);
  MPI_Type_free(&t);
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
  describe("vector 3x2 stride 4 double", t);
  MPI_Type_free(&t);
  MPI_Type_create_hvector(3, 1, -12, MPI_INT, &t);
  describe("hvector 3 stride -12 int", t);
  MPI_Type_free(&t);
  const int lengths[3] = {2, 1, 3};
  const int displs[3] = {5, 0, 9};
  MPI_Type_indexed(3, lengths, displs, MPI_SHORT, &t);
  describe("indexed short", t);
  MPI_Type_free(&t);
  const MPI_Aint hdispls[2] = {0, 5};
  MPI_Type_create_hindexed(2, lengths + 1, hdispls, MPI_INT, &t);
  describe("hindexed int at 0 and 5", t);
  MPI_Type_free(&t);
  MPI_Type_create_indexed_block(3, 2, displs, MPI_FLOAT, &t);
  describe("indexed block float", t);
  MPI_Type_free(&t);
  const MPI_Aint hb[3] = {16, 0, 40};
  MPI_Type_create_hindexed_block(3, 2, hb, MPI_CHAR, &t);
  describe("hindexed block char", t);
  MPI_Type_free(&t);
  const int one[2] = {1, 1};
  const MPI_Aint dc[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(2, one, dc, types, &t);
  describe("struct double char", t);
  MPI_Datatype u;
  MPI_Type_contiguous(2, t, &u);
  describe("contiguous 2 of it", u);
  MPI_Type_free(&u);
  MPI_Type_create_resized(t, -4, 32, &u);
  describe("resized lb -4 extent 32", u);
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 2, u, &v);
  describe("vector of the resized", v);
  MPI_Type_free(&v);
  MPI_Type_dup(u, &v);
  describe("dup of the resized", v);
  MPI_Type_free(&v);
  MPI_Type_free(&u);
  MPI_Type_free(&t);
  const int sizes[3] = {4, 5, 6}, subsizes[3] = {2, 3, 1}, starts[3] = {1, 2, 5};
  MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
  describe("subarray C", t);
  MPI_Type_free(&t);
  MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
  describe("subarray Fortran", t);
  MPI_Type_free(&t);
  t = record_type();
  describe("record", t);
  MPI_Type_free(&t);
}

/* A matrix column packed and unpacked, and the position after each call. */
static void packing(void) {
  int m[4][5];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) m[i][j] = 10 * i + j;
  MPI_Datatype column;
  MPI_Type_vector(4, 1, 5, MPI_INT, &column);
  MPI_Type_commit(&column);
  int packsize;
  MPI_Pack_size(2, column, MPI_COMM_WORLD, &packsize);
  char buf[64];
  int position = 0;
  MPI_Pack(&m[0][1], 1, column, buf, sizeof buf, &position, MPI_COMM_WORLD);
  const int extra = 77;
  MPI_Pack(&extra, 1, MPI_INT, buf, sizeof buf, &position, MPI_COMM_WORLD);
  printf("pack size of 2 columns %d, packed %d bytes\n", packsize, position);
  int back[4][5];
  memset(back, 0, sizeof back);
  int got = 0;
  position = 0;
  MPI_Unpack(buf, sizeof buf, &position, &back[0][3], 1, column, MPI_COMM_WORLD);
  MPI_Unpack(buf, sizeof buf, &position, &got, 1, MPI_INT, MPI_COMM_WORLD);
  print_ints("unpacked matrix", &back[0][0], 20);
  printf("unpacked int %d at %d\n", got, position);
  MPI_Type_free(&column);
}

/* This rank's 4x5 matrix (100 rank + 10 i + j), and the committed type of one of its columns. */
static MPI_Datatype matrix(int m[4][5]) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) m[i][j] = 100 * rank + 10 * i + j;
  MPI_Datatype column;
  MPI_Type_vector(4, 1, 5, MPI_INT, &column);
  MPI_Type_commit(&column);
  return column;
}

static void point_to_point(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int m[4][5];
  MPI_Datatype column = matrix(m);
  /* A column out, received as contiguous ints; and contiguous ints received as a column. */
  int in[4];
  MPI_Sendrecv(&m[0][2], 1, column, next, 1, in, 4, MPI_INT, prev, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  print_ints("column from prev", in, 4);
  int row[4] = {rank, rank + 1, rank + 2, rank + 3};
  MPI_Sendrecv(row, 4, MPI_INT, next, 2, &m[0][4], 1, column, prev, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  print_ints("matrix with prev's row as column 4", &m[0][0], 20);
  /* Counts and elements of a message shorter than the receive. */
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int five[5] = {1, 2, 3, 4, 5}, six[6] = {0};
  MPI_Status st;
  MPI_Sendrecv(five, 5, MPI_INT, next, 3, six, 3, pair, prev, 3, MPI_COMM_WORLD, &st);
  int count, elements;
  MPI_Get_count(&st, pair, &count);
  MPI_Get_elements(&st, pair, &elements);
  printf("5 ints as pairs: count %s, elements %d\n", count == MPI_UNDEFINED ? "undefined" : "?",
         elements);
  MPI_Get_count(&st, MPI_INT, &count);
  printf("5 ints as ints: count %d\n", count);
  /* Records through Isend/Irecv, the receive's type freed before it completes. */
  MPI_Datatype rt = record_type();
  record out[3], got[3];
  for (int i = 0; i < 3; ++i) out[i] = (record){rank * 10 + i, rank + 0.25 * i, (char)('a' + i)};
  memset(got, 0, sizeof got);
  MPI_Request r[2];
  MPI_Datatype rt2;
  MPI_Type_dup(rt, &rt2);
  MPI_Irecv(got, 3, rt2, prev, 4, MPI_COMM_WORLD, &r[0]);
  MPI_Type_free(&rt2);
  MPI_Isend(out, 3, rt, next, 4, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 3; ++i) printf("record %d %g %c\n", got[i].id, got[i].value, got[i].tag);
  /* Sendrecv_replace of a column, a persistent send of a column, a buffered send of records. */
  MPI_Sendrecv_replace(&m[0][0], 1, column, next, 5, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  print_ints("column 0 replaced by prev's", &m[0][0], 20);
  MPI_Request p;
  MPI_Send_init(&m[0][1], 1, column, next, 6, MPI_COMM_WORLD, &p);
  for (int round = 0; round < 2; ++round) {
    m[0][1] = 1000 * round + rank;
    MPI_Start(&p);
    MPI_Recv(in, 4, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    print_ints("persistent column", in, 4);
  }
  MPI_Request_free(&p);
  int bsize;
  MPI_Pack_size(3, rt, MPI_COMM_WORLD, &bsize);
  bsize += MPI_BSEND_OVERHEAD;
  void* attached = malloc((size_t)bsize);
  MPI_Buffer_attach(attached, bsize);
  MPI_Bsend(out, 3, rt, next, 7, MPI_COMM_WORLD);
  memset(got, 0, sizeof got);
  MPI_Recv(got, 3, rt, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Buffer_detach(&attached, &bsize);
  free(attached);
  printf("buffered records: %d %d %d\n", got[0].id, got[1].id, got[2].id);
  MPI_Type_free(&rt);
  MPI_Type_free(&pair);
  MPI_Type_free(&column);
}

static void collectives(void) {
  int m[4][5];
  MPI_Datatype column = matrix(m);
  MPI_Bcast(&m[0][3], 1, column, size - 1, MPI_COMM_WORLD);
  print_ints("column 3 from the last rank", &m[0][0], 20);
  /* Records gathered and scattered back with their struct type. */
  MPI_Datatype rt = record_type();
  record mine = {rank, rank * 1.5, (char)('A' + rank)}, all[8];
  memset(all, 0, sizeof all);
  MPI_Gather(&mine, 1, rt, all, 1, rt, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < size; ++i)
      printf("gathered %d %g %c\n", all[i].id, all[i].value, all[i].tag);
    for (int i = 0; i < size; ++i) all[i].id *= 7;
  }
  MPI_Scatter(all, 1, rt, &mine, 1, rt, 0, MPI_COMM_WORLD);
  printf("scattered back %d %g %c\n", mine.id, mine.value, mine.tag);
  /* A transpose: each rank's row of `size` ints, received as a column of the result (a column
   * type resized to one int, so that blocks interleave). */
  int rowv[8], t[8][8];
  for (int j = 0; j < size; ++j) rowv[j] = 10 * rank + j;
  MPI_Datatype col, col1;
  MPI_Type_vector(size, 1, 8, MPI_INT, &col);
  MPI_Type_create_resized(col, 0, sizeof(int), &col1);
  MPI_Type_commit(&col1);
  memset(t, 0, sizeof t);
  MPI_Allgather(rowv, size, MPI_INT, t, 1, col1, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i) print_ints("allgather transpose", t[i], size);
  /* Alltoall: my column j to rank j, rank j's received as row j (a row type of `size` ints,
   * resized to the matrix's row). */
  int a[8][8], b[8][8];
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j) a[i][j] = 100 * rank + 10 * i + j;
  MPI_Datatype row, row8;
  MPI_Type_contiguous(size, MPI_INT, &row);
  MPI_Type_create_resized(row, 0, 8 * sizeof(int), &row8);
  MPI_Type_commit(&row8);
  memset(b, 0, sizeof b);
  MPI_Alltoall(a, 1, col1, b, 1, row8, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i) print_ints("alltoall columns", b[i], size);
  /* Alltoallw: to every rank, rank + 1 ints of my row 0; from rank j, its j + 1 ints into the
   * top of column j. */
  int sc[8], sd[8], rc[8], rd[8];
  MPI_Datatype stypes[8], rtypes[8];
  for (int j = 0; j < size; ++j) {
    sc[j] = 1;
    sd[j] = 0;
    MPI_Type_contiguous(rank + 1, MPI_INT, &stypes[j]);
    MPI_Type_commit(&stypes[j]);
    rc[j] = 1;
    rd[j] = j * (int)sizeof(int);
    MPI_Type_vector(j + 1, 1, 8, MPI_INT, &rtypes[j]);
    MPI_Type_commit(&rtypes[j]);
  }
  memset(b, 0, sizeof b);
  MPI_Alltoallw(a, sc, sd, stypes, b, rc, rd, rtypes, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i) print_ints("alltoallw", b[i], size);
  for (int j = 0; j < size; ++j) {
    MPI_Type_free(&stypes[j]);
    MPI_Type_free(&rtypes[j]);
  }
  /* Reductions and scans with a user-defined operation on records. */
  MPI_Op sum;
  MPI_Op_create(record_sum, 1, &sum);
  record v[2] = {{rank, rank * 0.5, (char)('a' + rank)}, {2 * rank, 1.0, 'z'}}, res[2];
  memset(res, 0, sizeof res);
  MPI_Reduce(v, res, 2, rt, sum, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1)
    printf("reduce %d %g %c / %d %g %c\n", res[0].id, res[0].value, res[0].tag, res[1].id,
           res[1].value, res[1].tag);
  MPI_Allreduce(v, res, 2, rt, sum, MPI_COMM_WORLD);
  printf("allreduce %d %g %c\n", res[0].id, res[0].value, res[0].tag);
  MPI_Scan(v, res, 2, rt, sum, MPI_COMM_WORLD);
  printf("scan %d %g %c\n", res[0].id, res[0].value, res[0].tag);
  /* Non-blocking ones. */
  MPI_Request r[3];
  record nb[2];
  memset(nb, 0, sizeof nb);
  for (int i = 0; i < 4; ++i) m[i][1] = rank == 1 % size ? 500 + i : -1;
  MPI_Ibcast(&m[0][1], 1, column, 1 % size, MPI_COMM_WORLD, &r[0]);
  MPI_Iallreduce(v, nb, 2, rt, sum, MPI_COMM_WORLD, &r[1]);
  memset(b, 0, sizeof b);
  MPI_Ialltoall(a, 1, col1, b, 1, row8, MPI_COMM_WORLD, &r[2]);
  MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
  print_ints("ibcast column 1", &m[0][0], 20);
  printf("iallreduce %d %g %c\n", nb[1].id, nb[1].value, nb[1].tag);
  for (int i = 0; i < size; ++i) print_ints("ialltoall columns", b[i], size);
  MPI_Op_free(&sum);
  MPI_Type_free(&row8);
  MPI_Type_free(&row);
  MPI_Type_free(&col1);
  MPI_Type_free(&col);
  MPI_Type_free(&rt);
  MPI_Type_free(&column);
}

/* Each rank's part of a 2-D array distributed block-cyclically: rank 0 sends every rank its part
 * of the global array with that rank's darray type. */
static void distributed(void) {
  enum { ROWS = 6, COLS = 7 };
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int gsizes[2] = {ROWS, COLS};
  const int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  const int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
  int global[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; ++i) global[i] = i;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      MPI_Datatype t;
      MPI_Type_create_darray(size, r, 2, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_INT, &t);
      MPI_Type_commit(&t);
      MPI_Send(global, 1, t, r, 9, MPI_COMM_WORLD);
      MPI_Type_free(&t);
    }
  }
  MPI_Datatype mine;
  MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_INT, &mine);
  MPI_Type_commit(&mine);
  describe("darray", mine);
  int n;
  MPI_Type_size(mine, &n);
  n /= (int)sizeof(int);
  int local[ROWS * COLS];
  if (rank == 0) {
    int position = 0;
    MPI_Pack(global, 1, mine, local, sizeof local, &position, MPI_COMM_WORLD);
  } else {
    MPI_Recv(local, n, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  print_ints("darray part", local, n);
  MPI_Datatype f;
  MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, dims, MPI_ORDER_FORTRAN, MPI_INT,
                         &f);
  describe("darray Fortran order", f);
  MPI_Type_free(&f);
  MPI_Type_free(&mine);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > 8) {
    if (rank == 0) printf("mpi_dtype runs on 2 to 8 ranks\n");
    MPI_Finalize();
    return 0;
  }
  if (rank == 0) {
    constructors();
    packing();
  }
  point_to_point();
  collectives();
  distributed();
  MPI_Finalize();
  return 0;
}
