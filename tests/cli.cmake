# Tests that drive the arbolito binary.
add_test(NAME cli_bad_input
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/check_bad_input.sh $<TARGET_FILE:arbolito> ${PROJECT_SOURCE_DIR}/tests/data/bad_models)
