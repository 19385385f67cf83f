# Mechanisms translated from NMODL (tools/nmodl_to_arbolito.py) against the hand-written ones
# (tests/nmodl/), and the translator's refusals of what it does not support.
if(NOT ARBOLITO_HAVE_NMODL)
  return()
endif()

set(_nmodl_data ${PROJECT_SOURCE_DIR}/tests/data/nmodl)
set(_nmodl_gen ${CMAKE_CURRENT_BINARY_DIR}/generated/nmodl_tests)
arbolito_nmodl_headers(_nmodl_headers ${_nmodl_gen}/nmodl arbolito::nmodl
                       ${_nmodl_data}/hh.mod ${_nmodl_data}/pas.mod ${_nmodl_data}/expsyn.mod)
add_executable(nmodl_tests ${PROJECT_SOURCE_DIR}/tests/nmodl/test_nmodl_mechanisms.cpp ${_nmodl_headers})
target_include_directories(nmodl_tests PRIVATE ${_nmodl_gen})
target_compile_options(nmodl_tests PRIVATE -Wall -Wextra)
target_link_libraries(nmodl_tests PRIVATE arbolito_mechanisms GTest::gtest_main)
gtest_discover_tests(nmodl_tests DISCOVERY_TIMEOUT 60)

# Each file in tests/data/nmodl/refused/ names, in its first line, the error the translator
# must give ("expect: LINE: CONSTRUCT"): exit status 2, that line on stderr, no header.
file(GLOB _refused CONFIGURE_DEPENDS ${_nmodl_data}/refused/*.mod)
foreach(mod ${_refused})
  get_filename_component(stem ${mod} NAME_WE)
  add_test(NAME nmodl_refuses_${stem}
           COMMAND ${CMAKE_COMMAND} -DPYTHON=${ARBOLITO_NMODL_PYTHON} -DTRANSLATOR=${ARBOLITO_NMODL_TRANSLATOR}
                   -DMOD=${mod} -DOUT=${CMAKE_CURRENT_BINARY_DIR}/nmodl_refused/${stem}.hpp
                   -P ${PROJECT_SOURCE_DIR}/tests/nmodl/expect_refusal.cmake)
endforeach()

# NMODL's own example hh.mod (shipped with python3-nmodl) uses ions: refused, with its line.
set(_nmodl_example_hh /usr/lib/python3/dist-packages/nmodl/ext/example/hh.mod)
if(EXISTS ${_nmodl_example_hh})
  add_test(NAME nmodl_refuses_useion_in_nmodl_example_hh
           COMMAND ${CMAKE_COMMAND} -DPYTHON=${ARBOLITO_NMODL_PYTHON} -DTRANSLATOR=${ARBOLITO_NMODL_TRANSLATOR}
                   -DMOD=${_nmodl_example_hh} "-DEXPECT=23: USEION"
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/nmodl_refused/example_hh.hpp
                   -P ${PROJECT_SOURCE_DIR}/tests/nmodl/expect_refusal.cmake)
endif()
