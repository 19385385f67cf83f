#pragma once
// Every error in user input (model files, SWC files, command line values) is an
// InputError: the app prints its one line and exits with status 2, writing nothing.
#include <stdexcept>
#include <string>

namespace arbolito {

struct InputError : std::runtime_error {
    // what(): "<file>:<where>: <reason>", where is a line number or a JSON key path.
    InputError(const std::string& file, const std::string& where, const std::string& reason)
        : std::runtime_error(file + (where.empty() ? "" : ":" + where) + ": " + reason) {}
};

}  // namespace arbolito
