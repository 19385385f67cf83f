#pragma once
// Reads and validates a model file (JSON; schema in README). Every problem is an
// InputError naming the file and the key path (e.g. cells[0].paint[1].mechanism).
#include <string>

#include "engine/model.hpp"

namespace arbolito {

Model read_model(const std::string& path);

// The same from a JSON text; `path` names it in errors and anchors relative file names.
Model parse_model(const std::string& text, const std::string& path);

}  // namespace arbolito
