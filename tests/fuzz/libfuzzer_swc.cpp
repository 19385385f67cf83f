// libFuzzer harness for the SWC reader (clang builds with -DARBOLITO_LIBFUZZER=ON;
// tests/fuzz.cmake): any input must read or end in InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

#include "tests/fuzz/reader_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    spdlog::set_level(spdlog::level::off);
    arbolito::fuzz::read_as(arbolito::fuzz::Target::swc, std::string(reinterpret_cast<const char*>(data), size), "fuzz.swc");
    return 0;
}
