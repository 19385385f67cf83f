# Networks against Arbor 0.12.2 (the PyPI wheel, CPU; tests/validation/network_vs_arbor.py):
# with event_rules "arbor" the same spikes, per gid and in order, each within a quarter of
# a step of Arbor's; the recorded voltages' differences are reported. Label arbor; skipped
# (code 77) where ARBOLITO_ARBOR_PYTHON cannot import arbor. tools/test.sh makes that
# interpreter (build/arbor-peer, a virtual environment with arbor==0.12.2) where PyPI can
# be reached.
set(ARBOLITO_ARBOR_PYTHON "${CMAKE_BINARY_DIR}/arbor-peer/bin/python3" CACHE FILEPATH
    "An interpreter that imports arbor 0.12.2, for the tests against Arbor")
set(_nva /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/validation/network_vs_arbor.py $<TARGET_FILE:arbolito>)
set(_nva_peer --peer ${PROJECT_SOURCE_DIR}/bench/arbor_busyring.py --arbor-python ${ARBOLITO_ARBOR_PYTHON})
# Eight ball-and-stick cells in a ring (hh soma, pas dendrite of 5 CVs), somata and
# dendrites recorded.
add_test(NAME network_vs_arbor_ring8
         COMMAND ${_nva} ${PROJECT_SOURCE_DIR}/tests/validation/ring8.json ${_nva_peer})
# Four rings of four busyring cells with recorded somata (the network NEURON is checked on).
add_test(NAME network_vs_arbor_busyring16
         COMMAND ${_nva} ${PROJECT_SOURCE_DIR}/tests/validation/busyring16.json ${_nva_peer})
# Two busyring cells of uneven CVs, current clamps on the soma and a dendrite, a detector on a
# dendrite, every CV recorded. Arbor's steps restart at each epoch (half the smallest delay),
# and with the file's 3.3 ms its accumulated step times put the clamps' onsets a step later;
# and arbolito switches a clamp at the step's midpoint, Arbor at its start, which the file's
# onsets 0.01 ms past the grid tell apart (docs/event-rules.md). So: onsets on the grid and
# a 5 ms delay (epochs of 100 steps).
add_test(NAME network_vs_arbor_uneven_cvs
         COMMAND ${_nva} ${PROJECT_SOURCE_DIR}/tests/validation/busyring_uneven_cvs.json ${_nva_peer}
                 --set cells.0.place.1.params.delay=2.0 --set cells.0.place.2.params.delay=5.0
                 --set connections.0.delay=5.0)
# The benchmark's own model (Arbor's 1,000 unconnected synapses a cell, zero-area nodes
# folded), 32 cells for 100 ms.
add_test(NAME network_vs_arbor_busyring_example
         COMMAND ${_nva} ${PROJECT_SOURCE_DIR}/examples/busyring.json ${_nva_peer}
                 --set network.num-cells=32 --set network.duration=100)
set_tests_properties(network_vs_arbor_ring8 network_vs_arbor_busyring16 network_vs_arbor_uneven_cvs
                     network_vs_arbor_busyring_example
                     PROPERTIES LABELS arbor SKIP_RETURN_CODE 77 TIMEOUT 300)
