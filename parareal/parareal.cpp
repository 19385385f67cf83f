#include "parareal/parareal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>
#include <vector>

#include "lowered_cell/blow_up_bound.hpp"
#include "model/connection_rules.hpp"
#include "parareal/cell_coarsening.hpp"
#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/cell_state_map.hpp"
#include "cpu/cpu_cell_group.hpp"
#include "lowered_cell/timings.hpp"
#include "mechanisms/iclamp.hpp"

namespace arbolito {

namespace {

std::invalid_argument bad_key(const std::string& key, const std::string& value, const std::string& why) {
    return std::invalid_argument(key + "=" + value + ": " + why);
}

// value read by `read` (std::stol, std::stod) to its last character, else bad_key(what).
template <class Read>
auto read_all(const std::string& key, const std::string& value, Read read, const char* what) {
    std::size_t used = 0;
    decltype(read(value, &used)) x{};
    try {
        x = read(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != value.size()) throw bad_key(key, value, what);
    return x;
}

long whole_number(const std::string& key, const std::string& value, long least) {
    const long n = read_all(
        key, value, [](const std::string& v, std::size_t* used) { return std::stol(v, used); }, "expected a whole number");
    if (n < least) throw bad_key(key, value, "must be at least " + std::to_string(least));
    return n;
}

// The time grid of the run, as Simulation sets it up, and its cut into slices.
struct SlicePlan {
    StepSettings steps;  // the sequential run's
    long n_steps = 0;    // tfinal / dt
    int K = 0;
    long slice = 0;      // fine steps of every slice but the last
    long last = 0;       // fine steps of the last slice (> 0), up to tfinal
    long coarse = 0;     // C
    double slice_ms(int k) const { return static_cast<double>(k * slice) * steps.dt; }
};

SlicePlan plan_slices(const Model& m, const PararealSettings& p, bool record_samples) {
    SlicePlan s;
    s.steps = step_settings(m.run, record_samples);
    s.n_steps = run_steps(m.run);
    s.K = p.slices;
    s.coarse = p.coarse;
    // A slice is a whole number of sample intervals (its frames are whole rows of the
    // trace) and of coarse steps.
    const long unit = std::lcm(s.steps.steps_per_sample, s.coarse);
    // N/K rounded up to whole units leaves a shorter last slice; where that leaves none,
    // rounded down, a longer one. Of the two, the one whose longest slice is shortest.
    const long up = (s.n_steps + s.K - 1) / s.K, up_slice = (up + unit - 1) / unit * unit;
    const long down_slice = std::max(unit, s.n_steps / s.K / unit * unit);
    auto longest = [&](long slice) {
        const long last = s.n_steps - (s.K - 1) * slice;
        return last > 0 ? std::max(slice, last) : std::numeric_limits<long>::max();
    };
    s.slice = longest(up_slice) <= longest(down_slice) ? up_slice : down_slice;
    s.last = s.n_steps - (s.K - 1) * s.slice;
    if (s.n_steps <= 0 || s.last <= 0)
        throw bad_key("slices", std::to_string(s.K),
                      "the run's " + std::to_string(s.n_steps) + " steps do not fill " + std::to_string(s.K) +
                          " slices of a whole number of " + std::to_string(unit) +
                          " steps (sample interval and coarse step); use fewer slices or a longer run");
    return s;
}

// The model's cells once per slice; copy k's clamps start k slices earlier, so that its
// steps [0, slice) are the run's steps [k·slice, (k+1)·slice).
Model sliced_model(const Model& m, const SlicePlan& s) {
    Model f;
    f.name = m.name;
    f.source = m.source;
    f.run = m.run;
    for (int k = 0; k < s.K; ++k)
        for (const CellDesc& c : m.cells) {
            CellDesc d = c;
            for (Placement& st : d.stimuli) {
                if (st.mechanism != iclamp::name)  // a new stimulus must say how it moves in time
                    throw std::logic_error("parareal: no time shift for stimulus " + st.mechanism);
                st.params[iclamp::delay] -= s.slice_ms(k);
            }
            f.cells.push_back(std::move(d));
        }
    return f;
}

// What one slice's last fine pass recorded: its frame rows (one copy's columns) and spikes
// (the model's gids and times).
struct SliceRecord {
    std::vector<double> rows;
    std::vector<Spike> spikes;
};

double max_change(const std::vector<double>& a, const std::vector<double>& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(a[i] - b[i]);
        if (!(d <= m)) m = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
    }
    return m;
}

// One propagator: cell groups holding the slices' copies (fine) or the model once
// (coarse), and each cell's place in its group's state.
struct Groups {
    std::vector<std::unique_ptr<CellGroup>> g;
    std::vector<std::vector<std::vector<std::size_t>>> positions;  // [group][cell]
    void add(std::unique_ptr<CellGroup> group) {
        positions.push_back(cell_state_positions(group->data()));
        g.push_back(std::move(group));
    }
    // The state of cells [first, first + n) of group i, one after the other.
    std::vector<double> take(int i, const std::vector<double>& state, int first, int n) const {
        std::vector<double> out;
        for (int c = first; c < first + n; ++c) gather_state(state, positions[i][c], out);
        return out;
    }
    void put(int i, const std::vector<double>& from, int first, int n, std::vector<double>& state) const {
        std::size_t at = 0;
        for (int c = first; c < first + n; ++c) {
            scatter_state(from, at, positions[i][c], state);
            at += positions[i][c].size();
        }
    }
};


}  // namespace

bool time_parallel_is_deprecated(const std::string& text) { return text.find(',') != std::string::npos; }

PararealSettings parse_time_parallel(const std::string& text) {
    PararealSettings p;
    const std::size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    if (name != "parareal") throw std::invalid_argument("unknown method '" + name + "' (parareal)");
    if (colon == std::string::npos) return p;
    // Items separated by ':' (and by ',' in the older grammar). An item whose key is not
    // parareal's, after coarse-solver=..., is an option of that solver.
    static const std::set<std::string> keys = {"slices", "tol", "coarse", "coarse-solver", "coarse-cvs", "iterations",
                                               "verify"};
    std::vector<std::string> items;
    const std::string rest = text.substr(colon + 1);
    for (std::size_t at = 0; at <= rest.size();) {
        const std::size_t end = std::min(rest.find_first_of(":,", at), rest.size());
        items.push_back(rest.substr(at, end - at));
        at = end + 1;
    }
    std::string coarse_solver;  // its spec, options and all, parsed at the end
    bool in_coarse_solver = false;
    for (const std::string& item : items) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("'" + item + "': expected KEY=VALUE");
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (in_coarse_solver && !keys.count(key)) {
            coarse_solver += ":" + item;
            continue;
        }
        in_coarse_solver = false;
        if (key == "slices") {
            p.slices = static_cast<int>(std::min<long>(whole_number(key, value, 2), 1 << 20));
        } else if (key == "coarse") {
            p.coarse = static_cast<int>(std::min<long>(whole_number(key, value, 1), 1 << 20));
        } else if (key == "tol") {
            const double t = read_all(
                key, value, [](const std::string& v, std::size_t* used) { return std::stod(v, used); }, "expected a number");
            if (!(t > 0) || !std::isfinite(t)) throw bad_key(key, value, "must be a finite number > 0");
            p.tol = t;
        } else if (key == "coarse-solver") {
            coarse_solver = value;
            in_coarse_solver = true;
        } else if (key == "coarse-cvs") {
            p.coarse_cvs = static_cast<int>(std::min<long>(whole_number(key, value, 1), 1 << 20));
        } else if (key == "iterations") {
            p.iterations = static_cast<int>(std::min<long>(whole_number(key, value, 1), 1 << 20));
        } else if (key == "verify") {
            if (value != "on" && value != "off") throw bad_key(key, value, "expected on or off");
            p.verify = value == "on";
        } else {
            throw std::invalid_argument("unknown key '" + key + "' (slices, tol, coarse, coarse-solver, coarse-cvs, iterations, verify)");
        }
    }
    if (!coarse_solver.empty()) try {
            p.coarse_solver = parse_solver_spec(coarse_solver);
        } catch (const std::invalid_argument& e) {
            throw bad_key("coarse-solver", coarse_solver, e.what());
        }
    return p;
}

std::string time_parallel_refusal(const Model& m) {
    if (connection_count(m) > 0)
        return "the model has " + std::to_string(connection_count(m)) +
               " connections: a spike would have to cross from its slice into later slices, which run at the same "
               "time (parallel in time takes cells without connections: clamps and generators only)";
    return "";
}

void check_time_parallel(const Model& m, const PararealSettings& p, bool record_samples) {
    if (const std::string why = time_parallel_refusal(m); !why.empty()) throw std::invalid_argument(why);
    if (p.slices < 2) throw bad_key("slices", std::to_string(p.slices), "must be at least 2");
    if (!(p.tol > 0)) throw bad_key("tol", std::to_string(p.tol), "must be > 0");
    if (p.coarse < 1) throw bad_key("coarse", std::to_string(p.coarse), "must be at least 1");
    if (p.coarse_cvs < 1) throw bad_key("coarse-cvs", std::to_string(p.coarse_cvs), "must be at least 1");
    if (p.coarse_cvs > 1)
        for (std::size_t c = 0; c < m.cells.size(); ++c) {
            if (m.cells[c].policy.kind == CvPolicy::every_segment)
                throw bad_key("coarse-cvs", std::to_string(p.coarse_cvs),
                              "cell " + std::to_string(c) +
                                  " has every_segment CVs, which have no coarser discretisation (use nseg or max_extent)");
            // Coarser CVs would coalesce other synapses: no synapse-by-synapse map of their states.
            if (m.cells[c].policy.coalesce_synapses)
                throw bad_key("coarse-cvs", std::to_string(p.coarse_cvs),
                              "cell " + std::to_string(c) +
                                  " coalesces its synapses, whose states coarser CVs cannot map one by one "
                                  "(use coalesce_synapses false)");
        }
    if (p.iterations < 0 || p.iterations > p.slices)
        throw bad_key("iterations", std::to_string(p.iterations), "must be 1 .. slices (" + std::to_string(p.slices) + ")");
    plan_slices(m, p, record_samples);
}

Model model_per_slice(const Model& m, int slices) {
    Model out = m;
    out.cells.clear();
    for (int k = 0; k < slices; ++k) out.cells.insert(out.cells.end(), m.cells.begin(), m.cells.end());
    return out;
}

// The propagators, the slices' events and states, and the record of one run parallel in
// time. Set up at construction; run() iterates.
struct PararealRun::State {
    const Model& m;
    const PararealSettings p;
    const int threads;
    const SlicePlan s;
    const int K, nc;
    const double dt;
    // F: a GPU solver batches every slice in one group; a CPU solver gets a group per lane
    // width of slices for the OpenMP threads: as many as it steps side by side in SIMD
    // lanes, where W copies of one cell cost about what one does alone (its lane block is
    // W wide either way). A group runs [0, mid) and [mid, end): the shorter and the longer
    // of slice and last (the last slice stops at tfinal); each copy records frames 1 ..
    // end/steps_per_sample of its slice and keeps those of its own steps.
    int per_group = 1, n_fine = 0;
    long mid = 0, end = 0;
    Model fine_model;  // the cells once per slice
    Groups fine;
    // G: the model once at C·dt, slice after slice (its step n is the run's time n·C·dt), on
    // the run's solver or coarse-solver (the state's order is the same in every solver);
    // with coarse-cvs > 1 on the coarser cells, states moved by `maps` (R and P).
    Groups coarse;
    StepSettings coarse_steps;
    bool coarsened = false;
    Model coarse_model;  // coarse-cvs > 1 only
    long coarse_slice = 0;
    Coarsening maps;
    // Generator events: the fine ones per group, split at mid; the coarse ones per slice.
    std::vector<std::vector<StepEvent>> fine_a, fine_b, coarse_ev;
    // Frame 0 and the columns of one copy: the fine cells' (copy 0 of fine group 0).
    int ncol_copy = 0;
    std::vector<double> frame0;
    PararealReport rep;
    std::vector<double> coarse_state;
    // U[n]: slice n's start state; G_old[n] = G(U[n]); F[n] = F(U[n]) of the last fine pass.
    std::vector<std::vector<double>> U, G_old, F;
    std::vector<SliceRecord> record;
    std::vector<bool> dirty;  // U[n] changed since slice n's last fine pass

    State(const Model& model, const SolverSpec& solver, int threads_, bool record_samples, const PararealSettings& settings)
        : m(model), p(settings), threads(threads_), s(plan_slices(model, settings, record_samples)), K(s.K),
          nc(static_cast<int>(model.cells.size())), dt(s.steps.dt) {
        Stopwatch setup;
        build_fine(solver);
        build_coarse(p.coarse_solver ? *p.coarse_solver : solver);
        split_generator_events();
        take_initial_state();
        rep.setup_s = setup.lap();
    }

    int group_slices(int g) const { return std::min(K, (g + 1) * per_group) - g * per_group; }

    void build_fine(const SolverSpec& solver) {
        fine_model = sliced_model(m, s);
        const Model& fm = fine_model;
        per_group = solver.solver->needs_cuda ? K : solver.lane_width();
        n_fine = (K + per_group - 1) / per_group;
        StepSettings fst = s.steps;
        mid = std::min(s.slice, s.last);
        end = std::max(s.slice, s.last);
        fst.n_frames = s.steps.n_frames > 0 ? end / s.steps.steps_per_sample + 1 : 0;
        for (int g = 0; g < n_fine; ++g)
            fine.add(solver.solver->make_group(fm, static_cast<std::uint64_t>(g) * per_group * nc,
                                               static_cast<std::uint64_t>(g * per_group + group_slices(g)) * nc,
                                               solver.options, fst, 0));
    }

    void build_coarse(const SolverSpec& g_solver) {
        coarse_steps = s.steps;
        coarse_steps.dt = dt * s.coarse;
        coarse_steps.n_frames = 0;
        coarsened = p.coarse_cvs > 1;
        if (coarsened) coarse_model = coarser_model(m, p.coarse_cvs);
        coarse.add(g_solver.solver->make_group(coarsened ? coarse_model : m, 0, nc, g_solver.options, coarse_steps, 0));
        coarse_slice = s.slice / s.coarse;
        if (coarsened) maps = model_coarsening(m, fine.g[0]->data(), coarse_model, coarse.g[0]->data(), nc);
    }

    // The fine events to their slice's copy, steps relative to the slice; the coarse ones per slice.
    void split_generator_events() {
        fine_a.assign(n_fine, {});
        fine_b.assign(n_fine, {});
        coarse_ev.assign(K, {});
        for (const Generator& gen : m.generators)
            for (double t : gen.times) {
                const long n = delivery_step(t, dt, s.steps.rules), k = std::min<long>(n / s.slice, K - 1);
                if (n < s.n_steps) {
                    const int g = static_cast<int>(k) / per_group;
                    const long local = n - k * s.slice;
                    const std::uint32_t target =
                        fine.g[g]->data().event_target(static_cast<int>((k % per_group) * nc + gen.target), gen.synapse);
                    (local < mid ? fine_a : fine_b)[g].push_back({local, t, target, gen.weight});
                }
                const long nc_step = delivery_step(t, coarse_steps.dt, s.steps.rules), kc = nc_step / coarse_slice;
                if (kc < K)
                    coarse_ev[kc].push_back(
                        {nc_step, t, coarse.g[0]->data().event_target(static_cast<int>(gen.target), gen.synapse), gen.weight});
            }
        for (auto* list : {&fine_a, &fine_b, &coarse_ev})
            for (auto& e : *list) std::sort(e.begin(), e.end());
    }

    // Frame 0, the report's sizes and slice 0's start state.
    void take_initial_state() {
        ncol_copy = fine.g[0]->n_columns() / group_slices(0);
        if (s.steps.n_frames > 0) {
            fine.g[0]->initial_frame(frame0);
            frame0.resize(ncol_copy);
        }
        for (const CellDesc& c : m.cells) rep.n_cv += count_cell_cvs(c);
        rep.n_cv_coarse = coarse.g[0]->data().n_real_cv();
        rep.slice_steps = s.slice;
        coarse_state = coarse.g[0]->state();
        U.assign(K, {});
        G_old.assign(K, {});
        F.assign(K, {});
        U[0] = coarsened ? fine.take(0, fine.g[0]->state(), 0, nc) : coarse.take(0, coarse_state, 0, nc);
        record.assign(K, {});
        dirty.assign(K, true);
    }

    // G from slice n's start `u` (fine): its end state, in G's list (fine unless coarsened).
    std::vector<double> propagate_coarse(int n, const std::vector<double>& u) {
        Stopwatch w;
        coarse.put(0, coarsened ? maps.to_coarse.apply(u) : u, 0, nc, coarse_state);
        coarse.g[0]->set_state(coarse_state);
        std::vector<Spike> sp;
        std::vector<double> fr;
        coarse.g[0]->advance(n * coarse_slice, (n + 1) * coarse_slice, coarse_ev[n], sp, fr);
        coarse_state = coarse.g[0]->state();
        rep.coarse_s += w.lap();
        return coarse.take(0, coarse_state, 0, nc);
    }

    // The first guesses: G's; coarsened, U[n] plus G's change over the slice interpolated
    // (P(G(R U) − R U)), which keeps what the coarse CVs cannot hold of U[n].
    void first_guesses() {
        for (int n = 0; n + 1 < K; ++n) {
            G_old[n] = propagate_coarse(n, U[n]);
            if (!coarsened) {
                U[n + 1] = G_old[n];
                continue;
            }
            Stopwatch w;
            std::vector<double> change = maps.to_coarse.apply(U[n]);
            for (std::size_t i = 0; i < change.size(); ++i) change[i] = G_old[n][i] - change[i];
            U[n + 1] = U[n];
            maps.to_fine.add_apply(change, U[n + 1]);
            rep.coarse_s += w.lap();
        }
    }

    // One fine pass of group g over its slices: states in, [0, mid) and [mid, end) out.
    void fine_pass(int g) {
        CellGroup& grp = *fine.g[g];
        std::vector<double> state = grp.state();
        for (int j = 0; j < group_slices(g); ++j) fine.put(g, U[g * per_group + j], j * nc, nc, state);
        grp.set_state(state);
        std::vector<Spike> sp_a, sp_b;
        std::vector<double> fr_a, fr_b;
        // `state` at step `slice`, the end of every slice but the last.
        grp.advance(0, mid, fine_a[g], sp_a, fr_a);
        if (mid == s.slice) state = grp.state();
        if (mid < end) grp.advance(mid, end, fine_b[g], sp_b, fr_b);
        if (mid < s.slice) state = grp.state();
        const int gcols = grp.n_columns();
        for (int j = 0; j < group_slices(g); ++j) {
            const int k = g * per_group + j;
            if (!dirty[k]) continue;
            const bool last = k == K - 1;
            const bool own_b = (last ? s.last : s.slice) > mid;  // [mid, end) are steps of this slice
            if (!last) F[k] = fine.take(g, state, j * nc, nc);
            SliceRecord& r = record[k];
            r.rows.clear();
            r.spikes.clear();
            for (const std::vector<double>* fr : {&fr_a, &fr_b}) {
                if (!own_b && fr == &fr_b) break;
                for (std::size_t row = 0; gcols > 0 && row < fr->size() / gcols; ++row)
                    r.rows.insert(r.rows.end(), fr->begin() + row * gcols + j * ncol_copy,
                                  fr->begin() + row * gcols + (j + 1) * ncol_copy);
            }
            for (const std::vector<Spike>* sp : {&sp_a, &sp_b}) {
                if (!own_b && sp == &sp_b) break;
                for (const Spike& x : *sp)
                    if (static_cast<int>(x.gid / nc) == k) r.spikes.push_back({x.gid % nc, x.source, x.time + s.slice_ms(k)});
            }
        }
    }

    // The fine passes of every group with a slice whose start changed, on the OpenMP threads.
    void fine_passes() {
        Stopwatch w;
        std::vector<int> todo;
        for (int g = 0; g < n_fine; ++g)
            if (std::any_of(dirty.begin() + g * per_group, dirty.begin() + g * per_group + group_slices(g),
                            [](bool d) { return d; }))
                todo.push_back(g);
        std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min<int>(threads, static_cast<int>(todo.size()))))
        for (int i = 0; i < static_cast<int>(todo.size()); ++i) {
            try {
                fine_pass(todo[i]);
            } catch (...) {
#pragma omp critical(arbolito_parareal_error)
                if (!error) error = std::current_exception();
            }
        }
        if (error) std::rethrow_exception(error);
        std::fill(dirty.begin(), dirty.end(), false);
        rep.fine_s += w.lap();
    }

    // The correction, slice after slice: a start that did not change keeps G(U) and takes
    // F's end state as it is. Returns the largest change of a start state.
    double correct() {
        double change = 0;
        std::vector<double> next = U[0];
        for (int n = 0; n + 1 < K; ++n) {
            std::vector<double> end_state;
            if (next == U[n]) {
                end_state = F[n];
            } else if (!coarsened) {
                std::vector<double> g = propagate_coarse(n, next);
                end_state.resize(g.size());
                for (std::size_t i = 0; i < g.size(); ++i) end_state[i] = g[i] + F[n][i] - G_old[n][i];
                G_old[n] = std::move(g);
            } else {  // F(U_old) + P(G(R U_new) − G(R U_old)): the G terms on the fine CVs
                std::vector<double> g = propagate_coarse(n, next);
                Stopwatch w;
                std::vector<double> g_change(g.size());
                for (std::size_t i = 0; i < g.size(); ++i) g_change[i] = g[i] - G_old[n][i];
                end_state = F[n];
                maps.to_fine.add_apply(g_change, end_state);
                G_old[n] = std::move(g);
                rep.coarse_s += w.lap();
            }
            U[n] = std::move(next);
            next = std::move(end_state);
            if (next != U[n + 1]) {
                change = std::max(change, max_change(next, U[n + 1]));
                dirty[n + 1] = true;
            }
        }
        U[K - 1] = std::move(next);
        return change;
    }

    // The record to the sink: frame 0, then every slice's frames while t < tfinal, then the
    // spikes. Throws, handing out nothing, where a voltage blew up in the frames or anywhere
    // in a slice's start state (a run without probes).
    void hand_record(RecordSink& sink) const {
        std::vector<double> rows = frame0;
        std::vector<Spike> spikes;
        const long frames_per_slice = s.slice / s.steps.steps_per_sample;
        for (int k = 0; k < K; ++k) {
            const SliceRecord& r = record[k];
            for (std::size_t i = 0; ncol_copy > 0 && i < r.rows.size() / ncol_copy; ++i) {
                if (k * frames_per_slice + static_cast<long>(i) + 1 >= s.steps.n_frames) break;
                rows.insert(rows.end(), r.rows.begin() + i * ncol_copy, r.rows.begin() + (i + 1) * ncol_copy);
            }
            spikes.insert(spikes.end(), r.spikes.begin(), r.spikes.end());
        }
        bool bad = std::any_of(rows.begin(), rows.end(), [](double v) { return blown_up(v); });
        for (const auto& u : U) bad = bad || std::any_of(u.begin(), u.end(), [](double v) { return blown_up(v); });
        if (bad)
            throw std::runtime_error("parareal: a voltage blew up (NaN, inf or past ±1e9 mV); run without "
                                     "--time-parallel to see where and when");
        std::sort(spikes.begin(), spikes.end(), spike_before);
        if (ncol_copy > 0 && !rows.empty()) sink.frames(rows.data(), rows.size() / ncol_copy);
        sink.spikes(spikes);
        sink.epoch_done(s.n_steps * dt);
    }
};

PararealRun::PararealRun(const Model& m, const SolverSpec& solver, int threads, bool record_samples,
                         const PararealSettings& p) {
    check_time_parallel(m, p, record_samples);
    st_ = std::make_unique<State>(m, solver, threads, record_samples, p);
}

PararealRun::~PararealRun() = default;

long PararealRun::n_columns() const { return st_->ncol_copy; }

const FvmData& PararealRun::cells() const { return st_->fine.g[0]->data(); }

int PararealRun::n_cells() const { return st_->nc; }

PararealReport PararealRun::run(RecordSink& sink, const std::function<bool()>& stop_requested) {
    State& st = *st_;
    PararealReport& rep = st.rep;
    Stopwatch run;
    st.first_guesses();
    const int max_passes = st.p.iterations > 0 ? st.p.iterations : st.K;
    for (int it = 0; it < max_passes; ++it) {
        st.fine_passes();
        rep.iterations = it + 1;
        if (it == st.K - 1 || it + 1 == max_passes) break;  // K passes: every start is exact now
        if (stop_requested && stop_requested()) {
            rep.stopped = true;
            rep.run_s = run.lap();
            return rep;
        }
        const double change = st.correct();
        rep.change.push_back(change);
        if (change < st.p.tol) break;
    }
    rep.run_s = run.lap();
    st.hand_record(sink);
    return rep;
}

PararealReport run_parareal(const Model& m, const SolverSpec& solver, int threads, bool record_samples,
                            const PararealSettings& p, RecordSink& sink, const std::function<bool()>& stop_requested) {
    return PararealRun(m, solver, threads, record_samples, p).run(sink, stop_requested);
}

double max_trace_difference(const RecordedRun& a, const RecordedRun& b) {
    if (a.rows.size() != b.rows.size()) return std::numeric_limits<double>::infinity();
    return max_change(a.rows, b.rows);
}

double max_spike_difference(const std::vector<Spike>& a, const std::vector<Spike>& b) {
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].gid != b[i].gid || a[i].source != b[i].source) return std::numeric_limits<double>::infinity();
        m = std::max(m, std::fabs(a[i].time - b[i].time));
    }
    return m;
}

}  // namespace arbolito
