// libFuzzer harness for the model reader (clang builds with -DARBOLITO_LIBFUZZER=ON;
// tests/fuzz.cmake): any input must read or end in InputError. The model is read as if
// it sat in tests/data/bad_models, so that relative SWC paths reach real morphologies.
#include <cstddef>
#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

#include "tests/fuzz/reader_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    spdlog::set_level(spdlog::level::off);
    arbolito::fuzz::read_as(arbolito::fuzz::Target::model, std::string(reinterpret_cast<const char*>(data), size), ARBOLITO_FUZZ_MODEL_PATH);
    return 0;
}
