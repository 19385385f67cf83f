# install() rules and the package config for C++ programs (docs/cpp-api.md): the layers'
# static libraries, their headers under include/arbolito/<layer>/, and
# lib/cmake/arbolito/arbolitoConfig.cmake, whose target arbolito::arbolito links the
# engine (api/ and everything below it). Component `development`; the executable is
# component `cli`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(arbolito_engine INTERFACE)
target_link_libraries(arbolito_engine INTERFACE arbolito_api)
set_target_properties(arbolito_engine PROPERTIES EXPORT_NAME arbolito)

set(_arbolito_libraries arbolito_engine arbolito_api arbolito_io arbolito_parareal arbolito_run arbolito_lowered_cell
    arbolito_model arbolito_solvers arbolito_mechanisms arbolito_core)
install(TARGETS ${_arbolito_libraries} EXPORT arbolitoTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/arbolito)
foreach(layer core mechanisms solvers model lowered_cell run cpu gpu parareal io api)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/arbolito/${layer}
          COMPONENT development FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endforeach()
install(EXPORT arbolitoTargets NAMESPACE arbolito:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/arbolito
        COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/arbolitoConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/arbolitoConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/arbolito)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/arbolitoConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/arbolitoConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/arbolitoConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/arbolito COMPONENT development)
install(TARGETS arbolito RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
