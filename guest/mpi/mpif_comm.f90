! Communicators, groups, Cartesian topologies, info objects and the small queries from Fortran,
! through mpif.h (no explicit interfaces: every call of a procedure here passes its arguments
! with one type and rank, as gfortran checks): each rank prints what it got, so that the
! simulated run and the host build under Open MPI can be compared line by line (tests/cluster).
! Plain MPI Fortran; any number of ranks.
!
! Printed, per rank: MPI_Initialized, the version; duplicates and splits of MPI_COMM_WORLD and
! their comparisons (MPI_UNDEFINED's color gives MPI_COMM_NULL); groups (incl, excl,
! range_incl, union, intersection, difference, translate_ranks, compare) and the communicators
! MPI_Comm_create and MPI_Comm_create_group make of them, with a sum over each; MPI_Dims_create,
! a periodic Cartesian grid's coordinates, neighbours, ranks and rows (MPI_Cart_sub); info
! objects' keys and values; an error returned under MPI_ERRORS_RETURN and one handed to a
! handler written in Fortran (MPI_Comm_create_errhandler); error strings and names (their
! lengths only: the texts are the library's own); MPI_Finalized.
program mpif_comm
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i, n, r
  integer :: dup, half, odd, cmp, made, made_group
  integer :: world_group, evens, firsts, ranged, joined, common, rest
  integer :: ranks(64), translated(64), range(3, 1), one(1), total(1)
  integer :: dims(2), coords(2), cart, row, src, dst, ndims, kind, cart_rank
  logical :: periods(2), remain(2), flag
  integer :: info, info2, nkeys, valuelen
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=32) :: value
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=MPI_MAX_PROCESSOR_NAME) :: name
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
  integer :: version, subversion, errhandler
  external :: handler

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Initialized(flag, ierr)
  call MPI_Get_version(version, subversion, ierr)
  write (*, '(a, i0, a, i0, a, l1, a, i0, a, i0)') 'rank ', rank, ' of ', nprocs, &
      ' initialized ', flag, ' version ', version, '.', subversion

  ! Duplicates and splits.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, cmp, ierr)
  write (*, '(a, l1)', advance='no') 'dup congruent ', cmp == MPI_CONGRUENT
  call MPI_Comm_compare(dup, dup, cmp, ierr)
  write (*, '(a, l1)') ' self ident ', cmp == MPI_IDENT
  ! Halves in reverse order of rank.
  call MPI_Comm_split(MPI_COMM_WORLD, rank / 2, -rank, half, ierr)
  call MPI_Comm_rank(half, r, ierr)
  call MPI_Comm_size(half, n, ierr)
  one(1) = rank
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  write (*, '(a, i0, a, i0, a, i0)') 'split rank ', r, ' of ', n, ' sum ', total(1)
  if (mod(rank, 2) == 1) then
    call MPI_Comm_split(MPI_COMM_WORLD, 1, rank, odd, ierr)
  else
    call MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, odd, ierr)
  end if
  write (*, '(a, l1)') 'odd split null ', odd == MPI_COMM_NULL
  if (odd /= MPI_COMM_NULL) call MPI_Comm_free(odd, ierr)

  ! Groups.
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierr)
  n = 0
  do i = 0, nprocs - 1, 2
    n = n + 1
    ranks(n) = i
  end do
  call MPI_Group_incl(world_group, n, ranks, evens, ierr)
  call print_group('evens', evens)
  call MPI_Group_excl(world_group, n, ranks, rest, ierr)
  call print_group('excluded evens', rest)
  range(:, 1) = [nprocs - 1, 0, -2]
  call MPI_Group_range_incl(world_group, 1, range, ranged, ierr)
  call print_group('range from the last down by 2', ranged)
  ranks(1) = 0
  n = 1
  if (nprocs > 1) then
    ranks(2) = 1
    n = 2
  end if
  call MPI_Group_incl(world_group, n, ranks, firsts, ierr)
  call MPI_Group_union(ranged, firsts, joined, ierr)
  call print_group('union', joined)
  call MPI_Group_intersection(evens, firsts, common, ierr)
  call print_group('intersection', common)
  call MPI_Group_free(rest, ierr)
  call MPI_Group_difference(world_group, evens, rest, ierr)
  call print_group('difference', rest)
  do i = 1, nprocs
    ranks(i) = i - 1
  end do
  call MPI_Group_translate_ranks(world_group, nprocs, ranks, ranged, translated, ierr)
  write (*, '(a)', advance='no') 'translated to the range:'
  do i = 1, nprocs
    if (translated(i) == MPI_UNDEFINED) then
      write (*, '(a)', advance='no') ' undefined'
    else
      write (*, '(1x, i0)', advance='no') translated(i)
    end if
  end do
  write (*, '()')
  call MPI_Group_compare(evens, ranged, cmp, ierr)
  write (*, '(a, l1, a, l1)', advance='no') 'evens vs range: similar ', cmp == MPI_SIMILAR, &
      ' ident ', cmp == MPI_IDENT
  call MPI_Group_compare(world_group, world_group, cmp, ierr)
  write (*, '(a, l1)') ' world ident ', cmp == MPI_IDENT

  ! Communicators of groups: the range's (all ranks take part), the evens' (only they do).
  call MPI_Comm_create(MPI_COMM_WORLD, ranged, made, ierr)
  if (made /= MPI_COMM_NULL) then
    call MPI_Comm_rank(made, r, ierr)
    one(1) = rank
    call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, made, ierr)
    write (*, '(a, i0, a, i0)') 'created rank ', r, ' sum ', total(1)
    call MPI_Comm_free(made, ierr)
  else
    write (*, '(a)') 'created: not a member'
  end if
  if (mod(rank, 2) == 0) then
    call MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, made_group, ierr)
    call MPI_Comm_rank(made_group, r, ierr)
    one(1) = rank * rank
    call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_MAX, made_group, ierr)
    write (*, '(a, i0, a, i0)') 'created from group rank ', r, ' max ', total(1)
    call MPI_Comm_free(made_group, ierr)
  end if
  call MPI_Group_free(evens, ierr)
  call MPI_Group_free(rest, ierr)
  call MPI_Group_free(ranged, ierr)
  call MPI_Group_free(firsts, ierr)
  call MPI_Group_free(joined, ierr)
  call MPI_Group_free(common, ierr)
  call MPI_Group_free(world_group, ierr)
  write (*, '(a, l1)') 'groups freed ', world_group == MPI_GROUP_NULL

  ! A periodic Cartesian grid, its rows.
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Topo_test(cart, kind, ierr)
  call MPI_Cartdim_get(cart, ndims, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  write (*, '(a, 2(1x, i0), a, l1, a, i0, a, 2(1x, i0))') 'cart dims', dims, ' is cart ', &
      kind == MPI_CART, ' ndims ', ndims, ' coords', coords
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  write (*, '(a, 2(1x, i0))', advance='no') 'shift dim 0:', src, dst
  call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
  write (*, '(a)', advance='no') ' dim 1:'
  call print_rank(src)
  call print_rank(dst)
  write (*, '()')
  coords = [dims(1) - 1, 0]
  call MPI_Cart_rank(cart, coords, cart_rank, ierr)
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierr)
  write (*, '(a, i0, a, 2(1x, l1), a, 2(1x, i0))') 'last row first column rank ', cart_rank, &
      ' periods', periods, ' my coords', coords
  remain = [.false., .true.]
  call MPI_Cart_sub(cart, remain, row, ierr)
  call MPI_Comm_rank(row, r, ierr)
  call MPI_Comm_size(row, n, ierr)
  one(1) = rank
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, row, ierr)
  write (*, '(a, i0, a, i0, a, i0)') 'row rank ', r, ' of ', n, ' sum ', total(1)
  call MPI_Comm_free(row, ierr)
  call MPI_Comm_free(cart, ierr)

  ! Info objects.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color', 'blue', ierr)
  call MPI_Info_set(info, 'shape  ', 'round', ierr)
  call MPI_Info_set(info, 'color', 'green', ierr)
  call MPI_Info_dup(info, info2, ierr)
  call MPI_Info_delete(info, 'color', ierr)
  call MPI_Info_get_nkeys(info2, nkeys, ierr)
  write (*, '(a, i0, a)', advance='no') 'info keys ', nkeys, ':'
  do i = 0, nkeys - 1
    call MPI_Info_get_nthkey(info2, i, key, ierr)
    call MPI_Info_get_valuelen(info2, key, valuelen, flag, ierr)
    value = 'unchanged'
    call MPI_Info_get(info2, key, len(value), value, flag, ierr)
    write (*, '(1x, a, a, a, a, i0, a)', advance='no') trim(key), '=', trim(value), ' (', &
        valuelen, ')'
  end do
  value = 'unchanged'
  call MPI_Info_get(info, 'color', len(value), value, flag, ierr)
  write (*, '(a, l1, 1x, a)') ' deleted found ', flag, trim(value)
  call MPI_Info_free(info, ierr)
  call MPI_Info_free(info2, ierr)
  write (*, '(a, l1)') 'infos freed ', info == MPI_INFO_NULL .and. info2 == MPI_INFO_NULL

  ! Error handling and the library's names: an error returned, then one handed to a handler
  ! written in Fortran.
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  write (*, '(a, i0)', advance='no') 'errhandler set ', ierr
  call MPI_Comm_split(dup, 0, 0, odd, ierr)
  call MPI_Comm_set_errhandler(odd, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ranks, 1, MPI_INTEGER, nprocs, 0, odd, ierr)
  call MPI_Error_class(ierr, n, i)
  write (*, '(a, l1)', advance='no') ' send to rank size: error class rank ', n == MPI_ERR_RANK
  call MPI_Comm_create_errhandler(handler, errhandler, ierr)
  call MPI_Comm_set_errhandler(odd, errhandler, ierr)
  call MPI_Errhandler_free(errhandler, ierr)
  call MPI_Comm_call_errhandler(odd, MPI_ERR_OTHER, ierr)
  call MPI_Comm_free(odd, ierr)
  call MPI_Error_string(MPI_ERR_COMM, text, n, ierr)
  write (*, '(a, l1)', advance='no') ' error string ', n > 0 .and. len_trim(text) == n
  call MPI_Get_processor_name(name, n, ierr)
  write (*, '(a, l1)', advance='no') ' processor name ', n > 0 .and. len_trim(name) == n
  call MPI_Get_library_version(library, n, ierr)
  write (*, '(a, l1)') ' library version ', n > 0
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(half, ierr)
  write (*, '(a, l1)') 'comms freed ', dup == MPI_COMM_NULL .and. half == MPI_COMM_NULL

  call MPI_Finalize(ierr)
  call MPI_Finalized(flag, ierr)
  write (*, '(a, l1)') 'finalized ', flag

contains

  ! A group's size, this rank's place in it and its members as world ranks.
  subroutine print_group(title, group)
    character(len=*), intent(in) :: title
    integer, intent(in) :: group
    integer :: size, me, j, wg, world(64), members(64)
    call MPI_Group_size(group, size, ierr)
    call MPI_Group_rank(group, me, ierr)
    write (*, '(a, a, i0, a)', advance='no') title, ': size ', size, ', my rank'
    call print_rank(me)
    do j = 1, size
      members(j) = j - 1
    end do
    call MPI_Comm_group(MPI_COMM_WORLD, wg, ierr)
    call MPI_Group_translate_ranks(group, size, members, wg, world, ierr)
    call MPI_Group_free(wg, ierr)
    write (*, '(a, *(1x, i0))') ', members', world(1:size)
  end subroutine print_group

  subroutine print_rank(r)
    integer, intent(in) :: r
    if (r == MPI_UNDEFINED) then
      write (*, '(a)', advance='no') ' undefined'
    else if (r == MPI_PROC_NULL) then
      write (*, '(a)', advance='no') ' null'
    else
      write (*, '(1x, i0)', advance='no') r
    end if
  end subroutine print_rank
end program mpif_comm

! An error handler (outside the program: MPI calls it with the communicator and the error code
! by reference, and C may pass more): says which error class it was given.
subroutine handler(comm, code)
  implicit none
  include 'mpif.h'
  integer :: comm, code, class, ierr
  call MPI_Error_class(code, class, ierr)
  write (*, '(a, l1, a, l1)', advance='no') ' handler: class other ', class == MPI_ERR_OTHER, &
      ' comm ok ', comm /= MPI_COMM_NULL
end subroutine handler
