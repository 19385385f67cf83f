# The Python module's pytest suite (tests/python/): the build's module (python/) against
# the build's command line, with Debian's python3 (tools/setup.sh installs python3-pytest,
# python3-numpy and python3-h5py there). Only where the module is built (ARBOLITO_PYTHON).
if(ARBOLITO_HAVE_PYTHON)
  add_test(NAME python_api
           COMMAND ${Python_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/tests/python)
  set_tests_properties(python_api PROPERTIES
    ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;ARBOLITO_CLI=$<TARGET_FILE:arbolito>;PYTHONDONTWRITEBYTECODE=1"
    TIMEOUT 600)
endif()
