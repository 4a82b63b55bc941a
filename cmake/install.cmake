# Installs the library, its headers, a CMake package (find_package(pbf CONFIG)
# gives pbf::pbf) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS pbf EXPORT pbfTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/pbf/pbf.h ${PROJECT_BINARY_DIR}/include/pbf/pbf_version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pbf)

set(PBF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pbf)
install(EXPORT pbfTargets NAMESPACE pbf:: DESTINATION ${PBF_CMAKE_DIR})
configure_package_config_file(cmake/pbfConfig.cmake.in ${PROJECT_BINARY_DIR}/pbfConfig.cmake
  INSTALL_DESTINATION ${PBF_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pbfConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pbfConfig.cmake ${PROJECT_BINARY_DIR}/pbfConfigVersion.cmake
  DESTINATION ${PBF_CMAKE_DIR})

# The .pc file finds its prefix from its own location, so that the package
# can be installed with `cmake --install --prefix` anywhere and moved.
file(RELATIVE_PATH PBF_PC_TO_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" PBF_PC_TO_PREFIX "${PBF_PC_TO_PREFIX}")
set(PBF_PC_PREFIX "\${pcfiledir}/${PBF_PC_TO_PREFIX}")
set(PBF_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(PBF_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")  # a distribution's absolute layout
  set(PBF_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(PBF_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(PBF_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
endif()
configure_file(cmake/pbf.pc.in ${PROJECT_BINARY_DIR}/pbf.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pbf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(PBF_BUILD_SAMPLES)
  install(TARGETS pbf-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY samples/scenes/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pbf/scenes)
endif()
