#pragma once
// Device time of each phase of each step (PhaseTimes), from CUDA events recorded in the
// stream between the phases; read once per epoch, after its synchronisation. Each
// interval is rounded to the events' resolution (about 0.5 µs), so a phase's sum over
// many steps carries that rounding too.
#include <vector>

#include <cuda_runtime.h>

#include "lowered_cell/timings.hpp"
#include "core/gpu/memory.hpp"

namespace arbolito::gpu {

class PhaseTimer {
public:
    // Per step: a mark before the first phase and after each of the seven timed ones, in
    // the order events, assemble, currents, solve, states, detect, sample (run_step's; the
    // ion hooks launch nothing yet and have no mark).
    static constexpr int n_marks = 8;

    explicit PhaseTimer(bool enabled) : enabled_(enabled) {}
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;
    ~PhaseTimer() {
        for (cudaEvent_t e : pool_) cudaEventDestroy(e);  // no throw from a destructor
    }

    // Before the steps of an epoch piece: room for `steps` steps.
    void begin(long steps) {
        if (!enabled_) return;
        used_ = 0;
        const std::size_t need = static_cast<std::size_t>(steps) * n_marks;
        while (pool_.size() < need) {
            cudaEvent_t e;
            CUDA_CHECK(cudaEventCreate(&e));
            pool_.push_back(e);
        }
    }
    void mark(cudaStream_t s) {
        if (!enabled_) return;
        CUDA_CHECK(cudaEventRecord(pool_[used_++], s));
    }
    // After the stream has been synchronised: adds every step's phases to `t`.
    void collect(PhaseTimes& t) {
        if (!enabled_) return;
        double* phase[n_marks - 1] = {&t.events, &t.assemble, &t.currents, &t.solve, &t.states, &t.detect, &t.sample};
        for (std::size_t s = 0; s + n_marks <= used_; s += n_marks)
            for (int k = 0; k + 1 < n_marks; ++k) {
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, pool_[s + k], pool_[s + k + 1]));
                *phase[k] += 1e-3 * ms;
            }
        used_ = 0;
    }

private:
    bool enabled_;
    std::vector<cudaEvent_t> pool_;
    std::size_t used_ = 0;
};

}  // namespace arbolito::gpu
