// Mechanisms translated from tests/data/nmodl/*.mod by tools/nmodl_to_arbolito.py against the
// hand-written ones in mechanisms/: the same descriptions, and the same bits from init,
// current, advance and on_event over a grid of voltages, states and temperatures, for one
// value (double) and for SIMD lanes (Lanes<4>). The translated code evaluates the same
// operations in the same order (the cnexp solution minf - (minf - m)·e equals
// minf + (m - minf)·e exactly; the conductance is the derivative of the code as written, gna +
// gk + gl), and the build contracts no multiply-adds, so equality is exact.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/lanes.hpp"
#include "mechanisms/expsyn.hpp"
#include "mechanisms/hh.hpp"
#include "mechanisms/pas.hpp"
#include "nmodl/expsyn.hpp"
#include "nmodl/hh.hpp"
#include "nmodl/pas.hpp"

namespace arbolito {
namespace {

template <class A, class B>
void expect_same_description() {
    EXPECT_STREQ(A::name, B::name);
    EXPECT_EQ(A::kind, B::kind);
    ASSERT_EQ(n_params<A>, n_params<B>);
    for (int j = 0; j < n_params<A>; ++j) {
        EXPECT_STREQ(A::params[j].name, B::params[j].name);
        EXPECT_STREQ(A::params[j].unit, B::params[j].unit);
        EXPECT_EQ(A::params[j].default_value, B::params[j].default_value) << A::params[j].name;
        EXPECT_EQ(A::params[j].min, B::params[j].min) << A::params[j].name;
    }
    ASSERT_EQ(n_states<A>, n_states<B>);
    for (int j = 0; j < n_states<A>; ++j) {
        EXPECT_STREQ(A::states[j].name, B::states[j].name);
        EXPECT_STREQ(A::states[j].unit, B::states[j].unit);
    }
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Voltages from -100 to 60 mV, with the points where hh's rate functions switch branch.
std::vector<double> voltages() {
    std::vector<double> v;
    for (int k = 0; k <= 160; ++k) v.push_back(-100.0 + 1.0 * k + 0.37 * (k % 3));
    for (double x : {-40.0, -55.0, -40.0 + 5e-6, -55.0 - 5e-6, -65.0}) v.push_back(x);
    return v;
}

constexpr int W = 4;
using L = Lanes<W>;

// Hand-written A and translated B, at one value and in lanes (lane l: voltage v + l·0.5).
template <class A, class B, class GA, class GB>
void expect_same_physics(const GA& ga, const GB& gb, const std::vector<double>& p, const std::vector<double>& s0) {
    const int np = n_params<A>, ns = n_states<A>;
    for (double dt : {0.025, 0.1}) {
        for (double v : voltages()) {
            // init (at one value)
            std::vector<double> sa(ns + 1, 0.0), sb(ns + 1, 0.0);
            A::init(v, ga, p.data(), sa.data());
            B::init(v, gb, p.data(), sb.data());
            for (int j = 0; j < ns; ++j) EXPECT_TRUE(same_bits(sa[j], sb[j])) << "init state " << j << " at v " << v;
            // current and advance at one value
            sa.assign(s0.begin(), s0.end());
            sb.assign(s0.begin(), s0.end());
            double ia, gga, ib, ggb;
            A::template current<double>(v, 0.0, ga, p.data(), sa.data(), nullptr, ia, gga);
            B::template current<double>(v, 0.0, gb, p.data(), sb.data(), nullptr, ib, ggb);
            EXPECT_TRUE(same_bits(ia, ib)) << "i at v " << v << ": " << ia << " vs " << ib;
            EXPECT_TRUE(same_bits(gga, ggb)) << "g at v " << v << ": " << gga << " vs " << ggb;
            A::template advance<double>(v, dt, ga, p.data(), sa.data(), nullptr);
            B::template advance<double>(v, dt, gb, p.data(), sb.data(), nullptr);
            for (int j = 0; j < ns; ++j)
                EXPECT_TRUE(same_bits(sa[j], sb[j])) << "advanced state " << j << " at v " << v;
            // the same in lanes
            std::vector<L> pl(np + 1), sl(ns + 1);
            for (int j = 0; j < np; ++j) pl[j] = L(p[j]);
            for (int j = 0; j < ns; ++j) sl[j] = L(s0[j]);
            L vl;
            for (int l = 0; l < W; ++l) vl.set(l, v + 0.5 * l);
            L il, gl;
            B::template current<L>(vl, 0.0, gb, pl.data(), sl.data(), nullptr, il, gl);
            B::template advance<L>(vl, dt, gb, pl.data(), sl.data(), nullptr);
            for (int l = 0; l < W; ++l) {
                std::vector<double> s1(s0.begin(), s0.end());
                double i1, g1;
                A::template current<double>(v + 0.5 * l, 0.0, ga, p.data(), s1.data(), nullptr, i1, g1);
                A::template advance<double>(v + 0.5 * l, dt, ga, p.data(), s1.data(), nullptr);
                EXPECT_TRUE(same_bits(il[l], i1) && same_bits(gl[l], g1)) << "lane " << l << " at v " << v;
                for (int j = 0; j < ns; ++j) EXPECT_TRUE(same_bits(sl[j][l], s1[j])) << "lane " << l << " state " << j;
            }
        }
    }
}

TEST(NmodlMechanisms, HhDescriptionAsHandWritten) { expect_same_description<hh, nmodl::hh>(); }
TEST(NmodlMechanisms, PasDescriptionAsHandWritten) { expect_same_description<pas, nmodl::pas>(); }
TEST(NmodlMechanisms, ExpsynDescriptionAsHandWritten) { expect_same_description<expsyn, nmodl::expsyn>(); }

TEST(NmodlMechanisms, HhSameBitsAsHandWritten) {
    const std::vector<double> p{0.12, 0.036, 0.0003, 50.0, -77.0, -54.3};
    for (double celsius : {6.3, 20.0, 34.0})
        for (const auto& s0 : std::vector<std::vector<double>>{{0.0, 1.0, 0.0}, {0.05, 0.6, 0.32}, {0.9, 0.1, 0.7}})
            expect_same_physics<hh, nmodl::hh>(hh::globals(celsius), nmodl::hh::globals(celsius), p, s0);
}

TEST(NmodlMechanisms, PasSameBitsAsHandWritten) {
    const MechanismDefaults::Globals g{};
    for (const auto& p : std::vector<std::vector<double>>{{0.001, -70.0}, {3e-5, -65.3}})
        expect_same_physics<pas, nmodl::pas>(g, g, p, {0.0});
}

TEST(NmodlMechanisms, ExpsynSameBitsAsHandWritten) {
    const MechanismDefaults::Globals g{};
    for (const auto& p : std::vector<std::vector<double>>{{2.0, 0.0}, {0.5, -80.0}})
        for (double g0 : {0.0, 0.013, 1.7}) expect_same_physics<expsyn, nmodl::expsyn>(g, g, p, {g0});
    const double p[] = {2.0, 0.0};
    double sa[] = {0.25}, sb[] = {0.25};
    for (double w : {0.01, 0.3, 1e-4}) {
        expsyn::on_event(w, p, sa, nullptr);
        nmodl::expsyn::on_event(w, p, sb, nullptr);
        EXPECT_TRUE(same_bits(sa[0], sb[0]));
    }
}

}  // namespace
}  // namespace arbolito
