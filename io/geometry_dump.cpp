#include "io/geometry_dump.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "model/drawn_synapses.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"

namespace arbolito {

namespace {

nlohmann::json named_params(const std::string& mech, const std::vector<double>& values) {
    nlohmann::json out = nlohmann::json::object();
    const auto& names = find_mechanism(mech)->params;
    for (std::size_t k = 0; k < names.size(); ++k) out[names[k].name] = values[k];
    return out;
}

// NEURON's nseg cuts a section evenly. A branch whose CVs differ in length (every_segment
// over segments of different lengths) becomes one section per run of equal CVs, each
// attached to the previous one's x = 1. The junction nodes this adds have no area, so
// NEURON eliminates them exactly: the conductance between the two CVs either side is the
// same series resistance as arbolito's.
struct Run {
    int first_piece, n_pieces, section;
    double s0, s1;  // the run's span, as fractions of the branch's arc length
};

std::vector<Run> equal_runs(const CellCvs& c, int b) {
    const auto& cuts = c.cuts[b];
    std::vector<Run> runs;
    for (int i = 0; i < c.n_pieces[b]; ++i) {
        const double len = cuts[i + 1] - cuts[i];
        if (!runs.empty()) {
            Run& r = runs.back();
            if (std::abs(len - (r.s1 - r.s0) / r.n_pieces) <= 1e-9) {
                ++r.n_pieces;
                r.s1 = cuts[i + 1];
                continue;
            }
        }
        runs.push_back({i, 1, -1, cuts[i], cuts[i + 1]});
    }
    return runs;
}

// The branch's points between arc fractions s0 < s1, with points interpolated at cuts that
// fall between samples. Points coincident with s0 (a radius step) stay with this run,
// as arbolito gives the step's annulus to the CV that starts there.
nlohmann::json pt3d(const Branch& br, double s0, double s1) {
    const auto arc = br.arc();
    const double len = arc.back(), a0 = s0 * len, a1 = s1 * len, eps = 1e-9 * len;
    nlohmann::json pts = nlohmann::json::array();
    auto add = [&](const Eigen::Vector3d& x, double r) { pts.push_back({x.x(), x.y(), x.z(), 2 * r}); };
    auto at = [&](double a) {  // the point at arc length a on the polyline
        std::size_t k = 0;
        while (k + 2 < arc.size() && arc[k + 1] < a) ++k;
        const double l = arc[k + 1] - arc[k], f = l > 0 ? std::clamp((a - arc[k]) / l, 0.0, 1.0) : 0.0;
        add(br.xyz[k] + f * (br.xyz[k + 1] - br.xyz[k]), br.radius[k] + f * (br.radius[k + 1] - br.radius[k]));
    };
    bool started = false;
    for (std::size_t k = 0; k < arc.size(); ++k) {
        if (arc[k] < a0 - eps) continue;
        if (!started) {
            if (arc[k] > a0 + eps) at(a0);
            started = true;
        }
        if (arc[k] > a1 + eps) {
            at(a1);
            return pts;
        }
        add(br.xyz[k], br.radius[k]);
        if (arc[k] >= a1 - eps && s1 < 1.0) return pts;  // the first of coincident points ends it
    }
    return pts;
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
    for (std::size_t gid = 0; gid < m.cells.size(); ++gid) {
        const CellDesc& c = m.cells[gid];
        const auto shape = c.shape();
        const Morphology& morph = *shape;
        // NEURON's layout: every zero-area node kept (zero_area fold removes them exactly,
        // so NEURON's cell of the dump is the same cable either way).
        CvPolicy policy = c.policy;
        policy.zero_area = CvPolicy::keep;
        const CellCvs cvs = discretize(morph, policy, branch_ra(c, morph));
        const int nb = static_cast<int>(morph.branches.size());
        std::vector<std::vector<Run>> runs(nb);
        int n_sections = 0;
        for (int b = 0; b < nb; ++b) {
            runs[b] = equal_runs(cvs, b);
            for (Run& r : runs[b]) r.section = n_sections++;
        }
        if (n_sections > nb)
            spdlog::info("cell {}: {} branches with CVs of unequal length give {} NEURON sections", gid, nb, n_sections);
        // The NEURON (section, x) of a CV's node: the root, a branch's end, or a CV centre.
        auto node = [&](int cv) {
            const int b = cvs.branch[cv];
            if (cv == 0) return std::pair<int, double>(runs[0].front().section, 0.0);
            if (cv == cvs.end_cv[b]) return std::pair<int, double>(runs[b].back().section, 1.0);
            if (runs[b].size() == 1) return std::pair<int, double>(runs[b][0].section, cvs.pos[cv]);
            const int piece = cv - cvs.first_cv[b];
            for (const Run& r : runs[b])
                if (piece < r.first_piece + r.n_pieces)
                    return std::pair<int, double>(r.section, (piece - r.first_piece + 0.5) / r.n_pieces);
            throw std::logic_error("geometry dump: CV " + std::to_string(cv) + " is on no section");
        };
        // A point acts on the node of the CV that holds it: name that node's position.
        auto node_of = [&](const Location& l) { return node(cvs.locate(l.branch, l.x)); };
        json sections = json::array();
        for (int b = 0; b < nb; ++b) {
            const Branch& br = morph.branches[b];
            json mechs = json::object();
            for (const Paint& p : c.paints)
                if (p.tag < 0 || p.tag == br.tag) mechs[p.mechanism] = named_params(p.mechanism, p.params);
            // The ions' values set on the branch's region (later settings win, key by key).
            json ions = json::object();
            for (const IonSetting& st : c.ions) {
                if (st.tag >= 0 && st.tag != br.tag) continue;
                json& one = ions[st.ion];
                if (one.is_null()) one = json::object();
                if (!std::isnan(st.e)) one["e"] = st.e;
                if (!std::isnan(st.xi)) one["xi"] = st.xi;
                if (!std::isnan(st.xo)) one["xo"] = st.xo;
            }
            for (std::size_t k = 0; k < runs[b].size(); ++k) {
                const Run& r = runs[b][k];
                json pts;
                if (runs[b].size() == 1) {  // the whole branch: its own points, unchanged
                    pts = json::array();
                    for (std::size_t q = 0; q < br.xyz.size(); ++q)
                        pts.push_back({br.xyz[q].x(), br.xyz[q].y(), br.xyz[q].z(), 2 * br.radius[q]});
                } else {
                    pts = pt3d(br, r.s0, r.s1);
                }
                std::pair<int, double> parent{-1, 0.0};
                if (k > 0) parent = {runs[b][k - 1].section, 1.0};
                else if (br.parent >= 0) parent = node(cvs.locate(br.parent, br.parent_x));
                json sec = {{"parent", parent.first}, {"parent_x", parent.second}, {"tag", br.tag}, {"nseg", r.n_pieces},
                            {"ra", c.ra_of(br.tag)}, {"cm", c.cm_of(br.tag)}, {"pt3d", pts}, {"mechanisms", mechs}};
                if (!ions.empty()) sec["ions"] = ions;
                sections.push_back(std::move(sec));
            }
        }
        json pps = json::array();
        for (const Placement& p : c.stimuli) {
            const auto [sec, x] = node_of(p.where);
            pps.push_back({{"kind", p.mechanism}, {"section", sec}, {"x", x}, {"params", named_params(p.mechanism, p.params)}});
        }
        for_each_synapse(c, morph, [&](std::size_t s, const Location& where, const std::string& mech,
                                       const std::vector<double>& params) {
            const auto [sec, x] = node_of(where);
            pps.push_back({{"kind", mech}, {"section", sec}, {"x", x}, {"synapse", s}, {"params", named_params(mech, params)}});
        });
        json dets = json::array();
        for (const Detector& d : c.detectors) {
            const auto [sec, x] = node_of(d.where);
            dets.push_back({{"section", sec}, {"x", x}, {"threshold", d.threshold}});
        }
        json probes = json::array();
        for (const Probe& p : c.probes) {
            // element_id/element_pos stay arbolito's (branch, position): the SONATA mapping.
            auto add = [&](int cv) {
                const auto [sec, x] = node(cv);
                json pr = {{"section", sec}, {"x", x}, {"element_id", cvs.branch[cv]},
                           {"element_pos", static_cast<float>(cvs.pos[cv])}};
                if (p.variable.kind != ProbeVariable::v) pr["variable"] = p.variable.name;
                probes.push_back(std::move(pr));
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
