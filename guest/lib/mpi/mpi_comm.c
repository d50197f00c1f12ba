/* libmpi: communicators, datatypes, reduction operations and the small queries. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi_impl.h"

/* ---- datatypes: one row per predefined type, in mpi.h's numbering ---- */

typedef struct {
  int size;
  int kind; /* how reductions see it */
} type_info;

/* (K_LOGICAL: Fortran's LOGICAL, which takes the logical operations only.) */
enum { K_NONE, K_SIGNED, K_UNSIGNED, K_FLOAT, K_PAIR, K_COMPLEX, K_LOGICAL };

#define PAIR_SIZE(T)    \
  ((int)sizeof(struct { \
    T v;                \
    int i;              \
  }))

static const type_info types[] = {
    [MPI_DATATYPE_NULL] = {0, K_NONE},
    [MPI_CHAR] = {1, K_SIGNED},
    [MPI_SIGNED_CHAR] = {1, K_SIGNED},
    [MPI_UNSIGNED_CHAR] = {1, K_UNSIGNED},
    [MPI_BYTE] = {1, K_NONE},
    [MPI_SHORT] = {2, K_SIGNED},
    [MPI_UNSIGNED_SHORT] = {2, K_UNSIGNED},
    [MPI_INT] = {4, K_SIGNED},
    [MPI_UNSIGNED] = {4, K_UNSIGNED},
    [MPI_LONG] = {8, K_SIGNED},
    [MPI_UNSIGNED_LONG] = {8, K_UNSIGNED},
    [MPI_LONG_LONG] = {8, K_SIGNED},
    [MPI_UNSIGNED_LONG_LONG] = {8, K_UNSIGNED},
    [MPI_FLOAT] = {4, K_FLOAT},
    [MPI_DOUBLE] = {8, K_FLOAT},
    [MPI_LONG_DOUBLE] = {16, K_FLOAT},
    [MPI_INT8_T] = {1, K_SIGNED},
    [MPI_INT16_T] = {2, K_SIGNED},
    [MPI_INT32_T] = {4, K_SIGNED},
    [MPI_INT64_T] = {8, K_SIGNED},
    [MPI_UINT8_T] = {1, K_UNSIGNED},
    [MPI_UINT16_T] = {2, K_UNSIGNED},
    [MPI_UINT32_T] = {4, K_UNSIGNED},
    [MPI_UINT64_T] = {8, K_UNSIGNED},
    [MPI_C_BOOL] = {1, K_UNSIGNED},
    [MPI_WCHAR] = {(int)sizeof(wchar_t), K_SIGNED},
    [MPI_AINT] = {8, K_SIGNED},
    [MPI_2INT] = {8, K_PAIR},
    [MPI_DOUBLE_INT] = {PAIR_SIZE(double), K_PAIR},
    [MPI_FLOAT_INT] = {PAIR_SIZE(float), K_PAIR},
    [MPI_LONG_INT] = {PAIR_SIZE(long), K_PAIR},
    [MPI_PACKED] = {1, K_NONE},
    [MPI_C_FLOAT_COMPLEX] = {(int)sizeof(float _Complex), K_COMPLEX},
    [MPI_C_DOUBLE_COMPLEX] = {(int)sizeof(double _Complex), K_COMPLEX},
    [MPI_C_LONG_DOUBLE_COMPLEX] = {(int)sizeof(long double _Complex), K_COMPLEX},
    [MPI_COMPLEX] = {(int)sizeof(float _Complex), K_COMPLEX},
    [MPI_DOUBLE_COMPLEX] = {(int)sizeof(double _Complex), K_COMPLEX},
    [MPI_INTEGER] = {4, K_SIGNED},
    [MPI_REAL] = {4, K_FLOAT},
    [MPI_DOUBLE_PRECISION] = {8, K_FLOAT},
    [MPI_LOGICAL] = {4, K_LOGICAL},
    [MPI_CHARACTER] = {1, K_NONE},
    [MPI_INTEGER1] = {1, K_SIGNED},
    [MPI_INTEGER2] = {2, K_SIGNED},
    [MPI_INTEGER4] = {4, K_SIGNED},
    [MPI_INTEGER8] = {8, K_SIGNED},
    [MPI_REAL4] = {4, K_FLOAT},
    [MPI_REAL8] = {8, K_FLOAT},
    [MPI_2INTEGER] = {8, K_PAIR},
    [MPI_2REAL] = {8, K_PAIR},
    [MPI_2DOUBLE_PRECISION] = {16, K_PAIR},
};

int hpm_basic_size(MPI_Datatype type) {
  if (type <= 0 || type >= (int)(sizeof types / sizeof types[0])) return 0;
  return types[type].size;
}

/* ---- reductions: inout[i] = in[i] op inout[i] ---- */

/* (The operation is chosen once per call, each loop then a few instructions per element: a
 * switch per element made a 16 KiB sum cost more than its messages.) */
#define LOOP(T, EXPR)                                 \
  do {                                                \
    const T* a = in;                                  \
    T* b = inout;                                     \
    for (int i = 0; i < count; ++i) b[i] = (T)(EXPR); \
  } while (0)

#define ARITH(T)                                                 \
  do {                                                           \
    switch (op) {                                                \
      case MPI_SUM: LOOP(T, a[i] + b[i]); break;                 \
      case MPI_PROD: LOOP(T, a[i] * b[i]); break;                \
      case MPI_MAX: LOOP(T, a[i] > b[i] ? a[i] : b[i]); break;   \
      case MPI_MIN: LOOP(T, a[i] < b[i] ? a[i] : b[i]); break;   \
      case MPI_LAND: LOOP(T, (a[i] != 0) && (b[i] != 0)); break; \
      case MPI_LOR: LOOP(T, (a[i] != 0) || (b[i] != 0)); break;  \
      case MPI_LXOR: LOOP(T, (a[i] != 0) != (b[i] != 0)); break; \
      default: return MPI_ERR_OP;                                \
    }                                                            \
  } while (0)

#define BITS(T)                                   \
  do {                                            \
    switch (op) {                                 \
      case MPI_BAND: LOOP(T, a[i] & b[i]); break; \
      case MPI_BOR: LOOP(T, a[i] | b[i]); break;  \
      case MPI_BXOR: LOOP(T, a[i] ^ b[i]); break; \
      default: ARITH(T); break;                   \
    }                                             \
  } while (0)

/* MAXLOC/MINLOC on (value, index) pairs: the larger (smaller) value, on a tie the smaller
 * index, as the standard says. C's pairs have an int index (LOC), Fortran's one of the value's
 * type (LOC_AS). */
#define LOC(T) LOC_AS(T, int)
#define LOC_AS(T, I)                                                           \
  do {                                                                         \
    typedef struct {                                                           \
      T v;                                                                     \
      I i;                                                                     \
    } pair;                                                                    \
    const pair* a = in;                                                        \
    pair* b = inout;                                                           \
    for (int k = 0; k < count; ++k) {                                          \
      const int better = op == MPI_MAXLOC ? a[k].v > b[k].v : a[k].v < b[k].v; \
      if (better || (a[k].v == b[k].v && a[k].i < b[k].i)) b[k] = a[k];        \
    }                                                                          \
  } while (0)

/* Complex numbers: MPI_SUM and MPI_PROD only (MPI 3.1, 5.9.2). */
#define CPLX(T)                                   \
  do {                                            \
    switch (op) {                                 \
      case MPI_SUM: LOOP(T, a[i] + b[i]); break;  \
      case MPI_PROD: LOOP(T, a[i] * b[i]); break; \
      default: return MPI_ERR_OP;                 \
    }                                             \
  } while (0)

/* ---- user-defined operations (MPI_Op_create): handles from HPM_FIRST_USER_OP ---- */

#define HPM_FIRST_USER_OP 100
#define HPM_MAX_USER_OPS 64

static struct {
  MPI_User_function* fn;
  int commute;
} user_ops[HPM_MAX_USER_OPS];

static int user_op(MPI_Op op) {
  const int i = op - HPM_FIRST_USER_OP;
  return i >= 0 && i < HPM_MAX_USER_OPS && user_ops[i].fn ? i : -1;
}

int MPI_Op_create(MPI_User_function* function, int commute, MPI_Op* op) {
  if (!function) return MPI_ERR_ARG;
  for (int i = 0; i < HPM_MAX_USER_OPS; ++i) {
    if (user_ops[i].fn) continue;
    user_ops[i].fn = function;
    user_ops[i].commute = commute != 0;
    *op = HPM_FIRST_USER_OP + i;
    return MPI_SUCCESS;
  }
  return MPI_ERR_INTERN;
}

int MPI_Op_free(MPI_Op* op) {
  const int i = user_op(*op);
  if (i < 0) return MPI_ERR_OP;
  user_ops[i].fn = NULL;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  if (op >= MPI_MAX && op <= MPI_MINLOC) {
    *commute = 1;
    return MPI_SUCCESS;
  }
  const int i = user_op(op);
  if (i < 0) return MPI_ERR_OP;
  *commute = user_ops[i].commute;
  return MPI_SUCCESS;
}

int hpm_op_commutative(MPI_Op op) {
  const int i = user_op(op);
  return i < 0 || user_ops[i].commute;
}

/* Fortran's LOGICAL (gfortran's: 4 bytes, .TRUE. is 1, any other nonzero value true as well). */
static int logical_reduce(MPI_Op op, const void* in, void* inout, int count) {
  switch (op) {
    case MPI_LAND: LOOP(int32_t, (a[i] != 0) && (b[i] != 0)); return MPI_SUCCESS;
    case MPI_LOR: LOOP(int32_t, (a[i] != 0) || (b[i] != 0)); return MPI_SUCCESS;
    case MPI_LXOR: LOOP(int32_t, (a[i] != 0) != (b[i] != 0)); return MPI_SUCCESS;
    default: return MPI_ERR_OP;
  }
}

int hpm_basic_reduce(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int count) {
  if (user_op(op) >= 0) {
    if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
    int len = count;
    MPI_Datatype t = type;
    user_ops[user_op(op)].fn((void*)(uintptr_t)in, inout, &len, &t);
    return MPI_SUCCESS;
  }
  if (op < MPI_MAX || op > MPI_MINLOC) return MPI_ERR_OP;
  const int pair = hpm_basic_size(type) > 0 && types[type].kind == K_PAIR;
  if ((op == MPI_MAXLOC || op == MPI_MINLOC) != pair) return MPI_ERR_OP;
  switch (type) {
    case MPI_2INT:
    case MPI_2INTEGER: LOC(int); return MPI_SUCCESS;
    case MPI_2REAL: LOC_AS(float, float); return MPI_SUCCESS;
    case MPI_2DOUBLE_PRECISION: LOC_AS(double, double); return MPI_SUCCESS;
    case MPI_DOUBLE_INT: LOC(double); return MPI_SUCCESS;
    case MPI_FLOAT_INT: LOC(float); return MPI_SUCCESS;
    case MPI_LONG_INT: LOC(long); return MPI_SUCCESS;
    case MPI_FLOAT:
    case MPI_REAL:
    case MPI_REAL4: ARITH(float); return MPI_SUCCESS;
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL8: ARITH(double); return MPI_SUCCESS;
    case MPI_LOGICAL: return logical_reduce(op, in, inout, count);
    case MPI_LONG_DOUBLE: ARITH(long double); return MPI_SUCCESS;
    case MPI_C_FLOAT_COMPLEX:
    case MPI_COMPLEX: CPLX(float _Complex); return MPI_SUCCESS;
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX: CPLX(double _Complex); return MPI_SUCCESS;
    case MPI_C_LONG_DOUBLE_COMPLEX: CPLX(long double _Complex); return MPI_SUCCESS;
    default: break;
  }
  if (hpm_basic_size(type) == 0 || types[type].kind == K_NONE) return MPI_ERR_TYPE;
  const int is_signed = types[type].kind == K_SIGNED;
  switch (hpm_basic_size(type)) {
    case 1:
      if (is_signed)
        BITS(int8_t);
      else
        BITS(uint8_t);
      return MPI_SUCCESS;
    case 2:
      if (is_signed)
        BITS(int16_t);
      else
        BITS(uint16_t);
      return MPI_SUCCESS;
    case 4:
      if (is_signed)
        BITS(int32_t);
      else
        BITS(uint32_t);
      return MPI_SUCCESS;
    case 8:
      if (is_signed)
        BITS(int64_t);
      else
        BITS(uint64_t);
      return MPI_SUCCESS;
    default: return MPI_ERR_TYPE;
  }
}

int hpm_alu_int_width(MPI_Datatype type, int* is_signed) {
  *is_signed = 0;
  switch (type) {
    case MPI_INT:
    case MPI_INT32_T:
    case MPI_LONG:
    case MPI_LONG_LONG:
    case MPI_INT64_T: *is_signed = 1; return hpm_type_size(type);
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
    case MPI_UNSIGNED_LONG:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T: return hpm_type_size(type);
    default: return 0;
  }
}

/* ---- communicators ---- */

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  *rank = c->rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  *size = c->size;
  return MPI_SUCCESS;
}

/* A new communicator's context: the same on every member, as each takes the largest next free
 * context any member of the parent knows (contexts go in pairs; see mpi_impl.h). */
static int next_context = 4;

int hpm_agree_context(MPI_Comm parent) {
  int mine = next_context, agreed = 0;
  MPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, parent);
  next_context = agreed + 2;
  return agreed;
}

int hpm_agree_context_among(int size, int rank, const int* world, int tag) {
  /* A communicator of a moment among the members, on a context of its own that no
   * communicator has (negative, apart from the protocol's: mpi_impl.h) and the tag sets apart,
   * agrees as a parent would; it never takes a collective class (mpi_torcoll.c). */
  int* members = malloc(sizeof(int) * (size_t)size);
  MPI_Comm tmp = MPI_COMM_NULL;
  if (!members) return -1;
  memcpy(members, world, sizeof(int) * (size_t)size);
  if (hpm_new_comm(size, rank, members, -16 - 2 * (tag & 0xfffff), &tmp) != MPI_SUCCESS) {
    free(members);
    return -1;
  }
  hpm_comms[tmp].coll_class = -1;
  const int ctx = hpm_agree_context(tmp);
  MPI_Comm_free(&tmp);
  return ctx;
}

int hpm_new_comm(int size, int rank, int* world, int ctx, MPI_Comm* out) {
  for (int i = 2; i < HPM_MAX_COMMS; ++i) {
    if (hpm_comms[i].used) continue;
    hpm_comms[i] = (hpm_comm){1, size, rank, world, ctx, NULL, 0, 0, 0};
    *out = i;
    return MPI_SUCCESS;
  }
  return MPI_ERR_INTERN;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int ctx = hpm_agree_context(comm);
  int* world = malloc(sizeof(int) * (size_t)c->size);
  if (!world) return MPI_ERR_OTHER;
  memcpy(world, c->world, sizeof(int) * (size_t)c->size);
  const int err = hpm_new_comm(c->size, c->rank, world, ctx, newcomm);
  if (err) return err;
  hpm_comms[*newcomm].errhandler = c->errhandler; /* (inherited, as MPI 3.1, 8.3 says) */
  if (!c->topo) return err;
  /* A duplicate keeps the topology. */
  hpm_comms[*newcomm].topo = hpm_topo_copy(c->topo);
  return hpm_comms[*newcomm].topo ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int ctx = hpm_agree_context(comm);
  int mine[3] = {color, key, c->rank};
  int* all = malloc(sizeof(int) * 3 * (size_t)c->size);
  if (!all) return MPI_ERR_OTHER;
  MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm);
  *newcomm = MPI_COMM_NULL;
  if (color == MPI_UNDEFINED) {
    free(all);
    return MPI_SUCCESS;
  }
  /* Members: the same color, ordered by (key, parent rank). */
  int* members = malloc(sizeof(int) * (size_t)c->size);
  int n = 0;
  for (int r = 0; r < c->size; ++r) {
    if (all[3 * r] != color) continue;
    int at = n++;
    while (at > 0) {
      const int p = members[at - 1];
      if (all[3 * p + 1] < all[3 * r + 1] || (all[3 * p + 1] == all[3 * r + 1] && p < r)) break;
      members[at] = p;
      --at;
    }
    members[at] = r;
  }
  int* world = malloc(sizeof(int) * (size_t)n);
  int rank = 0;
  for (int i = 0; i < n; ++i) {
    world[i] = c->world[members[i]];
    if (members[i] == c->rank) rank = i;
  }
  free(members);
  free(all);
  /* Each color's communicator may share the context: their members differ, and messages are
   * matched by source as well as context. */
  const int err = hpm_new_comm(n, rank, world, ctx, newcomm);
  if (!err) hpm_comms[*newcomm].errhandler = c->errhandler;
  return err;
}

int MPI_Comm_free(MPI_Comm* comm) {
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) return MPI_ERR_COMM;
  hpm_comm* c = hpm_comm_get(*comm);
  if (!c) return MPI_ERR_COMM;
  hpm_torcoll_free(c);
  free(c->world);
  free(c->topo);
  c->used = 0;
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int* result) {
  hpm_comm* x = hpm_comm_get(a);
  hpm_comm* y = hpm_comm_get(b);
  if (!x || !y) return MPI_ERR_COMM;
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (x->size != y->size) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int same_order = 1, same_set = 1;
  for (int i = 0; i < x->size; ++i) {
    if (x->world[i] != y->world[i]) same_order = 0;
    if (hpm_comm_rank_of(y, x->world[i]) == MPI_UNDEFINED) same_set = 0;
  }
  *result = same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

/* ---- queries ---- */

int MPI_Query_thread(int* provided) {
  *provided = MPI_THREAD_FUNNELED;
  return MPI_SUCCESS;
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "hpmsim-node-%d", hpm_world_rank);
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  static const char* const names[] = {
      [MPI_SUCCESS] = "success",
      [MPI_ERR_BUFFER] = "invalid buffer",
      [MPI_ERR_COUNT] = "invalid count",
      [MPI_ERR_TYPE] = "invalid datatype",
      [MPI_ERR_TAG] = "invalid tag",
      [MPI_ERR_COMM] = "invalid communicator",
      [MPI_ERR_RANK] = "invalid rank",
      [MPI_ERR_REQUEST] = "invalid request",
      [MPI_ERR_ROOT] = "invalid root",
      [MPI_ERR_OP] = "invalid operation",
      [MPI_ERR_GROUP] = "invalid group",
      [MPI_ERR_TOPOLOGY] = "invalid topology",
      [MPI_ERR_ARG] = "invalid argument",
      [MPI_ERR_DIMS] = "invalid dimensions",
      [MPI_ERR_TRUNCATE] = "message truncated",
      [MPI_ERR_OTHER] = "other error",
      [MPI_ERR_INTERN] = "internal error",
      [MPI_ERR_IN_STATUS] = "error in status",
      [MPI_ERR_WIN] = "invalid window",
      [MPI_ERR_RMA_SYNC] = "wrong synchronization of one-sided operations",
      [MPI_ERR_RMA_RANGE] = "target memory outside the window",
      [MPI_ERR_DISP] = "invalid displacement",
      [MPI_ERR_LOCKTYPE] = "invalid lock type",
      [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
  };
  const char* text =
      errorcode >= 0 && errorcode < (int)(sizeof names / sizeof names[0]) && names[errorcode]
          ? names[errorcode]
          : "unknown error";
  *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "MPI error %d: %s", errorcode, text);
  return MPI_SUCCESS;
}
