# strip_glue.cmake - binds the P/Invoke declarations that SWIG generated to
# libpbf's own C functions (see pbf_csharp.i): EntryPoint="<PREFIX>pbf_x"
# becomes EntryPoint="pbf_x". Fails when a declaration would still need
# SWIG's C glue, so that a typemap missing for a new function is caught at
# build time rather than as an EntryPointNotFoundException at run time.
#
#   cmake -DINPUT=<generated.cs> -DOUTPUT=<bound.cs> -DPREFIX=CSharp_Pbf_ -P strip_glue.cmake
foreach(var INPUT OUTPUT PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "strip_glue.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${INPUT}" text)
string(REPLACE "EntryPoint=\"${PREFIX}pbf_" "EntryPoint=\"pbf_" text "${text}")

string(REGEX MATCHALL "EntryPoint=\"[^\"]*\"" entries "${text}")
list(LENGTH entries count)
if(count EQUAL 0)
  message(FATAL_ERROR "strip_glue.cmake: ${INPUT} declares no native function")
endif()
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^EntryPoint=\"pbf_[a-z0-9_]+\"$")
    message(FATAL_ERROR "strip_glue.cmake: ${entry} is not a function of libpbf; "
                        "wrap it in pbf_csharp.i with typemaps that need no C glue")
  endif()
endforeach()
if(text MATCHES "SWIGRegister|SWIGPendingException")
  message(FATAL_ERROR "strip_glue.cmake: SWIG's exception or string helpers were generated; "
                      "run SWIG with -DSWIG_CSHARP_NO_EXCEPTION_HELPER -DSWIG_CSHARP_NO_STRING_HELPER")
endif()

file(WRITE "${OUTPUT}" "${text}")
