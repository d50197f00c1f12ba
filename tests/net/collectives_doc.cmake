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
set(node_counts 2 4 8 16 32)
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

# Beyond the runs, each column's formula: the latency at the largest run plus the growth per
# step of its algorithm's size measure x(N), that growth measured between the smallest and the
# largest run. x(N): none for the barrier networks (Blue Gene/P's global barrier, Blue Gene/Q's
# GI classes: their latency does not depend on N); the depth of the tree for Blue Gene/P's
# collective network (floor(log2 N)) and for Blue Gene/Q's class routes (on the balanced 5D
# shape of N nodes, the sum over the dimensions of half their sizes, rounded down; 31 on
# Sequoia's 16x12x16x16x2); the rounds of the point-to-point algorithms (ceil(log2 N):
# dissemination, binomial trees). Integers of nanoseconds.
function(log2 out n ceil)
  set(k 0)
  set(p 1)
  while(p LESS n)
    math(EXPR p "${p} * 2")
    math(EXPR k "${k} + 1")
  endwhile()
  if(NOT ceil AND NOT p EQUAL n)
    math(EXPR k "${k} - 1")
  endif()
  set(${out} ${k} PARENT_SCOPE)
endfunction()
# The class-route tree's depth on the balanced 5D shape of `n` nodes (a power of two: its
# factors of 2 dealt to the dimensions in turn, as `hpmsim run --nodes` shapes it), or Sequoia's.
function(torus_depth out n)
  if(n STREQUAL "sequoia")
    set(${out} 31 PARENT_SCOPE)  # 8 + 6 + 8 + 8 + 1
    return()
  endif()
  log2(k ${n} ON)
  set(depth 0)
  foreach(d RANGE 4)
    math(EXPR e "${k} / 5")
    math(EXPR rest "${k} % 5")
    if(d LESS rest)
      math(EXPR e "${e} + 1")
    endif()
    if(e GREATER 0)
      math(EXPR depth "${depth} + (1 << (${e} - 1))")
    endif()
  endforeach()
  set(${out} ${depth} PARENT_SCOPE)
endfunction()
function(measure out col op n)
  if(op STREQUAL "barrier" AND (col STREQUAL "tree" OR col STREQUAL "bgq"))
    set(${out} 0 PARENT_SCOPE)
  elseif(col STREQUAL "tree")
    log2(x ${n} OFF)
    set(${out} ${x} PARENT_SCOPE)
  elseif(col STREQUAL "bgq")
    torus_depth(x ${n})
    set(${out} ${x} PARENT_SCOPE)
  else()
    log2(x ${n} ON)
    set(${out} ${x} PARENT_SCOPE)
  endif()
endfunction()
function(ns out us)
  string(REPLACE "." "" v "${us}")
  math(EXPR v "${v} + 0")
  set(${out} ${v} PARENT_SCOPE)
endfunction()
# The formula's latency (us, 3 decimals) of column `col` for `op` at `nodes`.
function(formula out col op nodes)
  list(GET node_counts 0 first)
  list(GET node_counts -1 last)
  ns(t_first ${${col}_${first}_${op}})
  ns(t_last ${${col}_${last}_${op}})
  measure(x_first ${col} ${op} ${first})
  measure(x_last ${col} ${op} ${last})
  measure(x ${col} ${op} ${nodes})
  set(t ${t_last})
  if(NOT x_last EQUAL x_first)
    math(EXPR t "${t_last} + (${x} - ${x_last}) * (${t_last} - ${t_first}) / (${x_last} - ${x_first})")
  endif()
  math(EXPR whole "${t} / 1000")
  math(EXPR part "${t} % 1000 + 1000")
  string(SUBSTRING "${part}" 1 -1 part)
  set(${out} "${whole}.${part}" PARENT_SCOPE)
endfunction()
set(formula_table "| operation | nodes | bgp, collective network (us) | bgp, point to point (us) "
                  "| bgq, collective classes (us) | bgq, point to point (us) |\n"
                  "|---|---:|---:|---:|---:|---:|\n")
string(CONCAT formula_table ${formula_table})
foreach(i 0 1 2)
  list(GET operations ${i} op)
  list(GET labels ${i} label)
  foreach(n 512 4096)
    formula(a tree ${op} ${n})
    formula(b p2p ${op} ${n})
    formula(c bgq ${op} ${n})
    formula(d bgqp2p ${op} ${n})
    string(APPEND formula_table "| ${label} | ${n} | ${a} | ${b} | ${c} | ${d} |\n")
  endforeach()
endforeach()
list(GET labels 1 label)
formula(c bgq allreduce_double_1 sequoia)
string(APPEND formula_table "| ${label} | 98,304 (Sequoia, 16x12x16x16x2) | | | ${c} | |\n")

list(GET node_counts 0 node_counts_first)
list(POP_BACK node_counts last_count)
string(REPLACE ";" ", " counts "${node_counts}")
set(text
    "The mean over the ranks of each rank's mean latency per call (${iterations} timed calls "
    "after ${warmup} untimed, `guest/mpi/mpi_collat.c`) on ${counts} and ${last_count} "
    "nodes. MPI_Allreduce sums (MPI_SUM), MPI_Bcast sends from rank 0.\n\n${table}\n"
    "Beyond the runs, the model's formula (the latency at ${last_count} nodes plus the growth "
    "per step of the algorithm's size measure, measured between ${node_counts_first} and "
    "${last_count} nodes: none for the barrier networks, the tree's depth for the collective "
    "network (floor(log2 N)) and for the class routes (on the balanced 5D shape: 4x4x4x4x2 "
    "for 512 nodes, 8x8x4x4x4 for 4,096), the rounds ceil(log2 N) for the point-to-point "
    "algorithms):\n\n${formula_table}")
string(CONCAT text ${text})
generated_section(${DOC} "${begin_marker}" "${end_marker}" "${text}" ${MODE} collectives_doc)
