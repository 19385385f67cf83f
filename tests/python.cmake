# The Python module's pytest suite (tests/python/): the build's module (python/) against
# the build's command line, with Debian's python3 (tools/setup.sh installs python3-pytest,
# python3-numpy and python3-h5py there). Only where the module is built (ARBOLITO_PYTHON).
if(ARBOLITO_HAVE_PYTHON)
  add_test(NAME python_api
           COMMAND ${Python_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/tests/python)
  set(_python_env "PYTHONPATH=${CMAKE_BINARY_DIR}/python;ARBOLITO_CLI=$<TARGET_FILE:arbolito>;PYTHONDONTWRITEBYTECODE=1")
  if(ARBOLITO_SANITIZE)
    # An instrumented module in an uninstrumented interpreter: the AddressSanitizer runtime
    # must be loaded first, and libstdc++ right after it (its __cxa_throw interceptor finds
    # the real one only if libstdc++ is there when it starts). Leak detection off there:
    # the interpreter's own allocations alive at exit would be reported as leaks.
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE _libasan
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so OUTPUT_VARIABLE _libstdcxx
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    list(APPEND _python_env "LD_PRELOAD=${_libasan} ${_libstdcxx}" "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")
  endif()
  set_tests_properties(python_api PROPERTIES ENVIRONMENT "${_python_env}" TIMEOUT 600)
endif()
