# The GPU runner's speed guard (bench/gpu_run.py) on fake binaries: its comparison with the
# reference table, the second run of a slower case, the reference's reader on bad files.
# No GPU and no build needed; the device runs the guard itself (docs/testing.md).
find_program(ARBOLITO_BENCH_PYTHON python3)
if(ARBOLITO_BENCH_PYTHON)
  add_test(NAME speed_guard_self_test COMMAND ${ARBOLITO_BENCH_PYTHON} ${PROJECT_SOURCE_DIR}/bench/gpu_run.py self-test)
  set_tests_properties(speed_guard_self_test PROPERTIES TIMEOUT 300 LABELS bench_tools)
endif()
