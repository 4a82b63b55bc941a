# cmake -DBUILD_DIR=... -DTARGET=... -DHEADER=... -DEXPECT=refused|compiles -P check_layer.cmake
# Builds one layer check (layer_checks.cmake) and judges the result.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT STREQUAL "compiles")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${TARGET}: including ${HEADER} should compile:\n${out}${err}")
  endif()
  message(STATUS "${TARGET}: ${HEADER} is in reach, as it should be")
else()
  if(status EQUAL 0)
    message(FATAL_ERROR "${TARGET}: ${HEADER} compiled; the layer should not see it")
  endif()
  string(FIND "${out}${err}" "${HEADER}: No such file" missing)
  if(missing EQUAL -1)
    message(FATAL_ERROR "${TARGET} failed, but not for want of ${HEADER}:\n${out}${err}")
  endif()
  message(STATUS "${TARGET}: ${HEADER} is out of reach, as it should be")
endif()
