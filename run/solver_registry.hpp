#pragma once
// The solvers a run may choose, each with its name, its typed options and the factory of
// its cell groups (docs/solvers.md). The list is explicit, in solver_registry.cpp: adding a
// solver is one file defining its SolverInfo and one line there.
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lowered_cell/cell_group.hpp"
#include "model/model.hpp"

namespace arbolito {

// What a solver option takes: a whole number (in a range or from a list, or one of a few
// words such as auto), one of a list of words, or on/off.
enum class OptionKind { integer, choice, flag };

// One key of a solver's options, declared with its type and default.
struct SolverOption {
    std::string key;
    OptionKind kind = OptionKind::choice;
    // choice: its values (empty: any word `form` describes). integer: the words it takes
    // besides a number, e.g. auto.
    std::vector<std::string> words;
    // integer: the numbers it takes: those listed, else min..max.
    std::vector<int> numbers;
    int min = 0, max = INT_MAX;
    std::string default_value;  // as written on the command line
    std::string help;
    std::string form;  // a choice without listed values: what it takes (help, errors)
    // What the key takes, for help and errors: "auto|1|2|4|8", "N >= 0 or auto", "1..1024", "on|off".
    std::string accepted() const;
    // "integer", "choice", "flag" (arbolito info, help).
    std::string type_name() const;
};

// A whole number min..max (max INT_MAX: no bound), or one of `words`.
SolverOption integer_option(std::string key, int min, int max, std::string default_value, std::string help,
                            std::vector<std::string> words = {});
// A whole number from `numbers`, or one of `words`.
SolverOption number_list_option(std::string key, std::vector<int> numbers, std::string default_value, std::string help,
                                std::vector<std::string> words = {});
// One of `values`.
SolverOption choice_option(std::string key, std::vector<std::string> values, std::string default_value, std::string help);
// on or off.
SolverOption flag_option(std::string key, bool default_on, std::string help);

// Every declared key of a solver with its checked value: given, else the default.
// Solvers read them typed; asking for an undeclared key, or a key as another kind than
// declared, is a programming error (std::logic_error).
class SolverOptions {
public:
    struct Value {
        OptionKind kind = OptionKind::choice;
        std::string text;  // as written
        std::optional<int> number;  // integer: the number; none where a word was given
        bool on = false;            // flag
    };
    // choice: its value.
    const std::string& choice(const std::string& key) const;
    // flag: on.
    bool flag(const std::string& key) const;
    // integer: its number, or none where one of its words (auto) was given.
    std::optional<int> number(const std::string& key) const;
    // integer: its number, or `if_word` where a word (auto) was given.
    int number_or(const std::string& key, int if_word) const { return number(key).value_or(if_word); }
    // Any key's value as written.
    const std::string& text(const std::string& key) const;
    bool has(const std::string& key) const { return values_.count(key) > 0; }
    void set(const std::string& key, Value v) { values_[key] = std::move(v); }

private:
    const Value& get(const std::string& key, OptionKind kind) const;
    std::map<std::string, Value> values_;
};

// Builds the group for cells [gid_begin, gid_end). A GPU group runs on CUDA device
// `device` (mod the visible devices: run/gpu_binding.hpp chooses); CPU groups ignore it.
using GroupFactory = std::function<std::unique_ptr<CellGroup>(const Model& m, std::uint64_t gid_begin,
                                                              std::uint64_t gid_end, const SolverOptions& o,
                                                              const StepSettings& s, int device)>;

struct SolverInfo {
    std::string name;
    bool needs_cuda = false;  // a GPU solver: only the CUDA build has its factory
    bool is_auto = false;     // `auto`: no factory, the simulation picks a solver (solver_auto.hpp)
    std::string description;  // one line
    std::vector<SolverOption> options;
    // A rule across keys, checked with the spec (e.g. cpu's solve=long-double with lanes=1
    // only): "" if the options go together, else why not, naming the keys. Null: none.
    std::function<std::string(const SolverOptions&)> check;
    // Cell groups per OpenMP thread on a rank (dynamic scheduling evens out cells of
    // different cost); 0: one group per rank.
    int groups_per_thread = 0;
    // Cells a group steps side by side in SIMD lanes for these options (memory estimate,
    // parareal's slices per group); null: 1.
    std::function<int(const SolverOptions&)> lane_width;
    GroupFactory make_group;  // null where this build lacks the backend
};

// Every solver arbolito knows, in help order, whether this build has it or not.
const std::vector<SolverInfo>& all_solvers();
// The names of those this build can run, comma-separated (help texts, errors).
std::string available_solver_names();
// The solver of that name, or null.
const SolverInfo* find_solver(const std::string& name);
// Whether `s` can run in this build on this machine: a GPU solver needs the CUDA build and
// a usable CUDA device (gpu_available, solver_auto.hpp); cpu, omp and auto always can.
// Where not, `why` (if given) gets the reason, e.g. "needs a CUDA device, and none is usable here".
bool solver_available(const SolverInfo& s, std::string* why = nullptr);

}  // namespace arbolito
