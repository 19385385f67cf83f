#include "model/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/parallel_for.hpp"
#include "mechanisms/catalogue.hpp"
#include "model/connection_rules.hpp"
#include "model/junction_points.hpp"

namespace arbolito {

namespace {

// Bytes per unit, from the arrays a run holds at its peak. State: per CV v, d, u, rhs,
// cap/dt, the base diagonal and the base rhs (7 doubles) and the layout's index, parent
// and lane block (3 ints) (set-up frees each input array once its run-time array holds it
// and keeps no discretisation or drawn shape); per mechanism value a double, per instance
// a CV index.
// Beside it about 40 bytes per connection while the spike fan-out is built. Measured on
// busyring (examples/, 2,000 to 16,000 cells, 10 and 1,000 synapses, cpu, --spikes-only),
// peak resident memory was 2% to 4% below this estimate. Per synapse 16 bytes: its
// target's mechanism and instance (5) and, at the peak, the set-up's numbering of the
// instances by CV: busyring's 1,000 unconnected synapses a cell raised the peak by 52.6
// bytes each (1,024 cells, cpu, --spikes-only), 36 of them the instance's. Model: a morphology point is an
// xyz and a radius; a cell description ~600 bytes with its vectors; a connection 40 bytes.
constexpr double cv_state_bytes = 7 * 8 + 3 * 4;
// Per CV and ion species: e, Xi, Xo and i at run time (IonState) and the initial e, Xi, Xo
// (IonSpecies), doubles, and the CV's entry in the Nernst list (at most one); per CV once
// where a group has ions, its area weight (FvmData::ion_cv_weight).
constexpr double ion_cv_bytes = 7 * 8 + 4;
constexpr double ion_weight_bytes = 8;
constexpr double instance_index_bytes = 4;
constexpr double target_bytes = 16;
constexpr double run_state_factor = 1.03;
constexpr double point_bytes = 4 * 8;
constexpr double cell_desc_bytes = 600;
constexpr double connection_model_bytes = sizeof(Connection), connection_run_bytes = 40;
constexpr double event_bytes = 8, event_run_bytes = 72;
// Set-up's peak, where it is above the run's state (one large cell): while the cells are
// discretised again (build_fvm's lower_cells), per CV of the layout cap, g_parent and
// g_sum (3 doubles), owner and area (12 bytes), the layout's numbering (index, parent and
// block rows) and per painted density mechanism a paint mark (4 bytes), with ions a tag
// (4 bytes); beside them a cell's whole discretisation (CellCvs: parent, area, g_axial,
// branch, pos and its cut, 40 bytes a CV, and the cuts' scratch). heaptrack, one cell of
// 823,297 and of 6,586,369 CVs in one lane: the layout 13.2 bytes a CV, the
// discretisation 42.2, counted as 14 and 43. The per-layout-CV terms follow the lane
// width: one cell in one lane holds a quarter of its 4-lane set-up.
constexpr double setup_cv_bytes = 3 * 8 + 12 + 14;
constexpr double paint_mark_bytes = 4, ion_tag_bytes = 4;
constexpr double cell_cvs_bytes = 43;
constexpr double process_bytes = 24 << 20;  // libraries, HDF5, thread stacks

double density_fraction(const Morphology& m, int tag) {
    if (tag < 0 || m.branches.empty()) return 1.0;
    const auto n = std::count_if(m.branches.begin(), m.branches.end(), [&](const Branch& b) { return b.tag == tag; });
    return static_cast<double>(n) / static_cast<double>(m.branches.size());
}

// count_cvs without building the cuts (which a policy of 1e6 pieces per branch makes
// slow): pieces per branch plus its x = 1 node, and the root's x = 0 node, less those
// zero_area fold removes (from the tree alone); for every_segment coincident points are
// counted as pieces (an upper bound).
double estimate_cvs(const Morphology& m, const CellDesc& c) {
    const CvPolicy& p = c.policy;
    double n = 1;
    for (const Branch& b : m.branches) {
        if (p.kind == CvPolicy::nseg) n += p.n;
        else if (p.kind == CvPolicy::max_extent) n += std::max(1.0, std::ceil(b.length() / p.extent - 1e-9));
        else if (p.kind == CvPolicy::odd_per_length) n += 1 + 2 * std::floor(b.length() / p.extent);
        else n += std::max<double>(1, static_cast<double>(b.xyz.size()) - 1);
        n += 1;
    }
    if (p.zero_area == CvPolicy::fold) n -= folded_junctions(m, junction_points(c, m)).count();
    return n;
}

// The ion species mechanism `mech` uses as bits (ModelSize::ion_species): species k of
// the catalogue, in the order the mechanisms first name them; any past the 63rd share bit 63.
std::uint64_t ion_species_of(const std::string& mech) {
    static const std::vector<std::string> species = [] {
        std::vector<std::string> s;
        for (const MechInfo& mi : mechanism_infos())
            for (const IonUse& u : mi.ions)
                if (std::find(s.begin(), s.end(), u.name) == s.end()) s.push_back(u.name);
        return s;
    }();
    const MechInfo* mi = find_mechanism(mech);
    std::uint64_t bits = 0;
    if (mi)
        for (const IonUse& u : mi->ions) {
            const auto k = std::find(species.begin(), species.end(), u.name) - species.begin();
            bits |= std::uint64_t{1} << std::min<long>(k, 63);
        }
    return bits;
}

// The bit of density mechanism `mech` (ModelSize::painted_density); 0 if not one.
std::uint64_t painted_bit(const std::string& mech) {
    const MechInfo* mi = find_mechanism(mech);
    if (!mi || mi->kind != MechKind::density) return 0;
    return std::uint64_t{1} << std::min(mi->index, 63);
}

double values_of(const std::string& mech) {
    const MechInfo* mi = find_mechanism(mech);
    return mi ? static_cast<double>(mi->params.size() + mi->states.size() + mi->derived.size() + 1) : 8.0;
}

}  // namespace

namespace {

int lane_index(int width) { return width >= 8 ? 3 : width >= 4 ? 2 : width >= 2 ? 1 : 0; }

// Cells of `cvs` CVs each (any order) laid out in blocks of `width` lanes.
double padded_cvs(std::vector<double> cvs, int width) {
    std::sort(cvs.begin(), cvs.end(), std::greater<>());
    double n = 0;
    for (std::size_t b = 0; b < cvs.size(); b += width) n += width * cvs[b];
    return n;
}

}  // namespace

ModelSize& ModelSize::operator+=(const ModelSize& o) {
    for (int k = 0; k < 4; ++k) lane_cvs[k] += o.lane_cvs[k];
    largest_cell_cvs = std::max(largest_cell_cvs, o.largest_cell_cvs);
    ion_species |= o.ion_species;
    painted_density |= o.painted_density;
    read_bytes = std::max(read_bytes, o.read_bytes);
    queued_events += o.queued_events;
    connection_slots += o.connection_slots;
    cells += o.cells;
    cvs += o.cvs;
    points += o.points;
    instances += o.instances;
    mech_values += o.mech_values;
    targets += o.targets;
    connections += o.connections;
    drawn_connections += o.drawn_connections;
    events += o.events;
    return *this;
}

int ModelSize::n_ion_species() const {
    int n = 0;
    for (std::uint64_t b = ion_species; b; b &= b - 1) ++n;
    return n;
}

int ModelSize::n_painted_density() const {
    int n = 0;
    for (std::uint64_t b = painted_density; b; b &= b - 1) ++n;
    return n;
}

ModelSize ModelSize::times(double k) const {
    ModelSize s = *this;
    for (double* v : {&s.cells, &s.cvs, &s.points, &s.instances, &s.mech_values, &s.targets, &s.connections, &s.drawn_connections, &s.events,
                      &s.queued_events})
        *v *= k;
    for (double& v : s.lane_cvs) v *= k;
    return s;
}

ModelSize cell_size(const CellDesc& c, bool with_morphology) {
    ModelSize s;
    s.cells = 1;
    const auto shape = c.shape();
    const Morphology& m = *shape;
    s.cvs = estimate_cvs(m, c);
    s.lane_cvs.fill(s.cvs);  // alone; model_size lays out the cells together
    s.largest_cell_cvs = s.cvs;
    if (with_morphology && c.morphology)  // a drawn shape is not kept
        for (const Branch& b : m.branches) s.points += static_cast<double>(b.xyz.size());
    // A density mechanism on the CVs of its region: estimated by the region's share of
    // branches (cheaper than discretising; the zero-area junction CVs are counted too).
    for (const Paint& p : c.paints) {
        const double n = s.cvs * density_fraction(m, p.tag);
        s.instances += n;
        s.mech_values += n * values_of(p.mechanism);
    }
    for (const auto* list : {&c.synapses, &c.stimuli})
        for (const Placement& p : *list) {
            s.instances += 1;
            s.mech_values += values_of(p.mechanism);
        }
    s.instances += c.drawn_synapses.count;
    s.targets = static_cast<double>(c.n_synapses());
    if (c.drawn_synapses.count > 0) s.mech_values += c.drawn_synapses.count * values_of(c.drawn_synapses.mechanism);
    for (const Paint& p : c.paints) s.ion_species |= ion_species_of(p.mechanism);
    for (const Paint& p : c.paints) s.painted_density |= painted_bit(p.mechanism);
    for (const auto* list : {&c.synapses, &c.stimuli})
        for (const Placement& p : *list) s.ion_species |= ion_species_of(p.mechanism);
    if (c.drawn_synapses.count > 0) s.ion_species |= ion_species_of(c.drawn_synapses.mechanism);
    return s;
}

std::vector<ModelSize> cell_sizes(const Model& m, std::uint64_t begin, std::uint64_t end) {
    // A shared shape is counted with its first cell. The cells are sized in parallel (a
    // drawn shape is drawn again here: 32,768 busyring cells took 1.5 s on one thread).
    std::vector<char> first_of_shape(end, 0);
    std::set<const Morphology*> seen;
    for (std::uint64_t g = 0; g < end; ++g) {
        const CellDesc& c = m.cells[g];
        first_of_shape[g] = c.morphology && seen.insert(c.morphology.get()).second;
    }
    std::vector<ModelSize> per_cell(end - begin);
    parallel_for(static_cast<long>(per_cell.size()), 64,
                 [&](long i) { per_cell[i] = cell_size(m.cells[begin + i], first_of_shape[begin + i]); });
    return per_cell;
}

ModelSize model_size(const Model& m) { return model_size(m, cell_sizes(m, 0, m.cells.size())); }

ModelSize model_size(const Model& m, const std::vector<ModelSize>& per_cell) {
    // Added up in gid order, so the sum is the same on any number of threads and ranks.
    const long n = static_cast<long>(per_cell.size());
    ModelSize s;
    for (const ModelSize& c : per_cell) s += c;
    std::vector<double> cvs(n);
    for (long g = 0; g < n; ++g) cvs[g] = per_cell[g].cvs;
    for (int k = 0; k < 4; ++k) s.lane_cvs[k] = padded_cvs(cvs, 1 << k);
    s.connections = static_cast<double>(connection_count(m));
    s.connection_slots = static_cast<double>(m.connections.capacity());
    s.drawn_connections = s.connections - static_cast<double>(m.connections.size());
    for (const Generator& g : m.generators) {
        s.events += static_cast<double>(g.times.size());
        s.queued_events += static_cast<double>(std::lower_bound(g.times.begin(), g.times.end(), m.run.tfinal) - g.times.begin());
    }
    s.read_bytes = m.read_bytes;
    return s;
}

ModelSize busyring_size(const BusyringNetwork& p, ConnectionsDrawn drawn) {
    const BusyringShape shape = busyring_expected_shape(p.cell);
    // Soma: two points, one piece, its end node and the root node; a section: its
    // segments' points and pieces, one point and one end node more (every_segment).
    ModelSize one;
    one.cells = 1;
    one.points = 0;  // drawn again when needed, not kept (CellDesc::draw_morphology)
    one.cvs = 3 + shape.segments + shape.sections;
    // hh on the soma, pas on the dendrites; the connected expsyn and the unconnected ones
    const double synapses = 1.0 + p.unconnected_synapses.value_or(p.synapses);
    one.instances = one.cvs + synapses;
    one.mech_values = one.cvs * values_of("pas") + synapses * values_of("expsyn");
    one.targets = synapses;
    one.painted_density = painted_bit("hh") | painted_bit("pas");
    ModelSize s = one.times(static_cast<double>(p.num_cells));
    s.connections = static_cast<double>(p.num_cells) * p.synapses;
    if (drawn == ConnectionsDrawn::on_demand) s.drawn_connections = s.connections;
    s.events = std::ceil(static_cast<double>(p.num_cells) / std::max(1u, p.ring_size));
    s.queued_events = s.events;  // one kick a ring at 1 ms, before any tfinal worth running
    return s;
}

MemoryEstimate estimate_memory(const ModelSize& s, int ranks, int lane_width) {
    MemoryEstimate e;
    e.model_bytes = s.cells * cell_desc_bytes + s.points * point_bytes +
                    (std::max(s.connections, s.connection_slots) - s.drawn_connections) * connection_model_bytes +
                    s.events * event_bytes;
    const double layout_cvs = std::max(s.cvs, s.lane_cvs[lane_index(lane_width)]);
    e.state_bytes = layout_cvs * cv_state_bytes + s.mech_values * 8 + s.instances * instance_index_bytes +
                    s.targets * target_bytes;
    if (const int n = s.n_ion_species(); n > 0) e.state_bytes += layout_cvs * (n * ion_cv_bytes + ion_weight_bytes);
    // Set-up's per-CV arrays and one cell's whole discretisation, or the run's state,
    // whichever is larger (set-up frees its scratch before the state is complete).
    const double setup_bytes =
        layout_cvs * (setup_cv_bytes + s.n_painted_density() * paint_mark_bytes + (s.ion_species ? ion_tag_bytes : 0)) +
        s.largest_cell_cvs * cell_cvs_bytes;
    e.run_bytes = std::max(1, ranks) * (process_bytes + e.model_bytes) + std::max(run_state_factor * e.state_bytes, setup_bytes) +
                  s.connections * connection_run_bytes + s.drawn_connections * connection_model_bytes +
                  s.queued_events * event_run_bytes;
    // Reading: the text and its document, and the model built from it while both live.
    e.run_bytes = std::max(e.run_bytes, std::max(1, ranks) * (process_bytes + s.read_bytes + e.model_bytes));
    return e;
}

double available_memory_bytes() {
    double avail = 0;
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    double kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") avail = kib * 1024;
    if (avail == 0) {
        const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) avail = static_cast<double>(pages) * static_cast<double>(page);
    }
    // A container's limit (cgroup v2, then v1): what is left of it, when lower.
    const auto read_number = [](const char* path) {
        std::ifstream f(path);
        double v = 0;
        return f >> v ? v : 0.0;
    };
    double limit = read_number("/sys/fs/cgroup/memory.max"), used = read_number("/sys/fs/cgroup/memory.current");
    if (limit <= 0) {
        limit = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        used = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    }
    if (limit > 0 && limit < 1e18 && limit - used < avail) avail = std::max(0.0, limit - used);
    // A user's own cap (a shared node; the fuzz tests): ARBOLITO_MAX_MEMORY in bytes.
    if (const char* cap = std::getenv("ARBOLITO_MAX_MEMORY")) {
        char* end = nullptr;
        const double v = std::strtod(cap, &end);
        if (end != cap && v > 0 && (avail <= 0 || v < avail)) avail = v;
    }
    return avail;
}

double peak_resident_bytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            double kib = 0;
            return status >> kib ? kib * 1024 : 0.0;
        }
        status.ignore(1 << 20, '\n');
    }
    return 0;
}

std::string describe_bytes(double bytes) {
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024 && u < 6) {
        bytes /= 1024;
        ++u;
    }
    std::ostringstream s;
    s.precision(u == 0 ? 0 : 3);
    s << std::fixed << (u == 0 ? std::round(bytes) : bytes);
    std::string text = s.str();
    if (u > 0) {  // 1.500 -> 1.5, 2.000 -> 2
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text.pop_back();
    }
    return text + " " + units[u];
}

std::string memory_shortfall(double needed, double available, const ModelSize& s) {
    if (available <= 0 || needed <= available) return "";
    const auto count = [](double v) {
        std::ostringstream c;
        if (v < 1e15) c << std::fixed << std::setprecision(0) << v;
        else c << std::setprecision(3) << v;
        return c.str();
    };
    return "needs about " + describe_bytes(needed) + " (" + count(s.cells) + " cells, " + count(s.cvs) + " CVs, " +
           count(s.connections) + " connections, " + count(s.events) + " generator events) but this machine has " +
           describe_bytes(available) + " available";
}

}  // namespace arbolito
