#pragma once
// The command line's --set KEY.PATH=VALUE: changes a model's JSON document before it is
// validated, so that e.g. `--set network.num-cells=64` runs a smaller busyring without
// editing the file. KEY.PATH is a dotted path of object keys with [i] for array elements
// (cells[0].count); VALUE is JSON (64, 0.5, true, [1,2], "text") or, when it does not
// parse as JSON, a plain string. Objects missing on the way are created; the model's
// own checks then judge the result, naming the key as for a value in the file.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbolito {

// Throws InputError("--set", ...) naming the assignment that is not KEY.PATH=VALUE or
// whose path runs through a value that is not an object or array.
void apply_model_overrides(nlohmann::json& doc, const std::vector<std::string>& assignments);

}  // namespace arbolito
