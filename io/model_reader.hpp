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
// What the model is read for: to describe it (its description must fit in memory), or
// to run it (its run must: a busyring of 1e7 cells is refused before a cell is built,
// where it took 12 GB and 30 s before the run's own check refused it).
enum class ReadFor { description, run };

Model read_model(const std::string& path, const std::vector<std::string>& overrides = {},
                 ReadFor purpose = ReadFor::description);

// The same from a JSON text; `path` names it in errors and anchors relative file names.
Model parse_model(const std::string& text, const std::string& path, const std::vector<std::string>& overrides = {},
                  ReadFor purpose = ReadFor::description);

}  // namespace arbolito
