! Point-to-point MPI from Fortran (use mpi): each rank prints what it received and the status
! fields it got, so that the simulated run and the host build under Open MPI can be compared
! line by line (tests/cluster). Plain MPI Fortran; any number of ranks (1 included: a rank is
! then its own neighbour).
!
! Printed, per rank: a ring's message received from MPI_ANY_SOURCE with MPI_ANY_TAG (the
! status's MPI_SOURCE and MPI_TAG, MPI_Get_count); a receive with MPI_STATUS_IGNORE; Isend and
! Irecv completed by MPI_Waitall (statuses), MPI_Waitany (indices from 1), MPI_Waitsome, MPI_Test
! and MPI_Testall; MPI_Sendrecv and MPI_Sendrecv_replace; MPI_Probe and MPI_Iprobe before a
! receive of the probed length; persistent requests started three times; a cancelled receive;
! buffered sends in an attached buffer; synchronous sends between pairs; messages of
! CHARACTER, LOGICAL, INTEGER*8, REAL*4, COMPLEX and DOUBLE COMPLEX.
program mpif_p2p
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, left, right, i, n, k
  ! (Buffers of non-blocking calls: volatile, so that the compiler neither keeps them in
  ! registers across the call that completes them nor drops a store before the call that starts
  ! them.)
  integer, volatile :: b(2), m, token
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
  integer :: requests(2), seen(2), idx, outcount, indices(2)
  integer :: sbuf(3), rbuf(3), a(2)
  double precision :: dsend(4), drecv(4)
  logical :: flag
  integer, allocatable :: probed(:), bsend_buffer(:)
  integer :: bsize, detached
  character(len=12) :: word, got_word
  logical :: lsend(3), lrecv(3)
  integer(kind=8) :: i8send, i8recv
  real(kind=4) :: r4send(2), r4recv(2)
  complex :: csend, crecv
  double complex :: zsend, zrecv

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  write (*, '(a, i0, a, i0)') 'rank ', rank, ' of ', nprocs

  ! A ring: from any source, any tag; the status says which.
  sbuf = [rank, 10 * rank, 100 * rank]
  call MPI_Send(sbuf, 3, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD, ierr)
  call MPI_Recv(rbuf, 3, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  write (*, '(a, 3(1x, i0), a, i0, a, i0, a, i0, a, i0)') 'ring got', rbuf, ' source ', &
      status(MPI_SOURCE), ' tag ', status(MPI_TAG), ' count ', n, ' ierr ', ierr

  ! MPI_STATUS_IGNORE.
  dsend = [(rank + 0.5d0 * i, i = 1, 4)]
  call MPI_Send(dsend, 4, MPI_DOUBLE_PRECISION, right, 20, MPI_COMM_WORLD, ierr)
  call MPI_Recv(drecv, 4, MPI_DOUBLE_PRECISION, left, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  write (*, '(a, 4(1x, f0.2))') 'ignored status got', drecv

  ! Isend and Irecv both ways, completed by MPI_Waitall.
  a = [rank, -rank]
  call MPI_Irecv(b(1), 1, MPI_INTEGER, left, 30, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Irecv(b(2), 1, MPI_INTEGER, right, 31, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Send(a(1), 1, MPI_INTEGER, right, 30, MPI_COMM_WORLD, ierr)
  call MPI_Send(a(2), 1, MPI_INTEGER, left, 31, MPI_COMM_WORLD, ierr)
  call MPI_Waitall(2, requests, statuses, ierr)
  write (*, '(a, 2(1x, i0), a, 2(1x, i0), a, 2(1x, i0), a, l1)') 'waitall got', b, ' sources', &
      statuses(MPI_SOURCE, :), ' tags', statuses(MPI_TAG, :), ' null ', &
      all(requests == MPI_REQUEST_NULL)

  ! MPI_Waitany: each request once, its index counted from 1.
  call MPI_Irecv(b(1), 1, MPI_INTEGER, left, 40, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Irecv(b(2), 1, MPI_INTEGER, right, 41, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Send(a(1), 1, MPI_INTEGER, right, 40, MPI_COMM_WORLD, ierr)
  call MPI_Send(a(2), 1, MPI_INTEGER, left, 41, MPI_COMM_WORLD, ierr)
  do k = 1, 2
    call MPI_Waitany(2, requests, idx, status, ierr)
    seen(k) = idx
  end do
  call MPI_Waitany(2, requests, idx, status, ierr)
  write (*, '(a, 2(1x, i0), a, 2(1x, i0), a, l1)') 'waitany indices', minval(seen), &
      maxval(seen), ' got', b, ' then undefined ', idx == MPI_UNDEFINED

  ! MPI_Waitsome until both are done.
  call MPI_Irecv(b(1), 1, MPI_INTEGER, left, 50, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Irecv(b(2), 1, MPI_INTEGER, right, 51, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Send(a(1) + 1, 1, MPI_INTEGER, right, 50, MPI_COMM_WORLD, ierr)
  call MPI_Send(a(2) - 1, 1, MPI_INTEGER, left, 51, MPI_COMM_WORLD, ierr)
  seen = 0
  do while (any(requests /= MPI_REQUEST_NULL))
    call MPI_Waitsome(2, requests, outcount, indices, statuses, ierr)
    do k = 1, outcount
      seen(indices(k)) = seen(indices(k)) + 1
    end do
  end do
  write (*, '(a, 2(1x, i0), a, 2(1x, i0))') 'waitsome completed', seen, ' got', b

  ! MPI_Test until done; MPI_Testall with MPI_STATUSES_IGNORE.
  call MPI_Irecv(m, 1, MPI_INTEGER, left, 60, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Send(rank * 7, 1, MPI_INTEGER, right, 60, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(requests(1), flag, status, ierr)
  end do
  write (*, '(a, i0, a, i0)') 'test got ', m, ' tag ', status(MPI_TAG)
  call MPI_Irecv(b(1), 1, MPI_INTEGER, left, 61, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Isend(a(1), 1, MPI_INTEGER, right, 61, MPI_COMM_WORLD, requests(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, requests, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  write (*, '(a, i0)') 'testall got ', b(1)

  ! MPI_Sendrecv and MPI_Sendrecv_replace.
  call MPI_Sendrecv(sbuf, 3, MPI_INTEGER, right, 70, rbuf, 3, MPI_INTEGER, left, 70, &
      MPI_COMM_WORLD, status, ierr)
  write (*, '(a, 3(1x, i0), a, i0)') 'sendrecv got', rbuf, ' from ', status(MPI_SOURCE)
  n = 1000 + rank
  call MPI_Sendrecv_replace(n, 1, MPI_INTEGER, left, 71, right, 71, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, i0, a, i0)') 'sendrecv_replace got ', n, ' from ', status(MPI_SOURCE)

  ! Probe, then receive the probed length.
  call MPI_Send([(rank, i = 1, rank + 1)], rank + 1, MPI_INTEGER, right, 80, MPI_COMM_WORLD, ierr)
  call MPI_Probe(MPI_ANY_SOURCE, 80, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  allocate (probed(n))
  call MPI_Recv(probed, n, MPI_INTEGER, status(MPI_SOURCE), 80, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, i0, a, i0, a, i0)') 'probed ', n, ' from ', status(MPI_SOURCE), ' sum ', &
      sum(probed)
  deallocate (probed)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 81, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 81, MPI_COMM_WORLD, flag, status, ierr)
  end do
  call MPI_Recv(n, 1, MPI_INTEGER, left, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  write (*, '(a, i0, a, i0)') 'iprobed tag ', status(MPI_TAG), ' got ', n

  ! Persistent requests, started three times.
  call MPI_Recv_init(m, 1, MPI_INTEGER, left, 90, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Send_init(token, 1, MPI_INTEGER, right, 90, MPI_COMM_WORLD, requests(2), ierr)
  do k = 1, 3
    token = 10 * k + rank
    call MPI_Startall(2, requests, ierr)
    call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
    write (*, '(a, i0, a, i0)') 'persistent round ', k, ' got ', m
  end do
  call MPI_Request_free(requests(1), ierr)
  call MPI_Request_free(requests(2), ierr)

  ! A receive nobody matches, cancelled.
  call MPI_Irecv(m, 1, MPI_INTEGER, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Cancel(requests(1), ierr)
  call MPI_Wait(requests(1), status, ierr)
  call MPI_Test_cancelled(status, flag, ierr)
  write (*, '(a, l1)') 'cancelled ', flag

  ! Buffered sends.
  call MPI_Pack_size(3, MPI_INTEGER, MPI_COMM_WORLD, bsize, ierr)
  bsize = 2 * (bsize + MPI_BSEND_OVERHEAD)
  allocate (bsend_buffer(bsize / 4 + 1))
  call MPI_Buffer_attach(bsend_buffer, bsize, ierr)
  call MPI_Bsend(sbuf, 3, MPI_INTEGER, right, 100, MPI_COMM_WORLD, ierr)
  call MPI_Ibsend(sbuf(2), 2, MPI_INTEGER, right, 101, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Recv(rbuf, 3, MPI_INTEGER, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Recv(a, 2, MPI_INTEGER, left, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Buffer_detach(bsend_buffer, detached, ierr)
  write (*, '(a, 3(1x, i0), a, 2(1x, i0), a, l1)') 'bsend got', rbuf, ' and', a, &
      ' detached all ', detached == bsize
  deallocate (bsend_buffer)

  ! Synchronous sends between pairs (an odd last rank sits out).
  if (mod(rank, 2) == 0 .and. rank + 1 < nprocs) then
    call MPI_Ssend(sbuf, 3, MPI_INTEGER, rank + 1, 110, MPI_COMM_WORLD, ierr)
    write (*, '(a)') 'ssend done'
  else if (mod(rank, 2) == 1) then
    call MPI_Recv(rbuf, 3, MPI_INTEGER, rank - 1, 110, MPI_COMM_WORLD, status, ierr)
    write (*, '(a, 3(1x, i0))') 'ssend got', rbuf
  end if

  ! Fortran's other types.
  write (word, '(a, i0)') 'hello from ', rank
  call MPI_Send(word, len(word), MPI_CHARACTER, right, 120, MPI_COMM_WORLD, ierr)
  call MPI_Recv(got_word, len(got_word), MPI_CHARACTER, left, 120, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_CHARACTER, n, ierr)
  write (*, '(a, a, a, i0)') 'character got "', got_word, '" count ', n
  lsend = [.true., mod(rank, 2) == 0, .false.]
  call MPI_Send(lsend, 3, MPI_LOGICAL, right, 121, MPI_COMM_WORLD, ierr)
  call MPI_Recv(lrecv, 3, MPI_LOGICAL, left, 121, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, 3(1x, l1))') 'logical got', lrecv
  i8send = 2_8**40 + rank
  call MPI_Send(i8send, 1, MPI_INTEGER8, right, 122, MPI_COMM_WORLD, ierr)
  call MPI_Recv(i8recv, 1, MPI_INTEGER8, left, 122, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, i0)') 'integer8 got ', i8recv
  r4send = [rank * 1.25, -rank * 0.5]
  call MPI_Send(r4send, 2, MPI_REAL4, right, 123, MPI_COMM_WORLD, ierr)
  call MPI_Recv(r4recv, 2, MPI_REAL, left, 123, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, 2(1x, f0.3))') 'real4 got', r4recv
  csend = cmplx(rank, -1)
  zsend = dcmplx(0.25d0, rank)
  call MPI_Send(csend, 1, MPI_COMPLEX, right, 124, MPI_COMM_WORLD, ierr)
  call MPI_Recv(crecv, 1, MPI_COMPLEX, left, 124, MPI_COMM_WORLD, status, ierr)
  call MPI_Send(zsend, 1, MPI_DOUBLE_COMPLEX, right, 125, MPI_COMM_WORLD, ierr)
  call MPI_Recv(zrecv, 1, MPI_DOUBLE_COMPLEX, left, 125, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, 2(1x, f0.2), a, 2(1x, f0.2))') 'complex got', crecv, ' double complex got', zrecv

  ! A send whose request is freed at once still arrives.
  token = rank + 500
  call MPI_Isend(token, 1, MPI_INTEGER, right, 130, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Request_free(requests(1), ierr)
  call MPI_Recv(n, 1, MPI_INTEGER, left, 130, MPI_COMM_WORLD, status, ierr)
  write (*, '(a, i0, a, l1)') 'freed send got ', n, ' request null ', &
      requests(1) == MPI_REQUEST_NULL

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  write (*, '(a)') 'done'
end program mpif_p2p
