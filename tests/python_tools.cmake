# The Python tools (tools/plot_traces.py, tests/sonata_reader.py) on small files written by
# the real SONATA writer. They run with Debian's python3 (tools/setup.sh installs
# python3-h5py, python3-numpy and python3-matplotlib there), not a pyenv python on PATH.
set(ARBOLITO_TOOLS_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with h5py, numpy and matplotlib for the tool tests")

add_executable(write_example_h5 ${PROJECT_SOURCE_DIR}/tests/tools/write_example_h5.cpp)
target_link_libraries(write_example_h5 PRIVATE arbolito_io)

set(_py_dir ${CMAKE_CURRENT_BINARY_DIR}/python_tools)
set(_py ${ARBOLITO_TOOLS_PYTHON})
set(_reader ${PROJECT_SOURCE_DIR}/tests/sonata_reader.py)
set(_plot ${PROJECT_SOURCE_DIR}/tools/plot_traces.py)

# Two files written alike, one perturbed (one sample +0.5 mV, one spike +0.05 ms),
# a spikes-only file and an HDF5 file that is no SONATA output.
add_test(NAME python_tools_write_examples
         COMMAND sh -c "set -e; rm -rf '${_py_dir}'; mkdir -p '${_py_dir}'; cd '${_py_dir}'
                        for v in reference perturbed spikes-only empty; do \"$0\" $v.h5 $v; done
                        \"$0\" reference_again.h5 reference"
                 $<TARGET_FILE:write_example_h5>)
set_tests_properties(python_tools_write_examples PROPERTIES FIXTURES_SETUP python_tools_examples)

add_test(NAME plot_traces_writes_png
         COMMAND sh -c "set -e; cd '${_py_dir}'; rm -f traces.png spikes.png
                        '${_py}' '${_plot}' reference.h5 -o traces.png --cells 0,3 --max-traces 8; test -s traces.png
                        '${_py}' '${_plot}' spikes-only.h5 -o spikes.png; test -s spikes.png")

# A file with neither /report nor /spikes: one line on stderr, exit status 2, no image.
add_test(NAME plot_traces_rejects_other_files
         COMMAND sh -c "cd '${_py_dir}'; rm -f none.png; '${_py}' '${_plot}' empty.h5 -o none.png; rc=$?
                        test $rc -eq 2 && test ! -e none.png")

add_test(NAME sonata_compare_identical
         COMMAND ${_py} ${_reader} compare ${_py_dir}/reference.h5 ${_py_dir}/reference_again.h5
                 --vtol 0 --ttol 0 --json ${_py_dir}/compare_identical.json)
add_test(NAME sonata_compare_voltage_differs
         COMMAND ${_py} ${_reader} compare ${_py_dir}/reference.h5 ${_py_dir}/perturbed.h5 --vtol 0.1)
add_test(NAME sonata_compare_spikes_differ
         COMMAND ${_py} ${_reader} compare ${_py_dir}/reference.h5 ${_py_dir}/perturbed.h5 --vtol 1 --ttol 0.01)
add_test(NAME sonata_compare_report_missing
         COMMAND ${_py} ${_reader} compare ${_py_dir}/reference.h5 ${_py_dir}/spikes-only.h5 --vtol 1)
set_tests_properties(sonata_compare_voltage_differs sonata_compare_spikes_differ sonata_compare_report_missing
                     PROPERTIES WILL_FAIL TRUE)

set_tests_properties(plot_traces_writes_png plot_traces_rejects_other_files sonata_compare_identical
                     sonata_compare_voltage_differs sonata_compare_spikes_differ sonata_compare_report_missing
                     PROPERTIES FIXTURES_REQUIRED python_tools_examples LABELS python_tools)
# The memory estimate against the peak resident memory of runs of seven model shapes
# (docs/memory.md): between the peak and 25 % above it.
if(ARBOLITO_SANITIZE)
  # Under AddressSanitizer the peak resident memory is 2 to 6 times the plain build's.
  add_test(NAME memory_estimate_table
           COMMAND sh -c "echo 'skipped: AddressSanitizer makes the resident memory 2 to 6 times a plain build'; exit 77")
  set_tests_properties(memory_estimate_table PROPERTIES SKIP_RETURN_CODE 77)
else()
  add_test(NAME memory_estimate_table
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tools/memory_table.py $<TARGET_FILE:arbolito> --scale small --check)
  set_tests_properties(memory_estimate_table PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE)
endif()
# The C++ examples of README.md and docs/ compile against the code (each ```cpp block is
# marked to be compiled, with the code around it, or not: tools/check_doc_snippets.py).
get_target_property(_eigen_include Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
file(GLOB _doc_pages ${PROJECT_SOURCE_DIR}/docs/*.md)
add_test(NAME doc_snippets_compile
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tools/check_doc_snippets.py --cxx ${CMAKE_CXX_COMPILER}
                 --flag=-I${PROJECT_SOURCE_DIR} --flag=-I${_eigen_include}
                 --flag=-I${PROJECT_BINARY_DIR}/mechanisms/generated  # the build's extra mechanisms (all.hpp)
                 ${PROJECT_SOURCE_DIR}/README.md ${_doc_pages})
