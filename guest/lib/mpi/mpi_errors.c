/* libmpi: error handlers (MPI 3.1, 8.3). Every MPI call is a generated wrapper of its PMPI_
 * implementation (gen_wrappers.cmake) that hands an error to hpm_raise with the call's
 * communicator, or window, or MPI_COMM_WORLD. MPI_ERRORS_ARE_FATAL, every communicator's and
 * window's default as MPI says, ends the job naming the call and the error; MPI_ERRORS_RETURN
 * returns the error; a handler of the program's (MPI_Comm_create_errhandler,
 * MPI_Win_create_errhandler) is called, then the error returned. A new communicator takes its
 * parent's handler. One thread uses the library (MPI_THREAD_FUNNELED). */
#include <stdio.h>

#include "mpi_impl.h"

/* Handles: 0 stands for MPI_ERRORS_ARE_FATAL in a communicator's field; 1 and 2 are the
 * predefined ones; the program's from FIRST_USER. */
#define FIRST_USER 16
#define MAX_USER 32

static struct {
  int used;
  MPI_Comm_errhandler_function* comm_fn;
  MPI_Win_errhandler_function* win_fn;
} user[MAX_USER];

static int user_index(MPI_Errhandler h) {
  const int i = h - FIRST_USER;
  return i >= 0 && i < MAX_USER && user[i].used ? i : -1;
}

static int valid(MPI_Errhandler h) {
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || user_index(h) >= 0;
}

int hpm_raise(MPI_Comm comm, MPI_Win win, int error, const char* name) {
  MPI_Errhandler h = MPI_ERRORS_ARE_FATAL;
  if (!hpm_ready()) return error; /* (before MPI_Init or after MPI_Finalize: nothing to end) */
  if (comm == MPI_COMM_NULL && win != MPI_WIN_NULL) {
    const MPI_Errhandler* w = hpm_win_errhandler(win);
    if (w) h = *w;
  } else {
    /* (A call on no valid communicator raises its error on MPI_COMM_WORLD.) */
    const hpm_comm* c = hpm_comm_get(comm);
    if (!c) c = hpm_comm_get(MPI_COMM_WORLD);
    if (c) h = c->errhandler;
  }
  if (h == MPI_ERRORS_RETURN) return error;
  const int i = user_index(h);
  if (i >= 0) {
    if (user[i].comm_fn) user[i].comm_fn(&comm, &error);
    if (user[i].win_fn) user[i].win_fn(&win, &error);
    return error;
  }
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(error, text, &length);
  fprintf(stderr, "libmpi: rank %d: %s: %s (MPI_ERRORS_ARE_FATAL ends the job)\n", hpm_world_rank,
          name, text);
  MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, error);
  return error;
}

static int create(MPI_Comm_errhandler_function* comm_fn, MPI_Win_errhandler_function* win_fn,
                  MPI_Errhandler* out) {
  for (int i = 0; i < MAX_USER; ++i) {
    if (user[i].used) continue;
    user[i].used = 1;
    user[i].comm_fn = comm_fn;
    user[i].win_fn = win_fn;
    *out = FIRST_USER + i;
    return MPI_SUCCESS;
  }
  return MPI_ERR_INTERN;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return fn ? create(fn, NULL, errhandler) : MPI_ERR_ARG;
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return fn ? create(NULL, fn, errhandler) : MPI_ERR_ARG;
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  /* (A handler still set on a communicator keeps working after this, as MPI says: the library
   * never reuses a handler's slot, so only the program's handle is cleared.) */
  if (!valid(*errhandler)) return MPI_ERR_ARG;
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int i = user_index(errhandler);
  if (!valid(errhandler) || (i >= 0 && !user[i].comm_fn)) return MPI_ERR_ARG;
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  const hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  *errhandler = c->errhandler ? c->errhandler : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  if (!hpm_comm_get(comm)) return MPI_ERR_COMM;
  hpm_raise(comm, MPI_WIN_NULL, errorcode, "MPI_Comm_call_errhandler");
  return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  MPI_Errhandler* w = hpm_win_errhandler(win);
  if (!w) return MPI_ERR_WIN;
  const int i = user_index(errhandler);
  if (!valid(errhandler) || (i >= 0 && !user[i].win_fn)) return MPI_ERR_ARG;
  *w = errhandler;
  return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const MPI_Errhandler* w = hpm_win_errhandler(win);
  if (!w) return MPI_ERR_WIN;
  *errhandler = *w ? *w : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  /* (Every code this library returns is its class.) */
  if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) return MPI_ERR_ARG;
  *errorclass = errorcode;
  return MPI_SUCCESS;
}
