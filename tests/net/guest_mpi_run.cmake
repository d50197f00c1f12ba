# A helper for the scripts that write docs/network.md's tables from runs (network_doc.cmake,
# net_figures.cmake): one run of a guest MPI program under hpmsim, and rank 0's numeric lines.
#
#   hpm_mpi_rank0_rows(OUT PROGRAM path [HPMSIM_ARGS ...] [ARGS ...])
#
# runs `${HPMSIM} run --env-clear HPMSIM_ARGS -- name ARGS` in the program's folder and sets OUT
# to rank 0's lines that start with a digit, as a list, their "[0] " prefix cut. A failing run
# stops the script, naming the program and its error output.
function(hpm_mpi_rank0_rows out)
  cmake_parse_arguments(PARSE_ARGV 1 run "" "PROGRAM" "HPMSIM_ARGS;ARGS")
  get_filename_component(folder ${run_PROGRAM} DIRECTORY)
  get_filename_component(name ${run_PROGRAM} NAME)
  execute_process(
    COMMAND ${HPMSIM} run --env-clear ${run_HPMSIM_ARGS} -- ${name} ${run_ARGS}
    WORKING_DIRECTORY ${folder}
    OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${name} ${run_ARGS} (${run_HPMSIM_ARGS}) failed (${status}):\n${err}")
  endif()
  string(REGEX MATCHALL "\\[0\\] [0-9][^\n]*" rows "${text}")
  list(TRANSFORM rows REPLACE "^\\[0\\] " "")
  set(${out} "${rows}" PARENT_SCOPE)
endfunction()
