# arbolito against NEURON on the Allen Cell Types perisomatic models (tools/validate_allen.sh,
# docs/allen-validation.md) with this build's arbolito. Skipped (77) where
# ../shared/models/allen, NEURON or nrnivmodl is missing. The full models need the Allen
# channels in the build: -DARBOLITO_MECHANISMS=<root>/../shared/models/allen/mechanisms
# (tools/setup.sh passes it where that folder exists); without them the passive cells are
# still compared and the test fails naming what the build lacks.
add_test(NAME allen_vs_neuron
         COMMAND ${PROJECT_SOURCE_DIR}/tools/validate_allen.sh --arbolito $<TARGET_FILE:arbolito>
                 --build-dir ${CMAKE_CURRENT_BINARY_DIR}/allen)
set_tests_properties(allen_vs_neuron PROPERTIES LABELS "neuron;allen" SKIP_RETURN_CODE 77 TIMEOUT 900)
