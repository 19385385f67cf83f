#include "model/connection_rules.hpp"

#include <algorithm>
#include <sstream>

#include "model/run_settings.hpp"

namespace arbolito {

std::vector<Connection> connections_onto(const Model& m, std::uint64_t b, std::uint64_t e) {
    std::vector<Connection> out;
    std::size_t n = 0;
    for (const Connection& c : m.connections) n += c.target >= b && c.target < e;
    for (const ConnectionRule& r : m.connection_rules) {
        const std::uint64_t lo = std::max(b, r.target_begin), hi = std::min(e, r.target_end);
        if (lo < hi && r.target_end > r.target_begin)
            n += static_cast<std::size_t>(r.count / (r.target_end - r.target_begin) * (hi - lo));
    }
    out.reserve(n);  // exact for rules with the same fan-in per target (busyring); a hint otherwise
    for (const Connection& c : m.connections)
        if (c.target >= b && c.target < e) out.push_back(c);
    for (const ConnectionRule& r : m.connection_rules) r.draw(b, e, out);
    return out;
}

std::uint64_t connection_count(const Model& m) {
    std::uint64_t n = m.connections.size();
    for (const ConnectionRule& r : m.connection_rules) n += r.count;
    return n;
}

double min_connection_delay(const Model& m) {
    double d = 0;
    for (const Connection& c : m.connections) d = d == 0 ? c.delay : std::min(d, c.delay);
    for (const ConnectionRule& r : m.connection_rules)
        if (r.count > 0) d = d == 0 ? r.min_delay : std::min(d, r.min_delay);
    return d;
}

void draw_all_connections(Model& m) {
    if (m.connection_rules.empty()) return;
    m.connections.reserve(connection_count(m));
    for (const ConnectionRule& r : m.connection_rules) r.draw(r.target_begin, r.target_end, m.connections);
    m.connection_rules.clear();
}

void validate_rule_delays(const RunSettings& r, const std::vector<ConnectionRule>& rules) {
    for (const ConnectionRule& rule : rules) {
        if (rule.count == 0 || rule.min_delay >= r.dt) continue;
        std::ostringstream s;
        s << "shorter than dt (" << r.dt << ")";
        throw RunSettingError(rule.delay_key, s.str());
    }
}

}  // namespace arbolito
