#pragma once
// Networks drawn by code: a ring over the model's cells, and Arbor's busyring benchmark.
#include <cstdint>
#include <optional>

#include "model/cell_builders.hpp"
#include "model/model.hpp"

namespace arbolito {

// Cell i → cell i+1 (the last closes the ring) on detector 0 → synapse 0, and one
// event at kick_time on cell 0's synapse 0. Every cell needs a detector and a synapse.
void build_ring(Model& m, double weight, double delay, double kick_time, double kick_weight);

// Arbor's busyring (example/busyring), parameters named as in its JSON files.
struct BusyringNetwork {
    std::uint64_t num_cells = 1000;
    unsigned synapses = 1;       // connections per cell: 1 from the ring, the rest weight 0
    // expsyn per cell that no connection targets; unset: `synapses`, as Arbor places them
    std::optional<unsigned> unconnected_synapses;
    double min_delay = 10;       // ms
    unsigned ring_size = 10;
    double event_weight = 0.05;  // µS
    bool record = false;         // a soma probe on every cell
    // The cells' zero-area nodes with fewer than two children (the branches' tips): kept, as
    // NEURON's layout has them, or folded away exactly (CvPolicy::fold; Arbor has none).
    CvPolicy::ZeroArea zero_area = CvPolicy::keep;
    // A cell's expsyn on one CV as one instance (CvPolicy::coalesce_synapses): Arbor's
    // default, so its busyring computes the same instances.
    bool coalesce_synapses = true;
    BusyringParams cell;
};

// Appends the network's cells, connections and generators. Cell: busyring_cell(gid), hh
// soma, pas dendrites, Ra 100 Ω·cm, one CV per segment, detector at the soma's proximal
// end (10 mV), expsyn at the proximal end of the first dendrite (synapse 0, the only
// target), then unconnected_synapses expsyn drawn over the whole cell, uniform in arc
// length, seeded with the cell's index in the network (drawn_synapse_sites; Arbor's
// ls::uniform(reg::all(), 0, synapses − 1, gid) draws the same distribution with another
// generator, so the sites differ cell by cell). Ring: the predecessor in
// each ring of ring_size cells, delay min_delay; then synapses − 1 connections of weight 0
// from random cells (no self-connections) with float delays uniform in [min_delay,
// 3·min_delay), drawn as Arbor draws them (std::mt19937 seeded with the gid). One event
// at 1 ms on the first cell of each ring. `drawn`: the connections drawn into
// m.connections now, or left to a rule (m.connection_rules) that draws any target range's
// on demand, the same connections target by target (a run's set-up: each rank draws only
// those onto its own cells).
enum class ConnectionsDrawn { now, on_demand };
void build_busyring(Model& m, const BusyringNetwork& p, ConnectionsDrawn drawn = ConnectionsDrawn::now);

}  // namespace arbolito
