#include "io/model_overrides.hpp"

#include "io/input_error.hpp"

namespace arbolito {

namespace {

using json = nlohmann::json;

// One step of a KEY.PATH: an object key or an array index.
struct Step {
    std::string key;
    long index = -1;  // >= 0: an array element
};

std::vector<Step> split_path(const std::string& path, const std::string& assignment) {
    const auto bad = [&](const std::string& why) { throw InputError("--set", "", "'" + assignment + "': " + why); };
    std::vector<Step> steps;
    std::size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '[') {
            const std::size_t close = path.find(']', i);
            if (close == std::string::npos) bad("unclosed '[' in the key path");
            const std::string digits = path.substr(i + 1, close - i - 1);
            if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
                bad("'[" + digits + "]' is not an array index");
            steps.push_back({"", std::stol(digits)});
            i = close + 1;
            if (i < path.size() && path[i] == '.') ++i;
            continue;
        }
        const std::size_t end = path.find_first_of(".[", i);
        const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
        if (key.empty()) bad("empty key in the key path");
        steps.push_back({key});
        if (end == std::string::npos) break;
        i = path[end] == '.' ? end + 1 : end;
        if (path[end] == '.' && i == path.size()) bad("the key path ends with '.'");
    }
    if (steps.empty()) bad("no key before '='");
    return steps;
}

}  // namespace

void apply_model_overrides(json& doc, const std::vector<std::string>& assignments) {
    for (const std::string& a : assignments) {
        const std::size_t eq = a.find('=');
        if (eq == std::string::npos) throw InputError("--set", "", "'" + a + "' is not KEY.PATH=VALUE");
        const std::string path = a.substr(0, eq), text = a.substr(eq + 1);
        const std::vector<Step> steps = split_path(path, a);
        json value;
        try {
            value = json::parse(text);
        } catch (const json::exception&) {
            value = text;  // not JSON: a plain string (--set name=small)
        }
        json* at = &doc;
        std::string walked;
        for (const Step& s : steps) {
            if (s.index >= 0) {
                if (!at->is_array() || s.index >= static_cast<long>(at->size()))
                    throw InputError("--set", "", "'" + a + "': " + (walked.empty() ? "the model" : walked) + " has no element [" +
                                                      std::to_string(s.index) + "]");
                at = &(*at)[static_cast<std::size_t>(s.index)];
                walked += "[" + std::to_string(s.index) + "]";
            } else {
                if (at->is_null()) *at = json::object();
                if (!at->is_object())
                    throw InputError("--set", "", "'" + a + "': " + (walked.empty() ? "the model" : walked) + " is a " +
                                                      at->type_name() + ", not an object");
                at = &(*at)[s.key];
                walked += (walked.empty() ? "" : ".") + s.key;
            }
        }
        *at = std::move(value);
    }
}

}  // namespace arbolito
