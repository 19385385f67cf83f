#pragma once
// The epoch-resident kernel's phase clock, for a bench build only (ARBOLITO_RESIDENT_PROFILE;
// bench/resident_profile.sh builds arbolito-prof with it): thread 0 of every block adds
// the clock cycles of each phase of its steps and of each level of its solve, and the
// host prints the shares when the group goes away. In every normal build PhaseClock and
// the level hook do nothing and print_resident_profile prints nothing (the sums are
// the one atomic here, and they time, not compute). Included by resident_epoch.cu alone:
// its device counters are that file's.
#include <cstdio>

#include <cuda_runtime.h>

#include "solvers/gpu/fine_block.cuh"

namespace arbolito::gpu {
namespace {

// prof_advance: the states' advance but the deferred density mechanisms' (prof_deferred, at
// the start of the next step); prof_side: thread 0's own side-by-side terms, before the
// currents' ordered sums (prof_currents); prof_states: the detectors, samples and the last
// barrier.
enum ProfilePhase {
    prof_events, prof_assemble, prof_currents, prof_solve, prof_advance, prof_states, prof_deferred, prof_side, prof_n
};
#ifdef ARBOLITO_RESIDENT_PROFILE
constexpr int prof_levels = 32;  // deeper levels are counted in the last
__device__ unsigned long long profile_cycles[prof_n], profile_level[2][prof_levels][2], profile_block_steps;
__device__ __forceinline__ long long now_cycles() {
#ifdef __CUDA_ARCH__
    return clock64();
#else
    return 0;
#endif
}
// Thread 0's: per phase in registers, per solve level (cycles, rows) in shared memory.
struct PhaseClock {
    long long last, mark, sum[prof_n] = {}, steps = 0;  // mark: the last phase's or level's end
    long long (*level)[prof_levels][2];
    __device__ explicit PhaseClock(long long (*lv)[prof_levels][2]) : last(now_cycles()), mark(last), level(lv) {}
    __device__ void lap(int p) {
        const long long now = now_cycles();
        sum[p] += now - last;
        last = mark = now;
        steps += p == prof_states;
    }
    __device__ void after_level(int sweep, int L, int rows) {
        if (threadIdx.x != 0) return;
        const long long now = now_cycles();
        level[sweep][L < prof_levels ? L : prof_levels - 1][0] += now - mark;
        level[sweep][L < prof_levels ? L : prof_levels - 1][1] += rows;
        mark = now;
    }
    __device__ void flush() {
        for (int p = 0; p < prof_n; ++p) atomicAdd(&profile_cycles[p], static_cast<unsigned long long>(sum[p]));
        for (int w = 0; w < 2; ++w)
            for (int L = 0; L < prof_levels; ++L)
                for (int j = 0; j < 2; ++j)
                    atomicAdd(&profile_level[w][L][j], static_cast<unsigned long long>(level[w][L][j]));
        atomicAdd(&profile_block_steps, static_cast<unsigned long long>(steps));
    }
};
// Each side-by-side mechanism's own cycles (its instance 0's thread): its currents' terms
// and its states' advance, summed over block-steps where it ran side by side.
constexpr int prof_mechs = 64;
__device__ unsigned long long profile_mech[prof_mechs][3];  // currents, advance, block-steps
struct MechClock {
    long long c[2] = {}, steps = 0;
    __device__ long long start() const { return now_cycles(); }
    __device__ void add(int kind, long long t0) {
        c[kind] += now_cycles() - t0;
        steps += kind == 1;
    }
    __device__ void flush(int m, int k) {
        if (m < 0 || k != 0 || m >= prof_mechs) return;
        atomicAdd(&profile_mech[m][0], static_cast<unsigned long long>(c[0]));
        atomicAdd(&profile_mech[m][1], static_cast<unsigned long long>(c[1]));
        atomicAdd(&profile_mech[m][2], static_cast<unsigned long long>(steps));
    }
};
#define ARBOLITO_PROFILE_LEVELS                                                      \
    __shared__ long long level_clock[2][prof_levels][2];                            \
    for (int i = threadIdx.x; i < 4 * prof_levels; i += blockDim.x) (&level_clock[0][0][0])[i] = 0; \
    __syncthreads();                                                                 \
    PhaseClock clock(level_clock);                                                   \
    auto after_level = [&](int w, int L, int rows) { clock.after_level(w, L, rows); };
#else
struct MechClock {
    __device__ long long start() const { return 0; }
    __device__ void add(int, long long) {}
    __device__ void flush(int, int) {}
};
struct PhaseClock {
    __device__ void lap(int) {}
    __device__ void flush() {}
};
#define ARBOLITO_PROFILE_LEVELS \
    PhaseClock clock;           \
    NoLevelHook after_level;
#endif

// The shares of the phases and the cycles per level, to stderr (profile builds only).
template <class Mechanisms>
void print_resident_profile() {
#ifdef ARBOLITO_RESIDENT_PROFILE
    unsigned long long mc[prof_mechs][3] = {};
    if (cudaMemcpyFromSymbol(mc, profile_mech, sizeof mc) == cudaSuccess)
        Mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int m = Mechanisms::template index_of<M>();
            if (m < prof_mechs && mc[m][2] > 0)
                std::fprintf(stderr, "resident profile, %s side by side: currents %.0f, advance %.0f cycles a block-step\n",
                             M::name, static_cast<double>(mc[m][0]) / static_cast<double>(mc[m][2]),
                             static_cast<double>(mc[m][1]) / static_cast<double>(mc[m][2]));
        });
    unsigned long long c[prof_n] = {};
    if (cudaMemcpyFromSymbol(c, profile_cycles, sizeof c) != cudaSuccess) return;
    double total = 0;
    for (unsigned long long x : c) total += static_cast<double>(x);
    const char* name[prof_n] = {"events", "assemble", "currents (sums)", "solve", "advance", "detect+sample+barrier",
                                "deferred states", "currents (own side-by-side terms)"};
    std::fprintf(stderr, "resident profile (block cycles, every block and step):");
    for (int p = 0; p < prof_n; ++p) std::fprintf(stderr, " %s %.1f%%", name[p], 100.0 * static_cast<double>(c[p]) / total);
    unsigned long long lv[2][prof_levels][2] = {}, steps = 0;
    if (cudaMemcpyFromSymbol(lv, profile_level, sizeof lv) != cudaSuccess ||
        cudaMemcpyFromSymbol(&steps, profile_block_steps, sizeof steps) != cudaSuccess || steps == 0) {
        std::fprintf(stderr, " (total %.4e)\n", total);
        return;
    }
    std::fprintf(stderr, " (total %.4e, %.0f a block-step)\n", total, total / static_cast<double>(steps));
    for (int w = 0; w < 2; ++w) {
        std::fprintf(stderr, "resident profile, %s by level (cycles/rows per block-step):",
                     w == 0 ? "elimination" : "substitution");
        for (int L = 0; L < prof_levels; ++L)
            if (lv[w][L][1] > 0)
                std::fprintf(stderr, " %d:%.0f/%.1f", L, static_cast<double>(lv[w][L][0]) / steps,
                             static_cast<double>(lv[w][L][1]) / steps);
        std::fprintf(stderr, "\n");
    }
#endif
}

}  // namespace
}  // namespace arbolito::gpu
