! One-sided MPI from Fortran (use mpi): each rank prints what its window and its origin buffers
! hold after each epoch, so that the simulated run and the host build under Open MPI can be
! compared line by line (tests/cluster). Plain MPI Fortran; any number of ranks.
!
! Printed, per rank: puts and gets between fences on a window of INTEGERs (MPI_Win_create);
! accumulates (MPI_SUM) from every rank; MPI_Fetch_and_op and MPI_Compare_and_swap under an
! exclusive lock of rank 0 (every rank in turn, so the values seen are fixed by the ranks'
! order); MPI_Get_accumulate under MPI_Win_lock_all; a window MPI_Win_allocate made, reached
! through its base address (c_f_pointer); post-start-complete-wait with the next rank.
program mpif_rma
  use mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_int
  implicit none
  integer :: ierr, rank, nprocs, left, right, i, win, win2, group, neighbours
  integer, volatile :: token
  integer(kind=MPI_ADDRESS_KIND) :: bytes, base
  ! (What one-sided calls read or write after they return: volatile, as in mpif_p2p.f90.)
  integer, volatile :: window(4), got(4), old, fetched(2), origin(2), one, expected
  integer(c_int), pointer :: allocated(:)
  type(c_ptr) :: address
  integer :: ring(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  write (*, '(a, i0, a, i0)') 'rank ', rank, ' of ', nprocs

  ! Puts and gets between fences.
  window = -1
  bytes = 4 * size(window)
  call MPI_Win_create(window, bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  origin = [rank, 10 * rank]
  call MPI_Put(origin, 2, MPI_INTEGER, right, 1_MPI_ADDRESS_KIND, 2, MPI_INTEGER, &
      win, ierr)
  call MPI_Win_fence(0, win, ierr)
  write (*, '(a, 4(1x, i0))') 'after put', window
  got = 0
  call MPI_Get(got, 3, MPI_INTEGER, left, 0_MPI_ADDRESS_KIND, 3, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  write (*, '(a, 4(1x, i0))') 'got', got

  ! Accumulates from every rank into element 4 of every window.
  window(4) = 0
  origin(1) = rank + 1
  call MPI_Win_fence(0, win, ierr)
  do i = 0, nprocs - 1
    call MPI_Accumulate(origin, 1, MPI_INTEGER, i, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
        MPI_SUM, win, ierr)
  end do
  call MPI_Win_fence(0, win, ierr)
  write (*, '(a, i0)') 'accumulated ', window(4)

  ! Fetch-and-op and compare-and-swap at rank 0, one rank at a time.
  if (rank == 0) window(1) = 100
  call MPI_Win_fence(0, win, ierr)
  do i = 0, nprocs - 1
    if (i == rank) then
      call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
      one = 1
      call MPI_Fetch_and_op(one, old, MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, MPI_SUM, win, ierr)
      call MPI_Win_flush(0, win, ierr)
      origin(1) = -rank
      expected = old + 1
      call MPI_Compare_and_swap(origin, expected, fetched(1), MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, &
          win, ierr)
      call MPI_Win_unlock(0, win, ierr)
      write (*, '(a, i0, a, i0)') 'fetched ', old, ' swapped out ', fetched(1)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do

  ! Get-accumulate under a lock of every rank.
  call MPI_Win_lock_all(0, win, ierr)
  origin(1) = rank
  call MPI_Get_accumulate(origin, 1, MPI_INTEGER, fetched(2), 1, MPI_INTEGER, right, &
      2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_REPLACE, win, ierr)
  call MPI_Win_flush_all(win, ierr)
  call MPI_Win_unlock_all(win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  write (*, '(a, i0, a, i0)') 'get_accumulate fetched ', fetched(2), ' now ', window(3)
  call MPI_Win_free(win, ierr)

  ! A window the library allocates, reached through its address.
  call MPI_Win_allocate(bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win2, ierr)
  address = transfer(base, address)
  call c_f_pointer(address, allocated, [4])
  allocated = 0
  ! Post-start-complete-wait with the neighbours (the ring's two, or one, or none).
  call MPI_Win_get_group(win2, group, ierr)
  ring = [left, right]
  call MPI_Group_incl(group, merge(1, 2, left == right), ring, neighbours, ierr)
  call MPI_Win_post(neighbours, 0, win2, ierr)
  call MPI_Win_start(neighbours, 0, win2, ierr)
  token = 1000 + rank
  call MPI_Put(token, 1, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win2, ierr)
  call MPI_Win_complete(win2, ierr)
  call MPI_Win_wait(win2, ierr)
  write (*, '(a, 4(1x, i0))') 'allocated window', allocated
  call MPI_Group_free(neighbours, ierr)
  call MPI_Group_free(group, ierr)
  call MPI_Win_free(win2, ierr)
  write (*, '(a, l1)') 'windows freed ', win == MPI_WIN_NULL .and. win2 == MPI_WIN_NULL
  call MPI_Finalize(ierr)
end program mpif_rma
