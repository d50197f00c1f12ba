# docs/network.md's ping-pong tables, from runs of guest/mpi/mpi_pingpong on the simulated
# torus: one-way time and bandwidth by message size over one hop at two link bandwidths, and
# the empty message's one-way time by hop count; and its streaming bandwidth table, from runs of
# guest/mpi/mpi_bw. The text around each pair of marker lines is written by hand.
#
#   cmake -DHPMSIM=... -DPINGPONG=... -DMPIBW=... -DDOC=docs/network.md -DMODE=write|check \
#         -P network_doc.cmake
#
# MODE write (the `network_doc` target) rewrites the generated part; MODE check (the test
# NetworkDoc.PingPongAndBandwidthTablesComeFromRuns) fails while the committed file differs from the runs.
cmake_policy(SET CMP0011 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(begin_marker
    "<!-- generated below: do not edit; `ninja network_doc` rewrites it from runs -->")
set(end_marker "<!-- end of the generated ping-pong tables -->")
foreach(v HPMSIM PINGPONG MPIBW DOC MODE)
  if(NOT ${v})
    message(FATAL_ERROR "network_doc.cmake needs -D${v}=...")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/guest_mpi_run.cmake)
# Runs the ping-pong with `args` and --set `sets`; `out` gets rank 0's "size us mbps" rows.
function(pingpong out sets args)
  set(set_args "")
  foreach(s IN LISTS sets)
    list(APPEND set_args --set ${s})
  endforeach()
  hpm_mpi_rank0_rows(rows PROGRAM ${PINGPONG} HPMSIM_ARGS ${set_args} ARGS ${args})
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
  list(GET f 0 bytes)
  list(GET f 1 f_us)
  list(GET f 2 f_mbps)
  list(GET s 1 s_us)
  list(GET s 2 s_mbps)
  string(APPEND table "| ${bytes} | ${f_us} | ${f_mbps} | ${s_us} | ${s_mbps} |\n")
endforeach()

set(hops "| hops | one-way, empty message (us) |\n|---:|---:|\n")
foreach(peer 1 2 3 4)
  pingpong(row "network.shape=8x1x1x1x1" "0;20;${peer}")
  string(REPLACE " " ";" row "${row}")
  list(GET row 1 us)
  string(APPEND hops "| ${peer} | ${us} |\n")
endforeach()

set(generated
    "Ping-pong between ranks 0 and 1 of two bgq nodes (one hop), 8 round trips per size:\n\n"
    "${table}\n"
    "The empty message between rank 0 and rank K of a ring of 8 nodes (8x1x1x1x1: K hops), "
    "20 round trips:\n\n${hops}")
string(CONCAT generated ${generated})
generated_section(${DOC} "${begin_marker}" "${end_marker}" "${generated}" ${MODE} network_doc)

# The streaming bandwidth table, from runs of guest/mpi/mpi_bw (OSU's osu_bw pattern) between
# two bgq nodes: a window of 8 and of 64 messages with libmpi's protocols as they are, and a
# window of 8 with every message eager (PAMID_EAGER past the largest size), beside the link's
# payload rate (512 payload bytes per 544-byte packet).
set(bw_begin "<!-- streaming bandwidth, generated below: do not edit; `ninja network_doc` rewrites it from runs -->")
set(bw_end "<!-- end of the generated bandwidth table -->")
function(bandwidth out env window)
  set(env_args "")
  if(env)
    set(env_args --env ${env})
  endif()
  hpm_mpi_rank0_rows(rows PROGRAM ${MPIBW} HPMSIM_ARGS ${env_args} --set network.shape=2x1x1x1x1
                     ARGS 65536 ${window} 4 1024)
  set(${out} "${rows}" PARENT_SCOPE)
endfunction()
bandwidth(w8 "" 8)
bandwidth(w64 "" 64)
bandwidth(eager "PAMID_EAGER=1000000000" 8)
set(bw "| bytes | window 8 (MB/s) | window 64 (MB/s) | window 8, every message eager (MB/s) |\n")
string(APPEND bw "|---:|---:|---:|---:|\n")
list(LENGTH w8 n)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  foreach(v w8 w64 eager)
    list(GET ${v} ${i} row)
    string(STRIP "${row}" row)
    string(REPLACE " " ";" row "${row}")
    list(GET row 0 bytes)
    list(GET row 1 ${v}_mbps)
  endforeach()
  string(APPEND bw "| ${bytes} | ${w8_mbps} | ${w64_mbps} | ${eager_mbps} |\n")
endforeach()
set(bw_generated
    "Rank 0 streams to rank 1 of two bgq nodes (one hop, 2 GB/s links: 1,882 MB/s of payload), "
    "4 timed rounds of a window of messages after an untimed one:\n\n${bw}")
string(CONCAT bw_generated ${bw_generated})
generated_section(${DOC} "${bw_begin}" "${bw_end}" "${bw_generated}" ${MODE} network_doc)
