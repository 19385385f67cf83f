# GPU benchmarks (issue 4), only with the CUDA backend. bench/gpu_check.sh builds and
# runs them on a GPU machine.
if(ARBOLITO_HAVE_CUDA)
  add_executable(gpu_solver_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_solver_bench.cu)
  target_link_libraries(gpu_solver_bench PRIVATE arbolito_io CUDA::cudart OpenMP::OpenMP_CXX)
  # The OpenMP baseline lives in the .cu file: its host compiler needs the flag too.
  target_compile_options(gpu_solver_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp>)
  target_compile_definitions(gpu_solver_bench PRIVATE ARBOLITO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(EXISTS ${PROJECT_SOURCE_DIR}/io/swc.cpp)
    target_compile_definitions(gpu_solver_bench PRIVATE ARBOLITO_WITH_SWC)
  endif()

  add_executable(thomas_bench ${CMAKE_CURRENT_LIST_DIR}/thomas_bench.cu)
  target_link_libraries(thomas_bench PRIVATE arbolito_solvers CUDA::cudart CUDA::cusparse)

  # The whole GPU time step on busyring: copy bandwidth, bytes per CV, point-current sums.
  add_executable(gpu_step_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_step_bench.cu)
  target_link_libraries(gpu_step_bench PRIVATE arbolito_io CUDA::cudart)
  target_compile_options(gpu_step_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
endif()

# gpu-fine (issue 11): solve time against the number of cells, each pass on and off,
# against gpu-cell; DeepDendrite's anchor (3,000 copies of a real cell).
if(ARBOLITO_HAVE_CUDA)
  add_executable(fine_bench ${CMAKE_CURRENT_LIST_DIR}/fine_bench.cu)
  target_link_libraries(fine_bench PRIVATE arbolito_io CUDA::cudart OpenMP::OpenMP_CXX)
  target_compile_options(fine_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp --expt-relaxed-constexpr>)
  target_compile_definitions(fine_bench PRIVATE ARBOLITO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ARBOLITO_WITH_SWC)
endif()

# gpu-branch (issue 12): the seed's multi-morphology study, every coupling and padding
# variant, with and without the CUDA graph, against gpu-cell and gpu-fine.
if(ARBOLITO_HAVE_CUDA)
  add_executable(branch_bench ${CMAKE_CURRENT_LIST_DIR}/branch_bench.cu)
  target_link_libraries(branch_bench PRIVATE arbolito_io CUDA::cudart)
  target_compile_options(branch_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  target_compile_definitions(branch_bench PRIVATE ARBOLITO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ARBOLITO_WITH_SWC)
endif()

# The seed's variants (issue 15): batched Thomas interleaved / unified vector / cuSPARSE,
# variable batches with padding computed or not, gpu-cell block-shared; double and float.
if(ARBOLITO_HAVE_CUDA)
  add_executable(seed_variants_bench ${CMAKE_CURRENT_LIST_DIR}/seed_variants_bench.cu)
  target_link_libraries(seed_variants_bench PRIVATE arbolito_io CUDA::cudart CUDA::cusparse)
  target_compile_options(seed_variants_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  target_compile_definitions(seed_variants_bench PRIVATE ARBOLITO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ARBOLITO_WITH_SWC)
endif()

# Batched Thomas side by side (issue 15's findings): the double kernel before issue 15
# (bench/thomas_baseline.cuh) against thomas_batch now; float tunings against double.
if(ARBOLITO_HAVE_CUDA)
  add_executable(thomas_regression_bench ${CMAKE_CURRENT_LIST_DIR}/thomas_regression_bench.cu)
  target_link_libraries(thomas_regression_bench PRIVATE arbolito_solvers CUDA::cudart CUDA::cusparse)
endif()

# The dependent chains of gpu-fine's branch sweeps, by the SM's clock (issue 13's limiter).
if(ARBOLITO_HAVE_CUDA)
  add_executable(chain_latency_bench ${CMAKE_CURRENT_LIST_DIR}/chain_latency_bench.cu)
  target_link_libraries(chain_latency_bench PRIVATE arbolito_solvers CUDA::cudart)
endif()
