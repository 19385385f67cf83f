#pragma once
// Every error in user input (model files, SWC files, command line values) is an
// InputError: the app prints its one line and exits with status 2, writing nothing.
#include <algorithm>
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

// `s` with every word (a run without spaces) of more than `longest` bytes cut to its first
// 80 and the count of the rest: a token of a user's file (a key, a name, a number) may be
// megabytes long, and the error line must stay a line. Cuts fall between UTF-8 characters.
inline std::string cut_long_words(const std::string& s, std::size_t longest = 256) {
    std::string out;
    out.reserve(std::min(s.size(), std::size_t{4096}));
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t j = std::min(s.find(' ', i), s.size());
        if (j - i <= longest) {
            out.append(s, i, j - i);
        } else {
            std::size_t keep = 80;
            while (keep > 0 && (static_cast<unsigned char>(s[i + keep]) & 0xC0) == 0x80) --keep;
            out.append(s, i, keep);
            out += "...(" + std::to_string(j - i - keep) + " more bytes)";
        }
        if (j < s.size()) out += ' ';
        i = j + 1;
    }
    return out;
}

struct InputError : std::runtime_error {
    // what(): "<file>:<where>: <reason>", where is a line number or a JSON key path;
    // long words cut (cut_long_words), control bytes escaped (escape_control).
    InputError(const std::string& file, const std::string& where, const std::string& reason)
        : std::runtime_error(escape_control(cut_long_words(file + (where.empty() ? "" : ":" + where) + ": " + reason))) {}
};

}  // namespace arbolito
