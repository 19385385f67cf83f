#include "run/solver_registry.hpp"

#include <stdexcept>

#include "run/solver_auto.hpp"

namespace arbolito {

// Each solver's entry, defined in its own file (cpu/cpu_solvers.cpp,
// gpu/gpu_cell_solver.cpp, gpu/gpu_fine_solver.cpp,
// gpu/gpu_branch_solver.cpp). A list, not static
// self-registration: a static library drops object files nothing refers to, and their
// registrars with them.
SolverInfo cpu_solver();
SolverInfo omp_solver();
SolverInfo gpu_cell_solver();
SolverInfo gpu_fine_solver();
SolverInfo gpu_branch_solver();

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : "|") + s;
    return out;
}

const char* kind_name(OptionKind k) {
    switch (k) {
    case OptionKind::integer: return "integer";
    case OptionKind::choice: return "choice";
    case OptionKind::flag: return "flag";
    }
    return "";
}

}  // namespace

std::string SolverOption::accepted() const {
    switch (kind) {
    case OptionKind::choice: return words.empty() ? form : joined(words);
    case OptionKind::flag: return "on|off";
    case OptionKind::integer: break;
    }
    if (!numbers.empty()) {
        std::vector<std::string> all = words;
        for (int n : numbers) all.push_back(std::to_string(n));
        return joined(all);
    }
    const std::string range =
        max == INT_MAX ? "N >= " + std::to_string(min) : std::to_string(min) + ".." + std::to_string(max);
    return words.empty() ? range : range + " or " + joined(words);
}

std::string SolverOption::type_name() const { return kind_name(kind); }

SolverOption integer_option(std::string key, int min, int max, std::string default_value, std::string help,
                            std::vector<std::string> words) {
    SolverOption o;
    o.key = std::move(key);
    o.kind = OptionKind::integer;
    o.min = min;
    o.max = max;
    o.words = std::move(words);
    o.default_value = std::move(default_value);
    o.help = std::move(help);
    return o;
}

SolverOption number_list_option(std::string key, std::vector<int> numbers, std::string default_value, std::string help,
                                std::vector<std::string> words) {
    SolverOption o = integer_option(std::move(key), 0, INT_MAX, std::move(default_value), std::move(help), std::move(words));
    o.numbers = std::move(numbers);
    return o;
}

SolverOption choice_option(std::string key, std::vector<std::string> values, std::string default_value, std::string help) {
    SolverOption o;
    o.key = std::move(key);
    o.kind = OptionKind::choice;
    o.words = std::move(values);
    o.default_value = std::move(default_value);
    o.help = std::move(help);
    return o;
}

SolverOption flag_option(std::string key, bool default_on, std::string help) {
    SolverOption o;
    o.key = std::move(key);
    o.kind = OptionKind::flag;
    o.default_value = default_on ? "on" : "off";
    o.help = std::move(help);
    return o;
}

const SolverOptions::Value& SolverOptions::get(const std::string& key, OptionKind kind) const {
    const auto it = values_.find(key);
    if (it == values_.end()) throw std::logic_error("solver option '" + key + "' is not declared");
    if (it->second.kind != kind)
        throw std::logic_error(std::string("solver option '") + key + "' is a " + kind_name(it->second.kind) +
                               ", read as a " + kind_name(kind));
    return it->second;
}

const std::string& SolverOptions::choice(const std::string& key) const { return get(key, OptionKind::choice).text; }

bool SolverOptions::flag(const std::string& key) const { return get(key, OptionKind::flag).on; }

std::optional<int> SolverOptions::number(const std::string& key) const { return get(key, OptionKind::integer).number; }

const std::string& SolverOptions::text(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) throw std::logic_error("solver option '" + key + "' is not declared");
    return it->second.text;
}

namespace {

SolverInfo auto_solver() {
    SolverInfo s;
    s.name = "auto";
    s.is_auto = true;
    s.description = "one of the above, chosen for the model and the machine at set-up (docs/solvers.md; arbolito info "
                    "MODEL says which and why)";
    return s;
}

}  // namespace

const std::vector<SolverInfo>& all_solvers() {
    static const std::vector<SolverInfo> list = {cpu_solver(), omp_solver(), gpu_cell_solver(), gpu_fine_solver(),
                                                 gpu_branch_solver(), auto_solver()};
    return list;
}

std::string available_solver_names() {
    std::string out;
    for (const SolverInfo& s : all_solvers())
        if (s.make_group || s.is_auto) out += (out.empty() ? "" : ", ") + s.name;
    return out;
}

const SolverInfo* find_solver(const std::string& name) {
    for (const SolverInfo& s : all_solvers())
        if (s.name == name) return &s;
    return nullptr;
}

bool solver_available(const SolverInfo& s, std::string* why) {
    std::string reason;
    if (!s.make_group && !s.is_auto)
        reason = "needs the CUDA build of arbolito";
    else if (s.needs_cuda && !gpu_available())
        reason = "needs a CUDA device, and none is usable here";
    if (why) *why = reason;
    return reason.empty();
}

}  // namespace arbolito
