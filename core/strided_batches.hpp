#pragma once
// A block's threads over n items, thread t taking t, t + nt, t + 2·nt, ... (a block-stride
// loop), B items at a time: every load of the B items is issued before any of their
// arithmetic and stores. Where the loads come from device memory this waits one latency
// per B items instead of one per item; the compiler cannot reorder the plain loop itself,
// since its stores might alias the next item's loads. Each item is still handled by the
// same arithmetic once, so results do not change, only the order in which a thread's
// items are loaded. load(k) -> a value holding item k's inputs; apply(k, value). Items
// past n in a batch load item k0 again (always valid) and are not applied.
#include "core/hd.hpp"

namespace arbolito {

template <int B, class Load, class Apply>
ARB_HD void for_strided_in_batches(int t, int nt, int n, Load load, Apply apply) {
    static_assert(B >= 1, "batches of at least one item");
    for (int k0 = t; k0 < n; k0 += B * nt) {
        decltype(load(k0)) in[B];
        ARB_UNROLL
        for (int b = 0; b < B; ++b) {
            const int k = k0 + b * nt;
            in[b] = load(k < n ? k : k0);
        }
        ARB_UNROLL
        for (int b = 0; b < B; ++b) {
            const int k = k0 + b * nt;
            if (k < n) apply(k, in[b]);
        }
    }
}

}  // namespace arbolito
