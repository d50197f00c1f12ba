# docs/PERFORMANCE.md's "PAPI calls" table, generated from a run of the papi_cost utility on
# bgq (simulated cycles: the same in every run of one build). The program runs as ./papi_cost from
# a copy in WORK: the path the kernel is given goes onto the guest's stack (AT_EXECFN), so an
# absolute path would shift the stack, and the figures, with the checkout's location.
#
#   cmake -DHPMSIM=path/to/hpmsim -DTOOL=path/to/papi_cost -DDOC=docs/PERFORMANCE.md -DMODE=write
#         -DWORK=dir -P papi_doc.cmake
#       rewrites the generated part (the `papi_doc` target does this)
#   ... -DMODE=check ...
#       fails when the committed figures differ from a run's (PapiDoc.CostFiguresComeFromARun)
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(marker "<!-- generated below: do not edit; `ninja papi_doc` rewrites it from `hpmsim run --env-clear -- ./papi_cost -t 1000` -->")
if(NOT HPMSIM OR NOT TOOL OR NOT DOC OR NOT MODE OR NOT WORK)
  message(FATAL_ERROR "papi_doc.cmake needs -DHPMSIM=... -DTOOL=... -DDOC=... -DMODE=write|check -DWORK=...")
endif()
file(MAKE_DIRECTORY ${WORK})
file(COPY ${TOOL} DESTINATION ${WORK})
execute_process(COMMAND ${HPMSIM} run --machine bgq --env-clear -- ./papi_cost -t 1000
                WORKING_DIRECTORY ${WORK} OUTPUT_VARIABLE out RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "hpmsim run -- papi_cost failed (${status})")
endif()
set(table "| call | min cycles | mean cycles | max cycles |\n|---|---|---|---|\n")
string(REGEX MATCHALL "Total cost for [^\n]+ over [0-9]+ iterations\nmin cycles   : [0-9]+\nmax cycles   : [0-9]+\nmean cycles  : [0-9.]+"
       entries "${out}")
list(LENGTH entries n)
if(n LESS 6)
  message(FATAL_ERROR "papi_cost printed ${n} reports, want 6:\n${out}")
endif()
foreach(e IN LISTS entries)
  string(REGEX MATCH "Total cost for ([^\n]+) over" _ "${e}")
  set(what "${CMAKE_MATCH_1}")
  string(REGEX MATCH "min cycles   : ([0-9]+)" _ "${e}")
  set(lo "${CMAKE_MATCH_1}")
  string(REGEX MATCH "max cycles   : ([0-9]+)" _ "${e}")
  set(hi "${CMAKE_MATCH_1}")
  string(REGEX MATCH "mean cycles  : ([0-9]+)\\.([0-9])" _ "${e}")
  set(mean "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
  string(APPEND table "| ${what} | ${lo} | ${mean} | ${hi} |\n")
endforeach()
generated_doc(${DOC} "${marker}" "${table}" ${MODE} papi_doc)
