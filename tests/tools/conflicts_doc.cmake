# docs/conflicts.md's example reports (seed 004's Figures 4 and 5 in form), generated from runs of
# `hpmsim conflicts` on the writebacks workload. Deterministic: an empty environment and
# ./writebacks from a copy in WORK (the path and environment go onto the guest's stack).
#
#   cmake -DHPMSIM=path/to/hpmsim -DBIN=guest/bin -DDOC=docs/conflicts.md -DMODE=write|check
#         -DWORK=dir -P conflicts_doc.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
set(marker "<!-- generated below: do not edit; `ninja conflicts_doc` rewrites it from `hpmsim conflicts` runs -->")
if(NOT HPMSIM OR NOT BIN OR NOT DOC OR NOT MODE OR NOT WORK)
  message(FATAL_ERROR "conflicts_doc.cmake needs -DHPMSIM -DBIN -DDOC -DMODE -DWORK")
endif()
file(MAKE_DIRECTORY ${WORK})
file(COPY ${BIN}/writebacks DESTINATION ${WORK})
set(text "")
foreach(case "conflict" "capacity")
  if(case STREQUAL "conflict")
    set(args --set l2.slices=1 --interval-cycles 100 --csv conflict.csv -- ./writebacks conflict 24 2097152 50)
    set(title "A deliberate conflict: 24 lines 2 MiB apart on a one-slice L2")
  else()
    set(args --set l2.size_kib=512 --interval-cycles 500 --top 1 --csv capacity.csv -- ./writebacks stencil 1024 3)
    set(title "Capacity: a stencil over two 1 MiB arrays on a 512 KiB L2 (the hottest block)")
  endif()
  execute_process(COMMAND ${HPMSIM} conflicts --env-clear ${args} WORKING_DIRECTORY ${WORK}
                  OUTPUT_QUIET ERROR_VARIABLE report RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hpmsim conflicts ${args} failed (${status}):\n${report}")
  endif()
  # The per-block CSV as a histogram of blocks by writebacks seen (the scatter plot's shape).
  file(STRINGS ${WORK}/${case}.csv rows)
  list(REMOVE_AT rows 0)
  list(LENGTH rows blocks)
  set(most 0)
  set(sum 0)
  foreach(row IN LISTS rows)
    string(REGEX MATCH "[0-9]+$" n "${row}")
    math(EXPR sum "${sum} + ${n}")
    if(n GREATER most)
      set(most ${n})
    endif()
  endforeach()
  string(REPLACE ";" " " shown "${args}")
  string(STRIP "${report}" report)
  string(APPEND text "### ${title}\n\n`hpmsim conflicts ${shown}`\n\n```\n${report}\n```\n\n"
         "Per block (`--csv`): ${blocks} blocks with a writeback seen, ${sum} writebacks seen, "
         "the most in one block ${most}.\n\n")
endforeach()
generated_doc(${DOC} "${marker}" "${text}" ${MODE} conflicts_doc)
