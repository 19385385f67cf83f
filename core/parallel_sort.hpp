#pragma once
// A sort for set-up's long lists on the OpenMP threads: blocks sorted side by side, then
// merged pairwise, round by round. For keys that are all distinct under `less` (a total
// order with no ties) the result is the one order there is, the same as std::sort's on
// any number of threads.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <omp.h>

#include "core/parallel_for.hpp"

namespace arbolito {

template <class T, class Less>
void parallel_sort_distinct(std::vector<T>& v, Less less) {
    const std::size_t n = v.size();
    constexpr std::size_t min_block = std::size_t(1) << 15;  // below this, waking threads costs more than it saves
    std::size_t blocks = 1;
    while (blocks < static_cast<std::size_t>(omp_get_max_threads()) && n / (2 * blocks) >= min_block) blocks *= 2;
    if (blocks == 1) {
        std::sort(v.begin(), v.end(), less);
        return;
    }
    auto at = [&](std::size_t b) { return v.begin() + static_cast<std::ptrdiff_t>(n * b / blocks); };
    parallel_for(static_cast<long>(blocks), 1, [&](long b) { std::sort(at(b), at(b + 1), less); });
    std::vector<T> out(n);
    for (std::size_t width = 1; width < blocks; width *= 2) {
        const long pairs = static_cast<long>(blocks / (2 * width));
        parallel_for(pairs, 1, [&](long p) {
            const std::size_t b = 2 * width * static_cast<std::size_t>(p);
            std::merge(at(b), at(b + width), at(b + width), at(b + 2 * width),
                       out.begin() + (at(b) - v.begin()), less);
        });
        v.swap(out);  // merged into out; at() reads v, which is now the merged list
    }
}

}  // namespace arbolito
