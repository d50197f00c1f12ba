# docs/table1.md: seed 002's Table 1 measured on the simulated bgp node. Runs the BT-like solver
# with every UPC-P counter on input select 0 (the Table's counter mode) and writes, after the
# file's marker line, the run's figures, the Table's 62 events with the seed's values beside
# ours, and all 256 counters. The introduction above the marker is written by hand.
#
#   cmake -DHPMSIM=... -DBT=... -DSELECT0=bench/upc-select0.txt -DTABLE1=tests/data/
#         seed002_table1.tsv -DDOC=docs/table1.md -DWORK=dir -DMODE=write|check -P table1_doc.cmake
#
# MODE write (the `table1_doc` target) rewrites the generated part; MODE check (the test
# Table1Doc.IsGeneratedFromABtRun) fails while the committed file differs from the run.
include(${CMAKE_CURRENT_LIST_DIR}/generated_doc.cmake)
set(marker "<!-- generated below: do not edit; `ninja table1_doc` rewrites it from a run -->")
foreach(v HPMSIM BT SELECT0 TABLE1 DOC WORK MODE)
  if(NOT ${v})
    message(FATAL_ERROR "table1_doc.cmake needs -D${v}=...")
  endif()
endforeach()

# The run, in a fixed environment (the guest's stack, and so its run, depends on it) and from the
# program's directory (the guest's file system: its path there, /bt, is the same in every tree).
file(MAKE_DIRECTORY ${WORK})
set(stats ${WORK}/table1-stats.json)
get_filename_component(bt_dir ${BT} DIRECTORY)
get_filename_component(bt_name ${BT} NAME)
execute_process(
  COMMAND ${HPMSIM} run --machine bgp --env-clear --upc-config ${SELECT0} --summary --stats-json
          ${stats} -- ${bt_name}
  WORKING_DIRECTORY ${bt_dir}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the bt run failed (${status}):\n${err}")
endif()
if(NOT out MATCHES "line checks: passed")
  message(FATAL_ERROR "bt's own checks did not pass:\n${out}")
endif()

# The counters printed at the end: "counter select event value" rows.
string(REPLACE "\n" ";" lines "${err}")
set(rows 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^ +([0-9]+) +([0-9]+)  ([A-Z0-9_]+) +([0-9]+)")
    set(event_${CMAKE_MATCH_1} ${CMAKE_MATCH_3})
    set(value_${CMAKE_MATCH_1} ${CMAKE_MATCH_4})
    set(counter_of_${CMAKE_MATCH_3} ${CMAKE_MATCH_1})
    if(NOT CMAKE_MATCH_2 EQUAL 0)
      message(FATAL_ERROR "counter ${CMAKE_MATCH_1} is not on select 0: ${line}")
    endif()
    math(EXPR rows "${rows} + 1")
  endif()
endforeach()
if(NOT rows EQUAL 256)
  message(FATAL_ERROR "expected 256 counters, found ${rows}:\n${err}")
endif()

file(READ ${stats} json)
string(JSON instructions GET "${json}" instructions)
string(JSON cycles GET "${json}" cycles)
string(JSON carries GET "${json}" monitor upc carries)
string(JSON lost GET "${json}" monitor upc lost_carries)
string(JSON low_bits GET "${json}" config upc low_bits)
if(NOT lost EQUAL 0)
  message(FATAL_ERROR "the run lost ${lost} carries with ${low_bits}-bit low-order registers")
endif()

set(g "## The run\n\n")
string(APPEND g "${instructions} instructions in ${cycles} cycles on the `bgp` node; UPC-P with "
       "${low_bits}-bit low-order registers: ${carries} carries into the SRAM, ${lost} lost.\n\n")

# The seed's rows: core 0's event and core 1's alternate (tests/data/seed002_table1.tsv).
file(STRINGS ${TABLE1} table1 REGEX "^[^#]")
string(APPEND g "## Table 1\n\n"
       "| Event name | Counter ID | Seed (BG/P) | hpmsim | Event name | Counter ID | Seed (BG/P) "
       "| hpmsim |\n|---|---:|---:|---:|---|---:|---:|---:|\n")
set(half "")
foreach(row IN LISTS table1)
  string(REPLACE "\t" ";" f "${row}")
  list(GET f 0 name)
  list(GET f 1 counter)
  list(GET f 2 seed)
  if(NOT DEFINED counter_of_${name} OR NOT counter_of_${name} EQUAL counter)
    message(FATAL_ERROR "${name} is not on counter ${counter} at select 0")
  endif()
  set(cell "| ${name} | ${counter} | ${seed} | ${value_${counter}} ")
  if(half STREQUAL "")
    set(half "${cell}")
  else()
    string(APPEND g "${half}${cell}|\n")
    set(half "")
  endif()
endforeach()

string(APPEND g "\n## All 256 counters\n\n| Counter ID | Event name | Value |\n|---:|---|---:|\n")
foreach(c RANGE 255)
  string(APPEND g "| ${c} | ${event_${c}} | ${value_${c}} |\n")
endforeach()

generated_doc(${DOC} "${marker}" "${g}" ${MODE} table1_doc)
