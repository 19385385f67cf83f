#pragma once
// Two whole runs recorded in memory (CaptureSink) compared bit for bit: spikes (cell,
// detector, time) and every trace value, zeros' signs included; the CPU solvers to run.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/test_util.hpp"

namespace test_support {

// Every CPU solver a whole-run bits test runs: one lane, the lanes' default, OpenMP on two threads.
struct CpuVariant {
    const char* solver;
    int threads;
};
inline constexpr CpuVariant cpu_variants[] = {{"cpu:lanes=1", 1}, {"cpu", 1}, {"omp", 2}};

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline void expect_same_bits(const CaptureSink& a, const CaptureSink& b, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(a.spikes_seen.size(), b.spikes_seen.size());
    for (std::size_t k = 0; k < a.spikes_seen.size(); ++k) {
        EXPECT_EQ(a.spikes_seen[k].gid, b.spikes_seen[k].gid) << "spike " << k;
        EXPECT_EQ(a.spikes_seen[k].source, b.spikes_seen[k].source) << "spike " << k;
        EXPECT_EQ(std::memcmp(&a.spikes_seen[k].time, &b.spikes_seen[k].time, sizeof(double)), 0) << "spike " << k;
    }
    ASSERT_EQ(a.n_frames, b.n_frames);
    EXPECT_TRUE(same_bits(a.rows, b.rows)) << "traces differ";
}

}  // namespace test_support
