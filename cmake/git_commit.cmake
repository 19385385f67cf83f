# Run at build time (not configure time), so that `arbolito --version` names the commit the
# binary was built from: writes OUT with ARBOLITO_GIT_COMMIT, empty where SOURCE_DIR is not
# the top of a git work tree (a source archive, also one unpacked inside another
# checkout, whose commit is not this source's), and rewrites it only when the commit
# changed (no needless relinks).
set(commit "")
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --show-toplevel OUTPUT_VARIABLE top
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(rc EQUAL 0)
  get_filename_component(top "${top}" REALPATH)
  get_filename_component(source "${SOURCE_DIR}" REALPATH)
  if(top STREQUAL source)
    execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(commit "")
    endif()
  endif()
endif()
set(text "#define ARBOLITO_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
