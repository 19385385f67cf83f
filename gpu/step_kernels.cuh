#pragma once
// The kernels of one time step (docs/architecture.md, "One time step"). Each is a thin
// loop over CVs, instances, detectors or probes that calls the same ARB_HD functions as
// the CPU backend; the mechanism kernels are templates over the mechanism
// (mechanisms/all.hpp).
#include <cstdint>

#include <cuda_runtime.h>

#include "lowered_cell/blow_up_bound.hpp"
#include "gpu/device_spike.hpp"
#include "gpu/point_sum.cuh"
#include "mechanisms/all.hpp"
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_currents.hpp"
#include "mechanisms/instance_ions.hpp"
#include "mechanisms/probed_current.hpp"
#include "mechanisms/threshold.hpp"

namespace arbolito::gpu {

__device__ __forceinline__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Padding CVs hold d_base = 1 and cap_dt = rhs_base = 0 on the device, so this gives them
// the inert row d = 1, rhs = 0 (their v stays 0) without a branch.
__global__ void assemble_kernel(int n, const double* __restrict__ d_base, const double* __restrict__ cap_dt,
                                const double* __restrict__ rhs_base, const double* __restrict__ v,
                                double* __restrict__ d, double* __restrict__ rhs) {
    const int i = thread_index();
    if (i < n) assemble_precomputed(d_base[i], cap_dt[i], rhs_base[i], v[i], d[i], rhs[i]);
}

// Instances of M, a mechanism with constant terms, fold them into the assembly's terms
// once (fold_constant_terms; one instance a CV: no two threads add to one).
template <class M>
__global__ void fold_constant_terms_kernel(MechColumns m, double* __restrict__ d_base, double* __restrict__ rhs_base) {
    const int k = thread_index();
    if (k >= m.n) return;
    const int c = m.cv[k];
    fold_constant_instance<M>([&](int j) { return m.p[static_cast<long>(j) * m.n + k]; }, m.weight[k], d_base[c],
                              rhs_base[c]);
}

// The currents of mechanism M's instances, one thread each. Density mechanisms have at
// most one instance per CV: plain adds of the area-scaled current. Point mechanisms may
// share a CV: their terms are summed by point_sum (every lane of the warp must reach it,
// so no early return); a stimulus adds to the rhs only.
template <class M>
__global__ void current_kernel(MechColumns m, typename M::Globals gl, double t_mid, const double* __restrict__ v,
                               double* __restrict__ d, double* __restrict__ rhs) {
    const int k = thread_index();
    if constexpr (M::kind == MechKind::density) {
        if (k >= m.n) return;
        const int c = m.cv[k];
        add_density_current<M>(m, k, v[c], t_mid, gl, d[c], rhs[c]);
    } else {
        const auto terms = [&](int j, double& dd, double& dr) { point_terms<M>(m, j, v[m.cv[j]], t_mid, gl, dd, dr); };
        point_sum(k, m.n, m.cv, terms, d, rhs);
    }
}

// States after the solve, at V^{n+1}.
template <class M>
__global__ void advance_kernel(MechColumns m, typename M::Globals gl, double dt, const double* __restrict__ v) {
    const int k = thread_index();
    if (k >= m.n) return;
    Instance<M> in(m, k);
    advance_instance<M>(m, InstanceStepConstants<M>(m, k), in, v[m.cv[k]], dt, gl);
    in.store_states(m, k);
}

// Ions (docs/mechanisms.md, "Ions"); launched only for groups with ions. No two instances
// of a density mechanism share a CV, so its ion currents and concentrations are plain
// stores; a point mechanism's ion currents are summed per CV as its d and rhs terms are
// (GpuCellGroup refuses point mechanisms that write a concentration).

// e by Nernst on the CVs where a mechanism writes the concentrations.
__global__ void nernst_kernel(int n, const int* __restrict__ cv, int valence, double celsius,
                              const double* __restrict__ xi, const double* __restrict__ xo, double* __restrict__ e) {
    const int k = thread_index();
    if (k >= n) return;
    const int c = cv[k];
    e[c] = nernst(xi[c], xo[c], valence, celsius);
}

// current_kernel for a density mechanism with ions: its ion currents join the ions' too.
template <class M>
__global__ void ion_current_kernel(MechColumns m, MechIons<M> ions, typename M::Globals gl, double t_mid,
                                   const double* __restrict__ v, double* __restrict__ d, double* __restrict__ rhs) {
    static_assert(M::kind == MechKind::density, "ions on the GPU: density mechanisms");
    const int k = thread_index();
    if (k >= m.n) return;
    add_density_current_with_ions<M>(m, k, m.cv[k], ions, gl, t_mid, v, d, rhs);
}

// current_kernel for a point mechanism with ions: d, rhs and the ion currents it writes,
// each summed over the instances sharing a CV (point_sums; no early return).
template <class M>
__global__ void ion_point_current_kernel(MechColumns m, MechIons<M> ions, typename M::Globals gl, double t_mid,
                                         const double* __restrict__ v, double* __restrict__ d, double* __restrict__ rhs) {
    static_assert(M::kind != MechKind::density, "density mechanisms: ion_current_kernel");
    constexpr int N = 2 + n_written_ion_currents<M>();
    double* out[N];
    out[0] = d;
    out[1] = rhs;
    for_each_ion_slot<M>([&](auto slot) {
        constexpr int j = decltype(slot)::value;
        if constexpr ((M::ions[j].flags & ion_write_i) != 0) out[2 + written_ion_current_index<M>(j)] = ions.slot[j].i;
    });
    const auto terms = [&](int j, double (&x)[N]) { point_terms_with_ions<M>(m, j, m.cv[j], ions, v[m.cv[j]], t_mid, gl, x); };
    const int k = thread_index();
    point_sums<N>(k, m.n, m.cv, terms, out);
}

// advance_kernel for a mechanism with ions: then its written concentrations to its CV.
template <class M>
__global__ void ion_advance_kernel(MechColumns m, MechIons<M> ions, typename M::Globals gl, double dt,
                                   const double* __restrict__ v) {
    const int k = thread_index();
    if (k >= m.n) return;
    advance_with_ions<M>(m, k, m.cv[k], ions, gl, dt, v);
}

// The written concentrations from the states as they are (a state set anew).
template <class M>
__global__ void ion_concentrations_kernel(MechColumns m, MechIons<M> ions) {
    const int k = thread_index();
    if (k >= m.n) return;
    const Instance<M> in(m, k);
    write_ion_concentrations<M>(ions, m.cv[k], in.s.v);
}

// Columns col[j] recording a current of M: its instance instance[j]'s current `which[j]`
// (probed_current) at the step's starting voltages v, into out[col[j]].
template <class M>
__global__ void probed_current_kernel(int n, const int* __restrict__ col, const int* __restrict__ instance,
                                      const int* __restrict__ which, MechColumns m, MechIons<M> ions,
                                      typename M::Globals gl, double t_mid, const double* __restrict__ v,
                                      double* __restrict__ out) {
    const int j = thread_index();
    if (j >= n) return;
    const int k = instance[j], c = m.cv[k];
    out[col[j]] = probed_current<M>(m, k, c, ions, gl, v[c], t_mid, which[j]);
}

// Probe columns col[k] that record other than v: each from its own address.
__global__ void sample_at_kernel(int n, const int* __restrict__ col, const double* const* __restrict__ at,
                                 double* __restrict__ row) {
    const int k = thread_index();
    if (k < n) row[col[k]] = *at[k];
}

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

// The lowest index i < n with v[i] blown up (blow_up_bound.hpp) into *first (set to UINT_MAX before): once
// per epoch. atomicMin of an index gives the same answer in any order of the threads.
__global__ void first_blown_up_kernel(int n, const double* __restrict__ v, unsigned* __restrict__ first) {
    const int i = thread_index();
    if (i < n && blown_up(v[i])) atomicMin(first, static_cast<unsigned>(i));
}

}  // namespace arbolito::gpu
