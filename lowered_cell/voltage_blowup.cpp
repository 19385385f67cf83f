#include "lowered_cell/voltage_blowup.hpp"

#include <cstdio>

#include "lowered_cell/fvm_data.hpp"

namespace arbolito {

namespace {

std::string describe(std::uint64_t gid, int branch, double x, double value, double t_finite, double t_found) {
    char buf[256];
    if (t_found <= 0) {
        std::snprintf(buf, sizeof buf, "voltage blew up: gid %llu, CV on branch %d at x = %.6g: v = %g mV at t = 0 ms (v_init)",
                      static_cast<unsigned long long>(gid), branch, x, value);
        return buf;
    }
    std::snprintf(buf, sizeof buf,
                  "voltage blew up: gid %llu, CV on branch %d at x = %.6g: v = %g mV at t = %.9g ms (all within ±1e9 mV "
                  "at %.9g ms)",
                  static_cast<unsigned long long>(gid), branch, x, value, t_found, t_finite);
    return buf;
}

}  // namespace

VoltageBlowUp::VoltageBlowUp(std::uint64_t gid_, int branch_, double x_, double value_, double t_finite_,
                                   double t_found_)
    : std::runtime_error(describe(gid_, branch_, x_, value_, t_finite_, t_found_)), gid(gid_), branch(branch_), x(x_),
      value(value_), t_finite(t_finite_), t_found(t_found_) {}

VoltageBlowUp voltage_blowup(const Model& m, const FvmData& f, const BlownUpCv& bad, double t_finite,
                                   double t_found) {
    // The solver owns the numbering: back from layout index to (cell, natural CV), then
    // to branch and position through the cell's discretisation (only on this rare path).
    for (int c = 0; c < f.n_cells(); ++c) {
        const auto& idx = f.layout.index[c];
        for (std::size_t i = 0; i < idx.size(); ++i) {
            if (idx[i] != bad.cv) continue;
            const CellCvs cvs = discretize_cell(m.cells.at(f.gids[c]));
            return VoltageBlowUp(f.gids[c], cvs.branch[i], cvs.pos[i], bad.value, t_finite, t_found);
        }
    }
    throw std::logic_error("blown-up voltage in layout CV " + std::to_string(bad.cv) + ", which is no cell's");
}

}  // namespace arbolito
