#pragma once
// A cell group's discretised model as flat host arrays, in the solver's CV numbering:
// what both backends upload or use directly. Mechanisms, stimuli, detectors and probes
// reach CVs through index arrays (docs/architecture.md, "The lowered cell").
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"
#include "mechanisms/all.hpp"
#include "mechanisms/catalogue.hpp"
#include "solvers/layout.hpp"

namespace arbolito {

// Instances of one mechanism, sorted by CV; parameters by parameter, then instance (as
// the kernels read them): parameter j of instance k at params[j·size() + k].
struct MechInstances {
    std::vector<int> cv;
    // Density: 1e-2·area (mA/cm² → nA). Point mechanisms: empty, their weight being 1
    // (point_terms; no kernel reads one): 8 bytes a synapse not held.
    std::vector<double> weight;
    std::vector<double> params;
    int size() const { return static_cast<int>(cv.size()); }
    double param(int j, int k) const { return params[static_cast<std::size_t>(j) * cv.size() + k]; }
};

// One ion species used by the group's mechanisms (mechanisms/ion.hpp; docs/mechanisms.md,
// "Ions"), per CV in layout numbering (padding: the defaults).
struct IonSpecies {
    std::string name;
    int valence = 1;
    // Initial values: the model's keys or the species' defaults; e by Nernst from xi and xo
    // where a mechanism on the CV reads or writes them (as NEURON's ion_style).
    std::vector<double> e, xi, xo;  // mV, mM, mM
    // CVs where a mechanism writes xi or xo: e follows Nernst at the start of every step.
    std::vector<int> nernst_cv;
};

struct FvmData {
    std::vector<std::uint64_t> gids;   // cells of the group, ascending
    Layout layout;

    // Per CV, layout numbering (padding: cap 0, g 0, v 0).
    std::vector<double> cap;       // nF
    std::vector<double> g_parent;  // µS to the layout parent (Layout::parent)
    std::vector<double> g_sum;     // Σ of axial conductances to all neighbours, µS
    std::vector<double> v_init;    // mV

    // Instances of every mechanism, by position in all_mechanisms.
    std::array<MechInstances, n_mechanisms> mechs;
    template <class M>
    const MechInstances& instances() const { return mechs[mech_index<M>]; }

    // Ion species used by the group's mechanisms (empty: a group without ions, whose
    // steps have no ion phase at all), and per mechanism its ion slots' species (indices
    // into ions, in the order of M::ions).
    std::vector<IonSpecies> ions;
    std::array<std::vector<int>, n_mechanisms> mech_ions;
    std::vector<double> ion_cv_weight;  // per CV 1e-2·area (µm²): a point instance's ion current nA → mA/cm²; with ions only

    // Synapse targets numbered across the group: target_offset[c] + synapse index. Each
    // leads to one instance of a synapse mechanism (its all_mechanisms index); coalesced
    // synapses (CvPolicy::coalesce_synapses) lead to one instance together.
    std::vector<std::uint32_t> target_offset;  // n_cells + 1
    std::vector<std::uint8_t> target_mech;
    std::vector<int> target_instance;
    // Where some instance is shared: each target's key, the first target of its instance;
    // else empty. Events carry keys (event_target), so that every backend sorts and applies
    // a step's events per instance, in one order.
    std::vector<std::uint32_t> target_key;
    std::uint32_t event_target(int cell, std::uint32_t synapse) const {
        const std::uint32_t t = target_offset[cell] + synapse;
        return target_key.empty() ? t : target_key[t];
    }

    // Detectors numbered across the group: detector_offset[c] + detector index.
    std::vector<std::uint32_t> detector_offset;  // n_cells + 1
    std::vector<int> detector_cv;
    std::vector<double> detector_threshold;

    // Probe columns, ordered by cell then probe.
    std::vector<int> probe_cv;
    // What each column records where not v (empty: every column records v): a state or a
    // current of a density instance, or an ion species' value on the column's CV.
    struct ProbeSource {
        ProbeVariable::Kind kind = ProbeVariable::v;
        int index = 0;     // mech_*: the all_mechanisms index; ion_*: the species (ions)
        int state = 0;     // mech_state: the state; mech_current: -1 the whole, else the ion slot
        int instance = 0;  // mech_*: the instance
    };
    std::vector<ProbeSource> probe_source;
    std::vector<std::uint32_t> probe_offset;     // n_cells + 1
    std::vector<std::uint32_t> probe_element;    // branch
    std::vector<float> probe_pos;                // CV node position on the branch

    int n_cells() const { return static_cast<int>(gids.size()); }
    int n_cv() const { return layout.n_cv; }  // padding included
    long n_real_cv() const { return layout.n_cv - static_cast<long>(layout.padding.size()); }
};

// Frees cap, g_parent, g_sum and v_init once a group has made its own run-time arrays
// from them (32 bytes per CV: 1.8 GB at busyring's 32,768 cells); the rest of FvmData
// (layout, instances, targets, detectors, probes) stays for the run.
void release_per_cv_inputs(FvmData& f);
// Frees what a GPU group's device holds from set-up on, once uploaded: every mechanism's
// weights and parameters (busyring's pas and expsyn: 33 bytes per CV) and the layout's
// parents. The instances' CVs stay (their counts, state_size) as do the
// layout's index (natural_order, the blow-up report), targets, detectors and probes.
void release_device_owned(FvmData& f);

// Whether cell c's synapses of mechanism m may share an instance with equal ones on their
// CV: c's policy coalesces synapses and m is linear (MechanismDefaults::linear).
inline bool coalesces(const CellDesc& c, const MechInfo& m) { return c.policy.coalesce_synapses && m.linear; }

using LayoutMaker = std::function<Layout(const std::vector<std::vector<int>>& natural_parents)>;

// Called by build_fvm once cap, g_parent and g_sum are final, before the instances are
// listed: a GPU group uploads what it makes of them and frees them there, so that set-up
// never holds them beside the instances (24 bytes per CV; busyring's host peak is the
// group's FvmData).
using FvmElectricalTaker = std::function<void(FvmData& f)>;

// build_fvm's passes in order with their seconds (bench/host_setup breaks the set-up down).
using FvmBuildPasses = std::vector<std::pair<const char*, double>>;

// Discretises cells [gid_begin, gid_end) of the model; the solver supplies the layout.
// passes: where given, each pass's seconds are appended.
FvmData build_fvm(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end, const LayoutMaker& make_layout,
                  const FvmElectricalTaker& take_electrical = {}, FvmBuildPasses* passes = nullptr);

// Every CV of one cell in the natural numbering (for `arbolito info` and the voltage
// blow-up report), its policy's zero_area rule applied with the cell's placed points kept.
CellCvs discretize_cell(const CellDesc& c);
CellCvs discretize_cell(const CellDesc& c, const Morphology& shape);  // c's shape at hand
// discretize_cell's CV tree alone (cv_tree: no areas or conductances).
CellCvs cell_cv_tree(const CellDesc& c, const Morphology& shape);
// The axial resistivity of each branch of c's shape m, Ω·cm (discretize's ra).
std::vector<double> branch_ra(const CellDesc& c, const Morphology& m);
// discretize_cell(c).size(), without computing the CVs (load balancing).
int count_cell_cvs(const CellDesc& c);

}  // namespace arbolito
