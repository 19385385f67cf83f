// core/parallel_sort.hpp: blocks sorted side by side and merged give std::sort's order
// for distinct keys, on any number of threads (lists long enough to be split: the
// blocks are at least 2^15 long).
#include <algorithm>
#include <random>
#include <vector>

#include <omp.h>

#include <gtest/gtest.h>

#include "core/parallel_sort.hpp"

using namespace arbolito;

TEST(ParallelSort, DistinctKeysSortedAsStdSortOnAnyThreads) {
    // (key, index): few keys, many ties broken by the index, as fill_points sorts items by CV.
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> key(0, 999);
    const int before = omp_get_max_threads();
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(70000), std::size_t(300001)}) {
        std::vector<std::pair<int, int>> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = {key(rng), static_cast<int>(i)};
        std::vector<std::pair<int, int>> want = v;
        std::sort(want.begin(), want.end());
        for (int threads : {1, 2, 3, 8}) {
            omp_set_num_threads(threads);
            std::vector<std::pair<int, int>> got = v;
            parallel_sort_distinct(got, std::less<std::pair<int, int>>());
            EXPECT_TRUE(got == want) << n << " keys, " << threads << " threads";
        }
    }
    omp_set_num_threads(before);
}
