# docs/network.md's collective latency table, from runs of guest/mpi/mpi_collat: the mean
# latency of MPI_Barrier, MPI_Allreduce and MPI_Bcast by node count on bgp with libmpi on the
# collective network and global barrier (the default), on bgp with them off
# (collective.mpi=false: the point-to-point algorithms over the torus), on bgq with its torus's
# collective classes (the default) and without them (network.collective_mpi=false: point to
# point). The text around the two marker lines is written by hand.
#
#   cmake -DHPMSIM=... -DCOLLAT=... -DDOC=docs/network.md -DMODE=write|check \
#         -P collectives_doc.cmake
#
# MODE write (the `collectives_doc` target) rewrites the generated part; MODE check (the test
# NetworkDoc.CollectiveLatencyTableComesFromRuns) fails while the committed file differs from
# the runs.
cmake_policy(SET CMP0011 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(begin_marker
    "<!-- generated below: do not edit; `ninja collectives_doc` rewrites it from runs -->")
set(end_marker "<!-- end of the generated collective latency table -->")
foreach(v HPMSIM COLLAT DOC MODE)
  if(NOT ${v})
    message(FATAL_ERROR "collectives_doc.cmake needs -D${v}=...")
  endif()
endforeach()
get_filename_component(dir ${COLLAT} DIRECTORY)
get_filename_component(name ${COLLAT} NAME)

# Node counts, timed calls per operation and untimed warm-up calls before them: few, so that
# the test stays fast (a run is about a second of host time or less; the results are
# deterministic, so more calls would change the means only by the first calls' share).
set(node_counts 2 4 8)
set(iterations 5)
set(warmup 1)
set(operations barrier allreduce_double_1 allreduce_int64_1 allreduce_double_256 bcast_8
               bcast_4096)
set(labels
    "MPI_Barrier"
    "MPI_Allreduce, 1 double"
    "MPI_Allreduce, 1 int64"
    "MPI_Allreduce, 256 doubles"
    "MPI_Bcast, 8 bytes"
    "MPI_Bcast, 4 KiB")

# Runs mpi_collat on `nodes` nodes of `machine` with --set `sets`; defines `<prefix>_<op>` in
# the caller as each operation's mean latency (us).
function(collat prefix machine nodes sets)
  set(set_args "")
  foreach(s IN LISTS sets)
    list(APPEND set_args --set ${s})
  endforeach()
  execute_process(
    COMMAND ${HPMSIM} run --env-clear --machine ${machine} --nodes ${nodes} ${set_args} --
            ${name} ${iterations} ${warmup}
    WORKING_DIRECTORY ${dir}
    OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "mpi_collat on ${nodes} ${machine} nodes (${sets}) failed (${status}):\n"
                        "${text}${err}")
  endif()
  foreach(op IN LISTS operations)
    if(NOT text MATCHES "\\[0\\] ${op} ([0-9.]+) ")
      message(FATAL_ERROR "mpi_collat on ${nodes} ${machine} nodes printed no ${op}:\n${text}")
    endif()
    set(${prefix}_${op} ${CMAKE_MATCH_1} PARENT_SCOPE)
  endforeach()
endfunction()

foreach(n IN LISTS node_counts)
  collat(tree_${n} bgp ${n} "")
  collat(p2p_${n} bgp ${n} "collective.mpi=false")
  collat(bgq_${n} bgq ${n} "")
  collat(bgqp2p_${n} bgq ${n} "network.collective_mpi=false")
endforeach()

set(table "| operation | nodes | bgp, collective network (us) | bgp, point to point (us) "
          "| bgq, collective classes (us) | bgq, point to point (us) |\n"
          "|---|---:|---:|---:|---:|---:|\n")
string(CONCAT table ${table})
list(LENGTH operations n_ops)
math(EXPR last "${n_ops} - 1")
foreach(i RANGE ${last})
  list(GET operations ${i} op)
  list(GET labels ${i} label)
  foreach(n IN LISTS node_counts)
    string(APPEND table
           "| ${label} | ${n} | ${tree_${n}_${op}} | ${p2p_${n}_${op}} | ${bgq_${n}_${op}} "
           "| ${bgqp2p_${n}_${op}} |\n")
  endforeach()
endforeach()

list(POP_BACK node_counts last_count)
string(REPLACE ";" ", " counts "${node_counts}")
set(text
    "The mean over the ranks of each rank's mean latency per call (${iterations} timed calls "
    "after ${warmup} untimed, `guest/mpi/mpi_collat.c`) on ${counts} and ${last_count} "
    "nodes. MPI_Allreduce sums (MPI_SUM), MPI_Bcast sends from rank 0.\n\n${table}")
string(CONCAT text ${text})
generated_section(${DOC} "${begin_marker}" "${end_marker}" "${text}" ${MODE} collectives_doc)
