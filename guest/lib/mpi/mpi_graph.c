/* libmpi: graph and distributed graph topologies (MPI 3.1, 7.5.3-7.5.5), and every topology's
 * neighbours as the neighbourhood collectives see them. Ranks keep their order (reorder is
 * allowed and not done). */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* (Never read or written: only their addresses mean something.) */
static int unweighted, weights_empty;
int* const MPI_UNWEIGHTED = &unweighted;
int* const MPI_WEIGHTS_EMPTY = &weights_empty;

static hpm_comm* with_topo(MPI_Comm comm, int kind) {
  hpm_comm* c = hpm_comm_get(comm);
  return c && c->topo && c->topo->kind == kind ? c : NULL;
}

/* ---- graphs: every process gives the whole graph ---- */

int MPI_Graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* out) {
  (void)reorder;
  hpm_comm* c = hpm_comm_get(old);
  if (!c) return MPI_ERR_COMM;
  if (nnodes < 0 || nnodes > c->size) return MPI_ERR_ARG;
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < (i > 0 ? index[i - 1] : 0)) return MPI_ERR_ARG;
  }
  for (int e = 0; e < nedges; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) return MPI_ERR_TOPOLOGY;
  }
  /* The first `nnodes` ranks, in order; the others (all, for an empty graph) get
   * MPI_COMM_NULL. */
  const int err = MPI_Comm_split(old, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank, out);
  if (err || *out == MPI_COMM_NULL) return err;
  hpm_topo* t = hpm_topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
  if (!t) return MPI_ERR_OTHER;
  t->nnodes = nnodes;
  t->nedges = nedges;
  memcpy(t->data, index, sizeof(int) * (size_t)nnodes);
  memcpy(t->data + nnodes, edges, sizeof(int) * (size_t)nedges);
  hpm_comms[*out].topo = t;
  return MPI_SUCCESS;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  (void)index;
  (void)edges;
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (nnodes <= 0 || nnodes > c->size) return MPI_ERR_ARG;
  /* (The identity placement MPI_Graph_create makes.) */
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const hpm_comm* c = with_topo(comm, MPI_GRAPH);
  if (!c) return MPI_ERR_TOPOLOGY;
  *nnodes = c->topo->nnodes;
  *nedges = c->topo->nedges;
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const hpm_comm* c = with_topo(comm, MPI_GRAPH);
  if (!c) return MPI_ERR_TOPOLOGY;
  const hpm_topo* t = c->topo;
  for (int i = 0; i < t->nnodes && i < maxindex; ++i) index[i] = t->data[i];
  for (int e = 0; e < t->nedges && e < maxedges; ++e) edges[e] = t->data[t->nnodes + e];
  return MPI_SUCCESS;
}

/* A graph node's edges: the first and how many. */
static int graph_edges(const hpm_topo* t, int rank, const int** first) {
  const int begin = rank > 0 ? t->data[rank - 1] : 0;
  *first = t->data + t->nnodes + begin;
  return t->data[rank] - begin;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const hpm_comm* c = with_topo(comm, MPI_GRAPH);
  if (!c) return MPI_ERR_TOPOLOGY;
  if (rank < 0 || rank >= c->topo->nnodes) return MPI_ERR_RANK;
  const int* first;
  *nneighbors = graph_edges(c->topo, rank, &first);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const hpm_comm* c = with_topo(comm, MPI_GRAPH);
  if (!c) return MPI_ERR_TOPOLOGY;
  if (rank < 0 || rank >= c->topo->nnodes) return MPI_ERR_RANK;
  const int* first;
  const int n = graph_edges(c->topo, rank, &first);
  for (int i = 0; i < n && i < maxneighbors; ++i) neighbors[i] = first[i];
  return MPI_SUCCESS;
}

/* ---- distributed graphs: each process gives some edges ---- */

/* Gives the duplicate `*out` of `old` the edges into and out of this process (weights NULL:
 * unweighted, each 1). */
static int set_dist_graph(MPI_Comm* out, int indegree, const int sources[],
                          const int sourceweights[], int outdegree, const int destinations[],
                          const int destweights[], int weighted) {
  hpm_topo* t = hpm_topo_new(MPI_DIST_GRAPH, 2 * ((size_t)indegree + (size_t)outdegree));
  if (!t) return MPI_ERR_OTHER;
  t->indegree = indegree;
  t->outdegree = outdegree;
  t->weighted = weighted;
  int* at = t->data;
  for (int i = 0; i < indegree; ++i) at[i] = sources[i];
  at += indegree;
  for (int i = 0; i < indegree; ++i) at[i] = sourceweights ? sourceweights[i] : 1;
  at += indegree;
  for (int i = 0; i < outdegree; ++i) at[i] = destinations[i];
  at += outdegree;
  for (int i = 0; i < outdegree; ++i) at[i] = destweights ? destweights[i] : 1;
  free(hpm_comms[*out].topo); /* (a duplicate's copy of the old communicator's) */
  hpm_comms[*out].topo = t;
  return MPI_SUCCESS;
}

/* Weights as given: NULL for MPI_UNWEIGHTED, and none to read for MPI_WEIGHTS_EMPTY. */
static const int* weights_of(const int* w) {
  return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? NULL : w;
}

static int check_ranks(const hpm_comm* c, int n, const int ranks[]) {
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= c->size) return MPI_ERR_RANK;
  }
  return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* out) {
  (void)info;
  (void)reorder;
  hpm_comm* c = hpm_comm_get(old);
  if (!c) return MPI_ERR_COMM;
  if (indegree < 0 || outdegree < 0) return MPI_ERR_ARG;
  int err = check_ranks(c, indegree, sources);
  if (!err) err = check_ranks(c, outdegree, destinations);
  if (err) return err;
  if ((err = MPI_Comm_dup(old, out))) return err;
  const int weighted = sourceweights != MPI_UNWEIGHTED;
  return set_dist_graph(out, indegree, sources, weights_of(sourceweights), outdegree, destinations,
                        weights_of(destweights), weighted);
}

/* Edges travel as (source, destination, weight). */
enum { EDGE_INTS = 3 };

int MPI_Dist_graph_create(MPI_Comm old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* out) {
  (void)info;
  (void)reorder;
  hpm_comm* c = hpm_comm_get(old);
  if (!c) return MPI_ERR_COMM;
  if (n < 0) return MPI_ERR_ARG;
  int mine = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return MPI_ERR_ARG;
    mine += degrees[i];
  }
  int err = check_ranks(c, n, sources);
  if (!err) err = check_ranks(c, mine, destinations);
  if (err) return err;
  const int* w = weights_of(weights);
  /* Every process learns every edge (as many as the graph has: a graph is small next to the
   * messages its collectives move); each keeps those into and out of it, in the order of the
   * process that gave them, then of its arrays: the same order on every call, as MPI asks. */
  const int size = c->size;
  int* counts = malloc(sizeof(int) * 2 * (size_t)size);
  int* edges = malloc(sizeof(int) * EDGE_INTS * ((size_t)mine + 1));
  if (!counts || !edges) {
    free(counts);
    free(edges);
    return MPI_ERR_OTHER;
  }
  for (int i = 0, k = 0; i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      edges[EDGE_INTS * k] = sources[i];
      edges[EDGE_INTS * k + 1] = destinations[k];
      edges[EDGE_INTS * k + 2] = w ? w[k] : 1;
    }
  }
  const int my_ints = EDGE_INTS * mine;
  MPI_Allgather(&my_ints, 1, MPI_INT, counts, 1, MPI_INT, old);
  int* displs = counts + size;
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  int* all = malloc(sizeof(int) * ((size_t)total + 1));
  if (!all) {
    free(counts);
    free(edges);
    return MPI_ERR_OTHER;
  }
  MPI_Allgatherv(edges, my_ints, MPI_INT, all, counts, displs, MPI_INT, old);
  free(counts);
  free(edges);
  /* (MPI_UNWEIGHTED on one process means on all.) */
  const int weighted = weights != MPI_UNWEIGHTED;
  int indegree = 0, outdegree = 0;
  for (int e = 0; e < total; e += EDGE_INTS) {
    indegree += all[e + 1] == c->rank;
    outdegree += all[e] == c->rank;
  }
  int* lists = malloc(sizeof(int) * (2 * ((size_t)indegree + (size_t)outdegree) + 1));
  if (!lists) {
    free(all);
    return MPI_ERR_OTHER;
  }
  int* in = lists;
  int* in_w = in + indegree;
  int* outs = in_w + indegree;
  int* out_w = outs + outdegree;
  for (int e = 0, i = 0, o = 0; e < total; e += EDGE_INTS) {
    if (all[e + 1] == c->rank) {
      in[i] = all[e];
      in_w[i++] = all[e + 2];
    }
    if (all[e] == c->rank) {
      outs[o] = all[e + 1];
      out_w[o++] = all[e + 2];
    }
  }
  free(all);
  err = MPI_Comm_dup(old, out);
  if (!err) err = set_dist_graph(out, indegree, in, in_w, outdegree, outs, out_w, weighted);
  free(lists);
  return err;
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const hpm_comm* c = with_topo(comm, MPI_DIST_GRAPH);
  if (!c) return MPI_ERR_TOPOLOGY;
  *indegree = c->topo->indegree;
  *outdegree = c->topo->outdegree;
  *weighted = c->topo->weighted;
  return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]) {
  const hpm_comm* c = with_topo(comm, MPI_DIST_GRAPH);
  if (!c) return MPI_ERR_TOPOLOGY;
  const hpm_topo* t = c->topo;
  const int* in = t->data;
  const int* outs = in + 2 * t->indegree;
  const int copy_weights = t->weighted;
  for (int i = 0; i < t->indegree && i < maxindegree; ++i) {
    sources[i] = in[i];
    if (copy_weights && weights_of(sourceweights)) sourceweights[i] = in[t->indegree + i];
  }
  for (int i = 0; i < t->outdegree && i < maxoutdegree; ++i) {
    destinations[i] = outs[i];
    if (copy_weights && weights_of(destweights)) destweights[i] = outs[t->outdegree + i];
  }
  return MPI_SUCCESS;
}

/* ---- neighbours ---- */

int hpm_topo_neighbors(const hpm_comm* c, int* nin, int** in, int* nout, int** out) {
  const hpm_topo* t = c->topo;
  if (!t) return MPI_ERR_TOPOLOGY;
  const int* first = NULL;
  int n_in = 0, n_out = 0;
  switch (t->kind) {
    case MPI_CART: n_in = n_out = 2 * t->ndims; break;
    case MPI_GRAPH: n_in = n_out = graph_edges(t, c->rank, &first); break;
    default:
      n_in = t->indegree;
      n_out = t->outdegree;
      break;
  }
  int* list = malloc(sizeof(int) * ((size_t)n_in + (size_t)n_out + 1));
  if (!list) return MPI_ERR_OTHER;
  *nin = n_in;
  *nout = n_out;
  *in = list;
  *out = list + n_in;
  switch (t->kind) {
    case MPI_CART: {
      /* Dimension by dimension, the source then the destination of a shift by 1 (a process
       * on an open edge has MPI_PROC_NULL there; on a periodic dimension of 1, itself). */
      const MPI_Comm comm = (MPI_Comm)(c - hpm_comms);
      for (int d = 0; d < t->ndims; ++d) {
        MPI_Cart_shift(comm, d, 1, &list[2 * d], &list[2 * d + 1]);
      }
      memcpy(*out, list, sizeof(int) * (size_t)n_in);
      break;
    }
    case MPI_GRAPH:
      memcpy(list, first, sizeof(int) * (size_t)n_in);
      memcpy(*out, first, sizeof(int) * (size_t)n_in);
      break;
    default:
      memcpy(list, t->data, sizeof(int) * (size_t)n_in);
      memcpy(*out, t->data + 2 * n_in, sizeof(int) * (size_t)n_out);
      break;
  }
  return MPI_SUCCESS;
}
