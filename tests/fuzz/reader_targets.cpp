#include "tests/fuzz/reader_targets.hpp"

#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/swc.hpp"

namespace arbolito::fuzz {

bool read_as(Target t, const std::string& text, const std::string& path) {
    try {
        if (t == Target::swc) parse_swc(text, path);
        else parse_model(text, path);
        return true;
    } catch (const InputError&) {
        return false;
    }
}

}  // namespace arbolito::fuzz
