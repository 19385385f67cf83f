// The memory estimate counts the ion arrays (model/memory_estimate.cpp): per CV of the
// layout and species used anywhere in the model, the run-time e, Xi, Xo, i, the initial
// e, Xi, Xo and a Nernst entry, and once per CV the area weight; a model without ions
// gets none. Checked against the arrays a cell group of the ion test cells holds.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/model_reader.hpp"
#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"
#include "model/memory_estimate.hpp"
#include "solvers/layout.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

Model ion_cells() { return read_model(test_data("ions/three_cells_ions.json")); }

// The host bytes of a group's ion arrays (FvmData::ions, ion_cv_weight, IonStates).
double ion_bytes_held(const Model& m) {
    const FvmData f = build_fvm(m, 0, m.cells.size(), [](const std::vector<std::vector<int>>& np) {
        return contiguous_layout(np);
    });
    const IonStates st = initial_ions(f);
    double b = 8.0 * f.ion_cv_weight.size();
    for (const IonSpecies& sp : f.ions) b += 8.0 * (sp.e.size() + sp.xi.size() + sp.xo.size()) + 4.0 * sp.nernst_cv.size();
    for (const IonState& s : st) b += 8.0 * (s.e.size() + s.xi.size() + s.xo.size() + s.i.size());
    return b;
}

}  // namespace

TEST(MemoryEstimate, CountsIonArrays) {
    if (!find_mechanism("test_cad")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = ion_cells();
    const ModelSize s = model_size(m);
    EXPECT_EQ(s.n_ion_species(), 2);  // na (test_ina), ca (test_ica, test_cad)
    ModelSize without = s;
    without.ion_species = 0;
    const double ions = estimate_memory(s).state_bytes - estimate_memory(without).state_bytes;
    // 60 bytes per CV and species (7 doubles and a Nernst entry) and 8 per CV.
    EXPECT_DOUBLE_EQ(ions, s.cvs * (2 * 60.0 + 8));
    // No less than what the group holds: every species over every CV (the Nernst list
    // only where ca is written: fewer).
    const double held = ion_bytes_held(m);
    EXPECT_GE(ions, held);
    EXPECT_LE(ions, 1.1 * held);
}

// A group holds a species over all its CVs once any cell uses it: the model's species are
// the union of its cells', not their sum.
TEST(MemoryEstimate, IonSpeciesAreTheUnionOfTheCells) {
    if (!find_mechanism("test_cad")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    Model m = ion_cells();
    m.cells.resize(2);
    m.connections.clear();
    m.cells[0].paints.erase(std::remove_if(m.cells[0].paints.begin(), m.cells[0].paints.end(),
                                           [](const Paint& p) { return p.mechanism != "test_ina"; }),
                            m.cells[0].paints.end());
    m.cells[1].paints.erase(std::remove_if(m.cells[1].paints.begin(), m.cells[1].paints.end(),
                                           [](const Paint& p) { return p.mechanism == "test_ina"; }),
                            m.cells[1].paints.end());
    EXPECT_EQ(cell_size(m.cells[0]).n_ion_species(), 1);
    EXPECT_EQ(cell_size(m.cells[1]).n_ion_species(), 1);
    EXPECT_EQ(model_size(m).n_ion_species(), 2);
    ModelSize sum = cell_size(m.cells[0]);
    sum += cell_size(m.cells[1]);
    EXPECT_EQ(sum.n_ion_species(), 2);
    EXPECT_EQ(sum.times(1000).n_ion_species(), 2);
}

TEST(MemoryEstimate, NoIonsNoIonBytes) {
    const Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    const ModelSize s = model_size(m);
    EXPECT_EQ(s.n_ion_species(), 0);
    EXPECT_EQ(s.ion_species, 0u);
}
