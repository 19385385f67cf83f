# Runs across MPI ranks (docs/mpi.md): `mpirun --oversubscribe -np 2` (the process count
# is the script's) on the in-process MPI tests (tests/mpi/test_mpi.cpp) and on the
# arbolito binary (tests/mpi/check_mpi_runs.sh). Label mpi; skipped (code 77) in a build
# without MPI. Open MPI refuses to run as root unless told: the tests tell it (CI runs as root).
set(_mpi_tests mpi_unit_tests mpi_cli_runs)
if(ARBOLITO_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpiexec_version ERROR_QUIET TIMEOUT 30)
  set(_mpirun ${MPIEXEC_EXECUTABLE} ${MPIEXEC_PREFLAGS})
  if(_mpiexec_version MATCHES "Open MPI|OpenRTE")
    list(APPEND _mpirun --oversubscribe)  # more ranks than cores (this machine has 2)
  endif()

  add_executable(mpi_tests ${PROJECT_SOURCE_DIR}/tests/mpi/test_mpi.cpp)
  target_link_libraries(mpi_tests PRIVATE arbolito_io GTest::gtest)
  target_compile_definitions(mpi_tests PRIVATE ARBOLITO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

  add_test(NAME mpi_unit_tests COMMAND ${_mpirun} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:mpi_tests>)
  add_test(NAME mpi_cli_runs
           COMMAND ${PROJECT_SOURCE_DIR}/tests/mpi/check_mpi_runs.sh $<TARGET_FILE:arbolito> ${PROJECT_SOURCE_DIR}
                   /usr/bin/python3 ${_mpirun})
  set_tests_properties(${_mpi_tests} PROPERTIES LABELS mpi TIMEOUT 600
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")
  # Sanitized builds (docs/testing.md): Open MPI keeps MPI_Init's allocations past
  # MPI_Finalize in components it has unloaded, which LeakSanitizer cannot attribute or
  # suppress; leak detection is off for these two tests only (ASan's other checks stay).
  if(ARBOLITO_SANITIZE)
    set_property(TEST ${_mpi_tests} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")
  endif()
else()
  foreach(_t ${_mpi_tests})
    add_test(NAME ${_t} COMMAND sh -c "echo 'skipped: arbolito built without MPI (ARBOLITO_MPI=OFF or no MPI found)'; exit 77")
    set_tests_properties(${_t} PROPERTIES LABELS mpi SKIP_RETURN_CODE 77)
  endforeach()
endif()
