#pragma once
// SWC morphologies, read by the rules of docs/swc.md.
#include <string>

#include "model/morphology.hpp"

namespace arbolito {

// Throws InputError naming the file and, where one line is to blame, that line.
// The file must be a regular file of at most max_input_file_bytes (io/input_file.hpp).
Morphology read_swc(const std::string& path);

// The same from the file's text; `path` names it in errors.
Morphology parse_swc(const std::string& text, const std::string& path);

}  // namespace arbolito
