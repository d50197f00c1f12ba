! Graph topologies, the neighbourhood collectives and synchronous sends from Fortran (mpif.h), so
! that the simulated run and the host build under Open MPI can be compared line by line
! (tests/cluster). Plain MPI Fortran; any number of ranks.
!
! Printed, per rank: a ring as a graph (MPI_Graph_create, its queries) and MPI_Neighbor_allgather
! on it; a distributed graph from adjacency lists with weights and one without
! (MPI_UNWEIGHTED), their neighbours and MPI_Neighbor_alltoall; a periodic grid's
! MPI_Ineighbor_alltoall; MPI_Issend that is not complete before its receive is posted.
program mpif_topo
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, left, right, g, d, u, grid, kind, k
  integer :: nnodes, nedges, count, indeg, outdeg, req
  integer, allocatable :: index(:), edges(:)
  integer :: nb(2), got(2), srcs(2), dsts(2), sw(2), dw(2), out(4), in(4), dims(2), x, go
  logical :: weighted, flag, periods(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  write (*, '(a, i0, a, i0)') 'rank ', rank, ' of ', nprocs

  ! A ring as a graph: node i's edges go to i + 1 and i - 1.
  allocate (index(nprocs), edges(2 * nprocs))
  do k = 0, nprocs - 1
    edges(2 * k + 1) = mod(k + 1, nprocs)
    edges(2 * k + 2) = mod(k - 1 + nprocs, nprocs)
    index(k + 1) = 2 * k + 2
  end do
  call MPI_Graph_create(MPI_COMM_WORLD, nprocs, index, edges, .false., g, ierr)
  call MPI_Topo_test(g, kind, ierr)
  call MPI_Graphdims_get(g, nnodes, nedges, ierr)
  call MPI_Graph_neighbors_count(g, rank, count, ierr)
  call MPI_Graph_neighbors(g, rank, 2, nb, ierr)
  write (*, '(a, l1, 3(1x, i0), a, 2(1x, i0))') 'graph ', kind == MPI_GRAPH, nnodes, nedges, &
      count, ' neighbours', nb
  got = -1
  call MPI_Neighbor_allgather(10 * rank, 1, MPI_INTEGER, got, 1, MPI_INTEGER, g, ierr)
  write (*, '(a, 2(1x, i0))') 'graph allgather', got
  call MPI_Comm_free(g, ierr)

  ! Distributed graphs: the ring's two directions, with weights and without.
  srcs = [left, right]
  dsts = [right, left]
  sw = [left + 1, right + 1]
  dw = [rank + 1, rank + 1]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, sw, 2, dsts, dw, MPI_INFO_NULL, &
      .false., d, ierr)
  call MPI_Topo_test(d, kind, ierr)
  call MPI_Dist_graph_neighbors_count(d, indeg, outdeg, weighted, ierr)
  srcs = -1
  sw = -1
  call MPI_Dist_graph_neighbors(d, 2, srcs, sw, 2, dsts, dw, ierr)
  write (*, '(a, l1, 2(1x, i0), 1x, l1, a, 2(1x, i0), a, 2(1x, i0))') 'dist ', &
      kind == MPI_DIST_GRAPH, indeg, outdeg, weighted, ' sources', srcs, ' weights', sw
  out(1:2) = [100 * rank, 100 * rank + 1]
  got = -1
  call MPI_Ineighbor_alltoall(out, 1, MPI_INTEGER, got, 1, MPI_INTEGER, d, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  write (*, '(a, 2(1x, i0))') 'dist alltoall', got
  call MPI_Comm_free(d, ierr)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, [left], MPI_UNWEIGHTED, 1, [right], &
      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., u, ierr)
  call MPI_Dist_graph_neighbors_count(u, indeg, outdeg, weighted, ierr)
  write (*, '(a, 2(1x, i0), 1x, l1)') 'unweighted', indeg, outdeg, weighted
  call MPI_Comm_free(u, ierr)

  ! A periodic grid (a process both neighbours on a dimension of 2, its own on one of 1): the
  ! block sent to the source lands in its destination slot. (Blocking: Open MPI's non-blocking
  ! neighbourhood collectives, libnbc, swap the two blocks there, unlike its blocking ones.)
  dims = 0
  periods = .true.
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., grid, ierr)
  out = [(1000 * rank + k, k = 0, 3)]
  in = -1
  call MPI_Neighbor_alltoall(out, 1, MPI_INTEGER, in, 1, MPI_INTEGER, grid, ierr)
  write (*, '(a, 4(1x, i0))') 'grid alltoall', in
  call MPI_Comm_free(grid, ierr)

  ! A synchronous send completes only once its receive is posted.
  if (nprocs >= 2 .and. rank == 0) then
    x = 42
    go = 1
    call MPI_Issend(x, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, req, ierr)
    do k = 1, 100
      call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
    end do
    write (*, '(a, l1)') 'issend complete before its receive: ', flag
    call MPI_Send(go, 1, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  else if (nprocs >= 2 .and. rank == 1) then
    call MPI_Recv(go, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(x, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    write (*, '(a, i0)') 'received ', x
  end if
  call MPI_Finalize(ierr)
end program mpif_topo
