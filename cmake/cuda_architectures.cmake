# The GPU architectures the CUDA code is compiled for, decided before enable_language(CUDA)
# (which would otherwise take the compiler's default):
#  - -DCMAKE_CUDA_ARCHITECTURES=... (or the CUDAARCHS environment variable): as given;
#  - a GPU visible here (nvidia-smi lists one): this machine's GPUs only (CMake's `native`
#    from CMake 3.24 on, before that the compute capability nvidia-smi reports);
#  - none visible (a build host, CI): a fat binary, machine code for each architecture
#    among 80 86 89 90 that this nvcc compiles for (the solvers use warp reductions of
#    sm_80: __reduce_max_sync), and PTX of
#    the newest of them, which newer GPUs compile when they load it.
# Sets CMAKE_CUDA_ARCHITECTURES (a plain variable: decided afresh at every configure, so
# that a GPU added later is seen) and ARBOLITO_CUDA_ARCH_REASON (the configure message).
function(arbolito_choose_cuda_architectures nvcc)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(ARBOLITO_CUDA_ARCH_REASON "as given" PARENT_SCOPE)
    return()
  endif()
  if(DEFINED ENV{CUDAARCHS})
    # Set here too: enable_language reads CUDAARCHS only in a build folder's first configure.
    set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}" PARENT_SCOPE)
    set(ARBOLITO_CUDA_ARCH_REASON "from CUDAARCHS" PARENT_SCOPE)
    return()
  endif()
  find_program(ARBOLITO_NVIDIA_SMI nvidia-smi)
  if(ARBOLITO_NVIDIA_SMI)
    execute_process(COMMAND ${ARBOLITO_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND caps MATCHES "^[0-9]+\\.[0-9]+")
      if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
        set(archs native)
      else()
        string(REPLACE "." "" caps "${caps}")
        string(REGEX REPLACE "[\r\n]+" ";" archs "${caps}")
        list(REMOVE_DUPLICATES archs)
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)
      set(ARBOLITO_CUDA_ARCH_REASON "this machine's GPU" PARENT_SCOPE)
      return()
    endif()
  endif()
  execute_process(COMMAND ${nvcc} --list-gpu-arch OUTPUT_VARIABLE listed RESULT_VARIABLE rc ERROR_QUIET)
  set(archs "")
  if(rc EQUAL 0)
    foreach(a 80 86 89 90)
      if(listed MATCHES "compute_${a}([^0-9]|$)")
        list(APPEND archs ${a}-real)
      endif()
    endforeach()
  endif()
  if(NOT archs)
    message(FATAL_ERROR "arbolito: ${nvcc} compiles for none of the architectures 80 86 89 90 (or cannot "
                        "list them): give -DCMAKE_CUDA_ARCHITECTURES=...")
  endif()
  # The newest also as PTX (`90` is 90-real and 90-virtual).
  list(POP_BACK archs newest)
  string(REPLACE "-real" "" newest "${newest}")
  list(APPEND archs ${newest})
  set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)
  set(ARBOLITO_CUDA_ARCH_REASON "no GPU visible: every architecture this nvcc has" PARENT_SCOPE)
endfunction()
