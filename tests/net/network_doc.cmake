# docs/network.md's ping-pong tables, from runs of guest/mpi/mpi_pingpong on the simulated
# torus: one-way time and bandwidth by message size over one hop at two link bandwidths, and
# the empty message's one-way time by hop count. The text around the two marker lines is
# written by hand.
#
#   cmake -DHPMSIM=... -DPINGPONG=... -DDOC=docs/network.md -DMODE=write|check -P network_doc.cmake
#
# MODE write (the `network_doc` target) rewrites the generated part; MODE check (the test
# NetworkDoc.PingPongTablesComeFromARun) fails while the committed file differs from the runs.
cmake_policy(SET CMP0011 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(begin_marker
    "<!-- generated below: do not edit; `ninja network_doc` rewrites it from runs -->")
set(end_marker "<!-- end of the generated ping-pong tables -->")
foreach(v HPMSIM PINGPONG DOC MODE)
  if(NOT ${v})
    message(FATAL_ERROR "network_doc.cmake needs -D${v}=...")
  endif()
endforeach()
get_filename_component(dir ${PINGPONG} DIRECTORY)
get_filename_component(name ${PINGPONG} NAME)

# Runs the ping-pong with `args` and --set `sets`; `out` gets rank 0's "size us mbps" rows.
function(pingpong out sets args)
  set(set_args "")
  foreach(s IN LISTS sets)
    list(APPEND set_args --set ${s})
  endforeach()
  execute_process(
    COMMAND ${HPMSIM} run --env-clear ${set_args} -- ${name} ${args}
    WORKING_DIRECTORY ${dir}
    OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the ping-pong run failed (${status}):\n${err}")
  endif()
  string(REGEX MATCHALL "\\[0\\] [0-9]+ [0-9.]+ [0-9.]+" rows "${text}")
  set(${out} "${rows}" PARENT_SCOPE)
endfunction()

pingpong(fast "network.shape=2x1x1x1x1" "65536;8")
pingpong(slow "network.shape=2x1x1x1x1;network.link_gbytes_per_s=1" "65536;8")
list(LENGTH fast n)
set(table "| bytes | one-way, 2 GB/s links (us) | MB/s | one-way, 1 GB/s links (us) | MB/s |\n")
string(APPEND table "|---:|---:|---:|---:|---:|\n")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  list(GET fast ${i} f)
  list(GET slow ${i} s)
  string(REPLACE " " ";" f "${f}")
  string(REPLACE " " ";" s "${s}")
  list(GET f 1 bytes)
  list(GET f 2 f_us)
  list(GET f 3 f_mbps)
  list(GET s 2 s_us)
  list(GET s 3 s_mbps)
  string(APPEND table "| ${bytes} | ${f_us} | ${f_mbps} | ${s_us} | ${s_mbps} |\n")
endforeach()

set(hops "| hops | one-way, empty message (us) |\n|---:|---:|\n")
foreach(peer 1 2 3 4)
  pingpong(row "network.shape=8x1x1x1x1" "0;20;${peer}")
  string(REPLACE " " ";" row "${row}")
  list(GET row 2 us)
  string(APPEND hops "| ${peer} | ${us} |\n")
endforeach()

set(generated
    "Ping-pong between ranks 0 and 1 of two bgq nodes (one hop), 8 round trips per size:\n\n"
    "${table}\n"
    "The empty message between rank 0 and rank K of a ring of 8 nodes (8x1x1x1x1: K hops), "
    "20 round trips:\n\n${hops}")
string(CONCAT generated ${generated})
generated_section(${DOC} "${begin_marker}" "${end_marker}" "${generated}" ${MODE} network_doc)
