/* libmpi's Fortran bindings: the storage of mpif.h's and the mpi module's special variables,
 * the conversions the generated entry points use (mpi_fortran.h), and the handle conversions
 * of mpi.h (handles are the same integers in both languages). */
#include "mpi_fortran.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_fortran_names.h"

/* A Fortran status holds a C status's bytes; Fortran's kinds are C's types' sizes. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_F_STATUS_SIZE is a C status's size in INTEGERs");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint), "source");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint), "tag");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint), "error");
_Static_assert(sizeof(MPI_Aint) == HPM_F_ADDRESS_KIND, "MPI_ADDRESS_KIND");
_Static_assert(sizeof(MPI_Offset) == HPM_F_OFFSET_KIND, "MPI_OFFSET_KIND");
_Static_assert(sizeof(MPI_Count) == HPM_F_COUNT_KIND, "MPI_COUNT_KIND");
_Static_assert(sizeof(MPI_Fint) == HPM_F_INTEGER_KIND, "MPI_INTEGER_KIND");

/* The common blocks' storage (a program's own common symbols of these names resolve to it),
 * aligned as gfortran aligns common blocks (16 bytes), lest the linker warn. */
#define COMMON_BLOCK __attribute__((aligned(16)))
MPI_Fint HPM_F_BOTTOM COMMON_BLOCK;
MPI_Fint HPM_F_IN_PLACE COMMON_BLOCK;
MPI_Fint HPM_F_STATUS_IGNORE[MPI_F_STATUS_SIZE] COMMON_BLOCK;
MPI_Fint HPM_F_STATUSES_IGNORE[MPI_F_STATUS_SIZE] COMMON_BLOCK;
MPI_Fint HPM_F_UNWEIGHTED[1] COMMON_BLOCK;
MPI_Fint HPM_F_WEIGHTS_EMPTY[1] COMMON_BLOCK;

void* hpm_f_buf(void* buf) {
  if (buf == &HPM_F_IN_PLACE) return MPI_IN_PLACE;
  if (buf == &HPM_F_BOTTOM) return MPI_BOTTOM;
  return buf;
}

int* hpm_f_weights(int* weights) {
  if (weights == HPM_F_UNWEIGHTED) return MPI_UNWEIGHTED;
  if (weights == HPM_F_WEIGHTS_EMPTY) return MPI_WEIGHTS_EMPTY;
  return weights;
}

MPI_Status* hpm_f_status_in(MPI_Fint* f, MPI_Status* c) {
  if (f == HPM_F_STATUS_IGNORE || f == HPM_F_STATUSES_IGNORE) return MPI_STATUS_IGNORE;
  memcpy(c, f, sizeof *c);
  return c;
}

void hpm_f_status_out(const MPI_Status* c, MPI_Fint* f) {
  if (c) memcpy(f, c, sizeof *c);
}

MPI_Status* hpm_f_statuses_in(MPI_Fint* f, int n) {
  if (f == HPM_F_STATUSES_IGNORE || f == HPM_F_STATUS_IGNORE || n <= 0) return MPI_STATUSES_IGNORE;
  if ((uintptr_t)f % _Alignof(MPI_Status) == 0) return (MPI_Status*)(void*)f;
  MPI_Status* c = malloc(sizeof *c * (size_t)n);
  if (c) memcpy(c, f, sizeof *c * (size_t)n);
  return c;
}

void hpm_f_statuses_out(MPI_Status* c, MPI_Fint* f, int n) {
  if (!c || (void*)c == (void*)f) return;
  memcpy(f, c, sizeof *c * (size_t)n);
  free(c);
}

void hpm_f_indices_out(int* indices, int n) {
  for (int i = 0; i < n; ++i) ++indices[i];
}

void hpm_f_string_in(const char* f, size_t len, char* c) {
  while (len > 0 && f[len - 1] == ' ') --len;
  if (len > HPM_F_STRING_MAX - 1) len = HPM_F_STRING_MAX - 1;
  memcpy(c, f, len);
  c[len] = '\0';
}

void hpm_f_string_out(const char* c, char* f, size_t len) {
  const size_t n = strnlen(c, len);
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
}

int hpm_f_capacity(int len) {
  return len < HPM_F_STRING_MAX - 1 ? len : HPM_F_STRING_MAX - 1;
}

/* ---- handles: the same integers in C and Fortran ---- */

#define HANDLE(KIND, CTYPE)            \
  CTYPE MPI_##KIND##_f2c(MPI_Fint h) { \
    return (CTYPE)h;                   \
  }                                    \
  MPI_Fint MPI_##KIND##_c2f(CTYPE h) { \
    return (MPI_Fint)h;                \
  }
HANDLE(Comm, MPI_Comm)
HANDLE(Type, MPI_Datatype)
HANDLE(Group, MPI_Group)
HANDLE(Request, MPI_Request)
HANDLE(Op, MPI_Op)
HANDLE(Info, MPI_Info)
HANDLE(Errhandler, MPI_Errhandler)

int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  memcpy(c_status, f_status, sizeof *c_status);
  return MPI_SUCCESS;
}

int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  memcpy(f_status, c_status, sizeof *c_status);
  return MPI_SUCCESS;
}
