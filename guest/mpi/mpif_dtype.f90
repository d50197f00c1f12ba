! Derived datatypes from Fortran (use mpi): each rank prints the types' sizes and extents and what
! it received through them, so that the simulated run and the host build under Open MPI can be
! compared line by line (tests/cluster). Plain MPI Fortran; any number of ranks.
!
! Printed, per rank: a column and a row of a column-major matrix (MPI_Type_contiguous,
! MPI_Type_vector) sent to the next rank; an indexed and an indexed-block selection; hvector and
! hindexed ones (byte strides of MPI_ADDRESS_KIND); a structure of INTEGER, DOUBLE PRECISION and
! CHARACTER fields described by MPI_Get_address and sent from MPI_BOTTOM; a Fortran-order
! subarray; a resized type's extent, a duplicate; MPI_Type_size, MPI_Type_get_extent and
! MPI_Type_get_true_extent of each; MPI_Pack and MPI_Unpack; a broadcast and a gather of derived
! types; MPI_Get_elements.
program mpif_dtype
  use mpi
  implicit none
  integer, parameter :: n = 6
  integer :: ierr, rank, nprocs, left, right, i, j, k
  integer :: a(n, n), got(n, n), status(MPI_STATUS_SIZE)
  integer :: column, row, indexed, block, hvec, hind, sub, resized, dup, particle_type
  integer :: received_type
  integer :: blocklengths(3), displacements(3), types(3), sizes(2), subsizes(2), starts(2)
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, base, addresses(3), hq(3), hdispl(2)
  integer :: packed(64), position, unpacked(n), count
  integer, allocatable :: gathered(:, :)
  type particle
    integer :: id
    double precision :: mass
    character(len=4) :: tag
  end type particle
  type(particle) :: p, q

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  write (*, '(a, i0, a, i0)') 'rank ', rank, ' of ', nprocs
  do j = 1, n
    do i = 1, n
      a(i, j) = 1000 * rank + 10 * i + j
    end do
  end do

  ! A column (contiguous) and a row (a vector of stride n).
  call MPI_Type_contiguous(n, MPI_INTEGER, column, ierr)
  call MPI_Type_vector(n, 1, n, MPI_INTEGER, row, ierr)
  call MPI_Type_commit(column, ierr)
  call MPI_Type_commit(row, ierr)
  call describe('column', column)
  call describe('row', row)
  got = 0
  call MPI_Sendrecv(a(1, 2), 1, column, right, 1, got(1, 1), 1, column, left, 1, &
      MPI_COMM_WORLD, status, ierr)
  write (*, '(a, *(1x, i0))') 'column got', got(:, 1)
  call MPI_Sendrecv(a(3, 1), 1, row, right, 2, got(2, 1), 1, row, left, 2, MPI_COMM_WORLD, &
      status, ierr)
  call MPI_Get_elements(status, row, count, ierr)
  write (*, '(a, *(1x, i0))', advance='no') 'row got', got(2, :)
  write (*, '(a, i0)') ' elements ', count

  ! Indexed and indexed-block selections of the matrix (column-major offsets from a(1, 1)).
  blocklengths(1:3) = [2, 1, 3]
  displacements(1:3) = [0, 7, 30]
  call MPI_Type_indexed(3, blocklengths, displacements, MPI_INTEGER, indexed, ierr)
  call MPI_Type_create_indexed_block(3, 2, [1, 14, 33], MPI_INTEGER, block, ierr)
  call MPI_Type_commit(indexed, ierr)
  call MPI_Type_commit(block, ierr)
  call describe('indexed', indexed)
  call describe('indexed block', block)
  got = 0
  call MPI_Sendrecv(a, 1, indexed, right, 3, got, 1, indexed, left, 3, MPI_COMM_WORLD, &
      MPI_STATUS_IGNORE, ierr)
  call MPI_Sendrecv(a, 1, block, right, 4, unpacked, 6, MPI_INTEGER, left, 4, MPI_COMM_WORLD, &
      MPI_STATUS_IGNORE, ierr)
  write (*, '(a, *(1x, i0))', advance='no') 'indexed got', pack(got, got /= 0)
  write (*, '(a, *(1x, i0))') ' block got', unpacked

  ! Byte strides: every other column's first two elements; two blocks by byte offsets.
  call MPI_Type_create_hvector(3, 2, int(8 * n, MPI_ADDRESS_KIND), MPI_INTEGER, hvec, ierr)
  hdispl = [4_MPI_ADDRESS_KIND, int(4 * (4 * n + 2), MPI_ADDRESS_KIND)]
  call MPI_Type_create_hindexed(2, [1, 2], hdispl, MPI_INTEGER, hind, ierr)
  call MPI_Type_commit(hvec, ierr)
  call MPI_Type_commit(hind, ierr)
  call describe('hvector', hvec)
  call describe('hindexed', hind)
  call MPI_Sendrecv(a, 1, hvec, right, 5, unpacked, 6, MPI_INTEGER, left, 5, MPI_COMM_WORLD, &
      MPI_STATUS_IGNORE, ierr)
  write (*, '(a, *(1x, i0))', advance='no') 'hvector got', unpacked
  call MPI_Sendrecv(a, 1, hind, right, 6, unpacked, 3, MPI_INTEGER, left, 6, MPI_COMM_WORLD, &
      MPI_STATUS_IGNORE, ierr)
  write (*, '(a, *(1x, i0))') ' hindexed got', unpacked(1:3)

  ! A structure by absolute addresses, sent from and received into MPI_BOTTOM.
  p = particle(rank, 0.5d0 + rank, 'p' // achar(iachar('a') + rank) // '-' // &
      achar(iachar('0') + rank))
  call MPI_Get_address(p%id, addresses(1), ierr)
  call MPI_Get_address(p%mass, addresses(2), ierr)
  call MPI_Get_address(p%tag, addresses(3), ierr)
  blocklengths = [1, 1, 4]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_CHARACTER]
  call MPI_Type_create_struct(3, blocklengths, addresses, types, particle_type, ierr)
  call MPI_Type_commit(particle_type, ierr)
  call MPI_Type_size(particle_type, k, ierr)
  write (*, '(a, i0)') 'particle size ', k
  ! (Received by a type of the same fields at q's addresses, relative to q.)
  call MPI_Get_address(q, base, ierr)
  call MPI_Get_address(q%id, hq(1), ierr)
  call MPI_Get_address(q%mass, hq(2), ierr)
  call MPI_Get_address(q%tag, hq(3), ierr)
  hq = hq - base
  call MPI_Type_create_struct(3, blocklengths, hq, types, received_type, ierr)
  call MPI_Type_commit(received_type, ierr)
  q = particle(-1, -1d0, '????')
  call MPI_Sendrecv(MPI_BOTTOM, 1, particle_type, right, 7, q, 1, received_type, left, 7, &
      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  write (*, '(a, i0, 1x, f0.2, 1x, a)') 'particle got ', q%id, q%mass, q%tag

  ! A Fortran-order subarray: the 2x3 block from (2, 3), sent to a buffer of 6.
  sizes = [n, n]
  subsizes = [2, 3]
  starts = [1, 2]
  call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, sub, &
      ierr)
  call MPI_Type_commit(sub, ierr)
  call describe('subarray', sub)
  call MPI_Sendrecv(a, 1, sub, right, 8, unpacked, 6, MPI_INTEGER, left, 8, MPI_COMM_WORLD, &
      MPI_STATUS_IGNORE, ierr)
  write (*, '(a, *(1x, i0))') 'subarray got', unpacked

  ! Resized (a row whose extent is one element: consecutive rows), duplicated.
  call MPI_Type_create_resized(row, 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, resized, ierr)
  call MPI_Type_commit(resized, ierr)
  call MPI_Type_dup(resized, dup, ierr)
  call describe('resized row', dup)
  got = 0
  call MPI_Sendrecv(a, 2, dup, right, 9, got, 2, dup, left, 9, MPI_COMM_WORLD, &
      MPI_STATUS_IGNORE, ierr)
  write (*, '(a, *(1x, i0))') 'two resized rows got', got(1, :), got(2, :)

  ! Pack and unpack: a row then a column into one buffer, out again into a vector.
  position = 0
  call MPI_Pack(a, 1, row, packed, 256, position, MPI_COMM_WORLD, ierr)
  call MPI_Pack(a(1, n), 1, column, packed, 256, position, MPI_COMM_WORLD, ierr)
  write (*, '(a, i0)', advance='no') 'packed bytes ', position
  position = 4 * n
  call MPI_Unpack(packed, 256, position, unpacked, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') ' unpacked column', unpacked

  ! Collectives of derived types: the last rank's row 4 to everyone; every rank's column 1.
  got = a
  call MPI_Bcast(got(4, 1), 1, row, nprocs - 1, MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'bcast row', got(4, :)
  allocate (gathered(n, nprocs))
  call MPI_Allgather(a, 1, column, gathered, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  write (*, '(a, *(1x, i0))') 'allgather first elements', gathered(1, :)

  call MPI_Type_free(column, ierr)
  call MPI_Type_free(row, ierr)
  call MPI_Type_free(indexed, ierr)
  call MPI_Type_free(block, ierr)
  call MPI_Type_free(hvec, ierr)
  call MPI_Type_free(hind, ierr)
  call MPI_Type_free(particle_type, ierr)
  call MPI_Type_free(received_type, ierr)
  call MPI_Type_free(sub, ierr)
  call MPI_Type_free(resized, ierr)
  call MPI_Type_free(dup, ierr)
  write (*, '(a, l1)') 'types freed ', column == MPI_DATATYPE_NULL .and. dup == MPI_DATATYPE_NULL
  call MPI_Finalize(ierr)

contains

  ! A type's size, lower bound and extent, true lower bound and extent.
  subroutine describe(title, type)
    character(len=*), intent(in) :: title
    integer, intent(in) :: type
    integer :: size
    integer(kind=MPI_ADDRESS_KIND) :: true_lb, true_extent
    call MPI_Type_size(type, size, ierr)
    call MPI_Type_get_extent(type, lb, extent, ierr)
    call MPI_Type_get_true_extent(type, true_lb, true_extent, ierr)
    write (*, '(a, a, i0, a, i0, a, i0, a, i0, a, i0)') title, ': size ', size, ' lb ', lb, &
        ' extent ', extent, ' true lb ', true_lb, ' true extent ', true_extent
  end subroutine describe
end program mpif_dtype
