# Fuzzing the SWC and model readers (tests/fuzz/). Two drivers of one target function
# (reader_targets.cpp):
# - fuzz_readers: a deterministic mutation fuzzer built with any compiler; ctest runs a
#   fixed number of inputs per reader (a few seconds), the same inputs every run, so a
#   failure reproduces and CI stays fast.
# - with clang and -DARBOLITO_LIBFUZZER=ON: libFuzzer harnesses (fuzz_swc_libfuzzer,
#   fuzz_model_libfuzzer, built with ASan and UBSan) for longer coverage-guided runs
#   (docs/fuzzing.md); ctest runs each for 5 s from the same seed corpus.
# The project builds with g++ by default, and libFuzzer needs clang's instrumentation:
# hence the split.
add_executable(fuzz_readers ${PROJECT_SOURCE_DIR}/tests/fuzz/mutation_driver.cpp ${PROJECT_SOURCE_DIR}/tests/fuzz/reader_targets.cpp)
target_include_directories(fuzz_readers PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(fuzz_readers PRIVATE arbolito_io)

# Seeds: every SWC of tests/data (malformed ones too), every model of tests/data and the
# small examples (busyring.json builds 1,024 cells: too slow per input).
file(GLOB ARBOLITO_FUZZ_SWC_SEEDS ${PROJECT_SOURCE_DIR}/tests/data/morphologies/*.swc
     ${PROJECT_SOURCE_DIR}/tests/data/morphologies/malformed/*.swc ${PROJECT_SOURCE_DIR}/tests/data/bad_models/*.swc)
file(GLOB ARBOLITO_FUZZ_MODEL_SEEDS ${PROJECT_SOURCE_DIR}/tests/data/bad_models/*.json ${PROJECT_SOURCE_DIR}/tests/data/networks/*.json
     ${PROJECT_SOURCE_DIR}/examples/ring.json ${PROJECT_SOURCE_DIR}/examples/ball_and_stick.json
     ${PROJECT_SOURCE_DIR}/examples/single_cell.json)
add_test(NAME fuzz_swc_reader COMMAND fuzz_readers swc 10000 ${ARBOLITO_FUZZ_SWC_SEEDS})
add_test(NAME fuzz_model_reader COMMAND fuzz_readers model 20000 ${ARBOLITO_FUZZ_MODEL_SEEDS})
# A mutated count or num-cells is refused by the memory check at 64 MB instead of
# building a large model per input.
set_tests_properties(fuzz_swc_reader fuzz_model_reader PROPERTIES TIMEOUT 120 ENVIRONMENT "ARBOLITO_MAX_MEMORY=64e6"
                     WORKING_DIRECTORY ${CMAKE_BINARY_DIR})

# ARBOLITO_LIBFUZZER (CMakeLists.txt) instruments every target of the build for coverage.
if(ARBOLITO_LIBFUZZER)
  foreach(t swc model)
    add_executable(fuzz_${t}_libfuzzer ${PROJECT_SOURCE_DIR}/tests/fuzz/libfuzzer_${t}.cpp ${PROJECT_SOURCE_DIR}/tests/fuzz/reader_targets.cpp)
    target_include_directories(fuzz_${t}_libfuzzer PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(fuzz_${t}_libfuzzer PRIVATE ARBOLITO_FUZZ_MODEL_PATH="${PROJECT_SOURCE_DIR}/tests/data/bad_models/fuzz.json")
    target_compile_options(fuzz_${t}_libfuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(fuzz_${t}_libfuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${t}_libfuzzer PRIVATE arbolito_io)
  endforeach()
  # libFuzzer takes its corpus as a directory (files given alone are run once): the seeds
  # are copied into one per reader, where new finds of a run are kept.
  file(COPY ${ARBOLITO_FUZZ_SWC_SEEDS} DESTINATION ${CMAKE_BINARY_DIR}/fuzz_corpus/swc)
  file(COPY ${ARBOLITO_FUZZ_MODEL_SEEDS} DESTINATION ${CMAKE_BINARY_DIR}/fuzz_corpus/model)
  foreach(t swc model)
    add_test(NAME fuzz_${t}_libfuzzer COMMAND fuzz_${t}_libfuzzer -max_total_time=5 -rss_limit_mb=2048 -timeout=10
             ${CMAKE_BINARY_DIR}/fuzz_corpus/${t})
    set_tests_properties(fuzz_${t}_libfuzzer PROPERTIES ENVIRONMENT "ARBOLITO_MAX_MEMORY=64e6" WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()
endif()
