# The layers of docs/architecture.md, checked at every build (target check_layers): a
# file may include headers of its own folder and of the layers below it, never above.
#   app -> io -> engine -> solvers, mechanisms -> core
# solvers and mechanisms do not include each other. tests/ and bench/ sit on top; only
# they may include tests/ (test helpers) or bench/.
# Run as: cmake -DROOT=<source dir> -P cmake/check_layers.cmake
set(rank_core 0)
set(rank_mechanisms 1)
set(rank_solvers 1)
set(rank_engine 2)
set(rank_io 3)
set(rank_app 4)
set(bad "")
foreach(layer core mechanisms solvers engine io app)
  file(GLOB_RECURSE files ${ROOT}/${layer}/*.hpp ${ROOT}/${layer}/*.cpp ${ROOT}/${layer}/*.cu ${ROOT}/${layer}/*.cuh)
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" to "${line}")
      if(to STREQUAL layer)
        continue()
      endif()
      if(NOT DEFINED rank_${to} OR NOT rank_${to} LESS rank_${layer})
        file(RELATIVE_PATH rel ${ROOT} ${f})
        string(APPEND bad "\n  ${rel}: ${line} (${layer} may include only the layers below it)")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "include against the layers (docs/architecture.md):${bad}")
endif()
