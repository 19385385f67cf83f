#pragma once
// A run stopped because a voltage blew up (NaN, inf or past ±1e9 mV: a huge weight,
// stimulus or initial voltage; lowered_cell/blow_up_bound.hpp). Simulation::run checks every group once per epoch and
// throws this, naming the place in the model's terms, before the epoch reaches the output.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "lowered_cell/cell_group.hpp"
#include "model/model.hpp"

namespace arbolito {

class VoltageBlowUp : public std::runtime_error {
public:
    VoltageBlowUp(std::uint64_t gid, int branch, double x, double value, double t_finite, double t_found);
    std::uint64_t gid;
    int branch;       // the CV's branch and node position on it (0..1), as locations are given
    double x;
    double value;     // the voltage found
    double t_finite;  // ms: every voltage was fine here (the epoch's start; -1: none checked yet)
    double t_found;   // ms: not any more here (the epoch's end)
};

// The error for CV `bad` (group f's layout numbering) found at t_found, finite at t_finite.
VoltageBlowUp voltage_blowup(const Model& m, const FvmData& f, const BlownUpCv& bad, double t_finite,
                                   double t_found);

}  // namespace arbolito
