#include "model/run_settings.hpp"

#include <cmath>
#include <sstream>

namespace arbolito {

namespace {

std::string fmt(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

void validate_run_settings(const RunSettings& r, const std::vector<Connection>& connections) {
    if (!(r.dt > 0)) throw RunSettingError("run.dt", "must be > 0, got " + fmt(r.dt));
    if (!std::isfinite(r.dt)) throw RunSettingError("run.dt", "must be finite, got " + fmt(r.dt));
    if (!(r.tfinal >= 0)) throw RunSettingError("run.tfinal", "must be >= 0, got " + fmt(r.tfinal));
    if (!std::isfinite(r.tfinal)) throw RunSettingError("run.tfinal", "must be finite, got " + fmt(r.tfinal));
    if (!(r.sample_dt > 0)) throw RunSettingError("run.sample_dt", "must be > 0, got " + fmt(r.sample_dt));
    if (!std::isfinite(r.sample_dt)) throw RunSettingError("run.sample_dt", "must be finite, got " + fmt(r.sample_dt));
    if (!std::isfinite(r.celsius)) throw RunSettingError("run.celsius", "must be finite, got " + fmt(r.celsius));
    const double steps = r.tfinal / r.dt;
    if (!(steps <= max_run_steps))
        throw RunSettingError("run.tfinal", fmt(r.tfinal) + " ms at dt " + fmt(r.dt) + " ms would take " +
                                                (std::isfinite(steps) ? fmt(steps) : std::string("over 1e308")) +
                                                " steps, more than the " + fmt(max_run_steps) + " a run may take");
    const double ratio = r.sample_dt / r.dt;
    if (std::fabs(ratio - std::round(ratio)) > 1e-9 * ratio)
        throw RunSettingError("run.sample_dt", "must be a whole multiple of dt (" + fmt(r.dt) + ")");
    // The key is spelt only for a bad delay: one string per connection was 0.7 s of
    // busyring's 8.4 M connections.
    for (std::size_t i = 0; i < connections.size(); ++i) {
        const double d = connections[i].delay;
        if (d > 0 && d >= r.dt) continue;
        const std::string key = "connections[" + std::to_string(i) + "].delay";
        if (!(d > 0)) throw RunSettingError(key, "must be > 0, got " + fmt(d));
        throw RunSettingError(key, fmt(d) + " ms is shorter than dt (" + fmt(r.dt) + " ms)");
    }
}

}  // namespace arbolito
