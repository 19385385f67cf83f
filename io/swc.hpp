#pragma once
// SWC morphologies, read by the rules of docs/swc.md.
#include <string>

#include "engine/morphology.hpp"

namespace arbolito {

// Throws InputError naming the file and, where one line is to blame, that line.
Morphology read_swc(const std::string& path);

}  // namespace arbolito
