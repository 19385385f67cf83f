#pragma once
// How much memory a model needs, estimated before anything large is allocated, and how
// much this machine has: the model reader refuses a model whose description cannot fit
// (num-cells 1e8), `run` and `compare` a run that cannot (README, Limits), and `info`
// prints the same numbers. One place for the bytes per CV, instance and connection.
#include <array>
#include <cstdint>
#include <string>

#include "model/model.hpp"
#include "model/network_builders.hpp"

namespace arbolito {

// The counts that the memory follows from. Doubles: a count of a model that is far too
// big (1e8 cells × 1e6 synapses) must not overflow before it is refused.
struct ModelSize {
    double cells = 0;
    double cvs = 0;
    double points = 0;        // morphology points held (a morphology shared by cells once)
    double instances = 0;     // mechanism instances (density: one per CV painted; point: one each)
    double mech_values = 0;   // their parameters, states, constants and weights, summed
    double targets = 0;       // synapses (connection targets, connected or not)
    double connections = 0;
    double events = 0;        // generator event times
    double queued_events = 0; // those before tfinal, which the run queues
    double connection_slots = 0;  // the model's connection list as allocated (a grown vector holds up to 2x)
    // Of `connections`, those a rule draws on demand (Model::connection_rules): each rank
    // draws only those onto its own cells, so the ranks of a host hold them once between them.
    double drawn_connections = 0;
    // CVs as the CPU solvers lay them out, cells side by side in SIMD lanes of width 1, 2,
    // 4 and 8: cells sorted by size cut into blocks of `width`, each block as long as its
    // largest cell (one cell of 1e6 CVs in lanes of 4 takes 4e6 rows). Summed as cells are
    // added, exact for a whole model (model_size).
    std::array<double, 4> lane_cvs{};
    double largest_cell_cvs = 0;  // set-up discretises a cell whole, beside the group's arrays
    // Ion species the mechanisms use (mechanisms/ion.hpp), bit k for the catalogue's k-th
    // species: a cell group holds each one's arrays over all its CVs, so a model's are the
    // union of its cells'.
    std::uint64_t ion_species = 0;
    int n_ion_species() const;
    // Density mechanisms painted, bit k for the catalogue's k-th mechanism (any past the
    // 63rd share bit 63): set-up marks each one's paints over all the group's CVs.
    std::uint64_t painted_density = 0;
    int n_painted_density() const;
    double read_bytes = 0;        // the model file's text and parsed JSON (Model::read_bytes)

    ModelSize& operator+=(const ModelSize& o);
    ModelSize times(double k) const;  // k copies
};

// One cell, cheaply (no discretisation); its morphology's points counted when
// `with_morphology` (cells of a "count" share one).
ModelSize cell_size(const CellDesc& c, bool with_morphology = true);
// The whole model: every cell, connection and generator.
ModelSize model_size(const Model& m);
// Cells [begin, end) each sized (cell_size; a shared morphology's points with its first
// cell), in gid order: a slice of model_size's work, which ranks share (a drawn shape is
// drawn to be sized).
std::vector<ModelSize> cell_sizes(const Model& m, std::uint64_t begin, std::uint64_t end);
// model_size from every cell's size (cell_sizes of all cells, in gid order).
ModelSize model_size(const Model& m, const std::vector<ModelSize>& per_cell);
// What build_busyring would add, from the cells' expected shape, without drawing them;
// its connections drawn on demand or now (build_busyring's `drawn`).
ModelSize busyring_size(const BusyringNetwork& p, ConnectionsDrawn drawn = ConnectionsDrawn::now);

struct MemoryEstimate {
    double model_bytes = 0;  // the model description every process holds (cells, morphologies, connections, events)
    double state_bytes = 0;  // the simulation's per-CV and per-instance arrays
    double run_bytes = 0;    // peak of a run on this host: the model per rank, the state with its
                             // solver copies and index arrays, spike fan-out tables and event queues;
                             // or, where larger, reading the model (its text and JSON document)
};

// `ranks`: processes on this host (under mpirun each holds the model, the state is split);
// `lane_width`: the SIMD lanes of the CPU solver's layout (1 for the GPU solvers' host side).
MemoryEstimate estimate_memory(const ModelSize& s, int ranks = 1, int lane_width = 1);

// Memory this process may still use, bytes: MemAvailable of /proc/meminfo, lowered to a
// cgroup's limit where one is set and to $ARBOLITO_MAX_MEMORY (bytes) where that is
// set; 0 when unknown (no check then).
double available_memory_bytes();

// This process's peak resident memory so far, bytes (VmHWM of /proc/self/status; its
// own, not a parent's it was forked from); 0 when unknown.
double peak_resident_bytes();

// "" when `needed` fits in `available` (or available is 0: unknown), else the sentence
// that says so: "needs about 15.2 GiB (10000000 cells, ...) but this machine has 7.6 GiB
// available".
std::string memory_shortfall(double needed, double available, const ModelSize& s);

// 1536 -> "1.5 KiB", 1.6e10 -> "14.9 GiB".
std::string describe_bytes(double bytes);

}  // namespace arbolito
