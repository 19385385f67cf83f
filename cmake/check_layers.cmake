# The layers of docs/architecture.md, checked at every build (target check_layers): a
# file may include headers of its own folder and of the layers below it, never above.
#   app -> api -> io -> parareal -> cpu, gpu -> run -> lowered_cell -> model -> solvers, mechanisms -> core
# Folders of one rank (solvers and mechanisms; cpu and gpu) do not include each other.
# Inside a layer, the gpu/ sub-folder sits above the host code: a file outside every gpu/
# folder includes no header of one (core/gpu, solvers/gpu, gpu/), so host code compiles
# without CUDA. tests/ and bench/ sit on top; only they may include tests/ (test helpers)
# or bench/. python/ (the Python module) sits on top as well.
# Run as: cmake -DROOT=<source dir> -P cmake/check_layers.cmake
set(rank_core 0)
set(rank_mechanisms 1)
set(rank_solvers 1)
set(rank_model 2)
set(rank_lowered_cell 3)
set(rank_run 4)
set(rank_cpu 5)
set(rank_gpu 5)
set(rank_parareal 6)
set(rank_io 7)
set(rank_api 8)
set(rank_app 9)
set(layers core mechanisms solvers model lowered_cell run cpu gpu parareal io api app)
set(bad "")
foreach(layer ${layers})
  file(GLOB_RECURSE files ${ROOT}/${layer}/*.hpp ${ROOT}/${layer}/*.cpp ${ROOT}/${layer}/*.cu ${ROOT}/${layer}/*.cuh)
  foreach(f ${files})
    file(RELATIVE_PATH rel ${ROOT} ${f})
    # In a gpu/ folder: the layer gpu/ or a layer's gpu/ sub-folder.
    set(in_gpu FALSE)
    if(rel MATCHES "(^|/)gpu/")
      set(in_gpu TRUE)
    endif()
    file(STRINGS ${f} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" path "${line}")
      string(REGEX REPLACE "^([a-z_]+)/.*" "\\1" to "${path}")
      if(NOT in_gpu AND path MATCHES "(^|/)gpu/")
        string(APPEND bad "\n  ${rel}: ${line} (host code includes no header of a gpu/ folder)")
      elseif(to STREQUAL layer)
        continue()
      elseif(NOT DEFINED rank_${to} OR NOT rank_${to} LESS rank_${layer})
        string(APPEND bad "\n  ${rel}: ${line} (${layer} may include only the layers below it)")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "include against the layers (docs/architecture.md):${bad}")
endif()
