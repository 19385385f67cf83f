# Mechanisms from NMODL (.mod) files, translated at build time by tools/nmodl_to_arbolito.py
# (docs/mechanisms.md). ARBOLITO_NMODL: AUTO translates where ARBOLITO_NMODL_PYTHON imports
# BlueBrain's nmodl package (Debian: python3-nmodl) and says why not otherwise; ON insists;
# OFF skips. Only the translation needs Python; the headers are outputs of the build.
set(ARBOLITO_NMODL AUTO CACHE STRING "Translate NMODL mechanisms at build time: AUTO, ON or OFF")
set(ARBOLITO_NMODL_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the nmodl package (Debian: python3-nmodl)")

set(ARBOLITO_HAVE_NMODL OFF)
if(NOT ARBOLITO_NMODL STREQUAL "OFF")
  set(_nmodl_why "")
  if(NOT EXISTS "${ARBOLITO_NMODL_PYTHON}")
    set(_nmodl_why "${ARBOLITO_NMODL_PYTHON} does not exist")
  else()
    execute_process(COMMAND "${ARBOLITO_NMODL_PYTHON}" -c "import nmodl.dsl, sympy"
                    RESULT_VARIABLE _nmodl_rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
    if(NOT _nmodl_rc EQUAL 0)
      set(_nmodl_why "${ARBOLITO_NMODL_PYTHON} cannot import nmodl and sympy (apt-get install python3-nmodl)")
    endif()
  endif()
  if(_nmodl_why STREQUAL "")
    set(ARBOLITO_HAVE_NMODL ON)
    message(STATUS "arbolito: NMODL mechanisms on (${ARBOLITO_NMODL_PYTHON})")
  elseif(ARBOLITO_NMODL STREQUAL "ON")
    message(FATAL_ERROR "ARBOLITO_NMODL=ON: ${_nmodl_why}")
  else()
    message(STATUS "arbolito: NMODL mechanisms off: ${_nmodl_why}")
  endif()
endif()

set(ARBOLITO_NMODL_TRANSLATOR ${PROJECT_SOURCE_DIR}/tools/nmodl_to_arbolito.py)

# arbolito_nmodl_headers(OUT_VAR DIR NAMESPACE mod...): one custom command per .mod file that
# writes DIR/<name>.hpp (C++ namespace NAMESPACE); OUT_VAR receives the headers' paths.
function(arbolito_nmodl_headers out_var dir namespace)
  set(headers)
  foreach(mod ${ARGN})
    get_filename_component(stem ${mod} NAME_WE)
    set(hpp ${dir}/${stem}.hpp)
    add_custom_command(OUTPUT ${hpp}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
                       COMMAND ${ARBOLITO_NMODL_PYTHON} ${ARBOLITO_NMODL_TRANSLATOR} ${mod} -o ${hpp}
                               --namespace ${namespace}
                       DEPENDS ${mod} ${ARBOLITO_NMODL_TRANSLATOR}
                       COMMENT "NMODL: ${stem}.mod -> ${stem}.hpp" VERBATIM)
    list(APPEND headers ${hpp})
  endforeach()
  set(${out_var} ${headers} PARENT_SCOPE)
endfunction()

# arbolito_nmodl_mechanism_folders(OUT_VAR entry...): the entries of ARBOLITO_MECHANISMS that are
# folders of .mod files. Each folder's files are translated now, at configure time, into
# <build>/generated/nmodl_mechanisms/<X>.hpp (struct arbolito::X for X.mod, whose SUFFIX or
# POINT_PROCESS must be X), so that the catalogue's list is known before anything compiles; a
# refused file stops the configuration with the translator's "FILE:LINE: CONSTRUCT: reason".
# Editing a .mod file or the translator configures again. OUT_VAR receives the headers; entries
# that are not folders are left to the caller.
function(arbolito_nmodl_mechanism_folders out_var)
  set(headers)
  set(dir ${CMAKE_BINARY_DIR}/generated/nmodl_mechanisms)
  set(seen hh pas expsyn exp2syn iclamp)
  foreach(entry ${ARGN})
    if(NOT IS_ABSOLUTE "${entry}")
      set(entry "${PROJECT_SOURCE_DIR}/${entry}")
    endif()
    if(NOT IS_DIRECTORY "${entry}")
      continue()
    endif()
    if(NOT ARBOLITO_HAVE_NMODL)
      message(FATAL_ERROR "ARBOLITO_MECHANISMS: ${entry} is a folder of .mod files, which needs the NMODL "
                          "translator (ARBOLITO_NMODL=${ARBOLITO_NMODL}; apt-get install python3-nmodl)")
    endif()
    file(GLOB mods "${entry}/*.mod")
    list(SORT mods)
    if(NOT mods)
      message(FATAL_ERROR "ARBOLITO_MECHANISMS: ${entry} holds no .mod file")
    endif()
    foreach(mod ${mods})
      get_filename_component(stem ${mod} NAME_WE)
      if(stem IN_LIST seen)
        message(FATAL_ERROR "ARBOLITO_MECHANISMS: ${mod}: a mechanism named ${stem} is already in the catalogue")
      endif()
      list(APPEND seen ${stem})
      list(APPEND headers ${dir}/${stem}.hpp)
    endforeach()
    execute_process(COMMAND ${ARBOLITO_NMODL_PYTHON} ${ARBOLITO_NMODL_TRANSLATOR} ${mods} --output-dir ${dir}
                            --namespace arbolito
                    RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
    if(NOT rc EQUAL 0)
      string(STRIP "${err}" err)
      message(FATAL_ERROR "ARBOLITO_MECHANISMS: ${entry} not translated:\n${err}")
    endif()
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 ${entry} ${mods} ${ARBOLITO_NMODL_TRANSLATOR})
    list(LENGTH mods n)
    message(STATUS "arbolito: ${n} NMODL mechanism(s) from ${entry}")
  endforeach()
  set(${out_var} ${headers} PARENT_SCOPE)
endfunction()
