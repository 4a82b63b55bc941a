# run_repeatedly.cmake - runs a command TIMES times and fails on the first run
# that does not exit with 0, naming the signal when it was killed by one.
# Failures at exit are intermittent, so one clean run proves little.
#
#   cmake -DTIMES=20 -DCOMMAND="prog;arg1;arg2" -P run_repeatedly.cmake
if(NOT DEFINED TIMES OR NOT DEFINED COMMAND)
  message(FATAL_ERROR "run_repeatedly.cmake: -DTIMES=<n> -DCOMMAND=<list> are required")
endif()
foreach(run RANGE 1 ${TIMES})
  execute_process(COMMAND ${COMMAND} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result STREQUAL "0")
    message(FATAL_ERROR "run ${run} of ${TIMES} of '${COMMAND}' ended with '${result}' (not exit code 0)\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
message(STATUS "${TIMES} runs of '${COMMAND}' exited with 0")
