# Run at build time (not configure time), so that `arbolito --version` names the commit the
# binary was built from: writes OUT with ARBOLITO_GIT_COMMIT, empty outside a git work tree
# (a source archive), and rewrites it only when the commit changed (no needless relinks).
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  set(commit "")
endif()
set(text "#define ARBOLITO_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
