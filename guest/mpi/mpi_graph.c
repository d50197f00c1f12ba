/* Graph and distributed graph topologies, the neighbourhood collectives and synchronous sends.
 * Every rank prints what it sees; the output is the same under any MPI library (the host build
 * runs under Open MPI):
 * - a graph of a ring with chords (MPI_Graph_create and its queries, MPI_Graph_map);
 * - MPI_Neighbor_allgather and MPI_Neighbor_alltoall on it;
 * - a periodic 2D grid whose dimensions may be 2 or 1 (a process both neighbours, or itself), and
 *   an open one (MPI_PROC_NULL neighbours leave their blocks alone): MPI_Neighbor_alltoall, its
 *   v and w forms, MPI_Ineighbor_allgather (not MPI_Ineighbor_alltoall there: Open MPI's
 *   non-blocking neighbourhood collectives, libnbc, swap the two blocks of such a dimension,
 *   unlike its blocking ones and MPI's rule, which libmpi follows in both);
 * - a distributed graph from adjacency lists with weights (MPI_Dist_graph_create_adjacent), and
 *   one from edges given by rank 0 alone, without weights (MPI_Dist_graph_create: the order of
 *   its neighbours is the library's, so they are printed sorted), with MPI_Neighbor_alltoallv;
 * - MPI_Issend: not complete before the receive that matches it is posted; MPI_Ssend_init. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void print_ints(const char* what, const int* v, int n) {
  printf("rank %d %s:", rank, what);
  for (int i = 0; i < n; ++i) printf(" %d", v[i]);
  printf("\n");
}

static int cmp_int(const void* a, const void* b) {
  return *(const int*)a - *(const int*)b;
}

static void graph(void) {
  /* Node i: i+1, i-1 and chords, symmetric (as the neighbourhood collectives need): from 4
   * nodes, the one across (even) or i+2 and i-2 (odd). */
  int* index = malloc(sizeof(int) * (size_t)size);
  int* edges = malloc(sizeof(int) * 4 * (size_t)size);
  int e = 0;
  for (int i = 0; i < size; ++i) {
    edges[e++] = (i + 1) % size;
    edges[e++] = (i - 1 + size) % size;
    if (size >= 4 && size % 2 == 0) edges[e++] = (i + size / 2) % size;
    if (size >= 5 && size % 2 == 1) {
      edges[e++] = (i + 2) % size;
      edges[e++] = (i - 2 + size) % size;
    }
    index[i] = e;
  }
  int mapped = -1;
  MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &mapped);
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
  int status, nnodes, nedges, count;
  MPI_Topo_test(g, &status);
  MPI_Graphdims_get(g, &nnodes, &nedges);
  MPI_Graph_neighbors_count(g, rank, &count);
  printf("rank %d graph: topo %s, %d nodes, %d edges, %d neighbours, mapped to %d\n", rank,
         status == MPI_GRAPH ? "graph" : "other", nnodes, nedges, count, mapped);
  int nb[4];
  MPI_Graph_neighbors(g, rank, 4, nb);
  print_ints("graph neighbours", nb, count);
  int gi[4], ge[6];
  MPI_Graph_get(g, 2, 4, gi, ge);
  print_ints("graph_get index", gi, size < 2 ? size : 2);
  print_ints("graph_get edges", ge, nedges < 4 ? nedges : 4);

  int mine = 10 * rank + 1, got[4] = {-1, -1, -1, -1};
  MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, g);
  print_ints("graph allgather", got, count);
  int out[4], in[4] = {-1, -1, -1, -1};
  for (int k = 0; k < count; ++k) out[k] = 100 * rank + k;
  MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, g);
  print_ints("graph alltoall", in, count);
  MPI_Comm dup;
  MPI_Comm_dup(g, &dup);
  MPI_Topo_test(dup, &status);
  MPI_Graphdims_get(dup, &nnodes, &nedges);
  printf("rank %d graph dup: topo %s, %d nodes, %d edges\n", rank,
         status == MPI_GRAPH ? "graph" : "other", nnodes, nedges);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&g);
  free(index);
  free(edges);
}

static void grid(int periodic) {
  int dims[2] = {0, 0}, periods[2] = {periodic, periodic};
  MPI_Dims_create(size, 2, dims);
  int mapped = -1;
  MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &mapped);
  MPI_Comm c;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
  const char* name = periodic ? "torus" : "mesh";
  printf("rank %d %s %dx%d, mapped to %d\n", rank, name, dims[0], dims[1], mapped);
  int out[4], in[4] = {-1, -1, -1, -1};
  for (int k = 0; k < 4; ++k) out[k] = 100 * rank + k;
  MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, c);
  char what[64];
  snprintf(what, sizeof what, "%s alltoall", name);
  print_ints(what, in, 4);
  /* v: block k holds k + 1 ints, at 4 k; received at 5 k (the block sent towards a dimension's
   * source lands in the receiver's destination slot, so slot k receives (k ^ 1) + 1 ints). */
  int vout[16], vin[20], sc[4], sd[4], rc[4], rd[4];
  for (int k = 0; k < 16; ++k) vout[k] = 1000 * rank + k;
  for (int k = 0; k < 20; ++k) vin[k] = -1;
  for (int k = 0; k < 4; ++k) {
    sc[k] = k + 1;
    rc[k] = (k ^ 1) + 1;
    sd[k] = 4 * k;
    rd[k] = 5 * k;
  }
  MPI_Neighbor_alltoallv(vout, sc, sd, MPI_INT, vin, rc, rd, MPI_INT, c);
  snprintf(what, sizeof what, "%s alltoallv", name);
  print_ints(what, vin, 20);
  /* w: block k one int at byte 8 k; received as one int at byte 4 (3 - k)... in reverse. */
  int wout[8], win[4] = {-1, -1, -1, -1}, ones[4] = {1, 1, 1, 1};
  MPI_Aint swd[4], rwd[4];
  MPI_Datatype types[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
  for (int k = 0; k < 8; ++k) wout[k] = 10000 * rank + k;
  for (int k = 0; k < 4; ++k) {
    swd[k] = 8 * k;
    rwd[k] = 4 * (3 - k);
  }
  MPI_Neighbor_alltoallw(wout, ones, swd, types, win, ones, rwd, types, c);
  snprintf(what, sizeof what, "%s alltoallw", name);
  print_ints(what, win, 4);
  int mine = rank, all[4] = {-1, -1, -1, -1};
  MPI_Request r;
  MPI_Ineighbor_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  snprintf(what, sizeof what, "%s iallgather", name);
  print_ints(what, all, 4);
  MPI_Comm_free(&c);
}

static void dist_adjacent(void) {
  int sources[2] = {(rank - 1 + size) % size, (rank + 2) % size};
  int dests[2] = {(rank + 1) % size, (rank - 2 + 2 * size) % size};
  int sw[2] = {sources[0] + 1, sources[1] + 7}, dw[2] = {rank + 1, rank + 7};
  MPI_Comm d;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sw, 2, dests, dw, MPI_INFO_NULL, 0,
                                 &d);
  int status, indeg, outdeg, weighted;
  MPI_Topo_test(d, &status);
  MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted);
  printf("rank %d dist adjacent: topo %s, in %d, out %d, weighted %d\n", rank,
         status == MPI_DIST_GRAPH ? "dist_graph" : "other", indeg, outdeg, weighted != 0);
  int s[2], w1[2], t[2], w2[2];
  MPI_Dist_graph_neighbors(d, 2, s, w1, 2, t, w2);
  print_ints("dist sources", s, 2);
  print_ints("dist source weights", w1, 2);
  print_ints("dist destinations", t, 2);
  print_ints("dist destination weights", w2, 2);
  int out[2] = {100 * rank, 100 * rank + 1}, in[2] = {-1, -1};
  MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, d);
  print_ints("dist alltoall", in, 2);
  int vals[3] = {rank, rank, rank}, got[6], counts[2] = {1, 3}, displs[2] = {0, 2};
  for (int k = 0; k < 6; ++k) got[k] = -1;
  MPI_Neighbor_allgatherv(vals, 1, MPI_INT, got, counts, displs, MPI_INT, d);
  print_ints("dist allgatherv", got, 6);
  MPI_Comm_free(&d);
}

static void dist_star(void) {
  /* Rank 0 gives every edge: each other rank to 0 and back (twice to the last). */
  int n = 0, *srcs = NULL, *degrees = NULL, *dests = NULL;
  if (rank == 0) {
    srcs = malloc(sizeof(int) * (size_t)size);
    degrees = malloc(sizeof(int) * (size_t)size);
    dests = malloc(sizeof(int) * 2 * (size_t)size);
    int k = 0;
    srcs[n] = 0;
    degrees[n++] = size - 1;
    for (int r = 1; r < size; ++r) dests[k++] = r;
    for (int r = 1; r < size; ++r) {
      srcs[n] = r;
      degrees[n++] = r == size - 1 ? 2 : 1;
      dests[k++] = 0;
      if (r == size - 1) dests[k++] = 0;
    }
  }
  MPI_Comm d;
  MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                        &d);
  int indeg, outdeg, weighted;
  MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted);
  printf("rank %d dist star: in %d, out %d, weighted %d\n", rank, indeg, outdeg, weighted != 0);
  int* s = malloc(sizeof(int) * ((size_t)indeg + 1));
  int* t = malloc(sizeof(int) * ((size_t)outdeg + 1));
  MPI_Dist_graph_neighbors(d, indeg, s, MPI_UNWEIGHTED, outdeg, t, MPI_UNWEIGHTED);
  qsort(s, (size_t)indeg, sizeof(int), cmp_int);
  qsort(t, (size_t)outdeg, sizeof(int), cmp_int);
  print_ints("star sources", s, indeg);
  print_ints("star destinations", t, outdeg);
  /* Everyone sends its rank to each destination: the sum is the same in any order. */
  int* out = malloc(sizeof(int) * ((size_t)outdeg + 1));
  int* in = malloc(sizeof(int) * ((size_t)indeg + 1));
  for (int k = 0; k < outdeg; ++k) out[k] = rank;
  MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, d);
  long sum = 0;
  for (int k = 0; k < indeg; ++k) sum += in[k];
  printf("rank %d star sum %ld\n", rank, sum);
  free(s);
  free(t);
  free(out);
  free(in);
  free(srcs);
  free(degrees);
  free(dests);
  MPI_Comm_free(&d);
}

static void synchronous(void) {
  if (size < 2 || rank > 1) return;
  if (rank == 0) {
    int x = 42, go = 1, flag = -1;
    MPI_Request r;
    MPI_Issend(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
    for (int k = 0; k < 100; ++k) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    printf("rank 0 issend complete before its receive: %s\n", flag ? "yes" : "no");
    MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("rank 0 issend complete after it\n");
    MPI_Request p;
    MPI_Ssend_init(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &p);
    MPI_Start(&p);
    for (int k = 0; k < 100; ++k) MPI_Test(&p, &flag, MPI_STATUS_IGNORE);
    printf("rank 0 ssend_init complete before its receive: %s\n", flag ? "yes" : "no");
    MPI_Send(&go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    MPI_Request_free(&p);
    MPI_Ssend(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
  } else {
    int x = 0, go = 0;
    MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1 received %d\n", x);
    MPI_Recv(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1 received %d twice more\n", x);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  graph();
  grid(1);
  grid(0);
  dist_adjacent();
  dist_star();
  synchronous();
  MPI_Finalize();
  return 0;
}
