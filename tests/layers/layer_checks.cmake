# The layers' include scopes (pbf_layer() in the top CMakeLists.txt): a layer
# sees its own folder and the layers below it, nothing above. Each check is a
# one-line source that includes a header from the layer named, built on
# demand by its test: the checks of upward includes expect the compiler not to
# find the header; the controls expect a downward include to compile, so that
# a failure above is the scope's and not the set-up's.
function(pbf_layer_check name layer header expect)
  set(source ${CMAKE_CURRENT_BINARY_DIR}/layer_checks/${name}.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "#include \"${header}\"\nint pbf_layer_check_${name}() { return 0; }\n")
  add_library(layer_check_${name} OBJECT EXCLUDE_FROM_ALL ${source})
  target_link_libraries(layer_check_${name} PRIVATE pbf_${layer})
  add_test(NAME layers.${name}
    COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DTARGET=layer_check_${name} -DHEADER=${header}
      -DEXPECT=${expect} -P ${CMAKE_CURRENT_SOURCE_DIR}/layers/check_layer.cmake)
  set_tests_properties(layers.${name} PROPERTIES LABELS fast)
endfunction()

pbf_layer_check(core_sees_no_boundary core boundary/boundary_equations.h refused)
pbf_layer_check(boundary_sees_no_backend boundary backend/backend.h refused)
pbf_layer_check(backend_sees_no_method backend methods/method.h refused)
pbf_layer_check(backend_sees_no_method_equations backend methods/pbf/pbf_equations.h refused)
pbf_layer_check(methods_see_no_solver methods solver/solver.h refused)
pbf_layer_check(solver_sees_no_c_api solver capi/capi_solver.h refused)
pbf_layer_check(geometry_sees_no_backend geometry backend/backend.h refused)
pbf_layer_check(methods_see_the_backend methods backend/cpu/cpu_backend.h compiles)
pbf_layer_check(c_api_sees_the_solver capi solver/solver.h compiles)
