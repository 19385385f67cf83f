#pragma once
// A run stopped because a voltage stopped being a number (a blow-up: a huge weight,
// stimulus or initial voltage). Simulation::run checks every group once per epoch and
// throws this, naming the place in the model's terms, before the epoch reaches the output.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/cell_group.hpp"
#include "engine/model.hpp"

namespace arbolito {

class NonFiniteVoltage : public std::runtime_error {
public:
    NonFiniteVoltage(std::uint64_t gid, int branch, double x, double value, double t_finite, double t_found);
    std::uint64_t gid;
    int branch;       // the CV's branch and node position on it (0..1), as locations are given
    double x;
    double value;     // the voltage found
    double t_finite;  // ms: every voltage was finite here (the epoch's start)
    double t_found;   // ms: not any more here (the epoch's end)
};

// The error for CV `bad` (group f's layout numbering) found at t_found, finite at t_finite.
NonFiniteVoltage nonfinite_voltage(const Model& m, const FvmData& f, const NonFiniteCv& bad, double t_finite,
                                   double t_found);

}  // namespace arbolito
