#include "engine/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <stdexcept>

#include <omp.h>
#include <spdlog/spdlog.h>

#include "engine/decomposition.hpp"
#include "engine/event_buckets.hpp"
#include "engine/spike_fanout.hpp"
#include "engine/thread_team.hpp"

namespace arbolito {

namespace {

// The global spike order: time, then gid, then detector. Every rank sorts the gathered
// spikes this way before turning them into events, so that events reach each synapse in
// the same order whatever the number of ranks, threads or groups (docs/mpi.md).
bool spike_before(const Spike& a, const Spike& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.gid != b.gid ? a.gid < b.gid : a.source < b.source;
}

// What every rank announces at the start of an exchange (one MPI_Allgather), so that
// the variable-sized gathers that follow know their counts and a failure anywhere stops
// every rank at the same exchange.
struct ExchangeHeader {
    std::int64_t ok;         // 0: this rank has failed
    std::int64_t n_spikes;   // spikes it hands over
    std::int64_t n_values;   // frame values it hands over (frames · columns)
    std::int64_t n_columns;  // its recorded columns
};

}  // namespace

long Simulation::delivery_step(double t, double dt, EventRules rules) {
    // The small margins absorb rounding in t/dt for times meant to sit on the grid; an
    // event exactly half a step off the grid goes to the later step, as in NEURON.
    if (rules == EventRules::neuron) return std::max(0L, static_cast<long>(std::ceil(t / dt - 0.5 + 1e-9)));
    return std::max(0L, static_cast<long>(std::floor(t / dt + 1e-9)));
}

Simulation::Simulation(const Model& m, const SimOptions& o) : model_(m), opt_(o) {
    Stopwatch w;
    if (!opt_.comm) opt_.comm = std::make_shared<SerialCommunicator>();
    const Communicator& comm = *opt_.comm;
    const RunSettings& r = m.run;
    steps_.dt = r.dt;
    steps_.celsius = r.celsius;
    steps_.rules = r.rules;
    steps_.steps_per_sample = std::max(1L, std::lround(r.sample_dt / r.dt));
    steps_.n_frames = o.record_samples ? std::lround(r.tfinal / r.sample_dt) : 0;
    n_steps_ = std::lround(r.tfinal / r.dt);

    double min_delay = 0;
    for (const auto& c : m.connections) min_delay = min_delay == 0 ? c.delay : std::min(min_delay, c.delay);
    epoch_steps_ = min_delay > 0 ? std::max(1L, static_cast<long>(std::floor(min_delay / 2 / r.dt + 1e-9)))
                                 : std::max(1L, std::lround(10.0 / r.dt));

    if (opt_.pipeline && !comm.thread_serialized()) {
        if (comm.is_root())
            spdlog::warn("the MPI library does not provide MPI_THREAD_SERIALIZED: spikes are exchanged after the cell "
                         "update instead of during it (as with --no-pipeline)");
        opt_.pipeline = false;
    }

    // This rank's gid block, then its cell groups (several for omp: dynamic scheduling
    // evens out cells of different cost).
    const auto weight = cv_counts(m);
    const auto ranks = split_by_weight(weight, 0, m.cells.size(), comm.size());
    gid_begin_ = ranks[comm.rank()];
    gid_end_ = ranks[comm.rank() + 1];
    const std::uint64_t n_local = gid_end_ - gid_begin_;
    const int parts = o.solver == "omp" ? static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(n_local, 4 * o.threads))) : 1;
    const auto first = split_by_weight(weight, gid_begin_, gid_end_, parts);
    for (std::size_t g = 0; g + 1 < first.size(); ++g) {
        if (first[g] == first[g + 1]) continue;
        groups_.push_back(make_cell_group(m, first[g], first[g + 1], o.solver, o.layout, steps_, comm.local_rank()));
        group_first_gid_.push_back(first[g]);
    }
    if (solver_is_gpu(o.solver) && comm.size() > 1 && comm.is_root())
        spdlog::info("{} ranks, {} on this node: each takes its node's GPU (local rank mod GPUs)", comm.size(),
                     comm.local_size());
    exchange_threads_ = choose_exchange_threads();
    setup_s_ = w.lap();
}

int Simulation::choose_exchange_threads() const {
    if (opt_.exchange_threads > 0) return opt_.exchange_threads;
    // A GPU group leaves the host's cores idle while it steps (the main thread only
    // drives the device): the exchange takes all but that one of the cores this process
    // may use (omp_get_num_procs follows its affinity, e.g. an MPI rank's binding), or
    // --threads if more. 32768 busyring cells on an H100 host: 61 s of exchange on one
    // thread, 7 s on 15, against a 33 s GPU solve.
    if (solver_is_gpu(opt_.solver)) return std::max(std::max(1, opt_.threads), std::min(64, omp_get_num_procs() - 1));
    // Unpipelined, the exchange runs while the cell update waits: the update's cores are free.
    if (!opt_.pipeline) return std::max(1, opt_.threads);
    // Pipelined on the CPU, every core is in the update's OpenMP team, whose epoch ends at
    // a barrier: an exchange thread more would slow one of its threads and so all of
    // them. One thread suffices: the exchange is a few per cent of a CPU update (2048
    // busyring cells, omp on 2 threads: 0.55 s of exchange in a 22 s run, all hidden).
    return 1;
}

Simulation::~Simulation() = default;

long Simulation::n_columns() const {
    long n = 0;
    for (const auto& g : groups_) n += g->n_columns();
    return n;
}

RunReport Simulation::run(RecordSink& sink, const std::function<void(double)>& progress) {
    Communicator& comm = *opt_.comm;
    const bool root = comm.is_root();
    const double comm_before = comm.seconds();
    RunReport rep;
    rep.setup_s = setup_s_;
    Stopwatch total;
    const int ng = n_groups();
    const double dt = steps_.dt;
    const long ncol = n_columns();
    auto local = [&](std::uint64_t gid) { return gid >= gid_begin_ && gid < gid_end_; };

    // The exchange's threads, the connections onto this rank's cells split among them,
    // and the queue they fill.
    ThreadTeam team(exchange_threads_);
    auto resolve = [&](std::uint64_t gid, std::uint32_t syn) -> SpikeFanout::Target {
        const int g = static_cast<int>(std::upper_bound(group_first_gid_.begin(), group_first_gid_.end(), gid) -
                                       group_first_gid_.begin()) - 1;
        return {g, groups_[g]->data().target_offset[gid - group_first_gid_[g]] + syn};
    };
    SpikeFanout fanout(model_.connections, gid_begin_, gid_end_, team.size(), resolve, team);
    const long horizon = static_cast<long>(std::ceil(fanout.max_delay() / dt)) + 1;
    EventBuckets queue(ng, epoch_steps_, n_steps_, horizon, team.size());
    for (const auto& gen : model_.generators) {
        if (!local(gen.target)) continue;
        const SpikeFanout::Target to = resolve(gen.target, gen.synapse);
        for (double t : gen.times) queue.push(0, to.group, {delivery_step(t, dt, steps_.rules), t, to.target, gen.weight});
        rep.n_events += gen.times.size();
    }
    std::vector<std::vector<StepEvent>> current(ng), next(ng);

    // What the groups recorded in an epoch, and what the next exchange hands over: this
    // rank's spikes and its frames as rows of its columns (groups in gid order).
    std::vector<std::vector<double>> frames(ng);
    std::vector<std::vector<Spike>> spikes(ng);
    std::vector<Spike> out_spikes;
    std::vector<double> out_rows;
    auto collect = [&]() {
        out_spikes.clear();
        for (auto& s : spikes) {
            out_spikes.insert(out_spikes.end(), s.begin(), s.end());
            s.clear();
        }
        std::size_t nf = 0;
        for (int g = 0; g < ng; ++g)
            if (groups_[g]->n_columns() > 0) nf = frames[g].size() / groups_[g]->n_columns();
        out_rows.resize(nf * ncol);
        long col = 0;
        for (int g = 0; g < ng; ++g) {
            const int gc = groups_[g]->n_columns();
            for (std::size_t f = 0; f < nf && gc > 0; ++f)
                std::copy_n(frames[g].data() + f * gc, gc, out_rows.data() + f * ncol + col);
            col += gc;
            frames[g].clear();
        }
    };

    // Each rank's first failure, by the thread that met it: the update (main thread) or
    // rank 0's sink (exchange thread). A failure is announced at the next exchange.
    std::exception_ptr update_error, exchange_error;

    // One exchange: gather every rank's spikes on every rank (sorted globally), gather the
    // frames on rank 0 and hand both to its sink, queue the events of this rank's
    // incoming connections, and prepare the events of the epoch ending at next_end.
    // `t` is the time the handed-over record reaches. Returns false, having done
    // nothing else, when some rank announced a failure.
    std::vector<Spike> global;
    std::vector<double> rows;
    auto exchange = [&](bool ok, long next_end, double t) -> bool {
        Stopwatch w;
        const ExchangeHeader mine{ok ? 1 : 0, static_cast<std::int64_t>(out_spikes.size()),
                                  static_cast<std::int64_t>(out_rows.size()), ncol};
        const std::vector<ExchangeHeader> head = comm.all_gather(mine);
        std::vector<std::size_t> n_spikes, n_values;
        bool all_ok = true;
        std::size_t any_spikes = 0, any_values = 0;
        for (const auto& h : head) {
            all_ok = all_ok && h.ok != 0;
            n_spikes.push_back(h.n_spikes);
            n_values.push_back(h.n_values);
            any_spikes += h.n_spikes;
            any_values += h.n_values;
        }
        if (!all_ok) {
            rep.exchange_s += w.lap();
            return false;
        }
        global = any_spikes ? comm.all_gather_v(out_spikes, n_spikes) : std::vector<Spike>{};
        std::sort(global.begin(), global.end(), spike_before);
        std::vector<double> gathered = any_values ? comm.gather_v(out_rows, n_values) : std::vector<double>{};
        if (root) {
            try {
                if (any_values > 0) {
                    // Rank r's rows hold its columns; side by side they are the gid order.
                    long ncol_all = 0, nf = -1;
                    for (const auto& h : head) {
                        ncol_all += h.n_columns;
                        if (h.n_columns > 0) {
                            const long f = h.n_values / h.n_columns;
                            if (nf >= 0 && f != nf) throw std::logic_error("ranks recorded different numbers of frames");
                            nf = f;
                        }
                    }
                    rows.resize(nf * ncol_all);
                    std::size_t at = 0;
                    long col = 0;
                    for (const auto& h : head) {
                        for (long f = 0; f < nf && h.n_columns > 0; ++f)
                            std::copy_n(gathered.data() + at + f * h.n_columns, h.n_columns, rows.data() + f * ncol_all + col);
                        at += h.n_values;
                        col += h.n_columns;
                    }
                    sink.frames(rows.data(), nf);
                }
                sink.spikes(global);
                sink.epoch_done(t);
            } catch (...) {
                if (!exchange_error) exchange_error = std::current_exception();
            }
        }
        rep.n_spikes += global.size();
        rep.n_events += fanout.deliver(global, dt, steps_.rules, queue, team);
        if (next_end > 0) queue.take(next, team);
        rep.exchange_s += w.lap();
        return true;
    };

    // Frame 0 goes out with the first exchange, each epoch's record with the next one.
    if (steps_.n_frames > 0)
        for (int g = 0; g < ng; ++g) groups_[g]->initial_frame(frames[g]);
    collect();
    queue.take(current, team);
    bool go = true;
    for (long b = 0; b < n_steps_; b += epoch_steps_) {
        const long e = std::min(b + epoch_steps_, n_steps_);
        const long next_end = e < n_steps_ ? std::min(e + epoch_steps_, n_steps_) : 0;
        const bool ok = !update_error && !exchange_error;
        std::future<bool> ex;
        if (opt_.pipeline) ex = std::async(std::launch::async, exchange, ok, next_end, b * dt);
        if (!update_error) {
            // No more threads than groups: idle OpenMP workers spin at the barrier, on the
            // cores the exchange's team needs (one GPU group: no team at all).
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(opt_.threads, ng)))
            for (int g = 0; g < ng; ++g) {
                try {
                    groups_[g]->advance(b, e, current[g], spikes[g], frames[g]);
                } catch (...) {
#pragma omp critical(arbolito_update_error)
                    if (!update_error) update_error = std::current_exception();
                }
            }
        }
        Stopwatch wait;
        go = opt_.pipeline ? ex.get() : exchange(ok, next_end, b * dt);
        if (opt_.pipeline) rep.exchange_exposed_s += wait.lap();
        if (!go) break;
        collect();
        std::swap(current, next);
        if (progress) progress(e * dt);
    }
    // The last epoch's record, then agree that rank 0's sink took it.
    if (go) go = exchange(!update_error && !exchange_error, 0, n_steps_ * dt);
    if (go) go = comm.all(!update_error && !exchange_error);
    if (!go) {
        if (update_error) std::rethrow_exception(update_error);
        if (exchange_error) std::rethrow_exception(exchange_error);
        throw PeerFailure();
    }
    if (!opt_.pipeline) rep.exchange_exposed_s = rep.exchange_s;

    rep.run_s = total.lap();
    rep.mpi_s = comm.seconds() - comm_before;
    rep.steps = n_steps_;
    rep.ranks = comm.size();
    rep.pipelined = opt_.pipeline;
    for (const auto& g : groups_) {
        rep.phases += g->times();
        rep.n_cv += g->data().n_real_cv();
    }
    if (comm.size() > 1) {
        // Times: the slowest rank's. Phases and counts: summed (spikes are global already).
        double slowest[] = {rep.setup_s, rep.run_s, rep.exchange_s, rep.exchange_exposed_s, rep.mpi_s};
        comm.max(slowest, 5);
        rep.setup_s = slowest[0];
        rep.run_s = slowest[1];
        rep.exchange_s = slowest[2];
        rep.exchange_exposed_s = slowest[3];
        rep.mpi_s = slowest[4];
        PhaseTimes& p = rep.phases;
        double sum[] = {p.events, p.currents, p.assemble, p.solve, p.states, p.detect, p.sample,
                        static_cast<double>(rep.n_cv), static_cast<double>(rep.n_events)};
        comm.sum(sum, 9);
        p = PhaseTimes{sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6]};
        rep.n_cv = std::lround(sum[7]);
        rep.n_events = static_cast<std::size_t>(std::llround(sum[8]));
    }
    return rep;
}

}  // namespace arbolito
