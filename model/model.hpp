#pragma once
// The model as plain data, after parsing and validation (io/model_reader): what each
// cell is made of, how cells connect, what is recorded and how the run is set up.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/discretization.hpp"
#include "model/event_rules.hpp"
#include "model/morphology.hpp"

namespace arbolito {

// A density mechanism painted on a region: every branch whose tag is `tag`, or all (-1).
struct Paint {
    int tag = -1;
    std::string mechanism;
    std::vector<double> params;  // catalogue order, defaults filled in
};

// A point mechanism (synapse or stimulus) at a location.
struct Placement {
    Location where;
    std::string mechanism;
    std::vector<double> params;
};

// Synapses placed by a rule rather than one by one: `count` instances of `mechanism` at
// sites drawn over the cell's shape from `seed` (drawn_synapse_sites). Listed as
// Placements, busyring's 1,000 unconnected synapses a cell would take about 100 KB a
// cell, as much as the shape that is drawn again rather than kept.
struct DrawnSynapses {
    std::uint32_t count = 0;
    std::uint64_t seed = 0;
    std::string mechanism;
    std::vector<double> params;  // catalogue order, defaults filled in
};

struct Detector {
    Location where;
    double threshold = -10.0;  // mV
};

// An ion species' initial values on a region (docs/mechanisms.md, "Ions"): a value not
// given (NaN) keeps the species' default or an earlier setting's. Later settings win.
struct IonSetting {
    int tag = -1;  // the region: branches of this tag, or all (-1)
    std::string ion;
    double e = std::numeric_limits<double>::quiet_NaN();   // mV
    double xi = std::numeric_limits<double>::quiet_NaN();  // mM
    double xo = std::numeric_limits<double>::quiet_NaN();  // mM
};

// What a probe records: the membrane voltage, a state or a current of a density mechanism,
// or an ion species' value on the CV.
struct ProbeVariable {
    enum Kind { v, mech_state, ion_e, ion_xi, ion_xo, ion_i, mech_current } kind = v;
    std::string mechanism;  // mech_state, mech_current: the mechanism
    int state = 0;          // mech_state: its index among the mechanism's states; mech_current:
                            // -1 its whole current, else its ion slot whose current
    std::string ion;        // ion_*: the species
    std::string name = "v"; // as the model file wrote it ("v", "test_cad.cai", "ca.e")
};

struct Probe {
    bool all_cvs = false;  // every CV of the cell, else the CV at `where`
    Location where;
    ProbeVariable variable;
};

struct CellDesc {
    // The shape: stored (shared between identical cells), or, where `morphology` is null,
    // drawn again from its seed whenever needed (busyring's random cells: about 94 KB
    // each, 3 GB at 32,768 cells, for a shape used only while the run is set up).
    std::shared_ptr<const Morphology> morphology;
    std::function<Morphology()> draw_morphology;
    CvPolicy policy;
    double v_init = -65.0;                   // mV
    std::map<int, double> cm, ra;            // per tag; key -1 is the cell default
    std::vector<Paint> paints;
    std::vector<IonSetting> ions;            // in the order given
    std::vector<Placement> synapses;         // targets of connections, numbered in order
    DrawnSynapses drawn_synapses;            // numbered after `synapses`
    std::vector<Placement> stimuli;
    std::vector<Detector> detectors;         // sources of spikes, numbered in order
    std::vector<Probe> probes;

    std::shared_ptr<const Morphology> shape() const {
        return morphology ? morphology : std::make_shared<const Morphology>(draw_morphology());
    }
    std::size_t n_synapses() const { return synapses.size() + drawn_synapses.count; }
    // Synapse k's mechanism and parameters, listed or drawn (its site: for_each_synapse).
    const std::string& synapse_mechanism(std::size_t k) const {
        return k < synapses.size() ? synapses[k].mechanism : drawn_synapses.mechanism;
    }
    const std::vector<double>& synapse_params(std::size_t k) const {
        return k < synapses.size() ? synapses[k].params : drawn_synapses.params;
    }
    double cm_of(int tag) const { auto it = cm.find(tag); return it != cm.end() ? it->second : cm.at(-1); }
    double ra_of(int tag) const { auto it = ra.find(tag); return it != ra.end() ? it->second : ra.at(-1); }
};

struct Connection {
    std::uint64_t source = 0;    // gid
    std::uint32_t detector = 0;  // on the source cell
    std::uint64_t target = 0;    // gid
    std::uint32_t synapse = 0;   // on the target cell
    double weight = 0;           // µS
    double delay = 1;            // ms
};

// An event generator resolved to explicit event times.
struct Generator {
    std::uint64_t target = 0;
    std::uint32_t synapse = 0;
    double weight = 0;
    std::vector<double> times;  // ms, ascending
};

// Connections that a network builder draws on demand for any range of targets, each
// target's fan-in from its own seed (busyring): a rank draws only those onto its own cells,
// never the whole network's (model/connection_rules.hpp, docs/mpi.md).
struct ConnectionRule {
    std::uint64_t target_begin = 0, target_end = 0;  // the targets it covers
    std::uint64_t count = 0;                          // its connections in all
    double min_delay = 0;                             // ms: the least delay of any of them
    std::string delay_key;                            // the model key that sets it (errors)
    // Appends the connections onto targets [b, e) ∩ [target_begin, target_end), target by target.
    std::function<void(std::uint64_t b, std::uint64_t e, std::vector<Connection>& out)> draw;
};

struct RunSettings {
    double dt = 0.025;        // ms
    double tfinal = 100.0;    // ms
    double sample_dt = 0.1;   // ms
    double celsius = 6.3;     // °C
    EventRules rules = EventRules::arbor;
};

// A file the model was read from, and what it was to the model ("the model file", "the
// SWC file of cells[0].morphology.swc"): outputs must not overwrite it.
struct InputFile {
    std::string path;
    std::string role;
};

struct Model {
    std::string name = "default";  // SONATA population
    std::string source;            // model file
    std::vector<InputFile> inputs; // the model file and every SWC file it names
    double read_bytes = 0;         // its text and its parsed JSON, held while it was read
    std::vector<CellDesc> cells;   // gid = index
    std::vector<Connection> connections;  // explicit; connection_rules draw the rest on demand
    std::vector<ConnectionRule> connection_rules;
    std::vector<Generator> generators;
    RunSettings run;
};

}  // namespace arbolito
