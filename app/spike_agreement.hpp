#pragma once
// How far one run's spikes are from a reference run's (arbolito compare): the counts, the
// largest spike-time difference, bitwise identity, and the verdict against a tolerance
// (docs/compare.md).
#include <cstddef>
#include <vector>

#include "lowered_cell/spike.hpp"

namespace arbolito {

struct SpikeAgreement {
    std::size_t n = 0, n_ref = 0;      // spikes of the run and of the reference
    std::size_t trains_differ = 0;     // spike trains (gid, detector) whose counts differ
    std::size_t matched = 0;           // spike pairs whose times were compared
    double max_dt = 0;                 // ms: largest |t - t_ref| over the matched pairs
    bool identical = false;            // the same spikes, times bit for bit

    // Agreement: every train has the reference's count, and every matched time is within
    // tolerance_ms of its reference (NaN never agrees).
    bool agrees(double tolerance_ms) const { return trains_differ == 0 && max_dt <= tolerance_ms; }
};

// Matches spikes per train, a train being one detector (gid, source): in each train the
// k-th spike by time is paired with the reference's k-th. Where a train's counts differ,
// its first min(n, n_ref) spikes are paired (they count in max_dt) and the train counts in
// trains_differ. The order the spikes come in does not matter.
SpikeAgreement spike_agreement(std::vector<Spike> spikes, std::vector<Spike> reference);

// The default spike-time tolerance: 1e-4 of a time step (docs/compare.md says why).
inline double default_spike_tolerance(double dt_ms) { return 1e-4 * dt_ms; }

}  // namespace arbolito
