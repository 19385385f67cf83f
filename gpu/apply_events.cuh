#pragma once
// Applying a step's events to a synapse on the device, shared by the streaming step's
// deliver kernel (event_queue.cu) and the epoch-resident kernel (resident_epoch.cu):
// events sorted by target, the first event of each target's run applies the whole run in
// order (the CPU's order: sums on one target add up identically).
#include <cstddef>
#include <cstdint>

#include "mechanisms/all.hpp"
#include "mechanisms/instance.hpp"

namespace arbolito::gpu {

// The run of events [i, end) with key k on instance `inst`, if x names synapse M.
template <class M>
__device__ __forceinline__ void apply_run(int x, const MechColumns& m, int inst, std::size_t i, std::size_t end,
                                          const std::uint64_t* __restrict__ key, std::uint64_t k,
                                          const double* __restrict__ weight) {
    if constexpr (M::kind == MechKind::synapse) {
        if (x != mech_index<M>) return;
        Instance<M> in(m, inst);
        for (std::size_t j = i; j < end && key[j] == k; ++j) M::on_event(weight[j], in.p.v, in.s.v, in.c.v);
        in.store_states(m, inst);
    }
}

// The same for whichever mechanism x is; columns: every mechanism's, by all_mechanisms index.
template <class... Ms>
__device__ __forceinline__ void apply_run_any(mech_list<Ms...>, int x, const MechColumns* columns, int inst,
                                              std::size_t i, std::size_t end, const std::uint64_t* __restrict__ key,
                                              std::uint64_t k, const double* __restrict__ weight) {
    (apply_run<Ms>(x, columns[mech_index<Ms>], inst, i, end, key, k, weight), ...);
}

}  // namespace arbolito::gpu
