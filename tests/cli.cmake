# Tests that drive the arbolito binary.
add_test(NAME cli_bad_input
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_bad_input.sh $<TARGET_FILE:arbolito> ${PROJECT_SOURCE_DIR}/tests/data/bad_models)
# Faults during a run: signals, a full disk, blow-ups, a bad -o (issue 14).
add_test(NAME cli_faults
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_faults.sh $<TARGET_FILE:arbolito> /usr/bin/python3 ${PROJECT_SOURCE_DIR})
