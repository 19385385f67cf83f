#pragma once
// The multicore backend: one cell group integrated by one thread with the serial Hines
// solver (solver `cpu`; `omp` runs several such groups on OpenMP threads).
#include "engine/cell_group.hpp"

namespace arbolito {

class CpuCellGroup final : public CellGroup {
public:
    CpuCellGroup(FvmData data, const StepSettings& s);
    void advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                 std::vector<Spike>& spikes, std::vector<double>& frames) override;
    void initial_frame(std::vector<double>& frames) override;
    const FvmData& data() const override { return f_; }
    const PhaseTimes& times() const override { return times_; }
    std::vector<double> voltages() const override;

private:
    void step(long n, const StepEvent*& ev, const StepEvent* ev_end, std::vector<Spike>& spikes);
    void step_chunk(int chunk, double t);

    // Cells are stepped in chunks of about cache size: all phases of a chunk run before
    // the next chunk starts, so its state stays in L2 instead of streaming from memory
    // once per phase. Per chunk: its cells and its instances of every mechanism.
    struct Chunk {
        int cell_begin, cell_end, cv_begin, cv_end;
        int hh[2], pas[2], expsyn[2], exp2syn[2], iclamp[2];
    };
    std::vector<Chunk> chunks_;

    FvmData f_;
    StepSettings s_;
    double q10_;
    std::vector<int> cell_begin_;  // CV range of each cell (contiguous layout)
    std::vector<double> v_, d_, u_, rhs_;
    std::vector<double> m_, h_, n_;       // hh gates
    std::vector<double> g_syn_;           // expsyn conductance
    std::vector<double> a_, b_, tau1_, factor_;  // exp2syn states, effective tau1, peak factor
    std::vector<double> det_v_;           // detector voltage at the start of the step
    PhaseTimes times_;
};

}  // namespace arbolito
