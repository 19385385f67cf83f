// Arbor's run of the Allen network that tools/allen_network.py describes (network.desc.json),
// on the GPU when Arbor was built with one and a device is there, else on the CPU threads.
//
//   allen_network_arbor DESC.json [--cpu] [--threads N] [--tfinal MS] [--spikes FILE]
//
// Built against Arbor's own sources (0.12.1), not arbolito's: Arbor's built-in `allen`
// catalogue supplies the channels (its copies of the Allen .mod files), the default catalogue
// exp2syn, pas and nernst. Prints one line per field ("setup_s 1.23") and then all of them as
// one JSON line ("RESULT {...}"); --tfinal runs a shorter time than the description's;
// --spikes writes "gid time" per spike in Arbor's order.
//
// The cells: the sections, points and nseg of each fit's geometry dump (arbolito's
// `info --geometry`, the geometry NEURON is validated on) and the biophysics of the fit's
// JSON applied per section type as the Allen recipe does (Ra; cm per type; pas with e_pas
// and g_pas per type; each genome entry on its type; ena/ek per conditions.erev; celsius;
// v_init; eca by Nernst from cai, which CaDynamics writes).
// The CVs: NEURON's, as far as Arbor's model reaches. A section of nseg n gets CV boundaries
// at k/n of its length; every fork is a boundary on each branch, which makes Arbor's
// zero-length CV there: NEURON's zero-area node at x = 1, with the parent's and the child's
// half CVs as the resistances either side. The soma is cut in two segments at its middle,
// where the neurites attach (NEURON's soma(0.5)), and has no boundary there: its middle CV
// is one CV across that fork, whose voltage is taken at the fork, as NEURON's soma node.
// Synapses, the detector and a step current sit at the dump's node positions.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <arbor/cable_cell.hpp>
#include <arbor/context.hpp>
#include <arbor/cv_policy.hpp>
#include <arbor/load_balance.hpp>
#include <arbor/morph/cv_data.hpp>
#include <arbor/morph/morphology.hpp>
#include <arbor/morph/segment_tree.hpp>
#include <arbor/recipe.hpp>
#include <arbor/simulation.hpp>
#include <arbor/version.hpp>

namespace U = arb::units;
using json = nlohmann::json;

namespace {

struct Bad: std::runtime_error {
    using std::runtime_error::runtime_error;
};

json read_json(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw Bad(path + ": cannot open");
    try {
        return json::parse(f);
    } catch (const json::exception& e) {
        throw Bad(path + ": " + e.what());
    }
}

std::string dir_of(const std::string& path) {
    const auto k = path.find_last_of('/');
    return k == std::string::npos ? std::string(".") : path.substr(0, k);
}

const char* allen_type(int tag) {
    switch (tag) {
    case 1: return "soma";
    case 2: case 7: return "axon";  // 7: the converter's second axon stub
    case 3: return "dend";
    case 4: return "apic";
    }
    return nullptr;
}

// A section's place in Arbor's morphology: its branch and its span there (branch fractions).
struct SectionSpan {
    arb::msize_t first_segment = 0, last_segment = 0;
    arb::msize_t branch = 0;
    double prox = 0, dist = 1;
};

// One fit's cell template: morphology, CV boundaries, the decor without synapses, and where
// each dump position lands.
struct FitCell {
    arb::morphology morph;
    arb::decor decor;
    arb::locset boundaries;
    std::vector<SectionSpan> spans;
    std::vector<int> nseg;
    arb::msize_t soma_a = 0, soma_b = 0;  // the soma's halves (branches)

    arb::mlocation where(int section, double x) const {
        if (section < 0 || section >= static_cast<int>(spans.size())) throw Bad("section " + std::to_string(section) + " off the cell");
        if (section == 0) return x <= 0.5 ? arb::mlocation{soma_a, 2 * x} : arb::mlocation{soma_b, 2 * x - 1};
        const SectionSpan& s = spans[section];
        return {s.branch, s.prox + x * (s.dist - s.prox)};
    }
};

arb::mpoint point(const json& p) {
    return {p.at(0).get<double>(), p.at(1).get<double>(), p.at(2).get<double>(), p.at(3).get<double>() / 2};
}

FitCell build_fit(const json& fit_entry, const std::string& desc_dir) {
    const std::string geom_path = desc_dir + "/" + fit_entry.at("geometry").get<std::string>();
    const std::string fit_path = fit_entry.at("fit").get<std::string>();
    const json dump = read_json(geom_path);
    const json fit = read_json(fit_path);
    if (dump.value("format", "") != "arbolito-geometry-1") throw Bad(geom_path + ": not an arbolito geometry dump");
    const json& sections = dump.at("cells").at(0).at("sections");
    FitCell c;

    // Segments: each section's points; the soma cut at half its length.
    arb::segment_tree tree;
    std::vector<arb::msize_t> last_seg(sections.size());
    std::vector<arb::msize_t> first_seg(sections.size());
    arb::msize_t soma_mid = arb::mnpos;
    for (std::size_t s = 0; s < sections.size(); ++s) {
        const json& sec = sections[s];
        const int tag = sec.at("tag").get<int>();
        const int parent = sec.at("parent").get<int>();
        const double parent_x = sec.at("parent_x").get<double>();
        const json& pts = sec.at("pt3d");
        if (!allen_type(tag)) throw Bad(geom_path + ": sections[" + std::to_string(s) + "]: tag " + std::to_string(tag) + " is no Allen section type");
        if (pts.size() < 2) throw Bad(geom_path + ": sections[" + std::to_string(s) + "]: fewer than 2 points");
        c.nseg.push_back(sec.at("nseg").get<int>());
        if (s == 0) {
            if (parent != -1 || tag != 1) throw Bad(geom_path + ": sections[0] is not a soma root");
            if (c.nseg[0] % 2 == 0) throw Bad(geom_path + ": the soma's nseg is even: no node at its middle");
            std::vector<arb::mpoint> p;
            std::vector<double> at{0};
            for (const auto& q: pts) p.push_back(point(q));
            for (std::size_t i = 1; i < p.size(); ++i) at.push_back(at.back() + arb::distance(p[i - 1], p[i]));
            const double half = at.back() / 2;
            arb::msize_t prev = arb::mnpos;
            bool cut = false;
            for (std::size_t i = 1; i < p.size(); ++i) {
                if (!cut && at[i] == half) {  // a point at the middle: the cut is there
                    soma_mid = prev = tree.append(prev, p[i - 1], p[i], 1);
                    cut = true;
                } else if (!cut && at[i] > half) {
                    const double f = (half - at[i - 1]) / (at[i] - at[i - 1]);
                    const arb::mpoint m{p[i - 1].x + f * (p[i].x - p[i - 1].x), p[i - 1].y + f * (p[i].y - p[i - 1].y),
                                        p[i - 1].z + f * (p[i].z - p[i - 1].z), p[i - 1].radius + f * (p[i].radius - p[i - 1].radius)};
                    soma_mid = prev = tree.append(prev, p[i - 1], m, 1);
                    prev = tree.append(prev, m, p[i], 1);
                    cut = true;
                } else {
                    prev = tree.append(prev, p[i - 1], p[i], 1);
                }
            }
            last_seg[0] = prev;
            continue;
        }
        arb::msize_t prev;
        if (parent < 0 || parent >= static_cast<int>(s)) throw Bad(geom_path + ": sections[" + std::to_string(s) + "]: bad parent");
        if (parent == 0 && parent_x == 0.5) prev = soma_mid;
        else if (parent_x == 1.0) prev = last_seg[parent];
        else throw Bad(geom_path + ": sections[" + std::to_string(s) + "]: attached at x = " + std::to_string(parent_x) + " (only 1, or the soma's 0.5)");
        first_seg[s] = static_cast<arb::msize_t>(tree.size());
        for (std::size_t i = 1; i < pts.size(); ++i) prev = tree.append(prev, point(pts[i - 1]), point(pts[i]), tag);
        last_seg[s] = prev;
    }
    c.morph = arb::morphology(tree);

    // Where every segment lies: its branch and its span there (fractions of the branch).
    std::vector<arb::msize_t> seg_branch(tree.size());
    std::vector<double> seg_prox(tree.size()), seg_dist(tree.size());
    for (arb::msize_t b = 0; b < c.morph.num_branches(); ++b) {
        const auto& segs = c.morph.branch_segments(b);
        double total = 0;
        for (const auto& sg: segs) total += arb::distance(sg.prox, sg.dist);
        double run = 0;
        for (const auto& sg: segs) {
            seg_branch[sg.id] = b;
            seg_prox[sg.id] = total > 0 ? run / total : 0;
            run += arb::distance(sg.prox, sg.dist);
            seg_dist[sg.id] = total > 0 ? run / total : 1;
        }
    }
    c.soma_a = seg_branch[soma_mid];
    c.soma_b = seg_branch[last_seg[0]];
    if (seg_dist[soma_mid] != 1.0 || c.soma_a == c.soma_b) throw Bad(geom_path + ": the soma's middle is not a fork");
    c.spans.resize(sections.size());
    arb::mlocation_list bounds;
    for (std::size_t s = 0; s < sections.size(); ++s) {
        const int n = c.nseg[s];
        if (s == 0) {
            for (int k = 1; k < n; ++k) bounds.push_back(c.where(0, static_cast<double>(k) / n));
            continue;
        }
        SectionSpan& sp = c.spans[s];
        sp.first_segment = first_seg[s];
        sp.last_segment = last_seg[s];
        sp.branch = seg_branch[first_seg[s]];
        if (seg_branch[last_seg[s]] != sp.branch) throw Bad(geom_path + ": sections[" + std::to_string(s) + "] spans two branches");
        sp.prox = seg_prox[first_seg[s]];
        sp.dist = seg_dist[last_seg[s]];
        for (int k = 0; k <= n; ++k) bounds.push_back(c.where(static_cast<int>(s), static_cast<double>(k) / n));
    }
    c.boundaries = arb::locset(bounds);

    // Biophysics from the fit, per section type (the Allen recipe's set_params_peri).
    const json& passive = fit.at("passive").at(0);
    const json& cond = fit.at("conditions").at(0);
    const auto region_of = [](const std::string& type) -> arb::region {
        if (type == "soma") return arb::reg::tagged(1);
        if (type == "axon") return arb::join(arb::reg::tagged(2), arb::reg::tagged(7));
        if (type == "dend") return arb::reg::tagged(3);
        if (type == "apic") return arb::reg::tagged(4);
        throw Bad("unknown section type '" + type + "'");
    };
    std::map<std::string, bool> present;
    for (const auto& sec: sections) present[allen_type(sec.at("tag").get<int>())] = true;
    arb::decor& d = c.decor;
    d.set_default(arb::axial_resistivity{passive.at("ra").get<double>() * U::Ohm * U::cm});
    d.set_default(arb::init_membrane_potential{cond.at("v_init").get<double>() * U::mV});
    d.set_default(arb::temperature{(cond.at("celsius").get<double>() + 273.15) * U::Kelvin});
    d.set_default(arb::membrane_capacitance{1.0 * U::uF / U::cm2});  // NEURON's cm unless set
    d.set_default(arb::ion_reversal_potential_method{"ca", arb::mechanism_desc("nernst/ca")});
    for (const auto& cm: passive.at("cm")) {
        const std::string t = cm.at("section").get<std::string>();
        if (present[t]) d.paint(region_of(t), arb::membrane_capacitance{cm.at("cm").get<double>() * U::uF / U::cm2});
    }
    // mechanism -> type -> parameters, in the genome's order; g_pas per type.
    std::map<std::string, std::map<std::string, std::vector<std::pair<std::string, double>>>> mechs;
    std::vector<std::string> order;
    std::map<std::string, double> g_pas;
    for (const auto& g: fit.at("genome")) {
        const std::string t = g.at("section").get<std::string>(), name = g.at("name").get<std::string>();
        std::string mech = g.at("mechanism").get<std::string>();
        if (mech.empty()) mech = "pas";
        const std::string suffix = "_" + mech;
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            throw Bad(fit_path + ": genome entry '" + name + "' is not a parameter of " + mech);
        const std::string param = name.substr(0, name.size() - suffix.size());
        if (mech == "pas") {
            if (param != "g") throw Bad(fit_path + ": genome entry '" + name + "': only g_pas is set per section");
            g_pas[t] = g.at("value").get<double>();
            continue;
        }
        if (!mechs.count(mech)) order.push_back(mech);
        mechs[mech][t].push_back({param, g.at("value").get<double>()});
    }
    // Arbor's pas has e as a global parameter: set in the mechanism's name.
    char pas_name[64];
    std::snprintf(pas_name, sizeof pas_name, "pas/e=%.17g", passive.at("e_pas").get<double>());
    for (const char* t: {"soma", "axon", "dend", "apic"}) {
        if (!present[t]) continue;
        const double g = g_pas.count(t) ? g_pas[t] : 0.001;  // NEURON's pas default
        d.paint(region_of(t), arb::density(pas_name, std::vector<std::pair<std::string, double>>{{"g", g}}));
    }
    for (const auto& m: order)
        for (const auto& [t, params]: mechs[m])
            if (present[t]) d.paint(region_of(t), arb::density(m.c_str(), params));
    for (const auto& e: cond.at("erev")) {
        const std::string t = e.at("section").get<std::string>();
        if (!present[t]) continue;
        if (e.contains("ena")) d.paint(region_of(t), arb::init_reversal_potential{"na", e.at("ena").get<double>() * U::mV});
        if (e.contains("ek")) d.paint(region_of(t), arb::init_reversal_potential{"k", e.at("ek").get<double>() * U::mV});
    }
    return c;
}

// The libstdc++ draws of arbolito's "poisson" generator (io/model_reader.cpp).
std::vector<double> poisson_times(std::uint64_t seed, double rate_hz, double start, double stop) {
    std::vector<double> t;
    std::mt19937_64 gen(seed);
    std::exponential_distribution<double> isi(rate_hz / 1000.0);
    for (double x = start + isi(gen); x < stop; x += isi(gen)) t.push_back(x);
    return t;
}

struct Network {
    std::vector<FitCell> fits;
    std::vector<int> fit_of;  // per gid
    std::vector<std::vector<arb::mlocation>> sites;  // per fit: synapse k's location
    std::vector<std::size_t> conn_begin;  // per target gid, into the columns (grouped by target)
    std::vector<std::uint32_t> source, synapse;
    std::vector<float> weight, delay;
    std::vector<char> is_source;  // per gid: some connection leaves it
    unsigned k = 0;
    double min_delay = 5;
    double rate = 0, w_in = 0, start = 0, stop = 0, threshold = -15, tfinal = 0, dt = 0.025;
    std::uint64_t seed = 0;
    bool step = false;
    double step_amp = 0, step_delay = 0, step_dur = 0;
    json syn;
};

Network read_network(const std::string& path) {
    const json j = read_json(path);
    if (j.value("format", "") != "allen-network-1") throw Bad(path + ": \"format\" is not allen-network-1");
    Network n;
    const std::string dir = dir_of(path);
    n.k = j.at("synapses_per_cell").get<unsigned>();
    const std::size_t cells = j.at("cells").get<std::size_t>();
    n.fit_of.assign(cells, -1);
    for (const auto& f: j.at("fits")) {
        const int fi = static_cast<int>(n.fits.size());
        n.fits.push_back(build_fit(f, dir));
        const auto first = f.at("first_gid").get<std::size_t>(), count = f.at("count").get<std::size_t>();
        if (first + count > cells) throw Bad(path + ": fit " + f.at("name").get<std::string>() + " runs past the last cell");
        for (std::size_t g = first; g < first + count; ++g) n.fit_of[g] = fi;
        std::vector<arb::mlocation> s;
        for (const auto& site: f.at("synapses")) s.push_back(n.fits.back().where(site.at("section").get<int>(), site.at("x").get<double>()));
        if (s.size() != n.k) throw Bad(path + ": fit " + f.at("name").get<std::string>() + " has " + std::to_string(s.size()) + " synapses, not synapses_per_cell");
        n.sites.push_back(std::move(s));
    }
    for (std::size_t g = 0; g < cells; ++g)
        if (n.fit_of[g] < 0) throw Bad(path + ": cell " + std::to_string(g) + " belongs to no fit");
    const json& run = j.at("run");
    n.tfinal = run.at("tfinal").get<double>();
    n.dt = run.at("dt").get<double>();
    n.threshold = run.at("threshold").get<double>();
    n.min_delay = j.at("min_delay").get<double>();
    const json& p = j.at("poisson");
    n.rate = p.at("rate_hz").get<double>();
    n.w_in = p.at("weight").get<double>();
    n.seed = p.at("seed").get<std::uint64_t>();
    n.start = p.at("start").get<double>();
    n.stop = p.at("stop").get<double>();
    n.syn = j.at("synapse");
    if (!j.at("step").is_null()) {
        n.step = true;
        n.step_amp = j["step"].at("amp").get<double>();
        n.step_delay = j["step"].at("delay").get<double>();
        n.step_dur = j["step"].at("dur").get<double>();
    }
    const json& c = j.at("connections");
    const auto tgt = c.at("target").get<std::vector<std::uint32_t>>();
    n.source = c.at("source").get<std::vector<std::uint32_t>>();
    n.synapse = c.at("synapse").get<std::vector<std::uint32_t>>();
    const auto w = c.at("weight").get<std::vector<double>>(), dl = c.at("delay").get<std::vector<double>>();
    if (n.source.size() != tgt.size() || n.synapse.size() != tgt.size() || w.size() != tgt.size() || dl.size() != tgt.size())
        throw Bad(path + ": connections' columns differ in length");
    n.weight.assign(w.begin(), w.end());
    n.delay.assign(dl.begin(), dl.end());
    n.conn_begin.assign(cells + 1, 0);
    for (std::size_t i = 0; i < tgt.size(); ++i) {
        if (tgt[i] >= cells || n.source[i] >= cells || n.synapse[i] >= n.k) throw Bad(path + ": connections[" + std::to_string(i) + "] names a cell or synapse that is not there");
        if (i && tgt[i] < tgt[i - 1]) throw Bad(path + ": connections are not grouped by target");
        ++n.conn_begin[tgt[i] + 1];
    }
    for (std::size_t g = 0; g < cells; ++g) n.conn_begin[g + 1] += n.conn_begin[g];
    n.is_source.assign(cells, 0);
    for (auto s: n.source) n.is_source[s] = 1;
    return n;
}

std::string syn_label(unsigned k) { return "s" + std::to_string(k); }

class AllenRecipe: public arb::recipe {
public:
    explicit AllenRecipe(const Network& n): net_(n) {
        gprop_.default_parameters = arb::neuron_parameter_defaults;
        gprop_.catalogue.extend(arb::global_allen_catalogue());
        for (std::size_t f = 0; f < n.fits.size(); ++f) {
            arb::decor d = n.fits[f].decor;
            const std::vector<std::pair<std::string, double>> params{
                {"tau1", n.syn.at("tau1").get<double>()}, {"tau2", n.syn.at("tau2").get<double>()}, {"e", n.syn.at("e").get<double>()}};
            for (unsigned k = 0; k < n.k; ++k)
                d.place(arb::locset(n.sites[f][k]), arb::synapse(n.syn.at("kind").get<std::string>().c_str(), params), syn_label(k));
            const arb::mlocation soma = n.fits[f].where(0, 0.5);
            d.place(arb::locset(soma), arb::threshold_detector{n.threshold * U::mV}, "d");
            if (n.step) d.place(arb::locset(soma), arb::i_clamp::box(n.step_delay * U::ms, n.step_dur * U::ms, n.step_amp * U::nA), "step");
            cells_.emplace_back(n.fits[f].morph, d, arb::label_dict{}, arb::cv_policy_explicit(n.fits[f].boundaries));
        }
    }
    arb::cell_size_type num_cells() const override { return static_cast<arb::cell_size_type>(net_.fit_of.size()); }
    arb::cell_kind get_cell_kind(arb::cell_gid_type) const override { return arb::cell_kind::cable; }
    arb::util::unique_any get_cell_description(arb::cell_gid_type gid) const override { return cells_[net_.fit_of[gid]]; }
    std::any get_global_properties(arb::cell_kind) const override { return gprop_; }
    std::vector<arb::cell_connection> connections_on(arb::cell_gid_type gid) const override {
        std::vector<arb::cell_connection> out;
        // Arbor 0.12 records no spike of a cell that no connection leaves (one hh cell shows
        // it): a connection onto itself of weight 0, which moves no state.
        if (!net_.is_source[gid])
            out.emplace_back(arb::cell_global_label_type{gid, "d"}, arb::cell_local_label_type{syn_label(0)}, 0.f, net_.min_delay * U::ms);
        for (std::size_t i = net_.conn_begin[gid]; i < net_.conn_begin[gid + 1]; ++i)
            out.emplace_back(arb::cell_global_label_type{net_.source[i], "d"}, arb::cell_local_label_type{syn_label(net_.synapse[i])},
                             net_.weight[i], static_cast<double>(net_.delay[i]) * U::ms);
        return out;
    }
    std::vector<arb::event_generator> event_generators(arb::cell_gid_type gid) const override {
        std::vector<arb::event_generator> out;
        for (unsigned k = 0; k < net_.k; ++k) {
            const std::uint64_t seed = (net_.seed << 40) + static_cast<std::uint64_t>(gid) * net_.k + k;
            out.push_back(arb::explicit_generator_from_milliseconds({syn_label(k)}, static_cast<float>(net_.w_in),
                                                                     poisson_times(seed, net_.rate, net_.start, net_.stop)));
        }
        return out;
    }
    const arb::cable_cell& cell_of_fit(std::size_t f) const { return cells_[f]; }

private:
    const Network& net_;
    std::vector<arb::cable_cell> cells_;
    arb::cable_cell_global_properties gprop_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    std::string desc, spikes_out;
    bool cpu = false;
    double tfinal = 0;
    unsigned threads = std::thread::hardware_concurrency();
    const auto usage = [&] {
        std::cerr << "usage: " << argv[0] << " DESC.json [--cpu] [--threads N] [--tfinal MS] [--spikes FILE]\n";
        return 2;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        try {
            std::size_t used = 0;
            if (a == "--cpu") cpu = true;
            else if (a == "--threads" && i + 1 < argc) {
                const std::string v = argv[++i];
                const long n = std::stol(v, &used);
                if (used != v.size() || n < 1) throw std::invalid_argument(v);
                threads = static_cast<unsigned>(n);
            } else if (a == "--tfinal" && i + 1 < argc) {
                const std::string v = argv[++i];
                tfinal = std::stod(v, &used);
                if (used != v.size() || !(tfinal > 0)) throw std::invalid_argument(v);
            } else if (a == "--spikes" && i + 1 < argc) spikes_out = argv[++i];
            else if (desc.empty() && a.rfind("--", 0) != 0) desc = a;
            else return usage();
        } catch (const std::exception&) {
            std::cerr << "allen_network_arbor: " << a << " " << argv[i] << ": not a positive number\n";
            return 2;
        }
    }
    if (desc.empty()) return usage();
    try {
        const auto t0 = std::chrono::steady_clock::now();
        Network net = read_network(desc);
        if (tfinal > 0) net.tfinal = tfinal;
        arb::proc_allocation res(threads ? threads : 1, -1);
        arb::context ctx = arb::make_context(res);
        if (!cpu) {
            try {
                res.gpu_id = 0;
                ctx = arb::make_context(res);
            } catch (const std::exception& e) {
                std::cerr << "allen_network_arbor: no GPU (" << e.what() << "): the CPU backend\n";
                res.gpu_id = -1;
                ctx = arb::make_context(res);
            }
        }
        AllenRecipe recipe(net);
        std::size_t cvs = 0;
        std::vector<std::size_t> cvs_of_fit;
        for (std::size_t f = 0; f < net.fits.size(); ++f) cvs_of_fit.push_back(arb::cv_data(recipe.cell_of_fit(f))->size());
        for (int f: net.fit_of) cvs += cvs_of_fit[f];
        const auto decomp = arb::partition_load_balance(recipe, ctx);
        arb::simulation sim(recipe, ctx, decomp);
        std::vector<arb::spike> spikes;
        if (!spikes_out.empty())
            sim.set_global_spike_callback([&](const std::vector<arb::spike>& s) { spikes.insert(spikes.end(), s.begin(), s.end()); });
        const double setup = seconds_since(t0);
        const auto t1 = std::chrono::steady_clock::now();
        sim.run(net.tfinal * U::ms, net.dt * U::ms);
        const double run = seconds_since(t1);
        if (!spikes_out.empty()) {
            std::ofstream f(spikes_out);
            f.precision(17);
            for (const auto& s: spikes) f << s.source.gid << ' ' << s.time << '\n';
            if (!f) throw Bad(spikes_out + ": cannot write");
        }
        const double steps = std::round(net.tfinal / net.dt);
        json out = {{"simulator", std::string("arbor ") + arb::version},
                    {"backend", arb::has_gpu(ctx) ? "gpu" : "cpu"},
                    {"threads", arb::num_threads(ctx)},
                    {"cells", net.fit_of.size()},
                    {"cvs", cvs},
                    {"cvs_per_fit", cvs_of_fit},
                    {"setup_s", setup},
                    {"run_s", run},
                    {"spikes", sim.num_spikes()},
                    {"ns_per_cv_step", run * 1e9 / (static_cast<double>(cvs) * steps)}};
        for (auto it = out.begin(); it != out.end(); ++it) std::cout << it.key() << ' ' << it.value().dump() << '\n';
        std::cout << "RESULT " << out.dump() << std::endl;
    } catch (const Bad& e) {
        std::cerr << "allen_network_arbor: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "allen_network_arbor: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
