#pragma once
// Wall-clock seconds per phase of the run (`--timings json`).
#include <chrono>
#include <map>
#include <string>

namespace arbolito {

struct PhaseTimes {
    double events = 0, currents = 0, assemble = 0, solve = 0, states = 0, detect = 0, sample = 0;
    double fused = 0;  // steps run as one kernel (gpu-fine step=resident): its phases are not told apart
    PhaseTimes& operator+=(const PhaseTimes& o) {
        events += o.events; currents += o.currents; assemble += o.assemble; solve += o.solve;
        states += o.states; detect += o.detect; sample += o.sample; fused += o.fused;
        return *this;
    }
    std::map<std::string, double> as_map() const {
        return {{"events", events}, {"currents", currents}, {"assemble", assemble}, {"solve", solve},
                {"states", states}, {"detect", detect}, {"sample", sample},
                {"fused", fused}};
    }
};

class Stopwatch {
public:
    Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
    // Seconds since the last lap (or construction), and restart.
    double lap() {
        const auto t = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(t - t0_).count();
        t0_ = t;
        return s;
    }
private:
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace arbolito
