#include "run/simulation.hpp"
#include "run/solver_auto.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <omp.h>
#include <spdlog/spdlog.h>

#include "core/free_heap.hpp"
#include "model/connection_rules.hpp"
#include "run/decomposition.hpp"
#include "run/gpu_binding.hpp"
#include "run/epoch_times.hpp"
#include "run/event_buckets.hpp"
#include "run/exchange_worker.hpp"
#include "lowered_cell/voltage_blowup.hpp"
#include "run/exchange_lanes.hpp"
#include "run/timeline.hpp"

namespace arbolito {

Simulation::Simulation(const Model& m, const SimOptions& o)
    : model_(m), opt_(o), solver_(resolve_auto(o.solver, m, o.threads, !o.comm || o.comm->is_root())) {
    Stopwatch w, phase;
    auto phase_done = [&](const char* name) { setup_phases_.emplace_back(name, phase.lap()); };
    if (!opt_.comm) opt_.comm = std::make_shared<SerialCommunicator>();
    const Communicator& comm = *opt_.comm;
    const RunSettings& r = m.run;
    steps_ = step_settings(r, o.record_samples);
    n_steps_ = run_steps(r);

    const double min_delay = min_connection_delay(m);  // the same on every rank: rules are part of the model
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
    const auto weight = cv_counts(m, *opt_.comm);  // before anything that may fail on one rank only
    const auto ranks = split_by_weight(weight, 0, m.cells.size(), comm.size());
    phase_done("cv_counts");
    gid_begin_ = ranks[comm.rank()];
    gid_end_ = ranks[comm.rank() + 1];
    const std::uint64_t n_local = gid_end_ - gid_begin_;
    const int per_thread = solver_.solver->groups_per_thread;
    const bool gpu = solver_.solver->needs_cuda;
    const long wanted = gpu ? bind_devices() : per_thread > 0 ? static_cast<long>(per_thread) * o.threads : 1;
    const int parts = static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(n_local, wanted)));
    const auto first = split_by_weight(weight, gid_begin_, gid_end_, parts);
    for (std::size_t g = 0; g + 1 < first.size(); ++g)
        if (first[g] < first[g + 1]) group_first_gid_.push_back(first[g]);
    const long ng = static_cast<long>(group_first_gid_.size());
    groups_.resize(ng);
    if (gpu) {
        group_device_.resize(ng);  // bind_devices planned `wanted` devices; parts left empty take none
        log_gpu_groups(weight);
    }
    auto make = [&](long g) {
        const std::uint64_t end = g + 1 < ng ? group_first_gid_[g + 1] : gid_end_;
        groups_[g] = solver_.solver->make_group(m, group_first_gid_[g], end, solver_.options, steps_,
                                                gpu ? group_device_[g] : 0);
    };
    if (gpu && ng > 1) {
        // Each GPU group is built on its own host thread (its device's calls in order there),
        // the groups side by side; the first failure in gid order is the one reported.
        group_threads_ = std::make_unique<GroupThreads>(static_cast<int>(ng));
        group_threads_->run([&](int g) { make(g); });
    } else if (ng > 1) {
        // CPU groups are built side by side, a thread each (the loops inside them then run
        // on that thread): each group's serial parts (layout, instances) would otherwise
        // leave the other cores idle. The first failure in gid order is the one reported.
        std::vector<std::exception_ptr> failed(ng);
#pragma omp parallel for schedule(dynamic, 1)
        for (long g = 0; g < ng; ++g) {
            try {
                make(g);
            } catch (...) {
                failed[g] = std::current_exception();
            }
        }
        for (const auto& e : failed)
            if (e) std::rethrow_exception(e);
    } else {
        for (long g = 0; g < ng; ++g) make(g);
    }
    phase_done("cell_groups");
    return_free_heap();  // the groups' set-up scratch, before the fan-out's
    phase_done("free_heap");
    exchange_threads_ = choose_exchange_threads();
    // Only the connections onto this rank's cells, drawn lane by lane (a busyring of
    // 32,768 cells has 32.8 million connections, 1.6 GB; each rank draws its share).
    std::vector<std::uint64_t> bounds = group_first_gid_;
    bounds.push_back(gid_end_);
    lanes_ = std::make_unique<ExchangeLanes>(
        bounds, exchange_threads_, [&m](std::uint64_t b, std::uint64_t e) { return connections_onto(m, b, e); },
        [this](std::uint64_t gid, std::uint32_t syn) { return target_of(gid, syn); });
    return_free_heap();  // the connections drawn for the fan-out
    phase_done("connections_fanout");
    setup_s_ = w.lap();
}

int Simulation::bind_devices() {
    const Communicator& comm = *opt_.comm;
    const int visible = visible_gpus();
    try {
        // No device: the group's set-up says so (make_gpu_group).
        group_device_ = visible == 0 ? std::vector<int>{0}
                                     : bind_gpus(visible, comm.local_rank(), comm.local_size(),
                                                 {opt_.gpus, opt_.first_gpu}).devices;
    } catch (...) {
        // Reported after the log's collective, which every rank joins (bad_binding_).
        bad_binding_ = std::current_exception();
        group_device_ = {0};
    }
    return static_cast<int>(group_device_.size());
}

void Simulation::log_gpu_groups(const std::vector<double>& weight) {
    Communicator& comm = *opt_.comm;
    std::string lines;
    const long ng = static_cast<long>(group_first_gid_.size());
    for (long g = 0; g < ng; ++g) {
        const std::uint64_t b = group_first_gid_[g], e = g + 1 < ng ? group_first_gid_[g + 1] : gid_end_;
        double cvs = 0;
        for (std::uint64_t i = b; i < e; ++i) cvs += weight[i];
        lines += (comm.size() > 1 ? "rank " + std::to_string(comm.rank()) + " (local " + std::to_string(comm.local_rank()) +
                                        " of " + std::to_string(comm.local_size()) + "): "
                                  : std::string()) +
                 "GPU " + describe_gpu(group_device_[g]) + ": cells " + std::to_string(b) + " to " +
                 std::to_string(e - 1) + ", " + std::to_string(static_cast<long long>(cvs)) + " CVs\n";
    }
    // Every rank's lines, logged by rank 0 in rank order: one place to see the whole binding.
    const std::vector<char> all = comm.gather(std::vector<char>(lines.begin(), lines.end()));
    if (comm.is_root()) {
        std::string text(all.begin(), all.end());
        for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
            spdlog::info("{}", text.substr(at, nl - at));
    }
    if (bad_binding_) std::rethrow_exception(bad_binding_);
}

int Simulation::choose_exchange_threads() const {
    if (opt_.exchange_threads > 0) return opt_.exchange_threads;
    // A GPU group leaves the host's cores idle while it steps (its host thread only
    // drives the device): the exchange takes all but the groups' threads' cores of those this process
    // may use (omp_get_num_procs follows its affinity, e.g. an MPI rank's binding), or
    // --threads if more. 32768 busyring cells on an H100 host: 61 s of exchange on one
    // thread, 7 s on 15, against a 33 s GPU solve.
    if (solver_.solver->needs_cuda)
        return std::max(std::max(1, opt_.threads), std::min(64, omp_get_num_procs() - n_groups()));
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

void Simulation::collect(std::vector<std::vector<Spike>>& spikes, std::vector<std::vector<double>>& frames,
                         std::vector<Spike>& out_spikes, std::vector<double>& out_rows) const {
    const int ng = n_groups();
    const long ncol = n_columns();
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
        place_columns(frames[g].data(), nf, gc, out_rows.data(), ncol, col);
        col += gc;
        frames[g].clear();
    }
}

SpikeFanout::Target Simulation::target_of(std::uint64_t gid, std::uint32_t synapse) const {
    const int g = static_cast<int>(std::upper_bound(group_first_gid_.begin(), group_first_gid_.end(), gid) -
                                   group_first_gid_.begin()) - 1;
    return {g, groups_[g]->data().event_target(static_cast<int>(gid - group_first_gid_[g]), synapse)};
}

std::size_t Simulation::queue_generators(ExchangeLanes& lanes) const {
    std::size_t n = 0;
    for (const auto& gen : model_.generators) {
        if (gen.target < gid_begin_ || gen.target >= gid_end_) continue;
        const SpikeFanout::Target to = target_of(gen.target, gen.synapse);
        // Queued only where due within the run: a run shorter than the model's (--tfinal)
        // would queue, and carry from epoch to epoch, the rest for nothing (the 10,000-cell
        // Allen network over 50 of its 1,000 ms: 5 million events, 1 % of the run on one
        // thread). Counted all the same: n_events counts every event, delivered or not.
        for (double t : gen.times)
            if (const long step = delivery_step(t, steps_.dt, steps_.rules); step < n_steps_)
                lanes.push(to.group, {step, t, to.target, gen.weight});
        n += gen.times.size();
    }
    return n;
}

void Simulation::fill_report(RunReport& rep) const {
    rep.steps = n_steps_;
    rep.ranks = opt_.comm->size();
    rep.pipelined = opt_.pipeline;
    for (const auto& g : groups_) {
        rep.phases += g->times();
        rep.n_cv += g->data().n_real_cv();
    }
}

std::exception_ptr Simulation::check_blow_up(long b, long e) const {
    for (const auto& g : groups_)
        if (const BlownUpCv bad = g->first_blown_up_v())
            return std::make_exception_ptr(voltage_blowup(model_, g->data(), bad, b * steps_.dt, e * steps_.dt));
    return nullptr;
}

RunReport Simulation::run(RecordSink& sink, const std::function<void(double)>& progress,
                          const std::function<bool()>& stop_requested) {
    Communicator& comm = *opt_.comm;
    const double comm_before = comm.seconds();
    RunReport rep;
    rep.setup_s = setup_s_;
    Stopwatch total;
    timeline::mark("run begin");
    const int ng = n_groups();
    const double dt = steps_.dt;

    // The queues the exchange's lanes fill, holding the generators' events from the start.
    ExchangeLanes& lanes = *lanes_;
    lanes.start_run(epoch_steps_, n_steps_, dt);
    rep.n_events += queue_generators(lanes);
    std::vector<std::vector<StepEvent>> current(ng), next(ng);

    // What the groups recorded in an epoch, and what the next exchange hands over.
    std::vector<std::vector<double>> frames(ng);
    std::vector<std::vector<Spike>> spikes(ng);
    std::vector<Spike> out_spikes;
    std::vector<double> out_rows;

    // One exchange: every rank's spikes and rank 0's sink (RecordExchange), then the events
    // of this rank's incoming connections and those of the epoch ending at next_end. `t`
    // is the time the handed-over record reaches. False when some rank failed.
    RecordExchange records(comm, sink, n_columns());
    double exchange_last_s = 0;  // the latest exchange's seconds (read after it is joined)
    auto exchange = [&](bool ok, bool stop, long next_begin, long next_end, double t) -> bool {
        Stopwatch w;
        timeline::mark("exchange begin", next_begin);
        const bool go = records.exchange(ok, stop, out_spikes, out_rows, t);
        if (go) {
            rep.n_spikes += records.spikes().size();
            timeline::mark("spikes exchanged", next_begin);
            // The groups' part, lane by lane side by side (run/exchange_lanes.hpp): their
            // events queued, the next epoch's taken and handed to each group at once (a GPU
            // group packs them for its device), one prepare per group at a time.
            rep.n_events += lanes.deliver(records.spikes(), dt, steps_.rules, next_begin, next_end > 0 ? &next : nullptr,
                                          [&](int g) { groups_[g]->prepare(next_begin, next_end, next[g]); });
        }
        timeline::mark("exchange end", next_begin);
        exchange_last_s = w.lap();
        rep.exchange_s += exchange_last_s;
        return go;
    };
    // The update's first failure (main thread); rank 0's sink keeps its own. A failure is
    // announced at the next exchange.
    std::exception_ptr update_error;
    auto all_well = [&] { return !update_error && !records.sink_error(); };

    // An initial voltage blown up already stops the run before frame 0 is handed out.
    update_error = check_blow_up(0, 0);
    // Frame 0 goes out with the first exchange, each epoch's record with the next one.
    if (steps_.n_frames > 0)
        for (int g = 0; g < ng; ++g) groups_[g]->initial_frame(frames[g]);
    collect(spikes, frames, out_spikes, out_rows);
    lanes.take(current);
    for (int g = 0; g < ng && n_steps_ > 0; ++g) groups_[g]->prepare(0, std::min(epoch_steps_, n_steps_), current[g]);
    bool go = true;
    long reached = n_steps_;  // the step the run ends at
    // Groups that can stop part-way through an epoch ask between steps.
    for (auto& g : groups_) g->set_stop_check(stop_requested);
    struct Unset {
        std::vector<std::unique_ptr<CellGroup>>& groups;
        ~Unset() {
            for (auto& g : groups) g->set_stop_check({});
        }
    } unset{groups_};
    // The order CPU groups are handed to the update's threads: the previous epoch's
    // costliest first (longest processing time first). Groups of equal CVs differ in cost
    // (the 10,000-cell Allen network: 1.6x between its fits' groups, whose cells bring
    // different counts of somata and channels), and handed out in gid order the costliest
    // came last: replayed on their measured times, 16 threads' epochs took 1.11x the even
    // share, 1.05x so (bench/RESULTS.md). The order changes no result: groups do not
    // depend on one another within an epoch. Before the first epoch, a group's cells stand
    // for its cost (of equal CVs, the group of more cells has more somata).
    std::vector<int> order(ng);
    std::vector<double> group_cost(ng);  // the latest epoch's seconds, per group
    for (int g = 0; g < ng; ++g) {
        order[g] = g;
        group_cost[g] = static_cast<double>((g + 1 < ng ? group_first_gid_[g + 1] : gid_end_) - group_first_gid_[g]);
    }
    auto costliest_first = [&] {
        std::stable_sort(order.begin(), order.end(), [&](int a, int c) { return group_cost[a] > group_cost[c]; });
    };
    costliest_first();
    // Pipelined: one thread for the run's exchanges, handed each epoch's (declared after
    // everything the exchange reads, so that it is joined before they go).
    std::vector<EpochTimes> epoch_times;  // with opt_.epoch_times
    std::unique_ptr<ExchangeWorker> worker;
    if (opt_.pipeline) worker = std::make_unique<ExchangeWorker>();
    for (long b = 0; b < n_steps_; b += epoch_steps_) {
        const long e = std::min(b + epoch_steps_, n_steps_);
        const long next_end = e < n_steps_ ? std::min(e + epoch_steps_, n_steps_) : 0;
        const bool ok = all_well();
        const bool stop = stop_requested && stop_requested();
        Stopwatch epoch_wall;
        if (opt_.pipeline)
            worker->start([&exchange, ok, stop, e, next_end, t = b * dt] { return exchange(ok, stop, e, next_end, t); });
        timeline::mark("update begin", b);
        Stopwatch update_wall;
        EpochTimes times;
        if (opt_.epoch_times) times.integrate.assign(ng, 0.0);
        // Group g's advance, timed for the epoch table and marked for the timeline.
        auto advance = [&](int g) {
            timeline::mark("group update begin", b);
            Stopwatch w;
            groups_[g]->advance(b, e, current[g], spikes[g], frames[g]);
            group_cost[g] = w.lap();
            if (opt_.epoch_times) times.integrate[g] = group_cost[g];
            timeline::mark("group update end", b);
        };
        if (!update_error) {
            // No more threads than groups: idle OpenMP workers spin at the barrier, on the
            // cores the exchange's team needs (one GPU group: no team at all).
            if (group_threads_) {
                // GPU groups: each on its own host thread, the devices side by side.
                try {
                    group_threads_->run(advance);
                } catch (...) {
                    update_error = std::current_exception();
                }
            } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(opt_.threads, ng)))
                for (int i = 0; i < ng; ++i) {
                    try {
                        advance(order[i]);
                    } catch (...) {
#pragma omp critical(arbolito_update_error)
                        if (!update_error) update_error = std::current_exception();
                    }
                }
                costliest_first();
            }
            // Once per epoch: a voltage gone to NaN or inf ends the run here, so that the
            // epoch's record never reaches the sink.
            if (!update_error) update_error = check_blow_up(b, e);
        }
        timeline::mark("update end", b);
        times.update = update_wall.lap();
        Stopwatch wait;
        go = opt_.pipeline ? worker->wait() : exchange(ok, stop, e, next_end, b * dt);
        times.exposed = wait.lap();
        if (opt_.pipeline) rep.exchange_exposed_s += times.exposed;
        timeline::mark("exchange joined", b);
        if (!go) break;
        // A stop asked for while the epoch integrated: a group left it unfinished
        // (abandoned), or it was asked after the groups' last step. Every rank agrees on
        // both (one reduction, with several ranks), so that all end at the same step: the
        // epoch's start where any rank abandoned it, else its end.
        bool abandoned = false;
        for (const auto& g : groups_) abandoned = abandoned || g->abandoned();
        bool stop_now = !abandoned && e < n_steps_ && stop_requested && stop_requested();
        if (comm.size() > 1 && stop_requested) {
            double flags[2] = {abandoned ? 1.0 : 0.0, stop_now ? 1.0 : 0.0};
            comm.max(flags, 2);
            // On the update's thread, between epochs: its wait for the slowest rank shows
            // between `exchange joined` and this mark.
            timeline::mark("stop agreed", b);
            abandoned = flags[0] > 0;
            stop_now = flags[1] > 0;
        }
        if (abandoned) {
            // Its record is dropped (this exchange handed out the previous epoch's).
            for (int g = 0; g < ng; ++g) spikes[g].clear(), frames[g].clear();
            out_spikes.clear();
            out_rows.clear();
            reached = b;
            break;
        }
        collect(spikes, frames, out_spikes, out_rows);
        std::swap(current, next);
        if (progress) progress(e * dt);
        if (opt_.epoch_times) {
            times.step = b;
            times.exchange = exchange_last_s;
            times.wall = epoch_wall.lap();
            epoch_times.push_back(std::move(times));
        }
        // Every rank learnt of a stop request at the same exchange or reduction: all end at e.
        if ((records.stop_agreed() || stop_now) && e < n_steps_) {
            reached = e;
            break;
        }
    }
    // The last epoch's record, then agree that rank 0's sink took it.
    if (go) go = exchange(all_well(), false, 0, 0, reached * dt);
    if (go) go = comm.all(all_well());
    timeline::mark("run end");
    // Every rank got here with the same go (agreed above): the table's gather is collective.
    if (go && opt_.epoch_times) epoch_table_ = gather_epoch_times(comm, epoch_times);
    if (!go) {
        if (update_error) std::rethrow_exception(update_error);
        if (records.sink_error()) std::rethrow_exception(records.sink_error());
        throw PeerFailure();
    }
    if (!opt_.pipeline) rep.exchange_exposed_s = rep.exchange_s;

    rep.run_s = total.lap();
    rep.mpi_s = comm.seconds() - comm_before;
    fill_report(rep);
    rep.steps = reached;
    rep.stopped = reached < n_steps_;
    rep.t_end = reached * dt;
    reduce_over_ranks(rep, comm);
    return rep;
}

}  // namespace arbolito
