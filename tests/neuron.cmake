# The NEURON reference harness (tests/neuron/): checks of the harness itself, which
# need NEURON but not the arbolito binary. The arbolito-vs-NEURON comparisons use
# tests/neuron/run_neuron.py (see tests/neuron/README.md) and live elsewhere.
set(ARBOLITO_NEURON_PYTHON "/usr/bin/python3" CACHE FILEPATH
    "Python interpreter with NEURON, h5py and numpy (Debian: python3-neuron, python3-h5py)")

set(_neuron_dir ${PROJECT_SOURCE_DIR}/tests/neuron)
set(_neuron_work ${CMAKE_CURRENT_BINARY_DIR}/neuron_harness)
set(_neuron_tests neuron_harness_passive neuron_harness_ball_and_stick neuron_harness_network)

set(_neuron_why "")
if(NOT EXISTS "${ARBOLITO_NEURON_PYTHON}")
  set(_neuron_why "${ARBOLITO_NEURON_PYTHON} does not exist")
else()
  execute_process(COMMAND "${ARBOLITO_NEURON_PYTHON}" -c "import neuron, h5py, numpy"
                  RESULT_VARIABLE _neuron_rc OUTPUT_QUIET ERROR_VARIABLE _neuron_err
                  TIMEOUT 60)
  if(NOT _neuron_rc EQUAL 0)
    string(REGEX REPLACE "[\r\n]+" " " _neuron_err "${_neuron_err}")
    string(REGEX MATCH "[A-Za-z]*Error:[^\"]*$" _neuron_short "${_neuron_err}")
    if(NOT _neuron_short)
      set(_neuron_short "exit status ${_neuron_rc}")
    endif()
    set(_neuron_why "${ARBOLITO_NEURON_PYTHON} cannot import neuron, h5py and numpy (${_neuron_short})")
  endif()
endif()

if(_neuron_why STREQUAL "")
  add_test(NAME neuron_harness_passive
           COMMAND ${ARBOLITO_NEURON_PYTHON} ${_neuron_dir}/check_passive.py ${_neuron_work}/passive)
  add_test(NAME neuron_harness_ball_and_stick
           COMMAND ${ARBOLITO_NEURON_PYTHON} ${_neuron_dir}/make_geometry.py selftest ball-and-stick
                   ${_neuron_work}/ball_and_stick)
  add_test(NAME neuron_harness_network
           COMMAND ${ARBOLITO_NEURON_PYTHON} ${_neuron_dir}/make_geometry.py selftest network
                   ${_neuron_work}/network)
  set_tests_properties(${_neuron_tests} PROPERTIES LABELS neuron TIMEOUT 300)
else()
  message(STATUS "NEURON harness tests skipped: ${_neuron_why}")
  foreach(_t ${_neuron_tests})
    add_test(NAME ${_t} COMMAND sh -c "echo \"skipped: $0\"; exit 77" "${_neuron_why}")
    set_tests_properties(${_t} PROPERTIES LABELS neuron SKIP_RETURN_CODE 77)
  endforeach()
endif()
