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

std::string keys_of(const SolverInfo& s) {
    std::string out;
    for (const auto& o : s.options) out += (out.empty() ? "" : ", ") + o.key;
    return out.empty() ? "none" : out;
}

// `value` as `o` takes it, else "" in `why` with the reason.
SolverOptions::Value typed_value(const SolverOption& o, const std::string& value, std::string& why) {
    SolverOptions::Value v;
    v.kind = o.kind;
    v.text = value;
    const bool a_word = std::find(o.words.begin(), o.words.end(), value) != o.words.end();
    switch (o.kind) {
    case OptionKind::choice:
        if (!a_word && !o.words.empty()) why = "unknown value";
        return v;
    case OptionKind::flag:
        if (value != "on" && value != "off") why = "not on or off";
        v.on = value == "on";
        return v;
    case OptionKind::integer:
        break;
    }
    if (a_word) return v;
    // Digits only (no sign, space or exponent), at most what an int holds.
    if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(value) > INT_MAX) {
        why = "not a whole number";
        return v;
    }
    const int n = static_cast<int>(std::stoll(value));
    const bool listed = o.numbers.empty() ? n >= o.min && n <= o.max
                                          : std::find(o.numbers.begin(), o.numbers.end(), n) != o.numbers.end();
    if (!listed) why = o.numbers.empty() ? "out of range" : "unknown value";
    v.number = n;
    return v;
}

SolverSpec parse(const std::string& text, bool require_build) {
    const std::vector<std::string> parts = split(text, ':');
    SolverSpec spec;
    spec.solver = find_solver(parts[0]);
    if (!spec.solver)
        throw std::invalid_argument("unknown solver '" + parts[0] + "' (this build has: " + available_solver_names() + ")");
    const SolverInfo& s = *spec.solver;
    if (require_build && !s.make_group && !s.is_auto)
        throw std::invalid_argument("solver " + s.name + " needs the CUDA build of arbolito (this build has: " +
                                    available_solver_names() + ")");
    for (const auto& o : s.options) {
        std::string why;
        spec.options.set(o.key, typed_value(o, o.default_value, why));
        if (!why.empty()) throw std::logic_error("solver " + s.name + ": default " + o.key + "=" + o.default_value + ": " + why);
    }
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
        SolverOptions::Value v = typed_value(*o, value, why);
        if (!why.empty())
            throw std::invalid_argument("solver " + s.name + ": " + key + "=" + value + ": " + why + " (" + key + " takes " +
                                        o->accepted() + ")");
        spec.given.emplace_back(key, value);
        spec.options.set(key, std::move(v));
    }
    if (s.check)
        if (const std::string why = s.check(spec.options); !why.empty())
            throw std::invalid_argument("solver " + s.name + ": " + why);
    return spec;
}

}  // namespace

std::string SolverSpec::text() const {
    std::string out = solver ? solver->name : "";
    for (const auto& [k, v] : given) out += ":" + k + "=" + v;
    return out;
}

int SolverSpec::lane_width() const { return solver && solver->lane_width ? solver->lane_width(options) : 1; }

SolverSpec parse_solver_spec(const std::string& text) { return parse(text, true); }

SolverSpec parse_solver_spec_any_build(const std::string& text) { return parse(text, false); }

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
            out += "    " + o.key + "=" + o.accepted() + " (" + o.type_name() + ", default " + o.default_value +
                   "): " + o.help + "\n";
    }
    return out;
}

}  // namespace arbolito
