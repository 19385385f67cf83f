#pragma once
// Reads and validates a model file (JSON; schema in README). Every problem is an
// InputError naming the file and the key path (e.g. cells[0].paint[1].mechanism).
#include <string>
#include <vector>

#include "model/model.hpp"

namespace arbolito {

// `overrides`: the command line's --set KEY.PATH=VALUE, applied to the JSON document
// before it is validated (io/model_overrides.hpp). The file must be a regular file of
// at most max_input_file_bytes (io/input_file.hpp).
Model read_model(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from a JSON text; `path` names it in errors and anchors relative file names.
Model parse_model(const std::string& text, const std::string& path, const std::vector<std::string>& overrides = {});

}  // namespace arbolito
