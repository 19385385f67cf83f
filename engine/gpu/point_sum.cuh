#pragma once
// Adding the currents of point-mechanism instances to d and rhs of their CVs, where many
// instances may share a CV (busyring's synapses all sit on one CV). Instances are sorted
// by CV at set-up (build_fvm), so the instances of one CV are consecutive.
//
// segmented: the lanes of a warp sum their terms by key (CV) with shuffles; the first
// lane of each run of equal keys adds the run's sum, with a plain add where no other
// warp holds that CV and an atomic add where the run crosses the warp's edge.
// atomic: every instance adds its terms with atomicAdd.
#include <cuda_runtime.h>

#include "engine/gpu/gpu_cell_group.hpp"

namespace arbolito::gpu {

constexpr unsigned full_warp = 0xffffffffu;

// Called by every lane of the warp (no early return before it: the shuffles need all 32
// lanes). k: the instance of this lane, active when k < n; cv: the instances' CVs.
template <PointSum Mode>
__device__ __forceinline__ void point_add(int k, int n, const int* __restrict__ cv, double dd, double dr,
                                          double* __restrict__ d, double* __restrict__ rhs) {
    const bool active = k < n;
    const int key = active ? cv[k] : -1;
    if constexpr (Mode == PointSum::atomic) {
        if (active) {
            atomicAdd(d + key, dd);
            atomicAdd(rhs + key, dr);
        }
    } else {
        const int lane = threadIdx.x & 31;
        if (!active) dd = dr = 0.0;
        // After the step with offset o, a lane holds the sum over lanes [lane, lane + 2o) of
        // its run: keys are sorted, so an equal key o lanes on means the whole gap is its run.
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const double od = __shfl_down_sync(full_warp, dd, o);
            const double orr = __shfl_down_sync(full_warp, dr, o);
            const int ok = __shfl_down_sync(full_warp, key, o);
            if (lane + o < 32 && ok == key) {
                dd += od;
                dr += orr;
            }
        }
        const int up = __shfl_up_sync(full_warp, key, 1);
        const int down = __shfl_down_sync(full_warp, key, 1);
        const bool head = lane == 0 || up != key;
        const bool tail = lane == 31 || down != key;
        const unsigned tails = __ballot_sync(full_warp, tail);
        // Does lane 31's run continue in the next warp?
        const bool spills = __shfl_sync(full_warp, lane == 31 && active && k + 1 < n && cv[k + 1] == key, 31);
        if (active && head) {
            const int end = __ffs(tails & (full_warp << lane)) - 1;  // last lane of this run
            const bool shared = (lane == 0 && k > 0 && cv[k - 1] == key) || (end == 31 && spills);
            if (shared) {
                atomicAdd(d + key, dd);
                atomicAdd(rhs + key, dr);
            } else {
                d[key] += dd;
                rhs[key] += dr;
            }
        }
    }
}

}  // namespace arbolito::gpu
