# docs/timing.md's table of the bgq and bgp presets beside the published hardware figures: the
# model's side from `hpmsim run --machine M --mode timing` of guest/workloads/mem_figures.c (and
# list_prefetch.c), the published side, its sources and the notes from
# docs/published_figures.json, the one place they are declared. Simulated runs are
# deterministic (an empty environment, the programs run as ./NAME from copies in WORK), so the
# table is exact for this build; a change of either preset's timing changes it, and
# `ninja published_figures_doc` writes it again.
#
#   cmake -DHPMSIM=path/to/hpmsim -DBIN=guest/bin -DDOC=docs/timing.md
#         -DFIGURES=docs/published_figures.json -DMODE=write|check -DWORK=dir [-DQUICK=ON]
#         -P published_figures.cmake
#
# QUICK (the check test, which CI runs): the STREAM rows of more than QUICK_MAX_THREADS threads
# (a few seconds of simulation each: the arrays are 1.5 times the last cache) are not run but
# taken from DOC as committed; every other row is run and must match.
cmake_policy(SET CMP0007 NEW)
cmake_policy(SET CMP0011 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/../counters/generated_doc.cmake)
if(NOT HPMSIM OR NOT BIN OR NOT DOC OR NOT FIGURES OR NOT MODE OR NOT WORK)
  message(FATAL_ERROR "published_figures.cmake needs -DHPMSIM -DBIN -DDOC -DFIGURES -DMODE -DWORK")
endif()
set(QUICK_MAX_THREADS 1)
set(begin_marker
    "<!-- generated below: do not edit; `ninja published_figures_doc` rewrites it from hpmsim runs and docs/published_figures.json -->"
)
set(end_marker "<!-- end of the generated table -->")
file(MAKE_DIRECTORY ${WORK})
file(COPY ${BIN}/mem_figures ${BIN}/list_prefetch DESTINATION ${WORK})
file(READ ${FIGURES} figures)

# ---- Runs and their statistics ------------------------------------------------------------------

# sim(OUT MACHINE [SET key=value...] ARGS program args...): the run's statistics (JSON).
function(sim out machine)
  cmake_parse_arguments(S "" "" "SET;ARGS" ${ARGN})
  set(sets "")
  foreach(s IN LISTS S_SET)
    list(APPEND sets --set ${s})
  endforeach()
  list(GET S_ARGS 0 program)
  list(REMOVE_AT S_ARGS 0)
  file(REMOVE ${WORK}/stats.json)
  execute_process(
    COMMAND ${HPMSIM} run --quiet --machine ${machine} --mode timing --env-clear ${sets}
            --stats-json stats.json -- ./${program} ${S_ARGS}
    WORKING_DIRECTORY ${WORK} OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hpmsim run --machine ${machine} ${program} ${S_ARGS} failed:\n${err}")
  endif()
  file(READ ${WORK}/stats.json json)
  set(${out} "${json}" PARENT_SCOPE)
endfunction()

# region_cycles(OUT JSON NAME): the cycles of the run's region NAME.
function(region_cycles out json name)
  string(JSON n LENGTH "${json}" regions)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON region GET "${json}" regions ${i} name)
    if(region STREQUAL name)
      string(JSON cycles GET "${json}" regions ${i} cycles)
      set(${out} ${cycles} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no region ${name} in the run")
endfunction()

# region_span(OUT JSON ID): from the first entry into region ID, by any thread, to the last exit.
function(region_span out json id)
  string(JSON n LENGTH "${json}" region_spans)
  math(EXPR last "${n} - 1")
  set(first "")
  set(end 0)
  foreach(i RANGE ${last})
    string(JSON rid GET "${json}" region_spans ${i} id)
    if(rid EQUAL id)
      string(JSON b GET "${json}" region_spans ${i} begin)
      string(JSON e GET "${json}" region_spans ${i} end)
      if(first STREQUAL "" OR b LESS first)
        set(first ${b})
      endif()
      if(e GREATER end)
        set(end ${e})
      endif()
    endif()
  endforeach()
  math(EXPR span "${end} - ${first}")
  set(${out} ${span} PARENT_SCOPE)
endfunction()

# param(OUT JSON KEY...): a configuration value of the run, e.g. param(x "${json}" ddr latency).
function(param out json)
  string(JSON v GET "${json}" config ${ARGN})
  set(${out} ${v} PARENT_SCOPE)
endfunction()

# clock_mhz(OUT JSON): the run's clock in MHz, a whole number (the configuration gives 1600.0).
function(clock_mhz out json)
  param(mhz "${json}" node clock_mhz)
  if(NOT mhz MATCHES "^([0-9]+)(\\.0*)?$")
    message(FATAL_ERROR "node.clock_mhz ${mhz}: not a whole number of MHz")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

# ---- Fixed-point arithmetic (CMake's math is integral) -----------------------------------------

# ratio(OUT NUM DEN DIGITS): NUM / DEN (integers or integer expressions) rounded to DIGITS (1 or
# 2) decimals, as text.
function(ratio out num den digits)
  set(scale 10)
  if(digits EQUAL 2)
    set(scale 100)
  endif()
  math(EXPR r "((${num}) * ${scale} + (${den}) / 2) / (${den})")
  math(EXPR whole "${r} / ${scale}")
  math(EXPR frac "${r} % ${scale}")
  if(digits EQUAL 2 AND frac LESS 10)
    set(frac "0${frac}")
  endif()
  set(${out} "${whole}.${frac}" PARENT_SCOPE)
endfunction()

# hundredths(OUT X): the decimal X (as JSON gives it: 13.33, 8) in hundredths, truncated.
function(hundredths out x)
  if(x MATCHES "^([0-9]+)\\.([0-9])([0-9])?")
    set(d2 "${CMAKE_MATCH_3}")
    if(d2 STREQUAL "")
      set(d2 0)
    endif()
    math(EXPR v "${CMAKE_MATCH_1} * 100 + ${CMAKE_MATCH_2} * 10 + ${d2}")
  elseif(x MATCHES "^[0-9]+$")
    math(EXPR v "${x} * 100")
  else()
    message(FATAL_ERROR "not a decimal: ${x}")
  endif()
  set(${out} ${v} PARENT_SCOPE)
endfunction()

# ---- The model's side ---------------------------------------------------------------------------

# Load-to-use latency of a chase: the cycles LOADS more loads take (a run of 2 LOADS against one
# of LOADS: the region's edges, its exit mispredict and the last load, whose value nothing in
# the region waits for, cancel), per load, one decimal.
function(chase_latency out machine nodes stride loads)
  math(EXPR twice "2 * ${loads}")
  sim(one ${machine} ARGS mem_figures chase ${nodes} ${stride} ${loads})
  sim(two ${machine} ARGS mem_figures chase ${nodes} ${stride} ${twice})
  region_cycles(c1 "${one}" chase)
  region_cycles(c2 "${two}" chase)
  ratio(l "${c2} - ${c1}" ${loads} 1)
  set(${out} ${l} PARENT_SCOPE)
endfunction()

# The DDR's: as a chase, over dependent loads of fresh memory, less the add that forms each
# address.
function(ddr_latency out machine loads)
  math(EXPR twice "2 * ${loads}")
  sim(one ${machine} ARGS mem_figures fresh ${loads})
  sim(two ${machine} ARGS mem_figures fresh ${twice})
  region_cycles(c1 "${one}" fresh)
  region_cycles(c2 "${two}" fresh)
  param(add "${one}" core latency int_alu)
  ratio(l "${c2} - ${c1} - ${add} * ${loads}" ${loads} 1)
  set(${out} ${l} PARENT_SCOPE)
endfunction()

# The DDR's peak per node in GB/s, from the configuration: each controller moves a line per
# ceil(line / bytes_per_cycle) cycles.
function(ddr_peak out machine)
  sim(json ${machine} ARGS mem_figures chase 2 8 8)
  param(controllers "${json}" ddr controllers)
  param(bpc "${json}" ddr bytes_per_cycle)
  param(line "${json}" l2 line_bytes)
  clock_mhz(mhz "${json}")
  hundredths(bpc ${bpc})
  math(EXPR cycles "(${line} * 100 + ${bpc} - 1) / ${bpc}")
  ratio(gbs "${controllers} * ${line} * ${mhz}" "${cycles} * 1000" 2)
  set(${out} ${gbs} PARENT_SCOPE)
endfunction()

# STREAM triad per node in GB/s: 24 bytes per element over the region's span.
function(triad_bandwidth out machine elements threads cores)
  sim(json ${machine} ARGS mem_figures triad ${elements} ${threads} ${cores})
  region_span(span "${json}" 3)
  clock_mhz(mhz "${json}")
  math(EXPR per_thread "${elements} / ${threads}")
  ratio(gbs "24 * ${per_thread} * ${threads} * ${mhz}" "${span} * 1000" 1)
  set(${out} ${gbs} PARENT_SCOPE)
endfunction()

# The stream prefetcher's gain: a sequential read of BYTES in the L2, prefetching off / on.
function(stream_gain out machine bytes)
  sim(off ${machine} SET l1p.prefetch=false ARGS mem_figures seq ${bytes})
  sim(on ${machine} ARGS mem_figures seq ${bytes})
  region_cycles(c_off "${off}" seq)
  region_cycles(c_on "${on}" seq)
  ratio(g ${c_off} ${c_on} 2)
  set(${out} "${g}" PARENT_SCOPE)
endfunction()

# The list prefetcher's gain: list_prefetch's recorded walk / its replayed walk.
function(list_gain out machine)
  sim(json ${machine} ARGS list_prefetch)
  region_cycles(record "${json}" record)
  region_cycles(replay "${json}" replay)
  ratio(g ${record} ${replay} 2)
  set(${out} "${g}" PARENT_SCOPE)
endfunction()

# ---- The published side -------------------------------------------------------------------------

# Sources numbered in the file's order: source_<id> = n.
string(JSON n_sources LENGTH "${figures}" sources)
math(EXPR last_source "${n_sources} - 1")
set(source_list "")
foreach(i RANGE ${last_source})
  string(JSON id GET "${figures}" sources ${i} id)
  string(JSON title GET "${figures}" sources ${i} title)
  string(JSON url GET "${figures}" sources ${i} url)
  math(EXPR number "${i} + 1")
  set(source_${id} ${number})
  string(APPEND source_list "${number}. ${title}: <${url}>\n")
endforeach()

# Turns [id] into [n] in a note.
function(number_sources out text)
  foreach(i RANGE ${last_source})
    string(JSON id GET "${figures}" sources ${i} id)
    math(EXPR number "${i} + 1")
    string(REPLACE "[${id}]" "[${number}]" text "${text}")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The statements list: one line per figure with a source (a figure the STREAM rows share, once).
set(statements "")

# published(OUT ROW MACHINE LABEL): the published cell; appends the figure's statement.
function(published out row machine label)
  string(JSON entry ERROR_VARIABLE missing GET "${figures}" rows ${row} ${machine})
  if(missing)
    set(${out} "—" PARENT_SCOPE)
    return()
  endif()
  string(JSON type TYPE "${entry}" value)
  string(JSON source ERROR_VARIABLE no_source GET "${entry}" source)
  if(no_source)
    if(type STREQUAL "NULL")
      set(${out} "no source found" PARENT_SCOPE)
    else()
      string(JSON value GET "${entry}" value)
      set(${out} "${value}" PARENT_SCOPE)
    endif()
    return()
  endif()
  if(NOT DEFINED source_${source})
    message(FATAL_ERROR "${FIGURES}: row ${row}, ${machine}: no source ${source}")
  endif()
  set(ref "[${source_${source}}]")
  if(type STREQUAL "NULL")
    set(cell "no figure stated ${ref}")
  else()
    string(JSON value GET "${entry}" value)
    set(cell "${value} ${ref}")
  endif()
  string(JSON states GET "${entry}" states)
  set(line "- ${machine}, ${label}: ${ref} “${states}”\n")
  string(FIND "${statements}" "${line}" seen)
  if(seen LESS 0)
    set(statements "${statements}${line}" PARENT_SCOPE)
  endif()
  set(${out} "${cell}" PARENT_SCOPE)
endfunction()

function(note out row)
  string(JSON text GET "${figures}" rows ${row} note)
  number_sources(text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# ---- The table ----------------------------------------------------------------------------------

set(table "| quantity | bgq model | bgq published | bgp model | bgp published | why they differ |\n")
string(APPEND table "|---|---|---|---|---|---|\n")

# row(ID LABEL BGQ BGP): a table row with the row's published cells and note.
macro(row id label bgq bgp)
  published(bgq_pub ${id} bgq "${label}")
  published(bgp_pub ${id} bgp "${label}")
  note(why ${id})
  string(APPEND table "| ${label} | ${bgq} | ${bgq_pub} | ${bgp} | ${bgp_pub} | ${why} |\n")
endmacro()

chase_latency(bgq_l1 bgq 128 64 4096)
chase_latency(bgp_l1 bgp 512 32 4096)
row(l1 "L1D load-to-use, cycles" ${bgq_l1} ${bgp_l1})

chase_latency(bgq_l1p bgq 16 2048 4096)
sim(bgp_config bgp ARGS mem_figures chase 2 8 8)
param(bgp_l1p "${bgp_config}" l1p hit_latency)
row(l1p "L1P (bgq), L2 prefetch buffer (bgp) hit, cycles" ${bgq_l1p} "${bgp_l1p} (parameter)")

chase_latency(bgq_l2 bgq 8192 128 2048)
chase_latency(bgp_l2 bgp 8192 128 2048)
row(l2 "L2 (bgq), L3 (bgp) load-to-use, cycles" ${bgq_l2} ${bgp_l2})

ddr_latency(bgq_ddr bgq 1024)
ddr_latency(bgp_ddr bgp 1024)
row(ddr "DDR load-to-use, cycles" ${bgq_ddr} ${bgp_ddr})

ddr_peak(bgq_peak bgq)
ddr_peak(bgp_peak bgp)
row(ddr_peak "DDR peak per node, GB/s" ${bgq_peak} ${bgp_peak})

# STREAM triad: 1.5 times the last cache's bytes in all (bgq 48 MiB, bgp 12 MiB), so the
# measured pass runs in the DDR's steady state.
file(READ ${DOC} committed)
set(first_triad TRUE)
foreach(threads 1 2 4 8 16 32 64)
  if(threads EQUAL 1)
    set(label "STREAM triad per node, 1 thread, GB/s")
  else()
    set(label "STREAM triad per node, ${threads} threads, GB/s")
  endif()
  if(QUICK AND threads GREATER QUICK_MAX_THREADS)
    string(REGEX MATCH "\n\\| ${label} \\|[^\n]*\n" line "${committed}")
    if(line STREQUAL "")
      message(FATAL_ERROR "${DOC}: no row '${label}' to keep")
    endif()
    string(SUBSTRING "${line}" 1 -1 line)
    string(APPEND table "${line}")
    published(ignored triad bgq "STREAM triad per node")
    published(ignored triad bgp "STREAM triad per node")
    continue()
  endif()
  triad_bandwidth(bgq_triad bgq 2097152 ${threads} 16)
  if(threads LESS_EQUAL 4)
    triad_bandwidth(bgp_triad bgp 524288 ${threads} 4)
  else()
    set(bgp_triad "— (4 threads)")
  endif()
  if(first_triad)
    row(triad "${label}" ${bgq_triad} "${bgp_triad}")
    set(first_triad FALSE)
  else()
    published(bgq_pub triad bgq "${label}")
    published(bgp_pub triad bgp "${label}")
    string(APPEND table "| ${label} | ${bgq_triad} | ${bgq_pub} | ${bgp_triad} | ${bgp_pub} | as above |\n")
  endif()
endforeach()

stream_gain(bgq_stream bgq 131072)
stream_gain(bgp_stream bgp 131072)
row(stream_gain "L1P stream prefetch gain, times" ${bgq_stream} ${bgp_stream})

list_gain(bgq_list bgq)
row(list_gain "L1P list prefetch gain, times" ${bgq_list} "— (no list prefetcher)")

set(text "${table}\nSources:\n\n${source_list}\nWhere each figure is stated:\n\n${statements}\n")
generated_section(${DOC} "${begin_marker}" "${end_marker}" "${text}" ${MODE} published_figures_doc)
