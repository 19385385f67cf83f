# GPU tests (the solver kernels and the whole GPU cell group): their own executable, built
# only with the CUDA backend. Each test that needs a device skips itself (GTEST_SKIP) where
# none is present, so ctest passes on CPU-only machines; the host-run sweep tests
# (test_gpu_cell_sweeps.cu) run wherever the CUDA backend is built, GPU or not (CI builds
# it). Run build/gpu_tests on a GPU machine (`python3 bench/gpu_run.py tests` does).
if(ARBOLITO_HAVE_CUDA)
  add_executable(gpu_tests ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_solvers.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_cell_sweeps.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_solver_bits.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_cell_group.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_allen.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_groups.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_fine.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_mechanism_agreement.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_seed_variants.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_reciprocal.cu
  ${PROJECT_SOURCE_DIR}/tests/unit/test_gpu_exp_log.cu
  ${PROJECT_SOURCE_DIR}/tests/support/exp_log_host.cpp
  ${PROJECT_SOURCE_DIR}/tests/unit/test_parareal_gpu.cu)
  target_link_libraries(gpu_tests PRIVATE arbolito_io GTest::gtest_main CUDA::cudart)
  # Engine headers bring Eigen into the .cu files; its constexpr functions need this.
  target_compile_options(gpu_tests PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  target_compile_definitions(gpu_tests PRIVATE ARBOLITO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(ARBOLITO_CUDA_CONTRACT)  # the device fuses multiply-adds: GpuAllen's looser bound
    target_compile_definitions(gpu_tests PRIVATE ARBOLITO_CUDA_CONTRACT_ON)
  endif()
  if(EXISTS ${PROJECT_SOURCE_DIR}/io/swc.cpp)
    target_compile_definitions(gpu_tests PRIVATE ARBOLITO_WITH_SWC)
  endif()
  gtest_discover_tests(gpu_tests DISCOVERY_TIMEOUT 60)
endif()
