#pragma once
// A coarser discretisation of the same cells (parareal's coarse propagator G on fewer CVs,
// docs/parareal.md) and the linear maps that move a state between the two: fine → coarse
// by CV-area-weighted averages over the fine CVs a coarse CV covers, coarse → fine by
// linear interpolation along the branch. Both act on the states' solver-independent lists
// (lowered_cell/cell_state_map.hpp): v, gates and synaptic conductances alike.
#include <cstddef>
#include <vector>

#include "lowered_cell/cell_state_map.hpp"
#include "model/discretization.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "model/model.hpp"

namespace arbolito {

// `factor` times fewer CVs per branch: nseg n gives ceil(n / factor) pieces, max_extent e
// gives e·factor. every_segment has no coarser policy of its kind: std::invalid_argument.
CvPolicy coarser_policy(const CvPolicy& p, int factor);
// The model with every cell's policy coarsened (the same shapes, mechanisms, points).
Model coarser_model(const Model& m, int factor);

// y = A·x for a sparse A given by rows: row i is w[k]·x[col[k]] for k in [start[i], start[i+1]).
struct LinearMap {
    std::vector<std::size_t> start{0}, col;
    std::vector<double> w;
    std::size_t rows() const { return start.size() - 1; }
    std::vector<double> apply(const std::vector<double>& x) const;
    void add_apply(const std::vector<double>& x, std::vector<double>& y) const;  // y += A·x
};

struct Coarsening {
    LinearMap to_coarse;  // restriction: fine list → coarse list
    LinearMap to_fine;    // prolongation: coarse list → fine list
};

// One cell: its CVs and state lists (cell_state_values) in both discretisations. Point
// states (synapses) map one to one by synapse number; junction CVs (the root's x = 0 and
// every branch's x = 1, in both) one to one; v and density states on a branch's pieces as
// above (v interpolates between the junctions at the branch's ends, too; a gate, which
// junctions lack, is held constant beyond the outermost piece centres).
Coarsening cell_coarsening(const CellCvs& fine_cvs, const std::vector<StateValue>& fine,
                           const CellCvs& coarse_cvs, const std::vector<StateValue>& coarse);

// Cells [0, n_cells) of both groups' data (the model's cells, in order; the lists of the
// cells one after the other, as parareal moves them), discretised as in `fine` and `coarse`.
Coarsening model_coarsening(const Model& fine, const FvmData& fine_data, const Model& coarse,
                            const FvmData& coarse_data, int n_cells);

}  // namespace arbolito
