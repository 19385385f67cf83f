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

# The converter on a small hand-made fit and SWC, read back through arbolito's geometry dump
# (needs neither the Allen models nor NEURON).
add_test(NAME allen_converter
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_allen_converter.py $<TARGET_FILE:arbolito>
                 ${CMAKE_CURRENT_BINARY_DIR}/allen_converter)
set_tests_properties(allen_converter PROPERTIES LABELS allen)

# tools/allen_network.py: deterministic, consistent with the model arbolito reads, its Poisson
# trains reproduced bit for bit by the peers' port (bench/allen_network_peers.py).
add_test(NAME allen_network
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_allen_network.py $<TARGET_FILE:arbolito>
                 ${CMAKE_CURRENT_BINARY_DIR}/allen_network)
set_tests_properties(allen_network PROPERTIES LABELS allen SKIP_RETURN_CODE 77)
