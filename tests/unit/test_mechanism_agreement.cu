// Every mechanism's functions evaluated on the device and on the host, on the same inputs
// (a range of voltages, states from the host's init and events), compared bit for bit.
// Functions whose device code may round differently from the host's (FMA contraction of
// a·b + c, the device's pow; exp and log give the host's bits, GpuExpLog.*) are held to
// 1e-12 relative and their differing values counted and printed; the others must give
// the same bits.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/gpu/memory.hpp"
#include "mechanisms/all.hpp"
#include "mechanisms/instance_ions.hpp"
#include "mechanisms/assemble.hpp"
#include "tests/support/gpu_skip.hpp"

using namespace arbolito;
using namespace arbolito::gpu;

namespace {

constexpr int n_samples = 512;
constexpr double dt = 0.025;

// Inputs and outputs of the samples, column by column (column j of sample k at j·n + k).
struct Samples {
    const double* v;     // n
    const double* p;     // n_params × n
    const double* c;     // n_derived × n
    const double* s_in;  // n_states × n: the host's states after init and an event
    double* init;        // n_states × n
    double* event;       // n_states × n: s_in after one more event
    double* ig;          // 2 × n: current and conductance at s_in
    double* advanced;    // n_states × n: s_in advanced over dt
};

// One sample: each function on its own inputs, so that a difference is pinned on it.
template <class M>
ARB_HD void evaluate(int k, int n, const typename M::Globals& gl, const Samples& x) {
    Values<n_params<M>> p;
    Values<n_derived<M>> c;
    for (int j = 0; j < n_params<M>; ++j) p[j] = x.p[j * n + k];
    for (int j = 0; j < n_derived<M>; ++j) c[j] = x.c[j * n + k];
    const double v = x.v[k];
    auto load = [&](Values<n_states<M>>& s) {
        for (int j = 0; j < n_states<M>; ++j) s[j] = x.s_in[j * n + k];
    };
    auto store = [&](const Values<n_states<M>>& s, double* out) {
        for (int j = 0; j < n_states<M>; ++j) out[j * n + k] = s.v[j];
    };
    // A mechanism with ions reads, per slot, e, Xi, Xo and i varying with the sample.
    Values<ion_slot_size * n_ions<M>> ion{};
    Values<n_ions<M>> ion_cur{};
    for (int j = 0; j < n_ions<M>; ++j) {
        ion[ion_slot_size * j + ion_e] = 40.0 + 10.0 * j + 0.5 * (k % 11);
        ion[ion_slot_size * j + ion_xi] = 1e-4 * (1 + k % 7);
        ion[ion_slot_size * j + ion_xo] = 2.0;
        ion[ion_slot_size * j + ion_i] = -0.01 * (k % 5);
    }
    Values<n_states<M>> s{};
    mech_init<M>(v, gl, p.data(), s.data(), ion.data());
    store(s, x.init);
    load(s);
    M::on_event(0.01 + 1e-3 * (k % 13), p.data(), s.data(), c.data());
    store(s, x.event);
    load(s);
    // t_mid sweeps 0 to 5 ms: through iclamp's window.
    mech_current<M>(v, 5.0 * k / n, gl, p.data(), s.data(), c.data(), static_cast<const double*>(ion.data()), x.ig[k],
                    x.ig[n + k], ion_cur.data());
    mech_advance<M>(v, dt, gl, p.data(), s.data(), c.data(), static_cast<const double*>(ion.data()));
    store(s, x.advanced);
}

template <class M>
__global__ void evaluate_kernel(int n, typename M::Globals gl, Samples x) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) evaluate<M>(k, n, gl, x);
}

struct HostSamples {
    std::vector<double> v, p, c, s_in, init, event, ig, advanced;
    Samples view() {
        return {v.data(), p.data(), c.data(), s_in.data(), init.data(), event.data(), ig.data(), advanced.data()};
    }
};

// Inputs for mechanism M: voltages from -100 to 60 mV, the defaults as parameters (a
// zero default replaced, so that iclamp's window and the reversal terms matter), states
// from init plus an event (synapses start at 0).
template <class M>
HostSamples inputs(const typename M::Globals& gl) {
    const int n = n_samples;
    HostSamples h;
    for (int k = 0; k < n; ++k) h.v.push_back(-100.0 + 160.0 * k / (n - 1));
    h.p.resize(n_params<M> * n);
    for (int j = 0; j < n_params<M>; ++j)
        for (int k = 0; k < n; ++k) {
            const double d = M::params[j].default_value;
            h.p[j * n + k] = d != 0 ? d : 1.0 + 0.5 * j;
        }
    h.c.resize(n_derived<M> * n);
    h.s_in.resize(n_states<M> * n);
    for (int k = 0; k < n; ++k) {
        Values<n_params<M>> p;
        Values<n_derived<M>> c{};
        Values<n_states<M>> s{};
        for (int j = 0; j < n_params<M>; ++j) p[j] = h.p[j * n + k];
        M::derive(p.data(), c.data());
        Values<ion_slot_size * n_ions<M>> ion{};
        for (int j = 0; j < n_ions<M>; ++j) ion[ion_slot_size * j + ion_xi] = ion[ion_slot_size * j + ion_xo] = 1.0;
        mech_init<M>(h.v[k], gl, p.data(), s.data(), ion.data());
        M::on_event(0.05, p.data(), s.data(), c.data());
        for (int j = 0; j < n_derived<M>; ++j) h.c[j * n + k] = c[j];
        for (int j = 0; j < n_states<M>; ++j) h.s_in[j * n + k] = s[j];
    }
    h.init.resize(n_states<M> * n);
    h.event.resize(n_states<M> * n);
    h.ig.resize(2 * n);
    h.advanced.resize(n_states<M> * n);
    return h;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Counts the values that differ in their bits; fails where they may not differ at all,
// or differ by more than rounding.
void compare(const std::string& what, const std::vector<double>& host, const std::vector<double>& device, bool exact) {
    ASSERT_EQ(host.size(), device.size());
    int differ = 0;
    double worst = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
        if (same_bits(host[i], device[i])) continue;
        ++differ;
        const double rel = std::fabs(host[i] - device[i]) / std::max(1.0, std::fabs(host[i]));
        worst = std::max(worst, rel);
        if (exact) ADD_FAILURE() << what << " [" << i << "]: host " << host[i] << ", device " << device[i];
        EXPECT_LE(rel, 1e-12) << what << " [" << i << "]: host " << host[i] << ", device " << device[i];
    }
    std::printf("%-20s %4zu values, %4d with other bits (largest relative difference %.2g)%s\n", what.c_str(),
                host.size(), differ, worst, exact ? "" : "  [device exp or FMA allowed]");
}

// Functions with neither exp nor a multiply-add the device may fuse: the same bits.
const std::set<std::string> exact_functions = {
    "pas current",    "expsyn on_event", "expsyn current", "exp2syn current",
    "iclamp current", "hh on_event",     "pas init",       "pas on_event",
    "pas advance",    "iclamp init",     "iclamp on_event", "iclamp advance",
    "expsyn init",    "exp2syn init",
};

template <class M>
void check_mechanism() {
    const auto gl = M::globals(6.3 + 10.0);  // away from the reference temperature: q10 != 1
    HostSamples h = inputs<M>(gl);
    HostSamples d = h;
    DeviceArray<double> v(h.v), p(h.p), c(h.c), s_in(h.s_in), init(h.init), event(h.event), ig(h.ig),
        advanced(h.advanced);
    const Samples x{v.data(), p.data(), c.data(), s_in.data(), init.data(), event.data(), ig.data(), advanced.data()};
    evaluate_kernel<M><<<(n_samples + 127) / 128, 128>>>(n_samples, gl, x);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    d.init = init.download(), d.event = event.download(), d.ig = ig.download(), d.advanced = advanced.download();
    const Samples hx = h.view();
    for (int k = 0; k < n_samples; ++k) evaluate<M>(k, n_samples, gl, hx);

    const std::string name = M::name;
    auto exact = [&](const std::string& f) { return exact_functions.count(name + " " + f) > 0; };
    compare(name + " init", h.init, d.init, exact("init"));
    compare(name + " on_event", h.event, d.event, exact("on_event"));
    compare(name + " current", h.ig, d.ig, exact("current"));
    compare(name + " advance", h.advanced, d.advanced, exact("advance"));
}

TEST(MechanismAgreement, EveryMechanismOnDeviceAsOnHost) {
    SKIP_WITHOUT_GPU();
    all_mechanisms::for_each([](auto tag) {
        using M = typename decltype(tag)::type;
        SCOPED_TRACE(M::name);
        check_mechanism<M>();
    });
}

}  // namespace

namespace {
__global__ void assemble_base_kernel(int n, const double* cap, const double* g_sum, const double* v, double dt,
                                     double* d, double* rhs) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assemble_base(cap[i], g_sum[i], dt, v[i], d[i], rhs[i]);
}
__global__ void fold_kernel(int n, const double* w, const double* g, const double* e, double* d_base, double* rhs_base) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) fold_constant_terms(w[i], g[i], e[i], d_base[i], rhs_base[i]);
}
}  // namespace

// The GPU group folds the mechanisms with constant terms into the assembly's terms on the
// device (fold_constant_terms_kernel), the CPU group on the host: the same bits, also
// where the device code contracts products and sums (each is rounded alone).
TEST(MechanismAgreement, ConstantTermsFoldedSameBitsAsHost) {
    SKIP_WITHOUT_GPU();
    const int n = 1 << 16;
    std::vector<double> w(n), g(n), e(n), db(n), rb(n);
    for (int i = 0; i < n; ++i) {
        w[i] = std::pow(10.0, -7.0 + 8.0 * ((i * 7919L) % n) / n);
        g[i] = std::pow(10.0, -7.0 + 6.0 * ((i * 104729L) % n) / n);
        e[i] = -100.0 + 150.0 * ((i * 31L) % n) / n;
        db[i] = std::pow(10.0, -3.0 + 6.0 * ((i * 613L) % n) / n);
        rb[i] = (i % 3) * 1e-3 * e[i];
    }
    DeviceArray<double> dw(w), dg(g), de(e), ddb(db), drb(rb);
    fold_kernel<<<(n + 255) / 256, 256>>>(n, dw.data(), dg.data(), de.data(), ddb.data(), drb.data());
    CUDA_CHECK_LAUNCH();
    const std::vector<double> db_dev = ddb.download(), rb_dev = drb.download();
    for (int i = 0; i < n; ++i) {
        fold_constant_terms(w[i], g[i], e[i], db[i], rb[i]);
        ASSERT_EQ(db_dev[i], db[i]) << i;
        ASSERT_EQ(rb_dev[i], rb[i]) << i;
    }
}

// The GPU groups assemble from terms the host computes once for the run's dt
// (assemble_precomputed); assemble_base on the device, a division per CV and step, gives
// the same bits (IEEE division and products on both sides).
TEST(MechanismAgreement, PrecomputedAssemblySameBitsAsDevice) {
    SKIP_WITHOUT_GPU();
    const int n = 1 << 16;
    std::vector<double> cap(n), g_sum(n), v(n), d_host(n), r_host(n);
    for (int i = 0; i < n; ++i) {
        cap[i] = std::pow(10.0, -9.0 + 12.0 * ((i * 7919L) % n) / n);
        g_sum[i] = std::pow(10.0, -9.0 + 12.0 * ((i * 104729L) % n) / n);
        v[i] = -120.0 + 180.0 * ((i * 31L) % n) / n;
    }
    for (double step : {0.025, 0.1, 1.0 / 3}) {
        for (int i = 0; i < n; ++i) {
            double d_base, cap_dt;
            assemble_base(cap[i], g_sum[i], step, 1.0, d_base, cap_dt);
            assemble_precomputed(d_base, cap_dt, 0.0, v[i], d_host[i], r_host[i]);  // no constant terms
        }
        DeviceArray<double> c(cap), g(g_sum), vv(v), d(n), r(n);
        assemble_base_kernel<<<(n + 255) / 256, 256>>>(n, c.data(), g.data(), vv.data(), step, d.data(), r.data());
        CUDA_CHECK_LAUNCH();
        const std::vector<double> d_dev = d.download(), r_dev = r.download();
        for (int i = 0; i < n; ++i) {
            ASSERT_EQ(d_dev[i], d_host[i]) << "dt " << step << ", CV " << i;
            ASSERT_EQ(r_dev[i], r_host[i]) << "dt " << step << ", CV " << i;
        }
    }
}
