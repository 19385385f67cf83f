#pragma once
// Parallel in time (docs/parareal.md): parareal (Lions, Maday and Turinici) over
// K time slices of a model without connections. The fine propagator F is the run's solver
// at the run's dt, all slices at once: one cell group holds a copy of the model's cells per
// slice (GPU solvers: one group, each slice a cell of the batch; CPU solvers: a group per
// SIMD lane width of slices, on OpenMP threads), copy k's clamps shifted by -k·T_slice and its generator events
// moved into its slice. The coarse propagator G is the same solver and cells at C·dt, slice
// after slice; with coarse-cvs=F on F times fewer CVs per branch (parareal/cell_coarsening.hpp),
// its start restricted from the fine state and its change interpolated back (R, P):
// U_{j+1}^{n+1} = F(U_j^n) + P(G(R U_{j+1}^n) − G(R U_j^n)). Iteration j: F from every slice's start state U_j (concurrently), then
// sequentially U_{j+1}^{n+1} = G(U_{j+1}^n) + F(U_j^n) − G(U_j^n), until the largest change
// of a start state (over slices, CVs and gates) is below tol, or K iterations: then every
// start state is the sequential run's, bit for bit (a start that did not change takes F's
// result as it is: the G terms cancel exactly).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lowered_cell/fvm_data.hpp"
#include "model/model.hpp"
#include "run/record_exchange.hpp"
#include "run/solver_spec.hpp"
#include "lowered_cell/spike.hpp"

namespace arbolito {

struct PararealSettings {
    int slices = 8;       // K >= 2
    double tol = 1e-6;    // > 0: mV for v, the state's own unit for gates and conductances
    int coarse = 10;      // C >= 1: G's dt is C·dt
    bool verify = false;  // the command line also runs sequentially and reports the difference
    int iterations = 0;   // at most this many fine passes (1 .. K; 0: K), e.g. to study the error per iteration
    std::optional<SolverSpec> coarse_solver;  // G's solver (e.g. cpu under a GPU fine solver); none: the run's
    int coarse_cvs = 1;   // >= 1: G on a discretisation with this many times fewer CVs per branch (1: the same CVs)
};

// Parses "parareal[:KEY=VALUE]..." (the grammar of --solver: ':' throughout) with keys
// slices, tol, coarse, verify (on, off), iterations, coarse-solver (a solver spec, whose
// own options follow it: coarse-solver=gpu-cell:layout=flat:slices=8) and coarse-cvs.
// The older "parareal:KEY=VALUE,KEY=VALUE" is read too (time_parallel_is_deprecated).
// Throws std::invalid_argument with one line naming the key and the reason.
PararealSettings parse_time_parallel(const std::string& text);

// Whether `text` separates its keys with ',' (the older grammar): the command line warns.
bool time_parallel_is_deprecated(const std::string& text);

// Why parareal cannot run this model ("" where it can): connections (a spike would have to
// cross from one slice into a later one that has started already).
std::string time_parallel_refusal(const Model& m);

// Throws std::invalid_argument (one line naming the key, or the connections) where the
// model or the settings cannot run: connections, slices < 2, tol <= 0, coarse < 1,
// coarse-cvs < 1 or > 1 on a cell with every_segment CVs, or a run too short to cut into the slices (each a whole number of sample intervals and of
// coarse steps).
void check_time_parallel(const Model& m, const PararealSettings& p, bool record_samples);

// What a run recorded, in memory: frame rows (columns as Simulation's, gid order) and
// spikes in the output's order (time, gid, detector).
struct RecordedRun final : RecordSink {
    long n_columns = 0;
    std::vector<double> rows;
    std::vector<Spike> spikes_seen;
    void frames(const double* r, std::size_t n) override { rows.insert(rows.end(), r, r + n * n_columns); }
    void spikes(const std::vector<Spike>& s) override { spikes_seen.insert(spikes_seen.end(), s.begin(), s.end()); }
    std::size_t n_frames() const { return n_columns > 0 ? rows.size() / n_columns : 0; }
};

struct PararealReport {
    int iterations = 0;          // fine passes
    std::vector<double> change;  // per correction: the largest change of a slice's start state
    long slice_steps = 0;        // fine steps per slice (the last slice may have fewer)
    double run_s = 0, fine_s = 0, coarse_s = 0, setup_s = 0;
    long n_cv = 0;               // CVs of the model (one copy)
    long n_cv_coarse = 0;        // CVs of G's model (n_cv unless coarse-cvs > 1)
    bool stopped = false;        // stop_requested said yes: nothing was handed to the sink
};

// A run of the model parallel in time with `solver` (resolved: not auto), fine groups on
// `threads` OpenMP threads for CPU solvers. Construction sets it up: throws as
// check_time_parallel does, before any output.
class PararealRun {
public:
    PararealRun(const Model& m, const SolverSpec& solver, int threads, bool record_samples, const PararealSettings& p);
    ~PararealRun();
    // The recorded columns, as Simulation's (gid order).
    long n_columns() const;
    // The model's cells as the run holds them: cells [0, n_cells()) of cells() (the first
    // slice's copy), for the output's mapping of the recorded columns.
    const FvmData& cells() const;
    int n_cells() const;
    // Hands the record to `sink` exactly as Simulation::run does (frames, then spikes, then
    // epoch_done(tfinal)); std::runtime_error where a voltage blew up (nothing handed out).
    // stop_requested is asked after every iteration: yes ends the run with nothing handed
    // out (the record exists only once the iterations end) and the report's `stopped` set.
    // Once per object.
    PararealReport run(RecordSink& sink, const std::function<bool()>& stop_requested = {});

private:
    struct State;
    std::unique_ptr<State> st_;
};

// A PararealRun set up and run once.
PararealReport run_parareal(const Model& m, const SolverSpec& solver, int threads, bool record_samples,
                            const PararealSettings& p, RecordSink& sink,
                            const std::function<bool()>& stop_requested = {});

// The model's cells once per slice (for the memory estimate of a run parallel in time).
Model model_per_slice(const Model& m, int slices);

// The largest |a − b| over two records of equal shape (+inf if the shapes differ).
double max_trace_difference(const RecordedRun& a, const RecordedRun& b);
// The largest spike time difference, +inf where the counts, gids or detectors differ.
double max_spike_difference(const std::vector<Spike>& a, const std::vector<Spike>& b);

}  // namespace arbolito
