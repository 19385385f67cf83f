#pragma once
// The kernels of one time step (DESIGN §4). Each is a thin loop over CVs, instances,
// detectors or probes that calls the same ARB_HD functions as the CPU backend.
#include <cstdint>

#include <cuda_runtime.h>

#include "engine/gpu/point_sum.cuh"
#include "mechanisms/assemble.hpp"
#include "mechanisms/exp2syn.hpp"
#include "mechanisms/expsyn.hpp"
#include "mechanisms/hh.hpp"
#include "mechanisms/iclamp.hpp"
#include "mechanisms/pas.hpp"
#include "mechanisms/threshold.hpp"

namespace arbolito::gpu {

// Parameters are stored by parameter, then instance: p[j * n + k].
struct MechView {
    int n = 0;
    const int* cv = nullptr;
    const double* weight = nullptr;
    const double* p = nullptr;
};

__device__ __forceinline__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Padding CVs hold cap = 0 and g_sum = 1 on the device, so this gives them the inert row
// d = 1, rhs = 0 (their v stays 0) without a branch.
__global__ void assemble_kernel(int n, const double* __restrict__ cap, const double* __restrict__ g_sum, double dt,
                                const double* __restrict__ v, double* __restrict__ d, double* __restrict__ rhs) {
    const int i = thread_index();
    if (i < n) assemble_base(cap[i], g_sum[i], dt, v[i], d[i], rhs[i]);
}

// Density mechanisms: at most one instance of a mechanism per CV, so plain adds.
__global__ void hh_current_kernel(MechView m, const double* __restrict__ st_m, const double* __restrict__ st_h,
                                  const double* __restrict__ st_n, const double* __restrict__ v, double* __restrict__ d,
                                  double* __restrict__ rhs) {
    const int k = thread_index();
    if (k >= m.n) return;
    const int c = m.cv[k], n = m.n;
    const hh::Params p{m.p[k], m.p[n + k], m.p[2 * n + k], m.p[3 * n + k], m.p[4 * n + k], m.p[5 * n + k]};
    double i_m, g_m;
    hh::current(v[c], st_m[k], st_h[k], st_n[k], p, i_m, g_m);
    add_current(m.weight[k] * i_m, m.weight[k] * g_m, v[c], d[c], rhs[c]);
}

__global__ void pas_current_kernel(MechView m, const double* __restrict__ v, double* __restrict__ d,
                                   double* __restrict__ rhs) {
    const int k = thread_index();
    if (k >= m.n) return;
    const int c = m.cv[k];
    double i_m, g_m;
    pas::current(v[c], {m.p[k], m.p[m.n + k]}, i_m, g_m);
    add_current(m.weight[k] * i_m, m.weight[k] * g_m, v[c], d[c], rhs[c]);
}

// Point mechanisms: many instances may share a CV (point_add). No early return.
template <PointSum Mode>
__global__ void expsyn_current_kernel(MechView m, const double* __restrict__ g, const double* __restrict__ v,
                                      double* __restrict__ d, double* __restrict__ rhs) {
    const int k = thread_index();
    double dd = 0, dr = 0;
    if (k < m.n) {
        const int c = m.cv[k];
        double i_m, g_m;
        expsyn::current(v[c], g[k], {m.p[k], m.p[m.n + k]}, i_m, g_m);
        current_terms(i_m, g_m, v[c], dd, dr);
    }
    point_add<Mode>(k, m.n, m.cv, dd, dr, d, rhs);
}

template <PointSum Mode>
__global__ void exp2syn_current_kernel(MechView m, const double* __restrict__ a, const double* __restrict__ b,
                                       const double* __restrict__ tau1, const double* __restrict__ v,
                                       double* __restrict__ d, double* __restrict__ rhs) {
    const int k = thread_index();
    double dd = 0, dr = 0;
    if (k < m.n) {
        const int c = m.cv[k], n = m.n;
        double i_m, g_m;
        exp2syn::current(v[c], a[k], b[k], {tau1[k], m.p[n + k], m.p[2 * n + k]}, i_m, g_m);
        current_terms(i_m, g_m, v[c], dd, dr);
    }
    point_add<Mode>(k, m.n, m.cv, dd, dr, d, rhs);
}

// Injected current: adds to rhs only (add_injected); summed like the synapses.
template <PointSum Mode>
__global__ void iclamp_kernel(MechView m, double t_mid, double* __restrict__ d, double* __restrict__ rhs) {
    const int k = thread_index();
    double dr = 0;
    if (k < m.n) {
        const int n = m.n;
        dr = iclamp::current(t_mid, {m.p[k], m.p[n + k], m.p[2 * n + k]});
    }
    point_add<Mode>(k, m.n, m.cv, 0.0, dr, d, rhs);
}

// States after the solve, at V^{n+1}.
__global__ void hh_advance_kernel(int n, const int* __restrict__ cv, const double* __restrict__ v, double dt, double q10,
                                  double* __restrict__ st_m, double* __restrict__ st_h, double* __restrict__ st_n) {
    const int k = thread_index();
    if (k < n) hh::advance(v[cv[k]], dt, q10, st_m[k], st_h[k], st_n[k]);
}

__global__ void expsyn_decay_kernel(int n, const double* __restrict__ tau, double dt, double* __restrict__ g) {
    const int k = thread_index();
    if (k < n) g[k] = expsyn::decay(g[k], dt, tau[k]);
}

__global__ void exp2syn_decay_kernel(int n, const double* __restrict__ tau1, const double* __restrict__ tau2, double dt,
                                     double* __restrict__ a, double* __restrict__ b) {
    const int k = thread_index();
    if (k < n) {
        a[k] = expsyn::decay(a[k], dt, tau1[k]);
        b[k] = expsyn::decay(b[k], dt, tau2[k]);
    }
}

struct DeviceSpike {
    double time;
    std::uint32_t detector;  // group-wide detector index
};

// v0: the voltage at the step's start, v1 at its end. Spikes are appended in any order
// (the simulation sorts them); `capacity` is never exceeded (see GpuCellGroup::advance).
__global__ void detect_kernel(int n, const int* __restrict__ cv, const double* __restrict__ threshold,
                              const double* __restrict__ v0, const double* __restrict__ v1, double t, double dt,
                              bool at_step_end, DeviceSpike* __restrict__ out, unsigned* __restrict__ count,
                              unsigned capacity) {
    const int k = thread_index();
    if (k >= n) return;
    const int c = cv[k];
    const double a = v0[c], b = v1[c], th = threshold[k];
    if (threshold::crossed(a, b, th)) {
        const unsigned slot = atomicAdd(count, 1u);
        if (slot < capacity) out[slot] = {threshold::crossing_time(t, dt, a, b, th, at_step_end), static_cast<std::uint32_t>(k)};
    }
}

__global__ void sample_kernel(int n, const int* __restrict__ probe_cv, const double* __restrict__ v,
                              double* __restrict__ row) {
    const int k = thread_index();
    if (k < n) row[k] = v[probe_cv[k]];
}

}  // namespace arbolito::gpu
