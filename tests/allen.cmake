# arbolito against NEURON on the Allen Cell Types perisomatic models (tools/validate_allen.sh,
# docs/allen-validation.md). Skipped (77) where ../shared/models/allen, NEURON or nrnivmodl
# is missing. This build's arbolito is used when it was configured with the Allen channels
# (ARBOLITO_MECHANISMS naming their folder); otherwise the script builds one of its own
# under this build folder (ccache makes that quick after the first time).
get_filename_component(_allen_dir ${PROJECT_SOURCE_DIR}/../shared/models/allen ABSOLUTE)
set(_allen_args --build-dir ${CMAKE_BINARY_DIR}/allen-build --work ${CMAKE_CURRENT_BINARY_DIR}/allen_validation)
if(DEFINED ARBOLITO_MECHANISMS)
  get_filename_component(_allen_mechs "${ARBOLITO_MECHANISMS}" ABSOLUTE)
  if(_allen_mechs STREQUAL "${_allen_dir}/mechanisms")
    list(APPEND _allen_args --arbolito $<TARGET_FILE:arbolito>)
  endif()
endif()
add_test(NAME allen_vs_neuron COMMAND ${PROJECT_SOURCE_DIR}/tools/validate_allen.sh ${_allen_args})
set_tests_properties(allen_vs_neuron PROPERTIES LABELS "neuron;allen" SKIP_RETURN_CODE 77 TIMEOUT 1200)
