// The passive cable against its analytic solutions.
#include <cmath>

#include <gtest/gtest.h>

#include "run/simulation.hpp"
#include "mechanisms/catalogue.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

constexpr double pi = 3.14159265358979323846;

// One straight cylinder (a single branch) of length L and radius r, all passive.
Model cable(double L, double r, int nseg, double ra, double g_pas, double e_pas) {
    auto m = std::make_shared<Morphology>();
    Branch b;
    b.tag = tag_dend;
    b.xyz = {{0, 0, 0}, {L, 0, 0}};
    b.radius = {r, r};
    m->branches.push_back(b);
    m->source = "cable";
    Model model;
    CellDesc c;
    c.morphology = m;
    c.policy = {CvPolicy::nseg, nseg, 0};
    c.v_init = e_pas;
    c.cm[-1] = 1.0;
    c.ra[-1] = ra;
    c.paints.push_back({-1, "pas", resolve_params("pas", {{"g", g_pas}, {"e", e_pas}})});
    model.cells.push_back(c);
    return model;
}

}  // namespace

// Sealed-end cable, constant current I into x = 0: at steady state
// V(x) − E = I·R∞·cosh((L − x)/λ) / sinh(L/λ), R∞ = Ra·λ/(π r²), λ = sqrt(r·Rm / (2·Ra)).
TEST(CableAnalytic, SteadyStateSealedEnd) {
    const double L = 1000, r = 1.0, ra = 100, g = 1e-4, e = -65, amp = 0.1;  // µm, Ω·cm, S/cm², mV, nA
    const double lambda = std::sqrt(r * 1e-4 * (1.0 / g) / (2 * ra)) * 1e4;      // µm
    const double rinf = ra * (lambda * 1e-4) / (pi * r * r * 1e-8) * 1e-6;       // MΩ
    auto exact = [&](double x) { return e + amp * rinf * std::cosh((L - x) / lambda) / std::sinh(L / lambda); };

    double prev_err = 0;
    for (int nseg : {50, 100, 200}) {
        Model m = cable(L, r, nseg, ra, g, e);
        m.cells[0].stimuli.push_back({{0, 0.0}, "iclamp", resolve_params("iclamp", {{"delay", 0}, {"dur", 1e9}, {"amp", amp}})});
        m.cells[0].probes.push_back({true, {}});
        m.run.dt = 0.1;
        m.run.tfinal = 300;  // 30 membrane time constants: the transient is below 1e-13 of V
        m.run.sample_dt = 300;
        // Record one frame at the end: sample at tfinal − sample_dt would be t = 0, so
        // integrate with frames every 100 ms and read the last.
        m.run.sample_dt = 100;
        const CaptureSink out = run_model(m);
        ASSERT_EQ(out.n_frames, 3u);
        const CellCvs cvs = discretize(*m.cells[0].morphology, m.cells[0].policy, {ra});
        double err = 0;
        int col = 0;
        for (int i = 0; i < cvs.size(); ++i) {
            if (cvs.area[i] <= 0) continue;
            err = std::max(err, std::fabs(out.at(2, col++) - exact(cvs.pos[i] * L)));
        }
        // Centred differences: error ≈ (h/λ)²/12·|V − E| ≈ 1e-4 mV at h = 20 µm, and it
        // falls 4× per halving of h. The float32 samples add up to 4e-6 mV at 65 mV.
        const double h = L / nseg;
        const double bound = 2.0 * (h / lambda) * (h / lambda) / 12.0 * (exact(0) - e) + 1e-5;
        EXPECT_LT(err, bound) << "nseg " << nseg;
        if (prev_err > 0) EXPECT_GT(prev_err / err, 3.0) << "second-order convergence, nseg " << nseg;
        prev_err = err;
    }
}

// An isopotential cell charged by a current step: V(t) = E + I·R·(1 − exp(−t/τ)),
// τ = Rm·Cm = cm/g. Implicit Euler with step h gives (1 + h/τ)^(−t/h) in place of
// exp(−t/τ): a relative error of (t/τ)·(h/τ)/2 in the exponential.
TEST(CableAnalytic, MembraneTimeConstant) {
    const double L = 10, r = 5, g = 1e-4, e = -70, amp = 0.01, cm = 1.0;
    const double tau = cm / g * 1e-3;  // µF/cm² / (S/cm²) = µs → ms: 10 ms
    const double area = 2 * pi * r * L;
    const double R = 1.0 / (1e-2 * area * g);  // MΩ
    Model m = cable(L, r, 1, 100, g, e);
    m.cells[0].stimuli.push_back({{0, 0.5}, "iclamp", resolve_params("iclamp", {{"delay", 0}, {"dur", 1e9}, {"amp", amp}})});
    m.cells[0].probes.push_back({false, {0, 0.5}});
    m.run.dt = 0.01;
    m.run.tfinal = 50;
    m.run.sample_dt = 1;
    const CaptureSink out = run_model(m);
    for (std::size_t k = 1; k < out.n_frames; ++k) {
        const double t = static_cast<double>(k);
        const double vinf = amp * R;
        const double v = e + vinf * (1 - std::exp(-t / tau));
        const double bound = vinf * std::exp(-t / tau) * (t / tau) * (m.run.dt / tau) / 2 * 1.1 + 1e-5;
        EXPECT_NEAR(out.at(k, 0), v, bound) << "t = " << t;
    }
}
