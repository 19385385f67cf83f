# The Python module's prerequisites: a Python with its development headers and pybind11.
# The Python is Python_EXECUTABLE where given (pip install . gives its own), else Debian's
# /usr/bin/python3, the one the tests run (tools/setup.sh installs numpy and pytest there).
# pybind11 is the one that Python imports where it has one (pip's build environment),
# else the system's (Debian: pybind11-dev).
set(ARBOLITO_PYTHON AUTO CACHE STRING "Build the Python module: AUTO, ON or OFF")
set(ARBOLITO_HAVE_PYTHON OFF)
if(NOT ARBOLITO_PYTHON STREQUAL "OFF")
  if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
  if(Python_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                    OUTPUT_VARIABLE _pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _pybind11_rc ERROR_QUIET)
    if(_pybind11_rc EQUAL 0 AND NOT DEFINED pybind11_DIR)
      set(pybind11_DIR "${_pybind11_dir}")
    endif()
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(ARBOLITO_HAVE_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    # Position-independent code, with calls inside a library still inlined as in an
    # executable's (no interposition of the libraries' functions).
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-semantic-interposition>)
  elseif(ARBOLITO_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "ARBOLITO_PYTHON=ON but Python's headers or pybind11 were not found (Debian: python3-dev pybind11-dev)")
  endif()
endif()
message(STATUS "arbolito: Python module ${ARBOLITO_HAVE_PYTHON}")
