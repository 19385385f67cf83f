#pragma once
// A set of cells integrated together by one backend and one solver. The simulation
// hands it the events of an epoch and collects its spikes and samples once per epoch.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/hd.hpp"
#include "lowered_cell/blow_up_bound.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "lowered_cell/spike.hpp"
#include "lowered_cell/step_sequence.hpp"
#include "lowered_cell/timings.hpp"
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_ions.hpp"

namespace arbolito {

// An event resolved to the time step that delivers it (EventRules decide the step).
struct StepEvent {
    long step;             // global step index: the step from step·dt to (step+1)·dt
    double time;           // ms, orders events of one step
    std::uint32_t target;  // group-local synapse target
    double weight;         // µS

    friend bool operator<(const StepEvent& a, const StepEvent& b) {
        if (a.step != b.step) return a.step < b.step;
        if (a.time != b.time) return a.time < b.time;
        if (a.target != b.target) return a.target < b.target;
        return a.weight < b.weight;  // a total order: sums on one target add up identically
    }
};

struct StepSettings {
    double dt = 0.025;
    double celsius = 6.3;
    long steps_per_sample = 4;   // a frame after every this many steps
    long n_frames = 0;           // frames while t < tfinal
    EventRules rules = EventRules::arbor;

    // The frame that step n completes (its state is at t = (n+1)·dt), or -1. Host and
    // device (the resident GPU step samples with it).
    ARB_HD long frame_after(long n) const {
        const long done = n + 1;
        return done % steps_per_sample == 0 && done / steps_per_sample < n_frames ? done / steps_per_sample : -1;
    }
    // The first frame a piece of steps from b on completes (frame_after of its first
    // sampling step, if it has one): its frames are rows frame_after(n) - this.
    ARB_HD long first_frame_from(long b) const { return (b + steps_per_sample) / steps_per_sample; }
};

// A run's step settings, the one derivation the epoch loop and parareal share: the model's
// dt, temperature and event rules, a frame every sample_dt (at least every step), and
// frames while t < tfinal (none where the run records spikes only).
StepSettings step_settings(const RunSettings& r, bool record_samples);
// The steps of a run: tfinal / dt, rounded.
long run_steps(const RunSettings& r);

// The first CV whose voltage has blown up (lowered_cell/blow_up_bound.hpp: NaN, ±inf or past ±1e9 mV), if any.
struct BlownUpCv {
    int cv = -1;        // layout index; -1: none
    double value = 0;   // its voltage
    explicit operator bool() const { return cv >= 0; }
};

class CellGroup {
public:
    virtual ~CellGroup() = default;
    // Integrate steps [step_begin, step_end); `events` are sorted and lie in that range.
    // Spikes of the interval are appended to `spikes` (group gids), frames taken in it
    // to `frames` as rows of n_columns() floats, first the one for step_begin's time.
    virtual void advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                         std::vector<Spike>& spikes, std::vector<double>& frames) = 0;
    // The events of the coming advance(step_begin, step_end, events, ...), handed over as
    // soon as they are known: from the exchange's thread while the previous advance still
    // runs on the main thread, so that a group may do host work on them off the critical
    // path (a GPU group packs them for the device). Never concurrent with another prepare;
    // `events` stays unchanged until that advance. The default does nothing.
    virtual void prepare(long step_begin, long step_end, const std::vector<StepEvent>& events) {
        (void)step_begin, (void)step_end, (void)events;
    }
    // Frame 0 (t = 0) after initialisation.
    virtual void initial_frame(std::vector<double>& frames) = 0;
    // The lowest layout index whose voltage had blown up at the end of the last advance
    // (or at initialisation, before any): a blow-up (a huge weight, stimulus or initial voltage) is caught once per
    // epoch, before the epoch's record reaches the output (Simulation::run).
    virtual BlownUpCv first_blown_up_v() const = 0;
    virtual const FvmData& data() const = 0;
    virtual const PhaseTimes& times() const = 0;
    // Current membrane voltage in the group's natural per-cell order (tests, compare).
    virtual std::vector<double> voltages() const = 0;
    // The whole dynamic state between steps: v per CV (layout numbering, padding
    // included), then each mechanism's states (MechState::states), in all_mechanisms
    // order; state_size(data()) values. Detectors keep no state of their own between
    // steps (each step compares with the v it starts from). Parallel in time
    // (parareal/parareal.hpp) moves slices' states between groups with these.
    virtual std::vector<double> state() const = 0;
    virtual void set_state(const std::vector<double>& s) = 0;
    int n_columns() const { return static_cast<int>(data().probe_cv.size()); }

    // A stop asked for while an epoch integrates (a signal): groups that can stop part-way
    // (the CPU group, between steps) ask `check` before each step, and once it says yes
    // advance returns at once with the epoch unfinished, abandoned() true until the next
    // advance; the run then ends at the epoch's start (Simulation::run). Groups that run an
    // epoch on a device finish it. Empty: never asked.
    void set_stop_check(std::function<bool()> check) { stop_check_ = std::move(check); }
    bool abandoned() const { return abandoned_; }

    // From now on every step appends its phases to `out`, in the order it runs them
    // (lowered_cell/step_sequence.hpp; tests; a GPU resident piece records its first block's
    // steps); null: no more. Costs one test per phase while off.
    void trace_phases(std::vector<Phase>* out) { phase_trace_ = out; }

protected:
    void begin_epoch() { abandoned_ = false; }
    // Whether to return now, the epoch unfinished.
    bool stop_now() {
        if (!abandoned_ && stop_check_ && stop_check_()) abandoned_ = true;
        return abandoned_;
    }
    std::vector<Phase>* phase_trace_ = nullptr;  // trace_phases
    void trace_phase(Phase p) {
        if (phase_trace_) phase_trace_->push_back(p);
    }

private:
    std::function<bool()> stop_check_;
    bool abandoned_ = false;
};

// Set-up and read-out shared by the backends, on the host, in layout numbering.
std::vector<double> axial_u(const FvmData& f);  // the matrix's off-diagonal per CV: -g_parent
// The assembly's constant terms for the run's dt, the CPU and GPU groups' alike:
// assemble_base at v = 1, d_base = cap/dt + g_sum and cap_dt = cap/dt, so that each step's
// assemble_precomputed gives assemble_base's bits with no division; padding rows hold
// d_base = 1, cap_dt = 0 (the inert row d = 1, rhs = 0: their v stays 0). Made in place of
// f.g_sum and f.cap, which are left empty: set-up never holds both (busyring 32,768
// cells: 0.46 GB each). A GPU group makes them before the instances are listed
// (FvmElectricalTaker).
struct AssemblyTerms {
    std::vector<double> d_base, cap_dt;
};
AssemblyTerms take_assembly_terms(FvmData& f, double dt);
// The mechanisms with constant terms (MechanismDefaults::constant_terms: pas), in list
// order and instance order, folded into the assembly (fold_constant_terms): w·g added to
// d_base, and the returned rhs_base, w·g·e (0 where none is, padding too), which every
// backend's assembly adds to the rhs instead of computing those currents each step.
// The GPU group folds the same on the device (fold_constant_terms_kernel).
std::vector<double> fold_constant_currents(const FvmData& f, std::vector<double>& d_base);
// One mechanism's run-time columns, by column then instance (column j of instance k at
// j·n + k): its states and its per-instance constants (derived from the parameters).
struct MechState {
    std::vector<double> states, derived;
};
using MechStates = std::array<MechState, n_mechanisms>;
// One ion species' run-time values per CV (layout numbering): FvmData::IonSpecies's
// initial e, xi and xo, and i, the current summed over each step's currents phase.
struct IonState {
    std::vector<double> e, xi, xo, i;
};
using IonStates = std::vector<IonState>;  // as FvmData::ions
IonStates initial_ions(const FvmData& f);
// Every instance's states at rest at v_init, and its constants. Mechanisms with ions
// initialise from `ions` (initial_ions), in list order, each writing the concentrations it
// owns there as it goes (NEURON's finitialize: a later INITIAL reads what an earlier wrote).
MechStates initial_states(const FvmData& f, const all_mechanisms::Globals& globals, IonStates& ions);
MechStates initial_states(const FvmData& f, const all_mechanisms::Globals& globals);  // a group without ions
// Per mechanism with step constants (M::step_derived), each instance's constants for dt
// from derive_step, in columns (constant j of instance k at j·n + k); empty for the rest.
// A backend that advances with them (advance_stepped) gets advance's bits with no exp per
// instance and step.
std::array<std::vector<double>, n_mechanisms> step_constants(const FvmData& f, const MechStates& st, double dt);
// Mechanism x's ion slots as arrays into `ions` (FvmData::mech_ions).
template <class M>
MechIons<M> mech_ions(const FvmData& f, IonStates& ions) {
    MechIons<M> a;
    const std::vector<int>& sp = f.mech_ions[mech_index<M>];
    for (std::size_t j = 0; j < sp.size(); ++j) {
        IonState& st = ions[sp[j]];
        a.slot[j] = {st.e.data(), st.xi.data(), st.xo.data(), st.i.data()};
    }
    a.cv_weight = f.ion_cv_weight.data();
    return a;
}
// e by Nernst at celsius on every CV where a mechanism writes the concentrations
// (FvmData::IonSpecies::nernst_cv): after initialisation, as NEURON's finitialize leaves it.
void nernst_where_written(const FvmData& f, IonStates& ions, double celsius);
// The ions' currents at the initial state (v_init): what NEURON's finitialize leaves in
// ica etc. (it ends with a currents pass), so that a probe of i reads it at t = 0. Each
// step sets them anew.
void initial_ion_currents(const FvmData& f, const all_mechanisms::Globals& globals, const MechStates& mech,
                          IonStates& ions);
// Where each probe column's value lies (FvmData::probe_source) in a host group's arrays: v
// (per CV), the mechanisms' states, the ions' values, and for a mechanism's current
// currents[p] (probed_current_at fills it). Empty where every column records v.
std::vector<const double*> probe_pointers(const FvmData& f, const double* v, const MechStates& mech,
                                          const IonStates& ions, const double* currents);
// Mechanism x's instances as columns over a host group's arrays: f's instances, mech's
// states. Inline: the CPU's phases take each mechanism's columns every step.
inline MechColumns host_columns(const FvmData& f, MechStates& mech, int x) {
    const MechInstances& mi = f.mechs[x];
    return {mi.size(), mi.cv.data(), mi.weight.data(), mi.params.data(), mech[x].states.data(), mech[x].derived.data()};
}
// Whether column p records a mechanism's current (ProbeVariable::mech_current).
bool probes_current(const FvmData& f, std::size_t p);
// Column p's mechanism current (mechanisms/probed_current.hpp) at voltages v (per CV) from
// a host group's arrays: at the initial state (v_init) before the first step, as
// NEURON's finitialize leaves ina_NaTs etc., then at each sampled step's start.
double probed_current_at(const FvmData& f, const all_mechanisms::Globals& globals, MechStates& mech,
                         IonStates& ions, const double* v, double t_mid, std::size_t p);
// Each written concentration (M::ion_state) from the mechanisms' states to `ions`, as after
// init and each advance (a group's state set anew: CellGroup::set_state).
void write_all_ion_concentrations(const FvmData& f, const MechStates& mech, IonStates& ions);
// The first CV whose initial voltage (v_init) has blown up already.
BlownUpCv first_blown_up(const FvmData& f);
// The length of CellGroup::state() for a group of this data.
std::size_t state_size(const FvmData& f);
// Per-CV values (layout numbering) in the cells' natural order, cell after cell.
std::vector<double> natural_order(const FvmData& f, const double* per_cv);

}  // namespace arbolito
