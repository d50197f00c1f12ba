! Collective MPI from Fortran (use mpi): each rank prints what every collective gave it, so that
! the simulated run and the host build under Open MPI can be compared line by line
! (tests/cluster). Plain MPI Fortran; any number of ranks. Every value is an integer or a
! multiple of 1/4 small enough that sums are exact in any order.
!
! Printed, per rank: broadcasts; reductions (MPI_SUM, MAX, MIN, PROD on INTEGER, INTEGER*8,
! REAL, DOUBLE PRECISION and the complex types; MPI_LAND, LOR, LXOR on LOGICAL; MPI_MAXLOC and
! MINLOC on MPI_2INTEGER, MPI_2REAL and MPI_2DOUBLE_PRECISION), with MPI_IN_PLACE where MPI
! allows it; gathers, scatters, all-to-alls (the v forms too); scans; reduce-scatters; user-
! defined operations written in Fortran (a commutative one and a non-commutative one, 2x2
! matrix products in rank order); the non-blocking forms completed by MPI_Wait and MPI_Waitall.
program mpif_coll
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, root, i, r
  integer :: ivec(4), ires(4)
  integer(kind=8) :: i8, i8res
  real :: rv(2), rres(2)
  double precision :: dv(3), dres(3)
  complex :: cv, cres
  double complex :: zv, zres
  logical :: lv(2), lres(2)
  integer :: pair_i(2, 2), pair_ires(2, 2)
  real :: pair_r(2), pair_rres(2)
  double precision :: pair_d(2), pair_dres(2)
  integer, allocatable :: all(:), counts(:), displs(:), sendv(:), recvv(:), scounts(:), sdispls(:)
  integer :: op_absmax, op_matmul, mat4
  integer :: m(4), mres(4)
  integer :: requests(3)
  ! (Buffers of non-blocking collectives: see mpif_p2p.f90.)
  integer, volatile :: nb(4), nbres(4), nbgather(64)
  external :: absmax, matmul2
  double precision :: t0, t1, tick

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  write (*, '(a, i0, a, i0)') 'rank ', rank, ' of ', nprocs
  allocate (all(4 * nprocs), counts(nprocs), displs(nprocs), sendv(nprocs * (nprocs + 1)), &
      recvv(nprocs * (nprocs + 1)), scounts(nprocs), sdispls(nprocs))

  t0 = MPI_Wtime()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! Broadcasts from the first and the last rank.
  ivec = 0
  if (rank == 0) ivec = [3, 1, 4, 1]
  call MPI_Bcast(ivec, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  dv = 0
  root = nprocs - 1
  if (rank == root) dv = [2.5d0, -0.25d0, 8d0]
  call MPI_Bcast(dv, 3, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0), a, 3(1x, f0.2))') 'bcast', ivec, ' and', dv

  ! Reductions.
  ivec = [rank, rank * rank, 1, -rank]
  ires = -1
  call MPI_Reduce(ivec, ires, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, 4(1x, i0))') 'reduce sum', ires
  ires = ivec
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, ires, 4, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD, ierr)
    write (*, '(a, 4(1x, i0))') 'reduce in place max', ires
  else
    call MPI_Reduce(ivec, ires, 4, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Allreduce(ivec, ires, 4, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') 'allreduce min', ires
  ires = ivec
  call MPI_Allreduce(MPI_IN_PLACE, ires, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') 'allreduce in place sum', ires
  i8 = 2_8**33 + rank
  call MPI_Allreduce(i8, i8res, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(a, i0)') 'allreduce integer8 sum ', i8res
  call MPI_Allreduce(mod(rank, 3) + 1, r, 1, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  write (*, '(a, i0)') 'allreduce prod ', r
  rv = [rank * 0.25, -real(rank)]
  call MPI_Allreduce(rv, rres, 2, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, f0.2))') 'allreduce real max', rres
  dv = [rank * 0.5d0, 1d0, -rank * 0.25d0]
  call MPI_Allreduce(dv, dres, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(a, 3(1x, f0.2))') 'allreduce double sum', dres
  call MPI_Allreduce(dv, dres, 3, MPI_REAL8, MPI_MIN, MPI_COMM_WORLD, ierr)
  write (*, '(a, 3(1x, f0.2))') 'allreduce real8 min', dres
  cv = cmplx(rank, 1)
  zv = dcmplx(1, rank)
  call MPI_Allreduce(cv, cres, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(zv, zres, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, f0.1), a, 2(1x, f0.1))') 'allreduce complex sum', cres, ' prod', zres
  lv = [.true., rank == 0]
  call MPI_Allreduce(lv, lres, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, l1))', advance='no') 'logical land', lres
  call MPI_Allreduce(lv, lres, 2, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, l1))', advance='no') ' lor', lres
  call MPI_Allreduce(lv, lres, 2, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, l1))') ' lxor', lres

  ! MAXLOC and MINLOC (ties go to the smaller index).
  pair_i(:, 1) = [mod(rank, 3), rank]
  pair_i(:, 2) = [-rank, rank]
  call MPI_Allreduce(pair_i, pair_ires, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') '2integer maxloc', pair_ires
  call MPI_Allreduce(pair_i, pair_ires, 2, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') '2integer minloc', pair_ires
  pair_r = [real(mod(rank, 2)), real(rank)]
  call MPI_Allreduce(pair_r, pair_rres, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, f0.1))') '2real maxloc', pair_rres
  pair_d = [0.5d0 * mod(rank + 1, 3), dble(rank)]
  call MPI_Allreduce(pair_d, pair_dres, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, f0.1))') '2double_precision minloc', pair_dres

  ! Gathers and scatters.
  ivec = [rank, rank + 100, rank + 200, rank + 300]
  call MPI_Gather(ivec, 2, MPI_INTEGER, all, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (rank == root) write (*, '(a, *(1x, i0))') 'gather', all(1:2 * nprocs)
  call MPI_Allgather(ivec, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'allgather', all(1:nprocs)
  all(rank + 1) = -rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'allgather in place', all(1:nprocs)
  ! Rank i gives i mod 3 + 1 elements, placed from 4 * i.
  do i = 1, nprocs
    counts(i) = mod(i - 1, 3) + 1
    displs(i) = 4 * (i - 1)
  end do
  all = 0
  call MPI_Gatherv(ivec, counts(rank + 1), MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, &
      MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, *(1x, i0))') 'gatherv', all
  all = 0
  call MPI_Allgatherv(ivec, counts(rank + 1), MPI_INTEGER, all, counts, displs, MPI_INTEGER, &
      MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'allgatherv', all
  do i = 1, 4 * nprocs
    all(i) = 1000 + i
  end do
  call MPI_Scatter(all, 2, MPI_INTEGER, ires, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, i0))') 'scatter', ires(1:2)
  ires = 0
  call MPI_Scatterv(all, counts, displs, MPI_INTEGER, ires, counts(rank + 1), MPI_INTEGER, root, &
      MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') 'scatterv', ires

  ! All-to-alls: rank r sends j + 1 elements r * 100 + j to rank j.
  do i = 1, nprocs
    all(i) = rank * 100 + i - 1
  end do
  call MPI_Alltoall(all, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'alltoall', recvv(1:nprocs)
  do i = 1, nprocs
    scounts(i) = i
    sdispls(i) = (i - 1) * i / 2
    sendv(sdispls(i) + 1:sdispls(i) + i) = rank * 100 + i - 1
    counts(i) = rank + 1
    displs(i) = (i - 1) * (rank + 1)
  end do
  recvv = -1
  call MPI_Alltoallv(sendv, scounts, sdispls, MPI_INTEGER, recvv, counts, displs, MPI_INTEGER, &
      MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'alltoallv', recvv(1:nprocs * (rank + 1))

  ! Scans and reduce-scatters.
  call MPI_Scan(rank + 1, r, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(a, i0)', advance='no') 'scan ', r
  call MPI_Exscan(rank + 1, r, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0) write (*, '(a, i0)', advance='no') ' exscan ', r
  write (*, '()')
  do i = 1, nprocs
    all(2 * i - 1) = rank + i
    all(2 * i) = rank * i
  end do
  call MPI_Reduce_scatter_block(all, ires, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, i0))') 'reduce_scatter_block', ires(1:2)
  do i = 1, nprocs
    counts(i) = mod(i - 1, 2) + 1
  end do
  ires = 0
  call MPI_Reduce_scatter(all, ires, counts, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  write (*, '(a, 2(1x, i0))') 'reduce_scatter', ires(1:2)

  ! User-defined operations in Fortran.
  call MPI_Op_create(absmax, .true., op_absmax, ierr)
  ivec = [rank - 2, 2 - 3 * rank, rank * rank, -rank * rank]
  call MPI_Allreduce(ivec, ires, 4, MPI_INTEGER, op_absmax, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') 'user absmax', ires
  ! (A matrix is one element of a derived type, so that no library splits it.)
  call MPI_Type_contiguous(4, MPI_INTEGER, mat4, ierr)
  call MPI_Type_commit(mat4, ierr)
  call MPI_Op_create(matmul2, .false., op_matmul, ierr)
  m = [1, rank, 0, 1]
  if (mod(rank, 2) == 1) m = [0, 1, 1, rank]
  call MPI_Allreduce(m, mres, 1, mat4, op_matmul, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') 'user matmul allreduce', mres
  mres = 0
  call MPI_Reduce(m, mres, 1, mat4, op_matmul, root, MPI_COMM_WORLD, ierr)
  if (rank == root) write (*, '(a, 4(1x, i0))') 'user matmul reduce', mres
  call MPI_Scan(m, mres, 1, mat4, op_matmul, MPI_COMM_WORLD, ierr)
  write (*, '(a, 4(1x, i0))') 'user matmul scan', mres
  call MPI_Op_free(op_absmax, ierr)
  call MPI_Op_free(op_matmul, ierr)
  call MPI_Type_free(mat4, ierr)
  write (*, '(a, l1)') 'ops freed ', op_absmax == MPI_OP_NULL .and. op_matmul == MPI_OP_NULL

  ! Non-blocking collectives.
  nb = [rank, 1, 2 * rank, 3]
  call MPI_Iallreduce(nb, nbres, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
  write (*, '(a, 4(1x, i0))') 'iallreduce', nbres
  if (rank == root) nbres = [9, 8, 7, 6]
  call MPI_Ibcast(nbres, 4, MPI_INTEGER, root, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Iallgather(nb, 1, MPI_INTEGER, nbgather, 1, MPI_INTEGER, MPI_COMM_WORLD, requests(2), &
      ierr)
  call MPI_Ibarrier(MPI_COMM_WORLD, requests(3), ierr)
  call MPI_Waitall(3, requests, MPI_STATUSES_IGNORE, ierr)
  write (*, '(a, 4(1x, i0), a, *(1x, i0))') 'ibcast', nbres, ' iallgather', nbgather(1:nprocs)
  call MPI_Ireduce(nb, nbres, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
  if (rank == 0) write (*, '(a, 4(1x, i0))') 'ireduce', nbres
  call MPI_Iscan(nb, nbres, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
  write (*, '(a, 4(1x, i0))') 'iscan', nbres

  t1 = MPI_Wtime()
  tick = MPI_Wtick()
  write (*, '(a, l1)') 'wtime and wtick ok ', t1 >= t0 .and. tick > 0
  call MPI_Finalize(ierr)
end program mpif_coll

! The element of larger magnitude (commutative).
subroutine absmax(invec, inoutvec, len, datatype)
  implicit none
  integer, intent(in) :: len, datatype
  integer, intent(in) :: invec(len)
  integer, intent(inout) :: inoutvec(len)
  integer :: i
  if (datatype < 0) return
  do i = 1, len
    if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
  end do
end subroutine absmax

! 2x2 integer matrices (4 INTEGERs, column by column), inoutvec = invec times inoutvec: not
! commutative, so the result shows the order of combining.
subroutine matmul2(invec, inoutvec, len, datatype)
  implicit none
  integer, intent(in) :: len, datatype
  integer, intent(in) :: invec(4, len)
  integer, intent(inout) :: inoutvec(4, len)
  integer :: i, a(2, 2), b(2, 2)
  if (datatype < 0) return
  do i = 1, len
    a = reshape(invec(:, i), [2, 2])
    b = reshape(inoutvec(:, i), [2, 2])
    inoutvec(:, i) = reshape(matmul(a, b), [4])
  end do
end subroutine matmul2
