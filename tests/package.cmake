# C++ programs on the engine: examples/cpp built against the build's package installed into
# a scratch prefix (find_package(arbolito)), run on the ring example.
add_test(NAME cpp_package_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_cpp_package.sh ${CMAKE_BINARY_DIR} $<TARGET_FILE:arbolito>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cpp_package -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
set_tests_properties(cpp_package_example PROPERTIES TIMEOUT 600)
