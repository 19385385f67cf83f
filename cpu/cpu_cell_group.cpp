#include "cpu/cpu_cell_group.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/lanes.hpp"
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_currents.hpp"
#include "mechanisms/threshold.hpp"
#include "solvers/lane_hines.hpp"

namespace arbolito {

// 4 also with AVX-512: on busyring one core (bench/RESULTS.md, CPU lanes) 8 lanes took
// twice 4's solve time (eight-wide gathers and scatters where the lanes' parents differ,
// 8 % padding against 3.5 %), and 2 and 4 ran alike: the sweeps are bound by the division's
// throughput per double, which is the same at every width.
int native_lane_width() {
#if defined(__AVX__)
    return 4;
#else
    return 2;
#endif
}

int lanes_for_cells(int width, std::uint64_t cells) {
    while (width > 1 && static_cast<std::uint64_t>(width) > cells) width /= 2;
    return width;
}

const char* native_lane_isa() {
#if defined(__AVX512F__)
    return "AVX-512";
#elif defined(__AVX2__)
    return "AVX2";
#elif defined(__AVX__)
    return "AVX";
#else
    return "SSE2/other";
#endif
}

namespace {

// W consecutive instances, from k, of mechanism M: their parameters, states and constants
// (columns: contiguous loads) and their CVs' voltage.
template <class M, int W>
struct LaneInstances {
    using L = Lanes<W>;
    Values<n_params<M>, L> p;
    Values<n_states<M>, L> s;
    Values<n_derived<M>, L> c;
    L v;
    const int* cv;
    bool contiguous;  // the W CVs are consecutive: vector loads and stores of per-CV values

    // Always inlined: out of line (as GCC left exp2syn's) it loaded everything, where the
    // states phase of a mechanism with step constants reads its states alone.
    [[gnu::always_inline]] LaneInstances(const MechColumns& m, int k, const double* volt) : cv(m.cv + k) {
        // Density instances have distinct CVs (sorted), so consecutive is first + W - 1; point
        // instances may share a CV and always go lane by lane, in instance order.
        contiguous = M::kind == MechKind::density && cv[W - 1] - cv[0] == W - 1;
        v = contiguous ? L::load(volt + cv[0]) : L::gather(volt, cv);
        for (int j = 0; j < n_params<M>; ++j) p[j] = L::load(m.p + static_cast<long>(j) * m.n + k);
        for (int j = 0; j < n_states<M>; ++j) s[j] = L::load(m.s + static_cast<long>(j) * m.n + k);
        for (int j = 0; j < n_derived<M>; ++j) c[j] = L::load(m.c + static_cast<long>(j) * m.n + k);
    }
    void store_states(const MechColumns& m, int k) const {
        for (int j = 0; j < n_states<M>; ++j) s.v[j].store(m.s + static_cast<long>(j) * m.n + k);
    }
    // per_cv[cv] += x, lane by lane in instance order (the scalar loop's order).
    void add(double* per_cv, L x) const {
        if (contiguous)
            (L::load(per_cv + cv[0]) + x).store(per_cv + cv[0]);
        else
            for (int l = 0; l < W; ++l) per_cv[cv[l]] += x[l];
    }
    // The instances' values of a per-CV array.
    L at(const double* per_cv) const { return contiguous ? L::load(per_cv + cv[0]) : L::gather(per_cv, cv); }
};

// The ion values of W instances (gather_ions lane by lane); none without ions.
template <class M, int W>
Values<ion_slot_size * n_ions<M>, Lanes<W>> lane_ions(const LaneInstances<M, W>& in, const MechIons<M>& a) {
    Values<ion_slot_size * n_ions<M>, Lanes<W>> ion;
    for (int j = 0; j < n_ions<M>; ++j) {
        ion[ion_slot_size * j + ion_e] = in.at(a.slot[j].e);
        ion[ion_slot_size * j + ion_xi] = in.at(a.slot[j].xi);
        ion[ion_slot_size * j + ion_xo] = in.at(a.slot[j].xo);
        ion[ion_slot_size * j + ion_i] = in.at(a.slot[j].i);
    }
    return ion;
}

// Instances [k0, k1) of M add their currents to d and rhs: W at a time, the rest one by
// one, each lane's terms instance_terms' (the GPU's and the scalar code's).
// With ions, each instance's ion currents join its ions' currents on its CV (add_ion_currents).
template <class M, int W>
void add_currents(const MechColumns m, const MechIons<M>& ions, int k0, int k1, const double* v, double t_mid,
                  const typename M::Globals& gl, double* d, double* rhs) {
    auto group = [&](auto width, int k) {
        constexpr int N = decltype(width)::value;
        using L = Lanes<N>;
        const LaneInstances<M, N> in(m, k, v);
        L i_m, g_m, dd, dr;
        const auto ion = lane_ions<M, N>(in, ions);
        Values<n_ions<M>, L> ion_i;
        for (int j = 0; j < n_ions<M>; ++j) ion_i[j] = L(0.0);  // a mechanism sets those of the ions it writes
        mech_current<M>(in.v, t_mid, gl, in.p.v, in.s.v, in.c.v, ion.v, i_m, g_m, ion_i.v);
        const L w = M::kind == MechKind::density ? L::load(m.weight + k) : L(1.0);  // weight: density only
        instance_terms<M, L>(i_m, g_m, w, in.v, dd, dr);
        if constexpr (M::kind != MechKind::stimulus) in.add(d, dd);  // a stimulus adds to the rhs only
        in.add(rhs, dr);
        if constexpr (n_ions<M> > 0)
            for (int l = 0; l < N; ++l) {
                double one[n_ions<M>];
                for (int j = 0; j < n_ions<M>; ++j) one[j] = ion_i[j][l];
                add_ion_currents<M>(ions, in.cv[l], one);
            }
    };
    int k = k0;
    for (; k + W <= k1; k += W) group(std::integral_constant<int, W>{}, k);
    for (; k < k1; ++k) group(std::integral_constant<int, 1>{}, k);
}

// Instances [k0, k1) of M advance their states: W at a time, the rest one by one. A
// mechanism with step constants (sc: their columns, n per column) advances through them,
// with the bits of advance and no exp per step.
// With ions, each instance's written concentrations go to its CV at once (NEURON writes
// them at the end of the mechanism's own state update: a later mechanism reads them).
template <class M, int W>
void advance_states(const MechColumns m, const MechIons<M>& ions, const double* sc, int k0, int k1, const double* v,
                    double dt, const typename M::Globals& gl) {
    auto group = [&](auto width, int k) {
        constexpr int N = decltype(width)::value;
        using L = Lanes<N>;
        LaneInstances<M, N> in(m, k, v);
        if constexpr (n_step_derived<M> > 0) {
            Values<n_step_derived<M>, L> c;
            for (int j = 0; j < n_step_derived<M>; ++j) c[j] = L::load(sc + static_cast<long>(j) * m.n + k);
            M::advance_stepped(in.v, gl, in.p.v, in.s.v, in.c.v, c.v);
        } else {
            const auto ion = lane_ions<M, N>(in, ions);
            mech_advance<M>(in.v, dt, gl, in.p.v, in.s.v, in.c.v, ion.v);
        }
        in.store_states(m, k);
        if constexpr (n_ions<M> > 0)
            for (int l = 0; l < N; ++l) {
                double one[n_states<M>];
                for (int j = 0; j < n_states<M>; ++j) one[j] = in.s.v[j][l];
                write_ion_concentrations<M>(ions, in.cv[l], one);
            }
    };
    int k = k0;
    for (; k + W <= k1; k += W) group(std::integral_constant<int, W>{}, k);
    for (; k < k1; ++k) group(std::integral_constant<int, 1>{}, k);
}

}  // namespace

CpuCellGroup::CpuCellGroup(FvmData data, LaneBlocks blocks, const StepSettings& s)
    : f_(std::move(data)), blocks_(std::move(blocks)), s_(s), globals_(all_mechanisms::globals(s.celsius)) {
    const int n = f_.n_cv();
    // Each input array is freed as soon as its run-time array holds it, so that set-up
    // never holds both (busyring 32,768 cells: 1.4 GB less at the peak).
    AssemblyTerms terms = take_assembly_terms(f_, s_.dt);
    d_base_ = std::move(terms.d_base);
    cap_dt_ = std::move(terms.cap_dt);
    rhs_base_ = fold_constant_currents(f_, d_base_);
    u_ = axial_u(f_);
    std::vector<double>().swap(f_.g_parent);
    ions_ = initial_ions(f_);
    mech_ = initial_states(f_, globals_, ions_);
    nernst_where_written(f_, ions_, s_.celsius);
    initial_ion_currents(f_, globals_, mech_, ions_);
    step_derived_ = step_constants(f_, mech_, s_.dt);  // one instance at a time: the scalar code's bits
    ion_cv_.resize(f_.ions.size());
    for (int x = 0; x < n_mechanisms; ++x)
        for (int sp : f_.mech_ions[x]) ion_cv_[sp].insert(ion_cv_[sp].end(), f_.mechs[x].cv.begin(), f_.mechs[x].cv.end());
    for (std::vector<int>& cvs : ion_cv_) {
        std::sort(cvs.begin(), cvs.end());
        cvs.erase(std::unique(cvs.begin(), cvs.end()), cvs.end());
    }
    blown_up_ = first_blown_up(f_);
    v_ = std::move(f_.v_init);
    f_.v_init.clear();
    d_.assign(n, 0.0);
    rhs_.assign(n, 0.0);
    det_v_.resize(f_.detector_cv.size());

    // About 4096 CVs a chunk (at least one block): ~150 bytes of state per CV keeps a chunk
    // within L2.
    constexpr int chunk_cvs = 4096;
    auto range = [](const MechInstances& mi, int cv0, int cv1, int (&out)[2]) {
        out[0] = static_cast<int>(std::lower_bound(mi.cv.begin(), mi.cv.end(), cv0) - mi.cv.begin());
        out[1] = static_cast<int>(std::lower_bound(mi.cv.begin(), mi.cv.end(), cv1) - mi.cv.begin());
    };
    const int W = blocks_.width, nb = blocks_.n_blocks();
    auto block_end = [&](int b) { return blocks_.base[b] + blocks_.rows[b] * W; };
    for (int b = 0; b < nb;) {
        Chunk k{};
        k.block_begin = b;
        k.cv_begin = blocks_.base[b];
        while (b < nb && (b == k.block_begin || block_end(b) - k.cv_begin <= chunk_cvs)) ++b;
        k.block_end = b;
        k.cv_end = block_end(b - 1);
        for (int x = 0; x < n_mechanisms; ++x) range(f_.mechs[x], k.cv_begin, k.cv_end, k.instances[x]);
        auto cv_range = [&](const std::vector<int>& cvs) {
            return std::array<int, 2>{
                static_cast<int>(std::lower_bound(cvs.begin(), cvs.end(), k.cv_begin) - cvs.begin()),
                static_cast<int>(std::lower_bound(cvs.begin(), cvs.end(), k.cv_end) - cvs.begin())};
        };
        for (std::size_t sp = 0; sp < f_.ions.size(); ++sp) {
            k.nernst.push_back(cv_range(f_.ions[sp].nernst_cv));
            k.ion_cvs.push_back(cv_range(ion_cv_[sp]));
        }
        for (int j = k.block_begin * W; j < k.block_end * W; ++j)
            if (blocks_.cell[j] >= 0) k.cells.push_back(blocks_.cell[j]);
        std::sort(k.cells.begin(), k.cells.end());
        chunks_.push_back(std::move(k));
    }
    auto chunk_of_cv = [&](int cv) {
        return static_cast<int>(std::upper_bound(chunks_.begin(), chunks_.end(), cv,
                                                 [](int x, const Chunk& k) { return x < k.cv_begin; }) -
                                chunks_.begin()) - 1;
    };
    for (std::size_t t = 0; t < f_.target_mech.size(); ++t)
        target_chunk_.push_back(chunk_of_cv(f_.mechs[f_.target_mech[t]].cv[f_.target_instance[t]]));
    chunk_probes_.resize(chunks_.size());
    chunk_current_probes_.resize(chunks_.size());
    probe_current_.assign(f_.probe_cv.size(), 0.0);
    for (std::size_t p = 0; p < f_.probe_cv.size(); ++p) {
        const int k = chunk_of_cv(f_.probe_cv[p]);
        chunk_probes_[k].push_back(static_cast<int>(p));
        if (probes_current(f_, p)) {
            chunk_current_probes_[k].push_back(static_cast<int>(p));
            probe_current_[p] = probed_current_at(f_, globals_, mech_, ions_, v_.data(), 0.0, p);
        }
    }
    chunk_events_.resize(chunks_.size());
    base_ready_.assign(chunks_.size(), 0);
    probe_at_ = probe_pointers(f_, v_.data(), mech_, ions_, probe_current_.data());
    release_per_cv_inputs(f_);  // now in cap_dt_, d_base_, u_ and v_
}

void CpuCellGroup::solve_cells_by(CellSolve solve) {
    if (solve && blocks_.width != 1)
        throw std::invalid_argument("CpuCellGroup::solve_cells_by: lanes " + std::to_string(blocks_.width) +
                                    ", a cell's own solve needs lanes 1");
    cell_solve_ = std::move(solve);
}


void CpuCellGroup::deliver(const StepEvent& e) {
    const int x = f_.target_mech[e.target], k = f_.target_instance[e.target];
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (M::kind == MechKind::synapse) {
            if (x != mech_index<M>) return;
            const MechColumns m = columns(x);
            Instance<M> in(m, k);
            M::on_event(e.weight, in.p.v, in.s.v, in.c.v);
            in.store_states(m, k);
        }
    });
}

std::vector<double> CpuCellGroup::voltages() const { return natural_order(f_, v_.data()); }

std::vector<double> CpuCellGroup::state() const {
    std::vector<double> s = v_;
    for (const MechState& m : mech_) s.insert(s.end(), m.states.begin(), m.states.end());
    return s;
}

void CpuCellGroup::set_state(const std::vector<double>& s) {
    if (s.size() != state_size(f_)) throw std::invalid_argument("CpuCellGroup::set_state: wrong size");
    auto from = s.begin();
    std::copy_n(from, v_.size(), v_.begin());
    std::fill(base_ready_.begin(), base_ready_.end(), 0);  // assembled from the old v
    from += static_cast<long>(v_.size());
    for (MechState& m : mech_) {
        std::copy_n(from, m.states.size(), m.states.begin());
        from += static_cast<long>(m.states.size());
    }
    write_all_ion_concentrations(f_, mech_, ions_);
    nernst_where_written(f_, ions_, s_.celsius);
}

void CpuCellGroup::ions_begin(int chunk) {
    const Chunk& ck = chunks_[chunk];
    for (std::size_t s = 0; s < ions_.size(); ++s) {
        IonState& st = ions_[s];
        for (int q = ck.ion_cvs[s][0]; q < ck.ion_cvs[s][1]; ++q) st.i[ion_cv_[s][q]] = 0.0;
        const IonSpecies& sp = f_.ions[s];
        for (int q = ck.nernst[s][0]; q < ck.nernst[s][1]; ++q) {
            const int cv = sp.nernst_cv[q];
            st.e[cv] = nernst(st.xi[cv], st.xo[cv], sp.valence, s_.celsius);
        }
    }
}

void CpuCellGroup::initial_frame(std::vector<double>& frames) {
    if (!probe_at_.empty()) {
        for (const double* at : probe_at_) frames.push_back(*at);
        return;
    }
    for (int cv : f_.probe_cv) frames.push_back(v_[cv]);
}

void CpuCellGroup::advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                           std::vector<Spike>& spikes, std::vector<double>& frames) {
    // The epoch's frames: rows of every probe, filled chunk by chunk.
    long first_frame = -1, n_frames = 0;
    for (long n = step_begin; n < step_end; ++n)
        if (const long f = s_.frame_after(n); f >= 0) {
            if (first_frame < 0) first_frame = f;
            ++n_frames;
        }
    const std::size_t n_probes = f_.probe_cv.size(), base = frames.size();
    frames.resize(base + n_frames * n_probes);

    Stopwatch w;
    for (auto& e : chunk_events_) e.clear();
    for (std::size_t i = 0; i < events.size(); ++i) chunk_events_[target_chunk_[events[i].target]].push_back(static_cast<int>(i));
    times_.events += w.lap();

    blown_up_ = {};
    begin_epoch();
    for (int k = 0; k < static_cast<int>(chunks_.size()); ++k) {
        auto run = [&](auto width) {
            return run_chunk<decltype(width)::value>(k, step_begin, step_end, events, spikes, frames.data() + base,
                                                     first_frame);
        };
        const bool done = blocks_.width == 1   ? run(std::integral_constant<int, 1>{})
                          : blocks_.width == 2 ? run(std::integral_constant<int, 2>{})
                          : blocks_.width == 4 ? run(std::integral_constant<int, 4>{})
                                               : run(std::integral_constant<int, 8>{});
        if (!done) return;  // a stop asked for: no more than a chunk's step later
        // Once per chunk and epoch, while its v is in cache: chunks run in CV order, so
        // the first hit is the lowest index.
        if (!blown_up_)
            for (int i = chunks_[k].cv_begin; i < chunks_[k].cv_end; ++i)
                if (blown_up(v_[i])) {
                    blown_up_ = {i, v_[i]};
                    break;
                }
    }
}

void CpuCellGroup::detect_chunk(int chunk, double t, std::vector<Spike>& spikes) const {
    for (int c : chunks_[chunk].cells) {
        for (auto k = f_.detector_offset[c]; k < f_.detector_offset[c + 1]; ++k) {
            const double v0 = det_v_[k], v1 = v_[f_.detector_cv[k]], th = f_.detector_threshold[k];
            if (threshold::crossed(v0, v1, th)) {
                const double ts = threshold::crossing_time(t, s_.dt, v0, v1, th, s_.rules == EventRules::neuron);
                spikes.push_back({f_.gids[c], static_cast<std::uint32_t>(k - f_.detector_offset[c]), ts});
            }
        }
    }
}

// Step n of a chunk, phase by phase; run_step calls them in order. Each phase adds its
// time to the group's times_ (one clock read per phase boundary). The per-CV arrays are
// taken as local restrict pointers: Lanes' loads and stores (memcpy) may alias any object,
// so through the members the compiler would reload every pointer every row. The phases
// from assemble to states are always inlined: GCC's size limits would otherwise leave
// some mechanisms' lane loops out of line at some widths.
template <int W>
struct CpuCellGroup::ChunkStep {
    using L = Lanes<W>;
    CpuCellGroup& g;
    const int k;  // the chunk
    const Chunk& ck;
    const std::vector<StepEvent>& epoch_events;
    const std::vector<int>& chunk_events;  // indices into epoch_events, in order
    std::vector<Spike>& spikes;
    double* const frames;  // the epoch's: row 0 is frame first_frame
    const long first_frame;
    Stopwatch& w;
    long n = 0;    // the step
    double t = 0;  // its start
    std::size_t next_event = 0;

    void enter(Phase p) { g.trace_phase(p); }

    void events() {
        for (; next_event < chunk_events.size() && epoch_events[chunk_events[next_event]].step == n; ++next_event)
            g.deliver(epoch_events[chunk_events[next_event]]);
        g.times_.events += w.lap();
    }

    // Groups without ions: nothing (ions_begin's comment in the header).
    void ions_begin() {
        if (!g.ions_.empty()) g.ions_begin(k);
    }

    // The previous step's solve did it already (in the rows it had just solved), unless v
    // was set since.
    [[gnu::always_inline]] void assemble() {
        const double* __restrict v = g.v_.data();
        double* __restrict d = g.d_.data();
        double* __restrict rhs = g.rhs_.data();
        const double* __restrict d_base = g.d_base_.data();
        const double* __restrict cap_dt = g.cap_dt_.data();
        const double* __restrict rhs_base = g.rhs_base_.data();
        auto assemble_rows = [&](int i, L vi) {
            L di, ri;
            assemble_precomputed(L::load(d_base + i), L::load(cap_dt + i), L::load(rhs_base + i), vi, di, ri);
            di.store(d + i);
            ri.store(rhs + i);
        };
        if (!g.base_ready_[k])
            for (int i = ck.cv_begin; i < ck.cv_end; i += W) assemble_rows(i, L::load(v + i));
        g.times_.assemble += w.lap();
    }

    // Mechanism after mechanism, in list order: the order of the additions to d and rhs.
    [[gnu::always_inline]] void currents() {
        const double* __restrict v = g.v_.data();
        double* __restrict d = g.d_.data();
        double* __restrict rhs = g.rhs_.data();
        const double t_mid = t + 0.5 * g.s_.dt;
        all_mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int x = mech_index<M>;
            if constexpr (!M::constant_terms)  // in the assembly's terms
                add_currents<M, W>(g.columns(x), g.template ions_of<M>(), ck.instances[x][0], ck.instances[x][1], v,
                                   t_mid, std::get<x>(g.globals_), d, rhs);
        });
        if (!g.chunk_current_probes_[k].empty() && g.s_.frame_after(n) >= 0)  // at the step's start, for its end's frame
            for (int p : g.chunk_current_probes_[k])
                g.probe_current_[p] = probed_current_at(g.f_, g.globals_, g.mech_, g.ions_, v, t_mid, p);
        g.times_.currents += w.lap();
    }

    // Detectors keep the voltage of the step's start; the solution replaces v, and each row
    // solved gets the next step's assembly terms at once.
    [[gnu::always_inline]] void solve() {
        double* __restrict v = g.v_.data();
        double* __restrict d = g.d_.data();
        double* __restrict rhs = g.rhs_.data();
        const double* __restrict d_base = g.d_base_.data();
        const double* __restrict cap_dt = g.cap_dt_.data();
        const double* __restrict rhs_base = g.rhs_base_.data();
        const FvmData& f = g.f_;
        const LaneBlocks& blocks = g.blocks_;
        for (int c : ck.cells)
            for (auto j = f.detector_offset[c]; j < f.detector_offset[c + 1]; ++j) g.det_v_[j] = v[f.detector_cv[j]];
        // The pointers by value: captured by reference they were reloaded from the stack
        // after every store of the sweep (a store through double* may alias them).
        auto assemble_rows = [d_base, cap_dt, rhs_base, d, rhs](int i, L vi) {
            L di, ri;
            assemble_precomputed(L::load(d_base + i), L::load(cap_dt + i), L::load(rhs_base + i), vi, di, ri);
            di.store(d + i);
            ri.store(rhs + i);
        };
        if (!g.cell_solve_) {
            for (int b = ck.block_begin; b < ck.block_end; ++b)
                lane_hines_solve<W>(blocks, b, f.layout.parent.data(), d, g.u_.data(), rhs, v, assemble_rows);
        } else if constexpr (W == 1) {  // (solve_cells_by: lanes 1) a block is a cell
            for (int b = ck.block_begin; b < ck.block_end; ++b) {
                const int first = blocks.base[b], last = first + blocks.rows[b];
                g.cell_solve_(first, last, f.layout.parent.data(), d, g.u_.data(), rhs);
                for (int i = first; i < last; ++i) {  // the solution, and the next step's base from it
                    v[i] = rhs[i];
                    assemble_rows(i, L::load(v + i));
                }
            }
        }
        g.base_ready_[k] = 1;
        g.times_.solve += w.lap();
    }

    [[gnu::always_inline]] void states() {
        const double* __restrict v = g.v_.data();
        all_mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int x = mech_index<M>;
            if constexpr (n_states<M> > 0)
                advance_states<M, W>(g.columns(x), g.template ions_of<M>(), g.step_derived_[x].data(), ck.instances[x][0],
                                     ck.instances[x][1], v, g.s_.dt, std::get<x>(g.globals_));
        });
        g.times_.states += w.lap();
    }

    // The written concentrations reached the ions in the states phase, each mechanism's
    // right after its own advance (NEURON's order): nothing is left for this hook.
    void ions_end() {}

    void detect() {
        g.detect_chunk(k, t, spikes);
        g.times_.detect += w.lap();
    }

    void sample() {
        if (const long f = g.s_.frame_after(n); f >= 0) {
            double* row = frames + (f - first_frame) * static_cast<long>(g.f_.probe_cv.size());
            if (g.probe_at_.empty())
                for (int p : g.chunk_probes_[k]) row[p] = g.v_[g.f_.probe_cv[p]];
            else
                for (int p : g.chunk_probes_[k]) row[p] = *g.probe_at_[p];
            g.times_.sample += w.lap();
        }
    }
};

template <int W>
bool CpuCellGroup::run_chunk(int k, long step_begin, long step_end, const std::vector<StepEvent>& events,
                             std::vector<Spike>& spikes, double* frames, long first_frame) {
    Stopwatch w;
    ChunkStep<W> s{*this, k, chunks_[k], events, chunk_events_[k], spikes, frames, first_frame, w};
    for (long n = step_begin; n < step_end; ++n) {
        if (stop_now()) return false;
        s.n = n;
        s.t = n * s_.dt;
        run_step(s);
    }
    return true;
}

}  // namespace arbolito
