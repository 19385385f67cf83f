// The GPU cell group: state on the device from set-up to the end, kernels for every
// phase of the step, one copy in (events) and out (spikes, frames) per epoch.
#include "gpu/gpu_cell_group.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/event_queue.hpp"
#include "gpu/gpu_solve.hpp"
#include "gpu/phase_timer.hpp"
#include "gpu/resident_epoch.hpp"
#include "run/timeline.hpp"
#include "core/gpu/device_scope.hpp"
#include "core/gpu/memory.hpp"
#include "gpu/step_kernels.cuh"
#include "mechanisms/catalogue.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu_cell_layout.hpp"

namespace arbolito {

namespace gpu {
namespace {

constexpr int threads_per_block = 256;  // a multiple of 32: point_sum needs whole warps

unsigned blocks_for(long n) { return static_cast<unsigned>((n + threads_per_block - 1) / threads_per_block); }

// An empty name: the solver's default (make_gpu_cell_plan).
std::optional<CellKernel> cell_kernel(const std::string& name) {
    if (name.empty()) return std::nullopt;
    if (const auto k = cell_kernel_named(name)) return k;
    throw std::invalid_argument("unknown gpu-cell solve kernel '" + name + "'");
}

// One thread per cell leaves most of the GPU idle when cells are few; then small blocks
// spread the warps over more multiprocessors (each with its own L1 and load pipeline).
int solve_threads(int requested, int n_slots) {
    if (requested > 0) return requested;
    return n_slots < 128 * 2 * device_shape().sms ? 32 : 128;
}

// One mechanism's instances on the device: parameters, states and constants by column,
// then instance. The weights (area scaling) only for density mechanisms: a point
// mechanism's are all 1 and its kernel does not read them.
struct DeviceMech {
    int n = 0;
    DeviceArray<int> cv;
    DeviceArray<double> weight, p, s, c;
    DeviceArray<double> k;  // step constants (step_constants), where M has step_derived

    DeviceMech() = default;
    DeviceMech(const MechInstances& mi, const MechState& st, const std::vector<double>& step, bool density)
        : n(mi.size()), cv(mi.cv), weight(density ? DeviceArray<double>(mi.weight) : DeviceArray<double>()),
          p(mi.params), s(st.states), c(st.derived), k(step) {}
    MechColumns columns() {
        return {n, cv.data(), weight.data(), p.data(), s.data(), c.data(), k.size() > 0 ? k.data() : nullptr};
    }
};

// One ion species on the device: per CV e, Xi, Xo and i, and the CVs where e follows Nernst.
struct DeviceIon {
    int valence = 1;
    DeviceArray<double> e, xi, xo, i;
    DeviceArray<int> nernst_cv;
    IonArrays arrays() { return {e.data(), xi.data(), xo.data(), i.data()}; }
};

// The matrix's constant per-CV terms on the device: the off-diagonal (axial_u) and the
// assembly's terms (take_assembly_terms).
struct DeviceElectrical {
    DeviceArray<double> u, d_base, cap_dt;
};

// Made from f's per-CV electrical arrays, which it frees: build_fvm hands them over before
// it lists the instances (FvmElectricalTaker), so that set-up never holds both on the host.
// Padding rows must read d = 1, u = 0, rhs = 0 at every solve: u = 0, and the assembly's
// terms (the CPU group's too) with v = 0 give the rest.
DeviceElectrical upload_electrical(FvmData& f, double dt) {
    DeviceElectrical e;
    {
        std::vector<double> u = axial_u(f);
        for (int x : f.layout.padding) u[x] = 0.0;
        e.u = DeviceArray<double>(u);
    }
    std::vector<double>().swap(f.g_parent);
    const AssemblyTerms terms = take_assembly_terms(f, dt);
    e.d_base = DeviceArray<double>(terms.d_base);
    e.cap_dt = DeviceArray<double>(terms.cap_dt);
    return e;
}

class GpuCellGroup final : public CellGroup {
public:
    // Constructed with `device` current (make_gpu_group); every later call makes it current
    // for itself (DeviceScope), whatever thread it comes from. `electrical`: f's, uploaded.
    GpuCellGroup(FvmData data, DeviceElectrical electrical, const StepSettings& s, const GpuGroupOptions& o,
                 std::unique_ptr<GpuSolve> solve, int device);
    ~GpuCellGroup() override {  // no throw from a destructor
        // The device stays current until the last member is gone (release_scope_ is the
        // first member: it restores the caller's device last).
        release_scope_.enter_quietly(device_);
        if (stream_) cudaStreamDestroy(stream_);
        for (cudaEvent_t e : piece_events_)
            if (e) cudaEventDestroy(e);
    }
    void prepare(long step_begin, long step_end, const std::vector<StepEvent>& events) override;
    void advance(long step_begin, long step_end, const std::vector<StepEvent>& events, std::vector<Spike>& spikes,
                 std::vector<double>& frames) override;
    void initial_frame(std::vector<double>& frames) override;
    const FvmData& data() const override { return f_; }
    const PhaseTimes& times() const override { return times_; }
    std::vector<double> voltages() const override;
    std::vector<double> state() const override;
    void set_state(const std::vector<double>& s) override;
    BlownUpCv first_blown_up_v() const override { return blown_up_; }

private:
    struct StreamStep;  // one step, a kernel per phase (per mechanism for currents and states)
    void run_piece(long b, long e, std::vector<Spike>& spikes, std::vector<double>& frames);
    void run_resident(long b, long e);
    // The ion phases (docs/mechanisms.md, "Ions"); groups without ions launch nothing.
    void ions_begin();   // each ion's i to 0; e by Nernst where concentrations are written
    void nernst_where_written();
    template <class M>
    MechIons<M> ions_of();  // M's ion slots on the device
    void sample(double* row);

    DeviceScope release_scope_;  // first member, destroyed last (see the destructor)
    int device_ = 0;
    FvmData f_;
    StepSettings s_;
    GpuGroupOptions opt_;
    all_mechanisms::Globals globals_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<GpuSolve> solve_;  // the solver's, for f_.layout

    // Per CV (layout numbering). v and rhs swap roles after every solve.
    DeviceArray<double> va_, vb_, d_, u_;
    DeviceArray<double> d_base_, cap_dt_, rhs_base_;  // take_assembly_terms (the CPU group's too)
    double* v_ = nullptr;    // V^n during the step, V^{n+1} after it
    double* rhs_ = nullptr;  // after the swap: V^n, which the detectors compare with
    std::array<DeviceMech, n_mechanisms> mechs_;  // by all_mechanisms index
    std::vector<DeviceIon> ions_;                 // FvmData::ions
    DeviceArray<double> ion_cv_weight_;
    // Probe columns that record other than v (FvmData::probe_source): the column and its
    // value's address; sampled after the v columns.
    DeviceArray<int> probe_other_col_;
    DeviceArray<const double*> probe_other_at_;
    // Columns recording a mechanism's current: per column its value (probed_current_kernel
    // at each sampled step's start), and per mechanism its columns, instances and currents.
    DeviceArray<double> probe_current_;
    struct CurrentProbes {
        DeviceArray<int> col, instance, which;
    };
    std::array<CurrentProbes, n_mechanisms> current_probes_;
    bool any_current_probe_ = false;
    void probed_currents(double t_mid);
    DeviceArray<std::uint8_t> target_mech_;
    DeviceArray<int> target_instance_;
    DeviceArray<int> det_cv_, probe_cv_;
    DeviceArray<double> det_threshold_;
    std::vector<int> det_cell_;  // detector -> group cell

    EventQueue events_;
    EventTargets targets_;
    DeviceArray<DeviceSpike> spikes_;
    DeviceArray<unsigned> spike_count_;
    DeviceArray<double> frames_;
    PinnedArray<double> host_frames_;
    PinnedArray<unsigned> host_count_;
    DeviceArray<unsigned> first_blown_up_;    // the piece's first blown-up v (UINT_MAX: none)
    PinnedArray<unsigned> host_first_blown_up_;
    BlownUpCv blown_up_;                    // after the last advance
    std::vector<DeviceSpike> host_spikes_;
    long max_piece_steps_ = 0;

    PhaseTimer timer_;
    PhaseTimes times_;

    std::unique_ptr<ResidentEpoch> resident_;  // gpu-fine step=resident: one kernel per piece
    DeviceArray<ResidentIon> resident_ions_;   // its view of ions_ (ResidentState::ions)
    DeviceArray<int> mech_ion_species_;        // ResidentState::mech_ion_species
    std::array<cudaEvent_t, 2> piece_events_{};  // around it (timing=on)
};

GpuCellGroup::GpuCellGroup(FvmData data, DeviceElectrical electrical, const StepSettings& s, const GpuGroupOptions& o,
                           std::unique_ptr<GpuSolve> solve, int device)
    : device_(device), f_(std::move(data)), s_(s), opt_(o), globals_(all_mechanisms::globals(s.celsius)), solve_(std::move(solve)),
      events_(static_cast<std::uint32_t>(f_.target_mech.size())), timer_(o.phase_times) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const int n = f_.n_cv();
    va_ = DeviceArray<double>(f_.v_init);
    blown_up_ = first_blown_up(f_);
    vb_ = DeviceArray<double>(n);  // d and rhs: written in full by every step's assembly
    d_ = DeviceArray<double>(n);
    u_ = std::move(electrical.u);
    d_base_ = std::move(electrical.d_base);
    cap_dt_ = std::move(electrical.cap_dt);
    v_ = va_.data();
    rhs_ = vb_.data();

    // Mechanism states and ions start as on the CPU (same functions, on the host).
    IonStates ions = initial_ions(f_);
    MechStates init = initial_states(f_, globals_, ions);
    arbolito::nernst_where_written(f_, ions, s_.celsius);
    initial_ion_currents(f_, globals_, init, ions);
    // The synapses' decay factors once per run, as on the CPU: no exp per instance and step.
    const auto step = step_constants(f_, init, s_.dt);
    for (int x = 0; x < n_mechanisms; ++x) {
        // Instances of a point mechanism may share a CV: which one's concentration the CV
        // keeps would depend on the order of their threads' stores.
        const MechInfo& mi = mechanism_infos()[x];
        const bool writes_concentration = std::any_of(mi.ions.begin(), mi.ions.end(), [](const IonUse& u) {
            return (u.flags & (ion_write_xi | ion_write_xo)) != 0;
        });
        if (writes_concentration && mi.kind != MechKind::density && f_.mechs[x].size() > 0)
            throw std::invalid_argument("mechanism " + mi.name +
                                        ": point mechanisms that write an ion concentration run on the CPU solvers only");
        mechs_[x] = DeviceMech(f_.mechs[x], init[x], step[x], mechanism_infos()[x].kind == MechKind::density);
    }
    // The mechanisms with constant terms into the assembly's terms, as fold_constant_currents
    // on the host (the instances were listed after d_base's upload).
    rhs_base_ = DeviceArray<double>(n);
    if (n > 0) CUDA_CHECK(cudaMemsetAsync(rhs_base_.data(), 0, n * sizeof(double), stream_));
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        const MechColumns m = mechs_[mech_index<M>].columns();
        if constexpr (M::constant_terms)
            if (m.n > 0) {
                fold_constant_terms_kernel<M><<<blocks_for(m.n), threads_per_block, 0, stream_>>>(m, d_base_.data(),
                                                                                                  rhs_base_.data());
                CUDA_CHECK_LAUNCH();
            }
    });
    for (std::size_t q = 0; q < ions.size(); ++q) {
        DeviceIon di;
        di.valence = f_.ions[q].valence;
        di.e = DeviceArray<double>(ions[q].e);
        di.xi = DeviceArray<double>(ions[q].xi);
        di.xo = DeviceArray<double>(ions[q].xo);
        di.i = DeviceArray<double>(ions[q].i);
        di.nernst_cv = DeviceArray<int>(f_.ions[q].nernst_cv);
        ions_.push_back(std::move(di));
    }
    if (!ions_.empty()) ion_cv_weight_ = DeviceArray<double>(f_.ion_cv_weight);
    if (!f_.probe_source.empty()) {
        // A mechanism's current: computed into probe_current_ at each sampled step's start
        // (probed_current_kernel), from the initial state here.
        std::vector<double> initial_current(f_.probe_source.size(), 0.0);
        std::array<std::vector<int>, n_mechanisms> cur_col, cur_instance, cur_which;
        for (std::size_t p = 0; p < f_.probe_source.size(); ++p) {
            if (!probes_current(f_, p)) continue;
            const FvmData::ProbeSource& src = f_.probe_source[p];
            initial_current[p] = probed_current_at(f_, globals_, init, ions, f_.v_init.data(), 0.0, p);
            cur_col[src.index].push_back(static_cast<int>(p));
            cur_instance[src.index].push_back(src.instance);
            cur_which[src.index].push_back(src.state);
        }
        probe_current_ = DeviceArray<double>(initial_current);
        for (int x = 0; x < n_mechanisms; ++x)
            if (!cur_col[x].empty()) {
                current_probes_[x].col = DeviceArray<int>(cur_col[x]);
                current_probes_[x].instance = DeviceArray<int>(cur_instance[x]);
                current_probes_[x].which = DeviceArray<int>(cur_which[x]);
                any_current_probe_ = true;
            }
        std::vector<int> cols;
        std::vector<const double*> at;
        for (std::size_t p = 0; p < f_.probe_source.size(); ++p) {
            const FvmData::ProbeSource& src = f_.probe_source[p];
            const int cv = f_.probe_cv[p];
            const double* a = nullptr;
            switch (src.kind) {
                case ProbeVariable::v: continue;
                case ProbeVariable::mech_state:
                    a = mechs_[src.index].s.data() + static_cast<std::size_t>(src.state) * f_.mechs[src.index].size() +
                        src.instance;
                    break;
                case ProbeVariable::ion_e: a = ions_[src.index].e.data() + cv; break;
                case ProbeVariable::ion_xi: a = ions_[src.index].xi.data() + cv; break;
                case ProbeVariable::ion_xo: a = ions_[src.index].xo.data() + cv; break;
                case ProbeVariable::ion_i: a = ions_[src.index].i.data() + cv; break;
                case ProbeVariable::mech_current: a = probe_current_.data() + p; break;
            }
            cols.push_back(static_cast<int>(p));
            at.push_back(a);
        }
        probe_other_col_ = DeviceArray<int>(cols);
        probe_other_at_ = DeviceArray<const double*>(at);
    }

    target_mech_ = DeviceArray<std::uint8_t>(f_.target_mech);
    target_instance_ = DeviceArray<int>(f_.target_instance);
    targets_.mech = target_mech_.data();
    targets_.instance = target_instance_.data();
    for (int x = 0; x < n_mechanisms; ++x) targets_.columns[x] = mechs_[x].columns();

    det_cv_ = DeviceArray<int>(f_.detector_cv);
    det_threshold_ = DeviceArray<double>(f_.detector_threshold);
    for (int c = 0; c < f_.n_cells(); ++c)
        for (auto k = f_.detector_offset[c]; k < f_.detector_offset[c + 1]; ++k) det_cell_.push_back(c);
    probe_cv_ = DeviceArray<int>(f_.probe_cv);
    spike_count_ = DeviceArray<unsigned>(1);
    host_count_.reserve(1);
    first_blown_up_ = DeviceArray<unsigned>(1);
    host_first_blown_up_.reserve(1);

    // An epoch runs in pieces short enough that the spike buffer, large enough for a
    // detector firing every other step, and the frames each stay under 256 MiB. Each piece
    // is a kernel (or a step's kernels) and a pass of the blow-up check: one piece an epoch
    // where possible (a 16-MiB spike budget cut 32,768 busyring cells' 100-step epochs in 64
    // and 36 steps, 2 ms a piece more, on an H100).
    constexpr long piece_bytes = 256L << 20;
    const long n_det = static_cast<long>(f_.detector_cv.size()), ncol = n_columns();
    const long max_spikes = piece_bytes / static_cast<long>(sizeof(DeviceSpike));
    max_piece_steps_ = 1L << 30;
    if (n_det > 0) max_piece_steps_ = std::min(max_piece_steps_, 2 * (std::max(max_spikes, n_det) / n_det));
    if (ncol > 0 && s_.n_frames > 0)
        max_piece_steps_ = std::min(max_piece_steps_, std::max(1L, piece_bytes / (8 * ncol)) * s_.steps_per_sample);
    if (const ResidentRequest* r = solve_->resident()) {
        if (!ions_.empty()) {
            std::vector<ResidentIon> ri;
            for (DeviceIon& di : ions_) ri.push_back({di.arrays(), di.nernst_cv.data(), di.valence});
            resident_ions_ = DeviceArray<ResidentIon>(ri);
            std::vector<int> species(std::max(ion_slot_offsets[n_mechanisms], 1), -1);
            for (int x = 0; x < n_mechanisms; ++x)
                for (std::size_t j = 0; j < f_.mech_ions[x].size(); ++j) species[ion_slot_offsets[x] + j] = f_.mech_ions[x][j];
            mech_ion_species_ = DeviceArray<int>(species);
        }
        resident_ = std::make_unique<ResidentEpoch>(f_, *r->schedule, *r->plan, r->shared_bytes, r->threads,
                                                   r->launch, globals_);
        events_.sort_by_block(resident_->plan().target_block, static_cast<int>(resident_->plan().blocks.size()));
        if (opt_.phase_times)
            for (cudaEvent_t& e : piece_events_) CUDA_CHECK(cudaEventCreate(&e));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    release_per_cv_inputs(f_);  // on the device now
    release_device_owned(f_);
}

std::vector<double> GpuCellGroup::voltages() const {
    DeviceScope on(device_);
    std::vector<double> v(f_.n_cv());
    if (!v.empty()) {
        CUDA_CHECK(cudaMemcpyAsync(v.data(), v_, v.size() * sizeof(double), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return natural_order(f_, v.data());
}

// Device copies on the group's stream, one per array, then one synchronisation.
std::vector<double> GpuCellGroup::state() const {
    DeviceScope on(device_);
    std::vector<double> s(state_size(f_));
    double* to = s.data();
    auto take = [&](const double* from, std::size_t n) {
        if (n) CUDA_CHECK(cudaMemcpyAsync(to, from, n * sizeof(double), cudaMemcpyDeviceToHost, stream_));
        to += n;
    };
    take(v_, f_.n_cv());
    for (const DeviceMech& m : mechs_) take(m.s.data(), m.s.size());
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return s;
}

void GpuCellGroup::set_state(const std::vector<double>& s) {
    DeviceScope on(device_);
    if (s.size() != state_size(f_)) throw std::invalid_argument("GpuCellGroup::set_state: wrong size");
    const double* from = s.data();
    auto put = [&](double* to, std::size_t n) {
        if (n) CUDA_CHECK(cudaMemcpyAsync(to, from, n * sizeof(double), cudaMemcpyHostToDevice, stream_));
        from += n;
    };
    put(v_, f_.n_cv());
    for (DeviceMech& m : mechs_) put(m.s.data(), m.s.size());
    // The concentrations the mechanisms write follow from their states, e from them.
    if (!ions_.empty()) {
        all_mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            if constexpr (n_ions<M> > 0) {
                const MechColumns m = mechs_[mech_index<M>].columns();
                if (m.n == 0) return;
                ion_concentrations_kernel<M><<<blocks_for(m.n), threads_per_block, 0, stream_>>>(m, ions_of<M>());
                CUDA_CHECK_LAUNCH();
            }
        });
        nernst_where_written();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // s may go away after the return
}

template <class M>
MechIons<M> GpuCellGroup::ions_of() {
    MechIons<M> a;
    const std::vector<int>& sp = f_.mech_ions[mech_index<M>];
    for (std::size_t j = 0; j < sp.size(); ++j) a.slot[j] = ions_[sp[j]].arrays();
    a.cv_weight = ion_cv_weight_.data();
    return a;
}

void GpuCellGroup::nernst_where_written() {
    for (DeviceIon& di : ions_) {
        const int n = static_cast<int>(di.nernst_cv.size());
        if (n == 0) continue;
        nernst_kernel<<<blocks_for(n), threads_per_block, 0, stream_>>>(n, di.nernst_cv.data(), di.valence, s_.celsius,
                                                                         di.xi.data(), di.xo.data(), di.e.data());
        CUDA_CHECK_LAUNCH();
    }
}

void GpuCellGroup::ions_begin() {
    for (DeviceIon& di : ions_)
        if (di.i.size()) CUDA_CHECK(cudaMemsetAsync(di.i.data(), 0, di.i.size() * sizeof(double), stream_));
    nernst_where_written();
}

// One frame into row: the v columns, then those recording other values over theirs.
void GpuCellGroup::sample(double* row) {
    const int ncol = n_columns();
    sample_kernel<<<blocks_for(ncol), threads_per_block, 0, stream_>>>(ncol, probe_cv_.data(), v_, row);
    CUDA_CHECK_LAUNCH();
    const int n_other = static_cast<int>(probe_other_col_.size());
    if (n_other == 0) return;
    sample_at_kernel<<<blocks_for(n_other), threads_per_block, 0, stream_>>>(n_other, probe_other_col_.data(),
                                                                              probe_other_at_.data(), row);
    CUDA_CHECK_LAUNCH();
}

void GpuCellGroup::probed_currents(double t_mid) {
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        if constexpr (M::kind == MechKind::density) {
            const CurrentProbes& cp = current_probes_[x];
            const int n = static_cast<int>(cp.col.size());
            if (n == 0) return;
            probed_current_kernel<M><<<blocks_for(n), threads_per_block, 0, stream_>>>(
                n, cp.col.data(), cp.instance.data(), cp.which.data(), mechs_[x].columns(), ions_of<M>(),
                std::get<x>(globals_), t_mid, v_, probe_current_.data());
            CUDA_CHECK_LAUNCH();
        }
    });
}

void GpuCellGroup::initial_frame(std::vector<double>& frames) {
    DeviceScope on(device_);
    const int ncol = n_columns();
    if (ncol == 0) return;
    grow(frames_, ncol);
    host_frames_.reserve(ncol);
    sample(frames_.data());
    CUDA_CHECK(cudaMemcpyAsync(host_frames_.data(), frames_.data(), ncol * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    frames.insert(frames.end(), host_frames_.data(), host_frames_.data() + ncol);
}

// From the exchange's thread: the coming epoch's events packed, copied and sorted on the
// queue's own stream while the device runs the current epoch (EventQueue::pack).
void GpuCellGroup::prepare(long step_begin, long step_end, const std::vector<StepEvent>& events) {
    DeviceScope on(device_);
    timeline::mark("events pack begin", step_begin);
    events_.pack(events, step_begin, step_end);
    timeline::mark("events packed", step_begin);
}

void GpuCellGroup::advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                           std::vector<Spike>& spikes, std::vector<double>& frames) {
    DeviceScope on(device_);
    events_.stage(events, step_begin, step_end, stream_);
    timeline::mark("events staged", step_begin);
    blown_up_ = {};
    begin_epoch();
    // A stop asked for ends the epoch between pieces (CellGroup::set_stop_check).
    for (long b = step_begin; b < step_end && !blown_up_ && !stop_now();) {
        const long e = std::min(step_end, b + max_piece_steps_);
        run_piece(b, e, spikes, frames);
        timeline::mark("piece done", b);
        b = e;
    }
    events_.release(stream_);
}

// Step n, phase by phase; run_step calls them in order. Each phase ends with a mark of
// the phase timer (none for the ion hooks: their work, in groups with ions, counts with the next phase).
struct GpuCellGroup::StreamStep {
    GpuCellGroup& g;
    long& rows;  // the piece's frames so far
    long n = 0;
    double t = 0;

    void enter(Phase p) { g.trace_phase(p); }

    void events() {
        g.events_.deliver(n, g.targets_, g.stream_);
        g.timer_.mark(g.stream_);
    }

    // Groups without ions launch nothing (its time counts with the assembly's).
    void ions_begin() {
        if (!g.ions_.empty()) g.ions_begin();
    }

    void assemble() {
        if (const int ncv = g.f_.n_cv(); ncv > 0) {
            assemble_kernel<<<blocks_for(ncv), threads_per_block, 0, g.stream_>>>(ncv, g.d_base_.data(), g.cap_dt_.data(),
                                                                                 g.rhs_base_.data(), g.v_, g.d_.data(),
                                                                                 g.rhs_);
            CUDA_CHECK_LAUNCH();
        }
        g.timer_.mark(g.stream_);
    }

    // Mechanism after mechanism, in list order: the order of the additions to d and rhs.
    void currents() {
        const double t_mid = t + 0.5 * g.s_.dt;
        all_mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int x = mech_index<M>;
            const MechColumns m = g.mechs_[x].columns();
            if (m.n == 0) return;
            if constexpr (M::constant_terms) return;  // in the assembly's terms (rhs_base_)
            else if constexpr (n_ions<M> > 0 && M::kind == MechKind::density)
                ion_current_kernel<M><<<blocks_for(m.n), threads_per_block, 0, g.stream_>>>(
                    m, g.template ions_of<M>(), std::get<x>(g.globals_), t_mid, g.v_, g.d_.data(), g.rhs_);
            else if constexpr (n_ions<M> > 0)
                ion_point_current_kernel<M><<<blocks_for(m.n), threads_per_block, 0, g.stream_>>>(
                    m, g.template ions_of<M>(), std::get<x>(g.globals_), t_mid, g.v_, g.d_.data(), g.rhs_);
            else
                current_kernel<M><<<blocks_for(m.n), threads_per_block, 0, g.stream_>>>(m, std::get<x>(g.globals_), t_mid,
                                                                                         g.v_, g.d_.data(), g.rhs_);
            CUDA_CHECK_LAUNCH();
        });
        if (g.any_current_probe_ && g.s_.frame_after(n) >= 0) g.probed_currents(t_mid);  // for the step's end's frame
        g.timer_.mark(g.stream_);
    }

    // The solution is the new v; the old v stays in the other buffer for the detectors
    // (and is overwritten by the next assembly).
    void solve() {
        g.solve_->solve(g.d_.data(), g.u_.data(), g.rhs_, g.stream_);
        g.timer_.mark(g.stream_);
        std::swap(g.v_, g.rhs_);
    }

    void states() {
        all_mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int x = mech_index<M>;
            if constexpr (n_states<M> > 0) {
                const MechColumns m = g.mechs_[x].columns();
                if (m.n == 0) return;
                if constexpr (n_ions<M> > 0)
                    ion_advance_kernel<M><<<blocks_for(m.n), threads_per_block, 0, g.stream_>>>(
                        m, g.template ions_of<M>(), std::get<x>(g.globals_), g.s_.dt, g.v_);
                else
                    advance_kernel<M><<<blocks_for(m.n), threads_per_block, 0, g.stream_>>>(m, std::get<x>(g.globals_),
                                                                                             g.s_.dt, g.v_);
                CUDA_CHECK_LAUNCH();
            }
        });
        g.timer_.mark(g.stream_);
    }

    // The written concentrations reached the ions in the states phase (ion_advance_kernel,
    // each mechanism's after its own advance, NEURON's order): nothing left for this hook.
    void ions_end() {}

    void detect() {
        if (const int n_det = static_cast<int>(g.f_.detector_cv.size())) {
            const unsigned capacity = static_cast<unsigned>(g.spikes_.size());
            detect_kernel<<<blocks_for(n_det), threads_per_block, 0, g.stream_>>>(
                n_det, g.det_cv_.data(), g.det_threshold_.data(), g.rhs_, g.v_, t, g.s_.dt,
                g.s_.rules == EventRules::neuron, g.spikes_.data(), g.spike_count_.data(), capacity);
            CUDA_CHECK_LAUNCH();
        }
        g.timer_.mark(g.stream_);
    }

    void sample() {
        const int ncol = g.n_columns();
        if (g.s_.frame_after(n) >= 0 && ncol > 0) {
            g.sample(g.frames_.data() + rows * ncol);
            ++rows;
        }
        g.timer_.mark(g.stream_);
    }
};

void GpuCellGroup::run_piece(long b, long e, std::vector<Spike>& spikes, std::vector<double>& frames) {
    const long n_det = static_cast<long>(f_.detector_cv.size()), ncol = n_columns();
    long n_rows = 0;
    for (long n = b; n < e; ++n) n_rows += s_.frame_after(n) >= 0;
    const std::size_t capacity = static_cast<std::size_t>(n_det) * ((e - b + 1) / 2);
    grow(spikes_, capacity);
    grow(frames_, n_rows * ncol);
    host_frames_.reserve(n_rows * ncol);
    CUDA_CHECK(cudaMemsetAsync(spike_count_.data(), 0, sizeof(unsigned), stream_));

    long rows = 0;
    if (resident_) {
        run_resident(b, e);
        rows = ncol > 0 ? n_rows : 0;
    } else {
        timer_.begin(e - b);
        StreamStep step{*this, rows};
        for (long n = b; n < e; ++n) {
            step.n = n;
            step.t = n * s_.dt;
            timer_.mark(stream_);
            run_step(step);
        }
    }
    timeline::mark("piece launched", b);

    // The blow-up check: one pass over v, its answer copied back with the spike count.
    const int ncv = f_.n_cv();
    CUDA_CHECK(cudaMemsetAsync(first_blown_up_.data(), 0xff, sizeof(unsigned), stream_));
    if (ncv > 0) {
        first_blown_up_kernel<<<blocks_for(ncv), threads_per_block, 0, stream_>>>(ncv, v_, first_blown_up_.data());
        CUDA_CHECK_LAUNCH();
    }

    if (rows * ncol > 0)
        CUDA_CHECK(cudaMemcpyAsync(host_frames_.data(), frames_.data(), rows * ncol * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaMemcpyAsync(host_count_.data(), spike_count_.data(), sizeof(unsigned), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaMemcpyAsync(host_first_blown_up_.data(), first_blown_up_.data(), sizeof(unsigned),
                               cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    timeline::mark("piece synced", b);
    if (const unsigned i = host_first_blown_up_[0]; i != ~0u) {
        // Only on a blow-up: the one voltage, for the message.
        blown_up_.cv = static_cast<int>(i);
        CUDA_CHECK(cudaMemcpy(&blown_up_.value, v_ + i, sizeof(double), cudaMemcpyDeviceToHost));
    }
    if (resident_ && opt_.phase_times) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, piece_events_[0], piece_events_[1]));
        times_.fused += 1e-3 * ms;
    } else {
        timer_.collect(times_);
    }
    frames.insert(frames.end(), host_frames_.data(), host_frames_.data() + rows * ncol);

    const std::size_t count = host_count_[0];
    if (count > capacity) throw std::logic_error("gpu spike buffer overflow");  // cannot happen: see capacity
    if (count == 0) return;
    host_spikes_.resize(count);
    CUDA_CHECK(cudaMemcpyAsync(host_spikes_.data(), spikes_.data(), count * sizeof(DeviceSpike), cudaMemcpyDeviceToHost,
                               stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    // In the kernel's order, whatever it was: the simulation sorts every epoch's spikes
    // (time, gid, detector) before they become events or output.
    for (const DeviceSpike& sp : host_spikes_) {
        const int c = det_cell_[sp.detector];
        spikes.push_back({f_.gids[c], sp.detector - f_.detector_offset[c], sp.time});
    }
}

// The piece [b, e) as one kernel (resident_epoch.hpp), its frames from row 0 of frames_.
void GpuCellGroup::run_resident(long b, long e) {
    ResidentState st;
    st.v = v_;
    st.rhs = rhs_;
    st.d = d_.data();
    st.u = u_.data();
    st.d_base = d_base_.data();
    st.cap_dt = cap_dt_.data();
    st.rhs_base = rhs_base_.data();
    for (int x = 0; x < n_mechanisms; ++x) st.mechs[x] = mechs_[x].columns();
    st.target_mech = target_mech_.data();
    st.target_instance = target_instance_.data();
    st.det_cv = det_cv_.data();
    st.det_threshold = det_threshold_.data();
    st.spikes = spikes_.data();
    st.spike_count = spike_count_.data();
    st.spike_capacity = static_cast<unsigned>(spikes_.size());
    st.frames = frames_.data();
    st.n_columns = n_columns();
    if (any_current_probe_) st.probe_current = probe_current_.data();
    if (!ions_.empty()) {
        st.ions = resident_ions_.data();
        st.n_ions = static_cast<int>(ions_.size());
        st.mech_ion_species = mech_ion_species_.data();
        st.ion_cv_weight = ion_cv_weight_.data();
    }
    DeviceArray<unsigned> trace;
    if (phase_trace_) {
        trace = DeviceArray<unsigned>(1 + static_cast<std::size_t>(e - b) * n_phases);
        CUDA_CHECK(cudaMemsetAsync(trace.data(), 0, trace.size() * sizeof(unsigned), stream_));
        st.phase_trace = trace.data();
    }
    if (opt_.phase_times) CUDA_CHECK(cudaEventRecord(piece_events_[0], stream_));
    if (!any_current_probe_) {
        resident_->run(st, events_.by_block(), b, e, s_.first_frame_from(b), s_, stream_);
    } else {
        // A mechanism's current at a sampled step is its BREAKPOINT value at the step's start:
        // the streaming step's kernel computes it there (e by Nernst first, as each step's
        // start does), and the resident kernel runs the steps up to the next sampled one. In
        // the kernel its code took registers from every step (7.6 % on the Allen network).
        for (long n0 = b; n0 < e;) {
            long n1 = n0 + 1;
            while (n1 < e && s_.frame_after(n1) < 0) ++n1;
            if (s_.frame_after(n0) >= 0) {
                nernst_where_written();
                probed_currents(n0 * s_.dt + 0.5 * s_.dt);
            }
            resident_->run(st, events_.by_block(), n0, n1, s_.first_frame_from(b), s_, stream_);
            n0 = n1;
        }
    }
    if (opt_.phase_times) CUDA_CHECK(cudaEventRecord(piece_events_[1], stream_));
    if (phase_trace_) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        const std::vector<unsigned> t = trace.download();
        for (unsigned k = 0; k < t[0]; ++k) phase_trace_->push_back(static_cast<Phase>(t[1 + k]));
    }
}

}  // namespace
}  // namespace gpu

int select_gpu(int device, const std::string& solver) {
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        cudaGetLastError();  // clear the sticky error of a failed probe
        throw std::runtime_error("solver " + solver + " needs a CUDA device, and none is usable" +
                                 (e != cudaSuccess ? std::string(" (") + cudaGetErrorString(e) + ")" : std::string()));
    }
    const int d = std::max(0, device) % devices;
    CUDA_CHECK(cudaSetDevice(d));
    gpu::note_device_in_use(d);
    return d;
}

namespace {

// gpu-cell's solve: one thread per cell (cuHinesBatch).
class GpuCellSolve final : public GpuSolve {
public:
    GpuCellSolve(const Layout& layout, const CellSlots& slots, const GpuGroupOptions& o)
        : plan_(gpu::make_gpu_cell_plan(layout, slots, gpu::cell_kernel(o.solve_kernel), plan_options(o))) {
        plan_.threads = gpu::solve_threads(o.solve_threads, plan_.n_slots);
    }
    static gpu::CellPlanOptions plan_options(const GpuGroupOptions& o) {
        gpu::CellPlanOptions p;
        p.block_shared = o.layout.kind == CellLayout::Kind::block_shared;
        p.padding = o.solve_padding == GpuGroupOptions::Padding::compute ? gpu::CellPadding::compute
                    : o.solve_padding == GpuGroupOptions::Padding::stop  ? gpu::CellPadding::stop
                                                                         : gpu::CellPadding::automatic;
        return p;
    }
    void solve(double* d, const double* u, double* rhs, cudaStream_t stream) const override {
        gpu::gpu_cell_solve(plan_, d, u, rhs, stream);
    }

private:
    gpu::GpuCellPlan plan_;
};

}  // namespace

GpuSolverParts gpu_cell_parts(const GpuGroupOptions& o) {
    return numbered_parts<GpuCellNumbering>(
        [layout = o.layout, block_auto = o.block_auto](const std::vector<std::vector<int>>& np) {
            if (!block_auto) return gpu_cell_layout(np, layout);
            // The largest block size whose right-hand sides fit (the device is selected).
            std::size_t rows = 1;
            for (const auto& c : np) rows = std::max(rows, c.size());
            const int bs = gpu::block_shared_auto(static_cast<int>(std::min<std::size_t>(rows, 1 << 30)));
            if (bs == 0)
                throw std::invalid_argument("gpu-cell: layout=block-shared: a cell of " + std::to_string(rows) +
                                            " CVs does not fit the shared memory of a CUDA block (" +
                                            std::to_string(gpu::shared_bytes_per_block() / 1024) +
                                            " KiB); use layout=block-interleaved");
            return gpu_cell_layout(np, CellLayout{CellLayout::Kind::block_shared, bs});
        },
        [o](const Layout& l, const GpuCellNumbering& g) { return std::make_unique<GpuCellSolve>(l, g.slots, o); });
}

std::unique_ptr<CellGroup> make_gpu_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                          const std::string& solver, const GpuSolverParts& parts,
                                          const GpuGroupOptions& o, const StepSettings& s, int device) {
    const int d = select_gpu(device, solver);
    gpu::DeviceElectrical electrical;
    FvmData f = build_fvm(m, gid_begin, gid_end, parts.numbering,
                          [&](FvmData& g) { electrical = gpu::upload_electrical(g, s.dt); });
    std::unique_ptr<GpuSolve> solve = parts.make_solve(f.layout);
    return std::make_unique<gpu::GpuCellGroup>(std::move(f), std::move(electrical), s, o, std::move(solve), d);
}

}  // namespace arbolito
