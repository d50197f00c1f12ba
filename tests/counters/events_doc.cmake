# docs/events.md, generated from the simulator's own event catalogue by `hpmsim events
# --markdown` for each preset machine. The file's introduction, up to the marker line, is
# written by hand and kept; everything after the marker is generated.
#
#   cmake -DHPMSIM=path/to/hpmsim -DDOC=docs/events.md -DMODE=write -P events_doc.cmake
#       rewrites the generated part (the `events_doc` target does this)
#   ... -DMODE=check ...
#       fails, naming the first differing line, when the committed file is stale (the test
#       EventsDoc.IsGeneratedFromTheCatalogue)
include(${CMAKE_CURRENT_LIST_DIR}/generated_doc.cmake)
set(marker "<!-- generated below: do not edit; `ninja events_doc` rewrites it from `hpmsim events --markdown` -->")
if(NOT HPMSIM OR NOT DOC OR NOT MODE)
  message(FATAL_ERROR "events_doc.cmake needs -DHPMSIM=... -DDOC=... -DMODE=write|check")
endif()
set(generated "")
foreach(machine bgp bgq)
  execute_process(COMMAND ${HPMSIM} events --markdown --machine ${machine}
                  OUTPUT_VARIABLE table RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hpmsim events --markdown --machine ${machine} failed (${status})")
  endif()
  string(APPEND generated "${table}")
endforeach()
generated_doc(${DOC} "${marker}" "${generated}" ${MODE} events_doc)
