# check_unity_package.cmake - lays out the Unity package (unity_package.cmake)
cmake_minimum_required(VERSION 3.25)  # IN_LIST, file(REAL_PATH), file(COPY_FILE)
# in a folder of the test's own and checks that a player could load it:
#  1. in an empty environment (env -i) the packaged libpbf.so loads, steps a
#     solver, and every library the package brings is the one loaded, from
#     the package folder (the loader lists what it loaded);
#  2. where the process may make a mount namespace (unshare -m), again with
#     every system copy of those libraries replaced by an empty file, so that
#     nothing but the package can satisfy them.
#
#   cmake -DLOADER=<unity_package_loader> -DSCRIPT=<unity_package.cmake> -DOUT=<folder>
#         -DLIBRARY=... -DASSEMBLY=... -DSAMPLE=... -DVERSION=... (as unity_package.cmake) -P check_unity_package.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -DLIBRARY=${LIBRARY} -DASSEMBLY=${ASSEMBLY} -DSAMPLE=${SAMPLE}
                        -DVERSION=${VERSION} -DOUT=${OUT} -P ${SCRIPT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "laying out the package failed")
endif()
set(native ${OUT}/Runtime/Plugins/x86_64)
foreach(file package.json Runtime/Plugins/Pbf.dll Runtime/PbfFluid.cs Runtime/PbfParticles.shader
             Runtime/Pbf.Unity.asmdef Runtime/Plugins/x86_64/libpbf.so)
  if(NOT EXISTS ${OUT}/${file})
    message(FATAL_ERROR "the package lacks ${file}")
  endif()
endforeach()
file(GLOB companions RELATIVE ${native} ${native}/*.so*)
list(REMOVE_ITEM companions libpbf.so)
if(NOT companions)
  message(FATAL_ERROR "the package brings no library besides libpbf.so")
endif()
foreach(name IN LISTS companions)
  if(IS_SYMLINK ${native}/${name})
    message(FATAL_ERROR "${name} is a symbolic link; Unity copies plugins as files")
  endif()
endforeach()

# Runs the loader on `library`; puts the loaded paths in `out_var`.
function(load library out_var)
  execute_process(COMMAND ${ARGN} ${LOADER} ${library} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "loading ${library} failed (${rc}):\n${out}${err}")
  endif()
  string(REGEX MATCHALL "loaded: [^\n]+" lines "${out}")
  list(TRANSFORM lines REPLACE "^loaded: " "")
  set(${out_var} ${lines} PARENT_SCOPE)
endfunction()

# Each companion must be loaded once, from the package.
function(expect_from_package loaded how)
  file(REAL_PATH ${native} native_real)
  foreach(name IN LISTS companions)
    set(found "")
    foreach(path IN LISTS loaded)
      get_filename_component(base ${path} NAME)
      if(base STREQUAL name)
        list(APPEND found ${path})
      endif()
    endforeach()
    list(LENGTH found times)
    if(NOT times EQUAL 1)
      message(FATAL_ERROR "${how}: ${name} was loaded ${times} times: ${found}")
    endif()
    get_filename_component(dir ${found} DIRECTORY)
    file(REAL_PATH ${dir} dir)
    if(NOT dir STREQUAL native_real)
      message(FATAL_ERROR "${how}: ${name} came from ${dir}, not from the package")
    endif()
  endforeach()
  message(STATUS "${how}: ${companions} all loaded from the package")
endfunction()

load(${native}/libpbf.so loaded env -i)
expect_from_package("${loaded}" "empty environment")

# The system copies: where the build tree's libpbf finds the same names.
load(${LIBRARY} system env -i)
set(hide "")
foreach(path IN LISTS system)
  get_filename_component(base ${path} NAME)
  if(base IN_LIST companions)
    file(REAL_PATH ${path} real)
    list(APPEND hide ${real})
  endif()
endforeach()
execute_process(COMMAND unshare -m true RESULT_VARIABLE can_unshare OUTPUT_QUIET ERROR_QUIET)
if(NOT can_unshare EQUAL 0 OR NOT hide)
  message(STATUS "system copies not hidden: unshare -m is not permitted here (the check above stands alone)")
  return()
endif()
set(mounts "")
foreach(path IN LISTS hide)
  string(APPEND mounts "mount --bind /dev/null '${path}' && ")
endforeach()
load(${native}/libpbf.so loaded unshare -m sh -c "${mounts}exec env -i \"$0\" \"$1\"")
expect_from_package("${loaded}" "system copies hidden (${hide})")
