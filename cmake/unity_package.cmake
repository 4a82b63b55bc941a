# unity_package.cmake - lays out a Unity package folder for Linux players: the
# native library with every non-system library it needs beside it, the C#
# binding, the sample component and its shader, and package.json. Run by the
# unity_package target (samples/unity/CMakeLists.txt) and by its test.
#
#   cmake -DLIBRARY=<libpbf.so> -DASSEMBLY=<Pbf.dll> -DSAMPLE=<samples/unity> -DVERSION=<x.y.z>
#         -DOUT=<package folder> -P unity_package.cmake
cmake_minimum_required(VERSION 3.25)  # file(REAL_PATH), file(COPY_FILE), file(RPATH_SET)
foreach(var LIBRARY ASSEMBLY SAMPLE VERSION OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "unity_package.cmake: -D${var}=... is required")
  endif()
endforeach()

set(runtime ${OUT}/Runtime)
set(native ${runtime}/Plugins/x86_64)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${native})

# Unity resolves DllImport("pbf") to libpbf.so: the real file under that name, no symbolic links.
file(REAL_PATH "${LIBRARY}" real_library)
file(COPY_FILE "${real_library}" ${native}/libpbf.so)
file(RPATH_SET FILE ${native}/libpbf.so NEW_RPATH "$ORIGIN")

# What a Linux player can count on: glibc and the C++ runtime. Everything else travels along.
set(system_libraries
  "^linux-vdso" "^ld-linux" "^libc\\.so" "^libm\\.so" "^libdl\\.so" "^libpthread\\.so" "^librt\\.so"
  "^libutil\\.so" "^libresolv\\.so" "^libstdc\\+\\+\\.so" "^libgcc_s\\.so" "^libcuda\\.so")
file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES "${real_library}"
  RESOLVED_DEPENDENCIES_VAR companions
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  PRE_EXCLUDE_REGEXES ${system_libraries})
if(unresolved)
  message(FATAL_ERROR "unity_package.cmake: cannot find ${unresolved}, which ${LIBRARY} needs")
endif()
set(names "")
foreach(companion IN LISTS companions)
  get_filename_component(name "${companion}" NAME)  # the name the loader asks for (libtbb.so.12)
  file(REAL_PATH "${companion}" real)
  file(COPY_FILE "${real}" ${native}/${name})
  list(APPEND names ${name})
endforeach()
list(SORT names)
list(JOIN names "\n  " listed)
file(WRITE ${native}/LIBRARIES.txt
     "libpbf.so needs these libraries, copied from the build machine; it finds them beside itself:\n  ${listed}\n")

get_filename_component(assembly_dir "${ASSEMBLY}" DIRECTORY)
file(COPY "${ASSEMBLY}" DESTINATION ${runtime}/Plugins)
if(EXISTS ${assembly_dir}/Pbf.xml)
  file(COPY ${assembly_dir}/Pbf.xml DESTINATION ${runtime}/Plugins)
endif()
file(COPY ${SAMPLE}/PbfFluid.cs ${SAMPLE}/PbfParticles.shader ${SAMPLE}/Pbf.Unity.asmdef DESTINATION ${runtime})
file(COPY ${SAMPLE}/README.md DESTINATION ${OUT})
configure_file(${SAMPLE}/package.json.in ${OUT}/package.json @ONLY)
message(STATUS "Unity package: ${OUT} (libpbf.so and ${names})")
