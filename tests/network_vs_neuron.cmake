# Networks against NEURON: the spike trains of a ring and a busyring, with the
# network handed to NEURON through `arbolito info --geometry`. With event_rules "neuron"
# arbolito must give the same spikes in number and order, each within 2·dt of NEURON's;
# the "arbor" rules are reported only (docs/event-rules.md). Label neuron; skipped
# (code 77) without NEURON. NEURON interpreter: ARBOLITO_NEURON_PYTHON (tests/neuron.cmake).
if(NOT ARBOLITO_NEURON_PYTHON)
  set(ARBOLITO_NEURON_PYTHON /usr/bin/python3)
endif()
set(_nvn ${PROJECT_SOURCE_DIR}/tests/validation/network_vs_neuron.py)
set(_nvn_models ${PROJECT_SOURCE_DIR}/tests/validation)

add_test(NAME network_vs_neuron_ring8
         COMMAND ${ARBOLITO_NEURON_PYTHON} ${_nvn} $<TARGET_FILE:arbolito> ${_nvn_models}/ring8.json)
add_test(NAME network_vs_neuron_busyring16
         COMMAND ${ARBOLITO_NEURON_PYTHON} ${_nvn} $<TARGET_FILE:arbolito> ${_nvn_models}/busyring16.json)
# Every event exactly half a step off the grid (kick at 1.0125 ms, delay 5.0125 ms): the
# tie case of the "neuron" delivery rule, where NEURON takes the later step and so
# must Simulation::delivery_step (docs/event-rules.md).
add_test(NAME network_vs_neuron_ring8_halfstep
         COMMAND ${ARBOLITO_NEURON_PYTHON} ${_nvn} $<TARGET_FILE:arbolito> ${_nvn_models}/ring8.json
                 --set network.delay=5.0125 --set network.kick_time=1.0125)
set_tests_properties(network_vs_neuron_ring8 network_vs_neuron_busyring16 network_vs_neuron_ring8_halfstep
                     PROPERTIES LABELS neuron SKIP_RETURN_CODE 77 TIMEOUT 300)
