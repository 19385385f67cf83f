#include "io/geometry_dump.hpp"

#include <spdlog/spdlog.h>

#include "engine/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"

namespace arbolito {

namespace {

nlohmann::json named_params(const std::string& mech, const std::vector<double>& values) {
    nlohmann::json out = nlohmann::json::object();
    const auto& names = find_mechanism(mech)->params;
    for (std::size_t k = 0; k < names.size(); ++k) out[names[k].first] = values[k];
    return out;
}

// NEURON's nseg splits evenly; other layouts cannot be rebuilt there.
bool even_pieces(const CellCvs& c, int b) {
    const auto& cuts = c.cuts[b];
    const int n = c.n_pieces[b];
    for (int i = 0; i <= n; ++i)
        if (std::abs(cuts[i] - static_cast<double>(i) / n) > 1e-9) return false;
    return true;
}

}  // namespace

nlohmann::json geometry_dump(const Model& m) {
    using json = nlohmann::json;
    json out;
    out["format"] = "arbolito-geometry-1";
    out["population"] = m.name;
    out["run"] = {{"dt", m.run.dt}, {"tfinal", m.run.tfinal}, {"sample_dt", m.run.sample_dt}, {"celsius", m.run.celsius},
                  {"event_rules", m.run.rules == EventRules::neuron ? "neuron" : "arbor"}};
    json cells = json::array();
    bool warned = false;
    for (std::size_t gid = 0; gid < m.cells.size(); ++gid) {
        const CellDesc& c = m.cells[gid];
        const Morphology& morph = *c.morphology;
        const CellCvs cvs = discretize_cell(c);
        // A point acts on the node of the CV that holds it: name that node's position.
        auto node_of = [&](const Location& l) {
            const int cv = cvs.locate(l.branch, l.x);
            return std::pair<int, double>(cvs.branch[cv], cvs.pos[cv]);
        };
        json sections = json::array();
        for (std::size_t b = 0; b < morph.branches.size(); ++b) {
            const Branch& br = morph.branches[b];
            if (!warned && !even_pieces(cvs, static_cast<int>(b))) {
                spdlog::warn("cell {} branch {}: CVs of unequal length cannot be rebuilt with NEURON's nseg", gid, b);
                warned = true;
            }
            json pts = json::array();
            for (std::size_t k = 0; k < br.xyz.size(); ++k)
                pts.push_back({br.xyz[k].x(), br.xyz[k].y(), br.xyz[k].z(), 2 * br.radius[k]});
            json mechs = json::object();
            for (const Paint& p : c.paints)
                if (p.tag < 0 || p.tag == br.tag) mechs[p.mechanism] = named_params(p.mechanism, p.params);
            double parent_x = 0;
            if (br.parent >= 0) {
                const int pcv = cvs.locate(br.parent, br.parent_x);
                parent_x = cvs.pos[pcv];
            }
            sections.push_back({{"parent", br.parent}, {"parent_x", parent_x}, {"nseg", cvs.n_pieces[b]},
                                {"ra", c.ra_of(br.tag)}, {"cm", c.cm_of(br.tag)}, {"pt3d", pts}, {"mechanisms", mechs}});
        }
        json pps = json::array();
        for (const Placement& p : c.stimuli) {
            const auto [sec, x] = node_of(p.where);
            pps.push_back({{"kind", p.mechanism}, {"section", sec}, {"x", x}, {"params", named_params(p.mechanism, p.params)}});
        }
        for (std::size_t s = 0; s < c.synapses.size(); ++s) {
            const Placement& p = c.synapses[s];
            const auto [sec, x] = node_of(p.where);
            pps.push_back({{"kind", p.mechanism}, {"section", sec}, {"x", x}, {"synapse", s},
                           {"params", named_params(p.mechanism, p.params)}});
        }
        json dets = json::array();
        for (const Detector& d : c.detectors) {
            const auto [sec, x] = node_of(d.where);
            dets.push_back({{"section", sec}, {"x", x}, {"threshold", d.threshold}});
        }
        json probes = json::array();
        for (const Probe& p : c.probes) {
            auto add = [&](int cv) {
                probes.push_back({{"section", cvs.branch[cv]}, {"x", cvs.pos[cv]}, {"element_id", cvs.branch[cv]},
                                  {"element_pos", static_cast<float>(cvs.pos[cv])}});
            };
            if (p.all_cvs) {
                for (int i = 0; i < cvs.size(); ++i)
                    if (cvs.area[i] > 0) add(i);
            } else {
                add(cvs.locate(p.where.branch, p.where.x));
            }
        }
        cells.push_back({{"gid", gid}, {"v_init", c.v_init}, {"sections", sections}, {"point_processes", pps},
                         {"detectors", dets}, {"probes", probes}});
    }
    out["cells"] = cells;
    json conns = json::array();
    for (const Connection& c : m.connections)
        conns.push_back({{"source", c.source}, {"detector", c.detector}, {"target", c.target}, {"synapse", c.synapse},
                         {"weight", c.weight}, {"delay", c.delay}});
    out["connections"] = conns;
    json gens = json::array();
    for (const Generator& g : m.generators)
        gens.push_back({{"target", g.target}, {"synapse", g.synapse}, {"weight", g.weight}, {"times", g.times}});
    out["generators"] = gens;
    return out;
}

}  // namespace arbolito
