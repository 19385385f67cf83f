// core/strided_batches.hpp and the block loops built on it (the resident GPU step's
// assembly and density currents: assemble_strided, add_density_currents), run here with
// the block's threads one after another: every item once, each thread's items in its
// loop's order, and the same bits as the per-item functions.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/strided_batches.hpp"
#include "mechanisms/all.hpp"
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance_currents.hpp"

using namespace arbolito;

namespace {

template <int B>
void check_visits(int n, int nt) {
    std::vector<int> applied(n, 0);
    for (int t = 0; t < nt; ++t) {
        int last = -1;
        for_strided_in_batches<B>(
            t, nt, n,
            [&](int k) {
                EXPECT_GE(k, 0);
                EXPECT_LT(k, n);
                return k;
            },
            [&](int k, int loaded) {
                EXPECT_EQ(k, loaded);
                EXPECT_EQ(k % nt, t);
                EXPECT_GT(k, last);  // a thread's items in ascending order
                last = k;
                ++applied[k];
            });
    }
    for (int k = 0; k < n; ++k) ASSERT_EQ(applied[k], 1) << "item " << k << " of " << n << ", " << nt << " threads, B " << B;
}

// n instances of density mechanism M on distinct CVs of a block of n_cv CVs starting at
// CV `first` (in a random order of CVs), random columns; the block's currents added by
// add_density_currents with nt threads against add_density_current instance by instance.
template <class M>
void check_density_currents(int n, int n_cv, int nt, std::mt19937& gen) {
    std::uniform_real_distribution<double> unit(0.05, 0.95), volt(-80, 30), any(-1, 1);
    const int first = 1000;
    std::vector<int> cvs(n_cv);
    std::iota(cvs.begin(), cvs.end(), first);
    std::shuffle(cvs.begin(), cvs.end(), gen);
    cvs.resize(n);
    std::vector<double> p(n_params<M> * n), s(std::max(1, n_states<M> * n)), c(std::max(1, n_derived<M> * n)), w(n);
    for (double& x : p) x = unit(gen);
    for (double& x : s) x = unit(gen);
    for (double& x : c) x = unit(gen);
    for (double& x : w) x = unit(gen);
    const MechColumns m{n, cvs.data(), w.data(), p.data(), s.data(), c.data()};
    std::vector<double> V(n_cv), D(n_cv), R(n_cv);
    for (double& x : V) x = volt(gen);
    for (double& x : D) x = any(gen);
    for (double& x : R) x = any(gen);
    std::vector<double> D1 = D, R1 = R;
    const typename M::Globals gl{};
    for (int k = 0; k < n; ++k) add_density_current<M>(m, k, V[cvs[k] - first], 0.0125, gl, D1[cvs[k] - first], R1[cvs[k] - first]);
    for (int t = 0; t < nt; ++t) add_density_currents<M>(t, nt, m, n, first, gl, 0.0125, V.data(), D.data(), R.data());
    EXPECT_EQ(0, std::memcmp(D.data(), D1.data(), n_cv * sizeof(double))) << M::name << ", n " << n << ", nt " << nt;
    EXPECT_EQ(0, std::memcmp(R.data(), R1.data(), n_cv * sizeof(double))) << M::name << ", n " << n << ", nt " << nt;
}

}  // namespace

TEST(StridedBatches, EveryItemOnceEachThreadInOrder) {
    for (int n : {0, 1, 5, 31, 127, 128, 129, 511, 1000})
        for (int nt : {1, 32, 128}) {
            check_visits<1>(n, nt);
            check_visits<2>(n, nt);
            check_visits<4>(n, nt);
        }
}

TEST(StridedBatches, BlockLoopsSameBitsAsItemByItem) {
    std::mt19937 gen(77);
    for (int nt : {32, 128}) {
        for (int n : {1, 100, 777, 1764}) {
            check_density_currents<pas>(n, n + 13, nt, gen);
            check_density_currents<hh>(n, n + 13, nt, gen);
        }
        std::uniform_real_distribution<double> any(-1, 1);
        const int n = 1799;
        std::vector<double> db(n), cdt(n), rb(n), v(n), d(n), r(n), d1(n), r1(n);
        for (int i = 0; i < n; ++i) db[i] = any(gen), cdt[i] = any(gen), rb[i] = any(gen), v[i] = any(gen);
        for (int i = 0; i < n; ++i) assemble_precomputed(db[i], cdt[i], rb[i], v[i], d1[i], r1[i]);
        for (int t = 0; t < nt; ++t)
            assemble_strided(t, nt, n, db.data(), cdt.data(), rb.data(), v.data(), d.data(), r.data());
        EXPECT_EQ(0, std::memcmp(d.data(), d1.data(), n * sizeof(double)));
        EXPECT_EQ(0, std::memcmp(r.data(), r1.data(), n * sizeof(double)));
    }
}
