#include "run/solver_spec.hpp"

#include <algorithm>
#include <stdexcept>

namespace arbolito {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

// What a key accepts: its values, or its form.
std::string accepted(const SolverOption& o) { return o.values.empty() ? o.form : joined(o.values, "|"); }

std::string keys_of(const SolverInfo& s) {
    std::vector<std::string> keys;
    for (const auto& o : s.options) keys.push_back(o.key);
    return keys.empty() ? "none" : joined(keys, ", ");
}

}  // namespace

std::string SolverSpec::text() const {
    std::string out = solver ? solver->name : "";
    for (const auto& [k, v] : given) out += ":" + k + "=" + v;
    return out;
}

SolverSpec parse_solver_spec(const std::string& text) {
    const std::vector<std::string> parts = split(text, ':');
    SolverSpec spec;
    spec.solver = find_solver(parts[0]);
    if (!spec.solver)
        throw std::invalid_argument("unknown solver '" + parts[0] + "' (this build has: " + available_solver_names() + ")");
    const SolverInfo& s = *spec.solver;
    if (!s.make_group && !s.is_auto)
        throw std::invalid_argument("solver " + s.name + " needs the CUDA build of arbolito (this build has: " +
                                    available_solver_names() + ")");
    for (const auto& o : s.options) spec.options[o.key] = o.default_value;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::size_t eq = parts[i].find('=');
        if (eq == std::string::npos || eq == 0)
            throw std::invalid_argument("solver " + s.name + ": '" + parts[i] + "' is not KEY=VALUE (keys: " + keys_of(s) + ")");
        const std::string key = parts[i].substr(0, eq), value = parts[i].substr(eq + 1);
        const auto o = std::find_if(s.options.begin(), s.options.end(), [&](const SolverOption& x) { return x.key == key; });
        if (o == s.options.end())
            throw std::invalid_argument("solver " + s.name + ": unknown option '" + key + "' (keys: " + keys_of(s) + ")");
        if (std::any_of(spec.given.begin(), spec.given.end(), [&](const auto& g) { return g.first == key; }))
            throw std::invalid_argument("solver " + s.name + ": option '" + key + "' given twice");
        std::string why;
        if (!o->values.empty()) {
            if (std::find(o->values.begin(), o->values.end(), value) == o->values.end()) why = "unknown value";
        } else if (o->check) {
            why = o->check(value);
        }
        if (!why.empty())
            throw std::invalid_argument("solver " + s.name + ": " + key + "=" + value + ": " + why + " (" + key + " takes " +
                                        accepted(*o) + ")");
        spec.given.emplace_back(key, value);
        spec.options[key] = value;
    }
    return spec;
}

std::vector<SolverSpec> parse_solver_list(const std::string& list) {
    std::vector<SolverSpec> out;
    for (const std::string& item : split(list, ','))
        if (!item.empty()) out.push_back(parse_solver_spec(item));
    if (out.empty()) throw std::invalid_argument("names no solver");
    return out;
}

std::string describe_solvers() {
    std::string out = "solver spec: NAME[:KEY=VALUE]... (docs/solvers.md)\n";
    for (const SolverInfo& s : all_solvers()) {
        out += "  " + s.name + (s.make_group || s.is_auto ? "" : " (needs the CUDA build)") + ": " + s.description + "\n";
        for (const auto& o : s.options)
            out += "    " + o.key + "=" + accepted(o) + " (default " + o.default_value + "): " + o.help + "\n";
    }
    return out;
}

std::string check_count(const std::string& v) {
    if (v.empty() || v.size() > 7 || v.find_first_not_of("0123456789") != std::string::npos)
        return "not a whole number >= 0";
    return "";
}

std::string check_whole_number(const std::string& v) {
    if (!check_count(v).empty() || std::stoi(v) < 1) return "not a whole number >= 1";
    return "";
}

}  // namespace arbolito
