#pragma once
// Every error in user input (model files, SWC files, command line values) is an
// InputError: the app prints its one line and exits with status 2, writing nothing.
#include <stdexcept>
#include <string>

namespace arbolito {

// `s` with control bytes (and DEL) written as \xNN: text taken from a user's file or
// command line may hold any byte, and the error must stay one harmless line on a
// terminal. Bytes >= 0x80 stay as they are (UTF-8 names, µm).
inline std::string escape_control(const std::string& s) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += ch;
        }
    }
    return out;
}

struct InputError : std::runtime_error {
    // what(): "<file>:<where>: <reason>", where is a line number or a JSON key path;
    // control bytes escaped (escape_control).
    InputError(const std::string& file, const std::string& where, const std::string& reason)
        : std::runtime_error(escape_control(file + (where.empty() ? "" : ":" + where) + ": " + reason)) {}
};

}  // namespace arbolito
