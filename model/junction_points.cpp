#include "model/junction_points.hpp"

#include "model/drawn_synapses.hpp"

namespace arbolito {

std::vector<Location> junction_points(const CellDesc& c, const Morphology& m) {
    std::vector<Location> out;
    if (c.policy.zero_area != CvPolicy::fold) return out;
    auto add = [&](const Location& l) {
        if (l.x <= 0.0 || l.x >= 1.0) out.push_back(l);
    };
    for_each_synapse(c, m, [&](std::size_t, const Location& w, const std::string&, const std::vector<double>&) { add(w); });
    for (const Placement& s : c.stimuli) add(s.where);
    for (const Detector& d : c.detectors) add(d.where);
    for (const Probe& p : c.probes)
        if (!p.all_cvs) add(p.where);
    return out;
}

}  // namespace arbolito
