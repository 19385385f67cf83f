#pragma once
// What the fuzzers feed: the SWC reader and the model reader on arbitrary bytes. The
// promise under test (README): any input either reads or ends in one InputError; any
// other exception, a crash or a hang is a bug. Shared by the deterministic mutation
// driver (always built, run by ctest) and the libFuzzer harnesses (clang builds).
#include <string>

namespace arbolito::fuzz {

enum class Target { swc, model };

// Reads `text` as the file `path` names (its folder anchors a model's relative SWC
// paths). True when it was read, false for an InputError; anything else propagates.
bool read_as(Target t, const std::string& text, const std::string& path);

}  // namespace arbolito::fuzz
