# docs/kernel.md's table of the instructions OpenMP programs retire in the functional mode with
# libgomp's passive and default waiting, spinning threads parked (kernel.park_polls) and not,
# generated from hpmsim runs. Deterministic: an empty environment and the programs run as ./NAME
# from copies in WORK (the path and environment go onto the guest's stack).
#
#   cmake -DHPMSIM=path/to/hpmsim -DBIN=guest/bin -DDOC=docs/kernel.md -DMODE=write|check
#         -DWORK=dir -P polling_doc.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(marker "<!-- generated below: do not edit; `ninja polling_doc` rewrites it from hpmsim runs -->")
if(NOT HPMSIM OR NOT BIN OR NOT DOC OR NOT MODE OR NOT WORK)
  message(FATAL_ERROR "polling_doc.cmake needs -DHPMSIM -DBIN -DDOC -DMODE -DWORK")
endif()
file(MAKE_DIRECTORY ${WORK})
file(COPY ${BIN}/bench_omp ${BIN}/bt ${BIN}/amg DESTINATION ${WORK})

# instructions(OUT THREADS POLICY PARK PROGRAM ARGS...): the run's instruction count.
function(instructions out threads policy park)
  set(env --env OMP_NUM_THREADS=${threads})
  if(NOT policy STREQUAL "default")
    list(APPEND env --env OMP_WAIT_POLICY=${policy})
  endif()
  execute_process(
    COMMAND ${HPMSIM} run --quiet --mode functional --set kernel.park_polls=${park} --env-clear
            ${env} --stats-json stats.json -- ./${ARGN}
    WORKING_DIRECTORY ${WORK} OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hpmsim run ${ARGN} (${threads} threads, ${policy}) failed:\n${err}")
  endif()
  file(READ ${WORK}/stats.json json)
  string(JSON n GET "${json}" instructions)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# ratio(OUT A B): A / B with two decimals.
function(ratio out a b)
  math(EXPR r "(${a} * 100 + ${b} / 2) / ${b}")
  math(EXPR whole "${r} / 100")
  math(EXPR frac "${r} % 100")
  if(frac LESS 10)
    set(frac "0${frac}")
  endif()
  set(${out} "${whole}.${frac}" PARENT_SCOPE)
endfunction()

set(text "Instructions retired in the functional mode (`hpmsim run --mode functional`, \
an environment of OMP_NUM_THREADS and OMP_WAIT_POLICY as given alone; the ratio to the passive run in brackets):\n\n")
string(APPEND text "| program | threads | passive | default, parked | default, spinning \
(`kernel.park_polls=false`) |\n|---|---|---|---|---|\n")
foreach(program "bench_omp 10" "bt" "amg 30 1")
  string(REPLACE " " ";" argv "${program}")
  foreach(threads 4 16 64)
    instructions(passive ${threads} passive true ${argv})
    instructions(parked ${threads} default true ${argv})
    instructions(spinning ${threads} default false ${argv})
    ratio(parked_ratio ${parked} ${passive})
    ratio(spinning_ratio ${spinning} ${passive})
    string(APPEND text "| `${program}` | ${threads} | ${passive} | ${parked} (${parked_ratio}) \
| ${spinning} (${spinning_ratio}) |\n")
  endforeach()
endforeach()
generated_doc(${DOC} "${marker}" "${text}" ${MODE} polling_doc)
