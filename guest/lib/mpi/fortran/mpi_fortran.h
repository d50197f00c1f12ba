/* libmpi's Fortran bindings (mpif.h, the mpi module): what the generated entry points
 * (mpi_fortran_calls.c, from calls.tbl) use to turn gfortran's arguments into C's. */
#ifndef HPM_MPI_FORTRAN_H
#define HPM_MPI_FORTRAN_H

#include <stddef.h>

#include "mpi.h"

/* Room for a C copy of a CHARACTER argument: the longest MPI string and its terminator (a
 * longer Fortran string is cut there). */
#define HPM_F_STRING_MAX (MPI_MAX_INFO_VAL + 1)

/* A choice buffer: MPI_BOTTOM's and MPI_IN_PLACE's variables become C's constants. */
void* hpm_f_buf(void* buf);
/* A distributed graph's weights: MPI_UNWEIGHTED's and MPI_WEIGHTS_EMPTY's variables become C's
 * constants. */
int* hpm_f_weights(int* weights);
/* A status for the C call: NULL for MPI_STATUS_IGNORE, else *c holding the Fortran status's
 * bytes (a Fortran array is only 4-byte aligned; the C status wants 8). Copied back after the
 * call unless ignored. */
MPI_Status* hpm_f_status_in(MPI_Fint* f, MPI_Status* c);
void hpm_f_status_out(const MPI_Status* c, MPI_Fint* f);
/* n statuses for the C call: NULL for MPI_STATUSES_IGNORE (or when no memory is left: the
 * statuses are then not set), the array itself when it is aligned, else a copy that
 * hpm_f_statuses_out copies back and frees. */
MPI_Status* hpm_f_statuses_in(MPI_Fint* f, int n);
void hpm_f_statuses_out(MPI_Status* c, MPI_Fint* f, int n);
/* The first n indices counted from 1 (nothing for n < 0: MPI_UNDEFINED). */
void hpm_f_indices_out(int* indices, int n);
/* A CHARACTER argument of `len` characters as a C string in c (HPM_F_STRING_MAX bytes), its
 * trailing blanks dropped; a C string into one, padded with blanks. */
void hpm_f_string_in(const char* f, size_t len, char* c);
void hpm_f_string_out(const char* c, char* f, size_t len);
/* A length the C call may write into a HPM_F_STRING_MAX buffer (at most its room). */
int hpm_f_capacity(int len);

#endif
