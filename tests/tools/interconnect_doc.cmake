# docs/interconnect.md's transaction distributions (seed 004's Figure 3 in form), generated from
# runs of `hpmsim busstat --distribution --env-clear --env OMP_NUM_THREADS=16 -- ./PROGRAM` on bgq,
# 16 threads each (the seed's runs used 16 CPUs).
# Simulated runs are deterministic, so the figures are exact for this build.
#
#   cmake -DHPMSIM=path/to/hpmsim -DBIN=guest/bin -DDOC=docs/interconnect.md -DMODE=write|check
#         -DWORK=dir -P interconnect_doc.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(marker "<!-- generated below: do not edit; `ninja interconnect_doc` rewrites it from `hpmsim busstat --distribution` runs -->")
if(NOT HPMSIM OR NOT BIN OR NOT DOC OR NOT MODE OR NOT WORK)
  message(FATAL_ERROR "interconnect_doc.cmake needs -DHPMSIM -DBIN -DDOC -DMODE -DWORK")
endif()
file(MAKE_DIRECTORY ${WORK})
# Workload and arguments; each runs with OMP_NUM_THREADS=16.
set(workloads "amg|16|1" "bt|8|1" "bench_omp|2" "producer_consumer" "node_mix|16")
set(types RD IF PF WR AT INV MRD MWB IORD IOWR)
set(exact_table "| workload | cycles | transactions |")
set(rule "|---|---|---|")
foreach(t IN LISTS types)
  string(APPEND exact_table " ${t} |")
  string(APPEND rule "---|")
endforeach()
set(exact_table "${exact_table}\n${rule}\n")
set(estimate_table "${exact_table}")
foreach(w IN LISTS workloads)
  string(REPLACE "|" ";" argv "${w}")
  list(GET argv 0 program)
  list(REMOVE_AT argv 0)
  string(REPLACE ";" " " shown "${program};${argv}")
  string(STRIP "${shown}" shown)
  # The environment and the program's path go onto the guest's stack: both are fixed (an empty
  # environment but OMP_NUM_THREADS, ./PROGRAM from a copy in WORK), or the stack, and with it
  # the timing, would shift with the host's environment and the checkout's location.
  file(COPY ${BIN}/${program} DESTINATION ${WORK})
  execute_process(
    COMMAND ${HPMSIM} busstat --machine bgq --distribution --json --env-clear --env
            OMP_NUM_THREADS=16 -- ./${program} ${argv}
    WORKING_DIRECTORY ${WORK} OUTPUT_QUIET ERROR_VARIABLE json RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hpmsim busstat -- ${shown} failed (${status}):\n${json}")
  endif()
  string(JSON cycles GET "${json}" cycles)
  string(JSON rows LENGTH "${json}" distribution)
  set(total 0)
  set(total_estimate 0)
  math(EXPR last "${rows} - 1")
  foreach(i RANGE ${last})
    string(JSON exact GET "${json}" distribution ${i} exact)
    string(JSON estimate GET "${json}" distribution ${i} estimated)
    math(EXPR total "${total} + ${exact}")
    # CMake's math is integral: tenths of a transaction are enough for the shares.
    string(REGEX REPLACE "\\.[0-9]*$" "" estimate "${estimate}")
    math(EXPR total_estimate "${total_estimate} + ${estimate}")
  endforeach()
  set(exact_row "| `${shown}` | ${cycles} | ${total} |")
  set(estimate_row "| `${shown}` | ${cycles} | ${total_estimate} |")
  foreach(i RANGE ${last})
    string(JSON exact GET "${json}" distribution ${i} exact)
    string(JSON estimate GET "${json}" distribution ${i} estimated)
    string(REGEX REPLACE "\\.[0-9]*$" "" estimate "${estimate}")
    # Shares in tenths of a percent, rounded.
    math(EXPR e "(${exact} * 1000 + ${total} / 2) / ${total}")
    math(EXPR s "(${estimate} * 1000 + ${total_estimate} / 2) / ${total_estimate}")
    foreach(v e s)
      math(EXPR whole "${${v}} / 10")
      math(EXPR tenth "${${v}} % 10")
      set(${v} "${whole}.${tenth}")
    endforeach()
    string(APPEND exact_row " ${e} |")
    string(APPEND estimate_row " ${s} |")
  endforeach()
  string(APPEND exact_table "${exact_row}\n")
  string(APPEND estimate_table "${estimate_row}\n")
endforeach()
set(text "Exact shares of each transaction type, in percent of all transactions (the simulator's count):\n\n${exact_table}\nThe same, as busstat estimates them from 4 counters rotated every 100,000 cycles (the transactions column: the estimated total):\n\n${estimate_table}")
generated_doc(${DOC} "${marker}" "${text}" ${MODE} interconnect_doc)
