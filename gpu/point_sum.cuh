#pragma once
// Adding the currents of point-mechanism instances to d and rhs of their CVs, where many
// instances may share a CV (busyring's unconnected synapses: up to about 10 on one; a
// cell's every connection on its own instance: all on one). Instances are sorted
// by CV at set-up (build_fvm), so the instances of one CV are consecutive: a run.
//
// The lanes of a warp sum their terms by key (CV) with shuffles and the first lane of each
// run adds the run's sum with one plain add. A run that crosses the warp's edge belongs to
// the warp holding its first instance: that warp goes on over the following instances, 32
// at a time, and sums them in a fixed tree order, while the warps those instances fall in
// leave them alone. No atomics: every CV's sum is taken in the same order every run
// (GpuCellGroup.PointSumsSameBitsEveryRun). point_sums sums any number of values per
// instance this way (a point mechanism with ions: d, rhs and the ion currents it writes).
#include <climits>

#include <cuda_runtime.h>

namespace arbolito::gpu {

constexpr unsigned full_warp = 0xffffffffu;

// The sum over all 32 lanes, in a fixed order, returned to every lane.
__device__ __forceinline__ double warp_total(double x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(full_warp, x, o);
    return x;
}

// Called by every lane of the warp (no early return before it: the shuffles need all 32
// lanes). k: the instance of this lane, active when k < n; cv: the instances' CVs (sorted);
// terms(j, x): the N values instance j adds to out[0][cv], ..., out[N-1][cv] of its CV.
template <int N, class Terms>
__device__ __forceinline__ void point_sums(int k, int n, const int* __restrict__ cv, const Terms& terms,
                                           double* const (&out)[N]) {
    const int lane = threadIdx.x & 31, first = k - lane;  // first: the warp's first instance
    const bool active = k < n;
    // Lanes of a run that began in an earlier warp are summed by that warp. Keys stay sorted:
    // those lanes form a prefix (key INT_MIN) and inactive lanes a suffix (key INT_MAX).
    const bool continued = active && first > 0 && cv[first - 1] == cv[k];
    const int key = !active ? INT_MAX : continued ? INT_MIN : cv[k];
    double x[N];
#pragma unroll
    for (int q = 0; q < N; ++q) x[q] = 0;
    if (active && !continued) terms(k, x);

    // After the step with offset o, a lane holds the sum over lanes [lane, lane + 2o) of
    // its run: keys are sorted, so an equal key o lanes on means the whole gap is its run.
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        double ox[N];
#pragma unroll
        for (int q = 0; q < N; ++q) ox[q] = __shfl_down_sync(full_warp, x[q], o);
        const int ok = __shfl_down_sync(full_warp, key, o);
        if (lane + o < 32 && ok == key) {
#pragma unroll
            for (int q = 0; q < N; ++q) x[q] += ox[q];
        }
    }
    const int up = __shfl_up_sync(full_warp, key, 1);
    const bool head = key != INT_MIN && key != INT_MAX && (lane == 0 || up != key);

    // Does the warp's last run go on past its edge? (Uniform over the warp.)
    const int last_key = __shfl_sync(full_warp, key, 31);
    const bool spills = last_key != INT_MIN && last_key != INT_MAX && first + 32 < n && cv[first + 32] == last_key;
    if (head && !(spills && key == last_key)) {
#pragma unroll
        for (int q = 0; q < N; ++q) out[q][key] += x[q];
    }
    if (!spills) return;

    // The spilling run: its in-warp sum sits in its head lane, the lowest lane with its key.
    const unsigned with_key = __ballot_sync(full_warp, key == last_key);
    const int head_lane = __ffs(with_key) - 1;
    double sum[N];
#pragma unroll
    for (int q = 0; q < N; ++q) sum[q] = __shfl_sync(full_warp, x[q], head_lane);
    // Four warps' worth per pass, their loads issued before any sum waits on them.
    constexpr int ahead = 4;
    for (int base = first + 32; base < n && cv[base] == last_key; base += 32 * ahead) {
        double jx[ahead][N];
#pragma unroll
        for (int a = 0; a < ahead; ++a) {
            const int j = base + 32 * a + lane;
#pragma unroll
            for (int q = 0; q < N; ++q) jx[a][q] = 0;
            if (j < n && cv[j] == last_key) terms(j, jx[a]);
        }
#pragma unroll
        for (int a = 0; a < ahead; ++a) {
#pragma unroll
            for (int q = 0; q < N; ++q) sum[q] += warp_total(jx[a][q]);
        }
    }
    if (lane == 0) {
#pragma unroll
        for (int q = 0; q < N; ++q) out[q][last_key] += sum[q];
    }
}

// The terms of instances to d and rhs (terms(j, dd, dr)): point_sums of two values.
template <class Terms>
__device__ __forceinline__ void point_sum(int k, int n, const int* __restrict__ cv, const Terms& terms,
                                          double* __restrict__ d, double* __restrict__ rhs) {
    double* const out[2] = {d, rhs};
    point_sums<2>(k, n, cv, [&](int j, double (&x)[2]) { terms(j, x[0], x[1]); }, out);
}

}  // namespace arbolito::gpu
