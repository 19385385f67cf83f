# arbolito against NEURON on the same discretised models (tests/validation/*.json):
# sampled voltages within 1e-3 mV at every sample (NEURON via Debian's python3-neuron).
execute_process(COMMAND /usr/bin/python3 -c "import neuron" RESULT_VARIABLE ARBOLITO_NO_NEURON OUTPUT_QUIET ERROR_QUIET)
file(GLOB ARBOLITO_VALIDATION_MODELS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/validation/*.json)
foreach(model ${ARBOLITO_VALIDATION_MODELS})
  get_filename_component(name ${model} NAME_WE)
  add_test(NAME neuron_vs_arbolito_${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/validation/vs_neuron.sh $<TARGET_FILE:arbolito> ${model} 1e-3)
  set_tests_properties(neuron_vs_arbolito_${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME neuron_convergence_max_extent
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/validation/convergence.py $<TARGET_FILE:arbolito>)
set_tests_properties(neuron_convergence_max_extent PROPERTIES SKIP_RETURN_CODE 77)

# Ions: the ion test mechanisms (tests/mechanisms/) against their NMODL twins
# (tests/data/ions/, compiled by nrnivmodl) on one cell, every probe variable within its
# tolerance (tests/validation/ions/vs_neuron_ions.py).
add_test(NAME neuron_vs_arbolito_ions
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/validation/ions/vs_neuron_ions.py $<TARGET_FILE:arbolito>
                 ${PROJECT_SOURCE_DIR}/tests/validation/ions/ball_and_stick_ions.json)
set_tests_properties(neuron_vs_arbolito_ions PROPERTIES SKIP_RETURN_CODE 77 LABELS neuron)
