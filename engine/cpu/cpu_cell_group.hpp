#pragma once
// The multicore backend: one cell group integrated by one thread with the serial Hines
// solver (solver `cpu`; `omp` runs several such groups on OpenMP threads).
#include "engine/cell_group.hpp"
#include "engine/timings.hpp"
#include "mechanisms/instance.hpp"

namespace arbolito {

class CpuCellGroup final : public CellGroup {
public:
    CpuCellGroup(FvmData data, const StepSettings& s);
    void advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                 std::vector<Spike>& spikes, std::vector<double>& frames) override;
    void initial_frame(std::vector<double>& frames) override;
    BlownUpCv first_blown_up_v() const override { return blown_up_; }
    const FvmData& data() const override { return f_; }
    const PhaseTimes& times() const override { return times_; }
    std::vector<double> voltages() const override;

private:
    // One step of a chunk; adds each phase's time to times_, taking laps of w.
    void step_chunk(int chunk, double t, Stopwatch& w);
    void detect_chunk(int chunk, double t, std::vector<Spike>& spikes) const;
    void deliver(const StepEvent& e);
    MechColumns columns(int mechanism);  // f_'s instances and mech_'s states

    // Cells are stepped in chunks of about cache size, and each chunk through the whole
    // epoch before the next starts: within an epoch no cell depends on another (events
    // come from the queue, spikes leave at its end), so a chunk's state stays in L2 for
    // the epoch's steps instead of streaming from memory once per step (busyring 1,024
    // cells: 1.8 M CVs, 270 MB of state). Per chunk: its cells and its instances of
    // every mechanism.
    struct Chunk {
        int cell_begin, cell_end, cv_begin, cv_end;
        int instances[n_mechanisms][2];  // [first, end) of each mechanism's instances
    };
    std::vector<Chunk> chunks_;
    std::vector<int> target_chunk_;              // chunk of each synapse target
    std::vector<std::vector<int>> chunk_probes_;  // probes (columns) on each chunk's CVs
    std::vector<std::vector<int>> chunk_events_;  // this epoch's events per chunk, in order

    FvmData f_;
    StepSettings s_;
    all_mechanisms::Globals globals_;
    std::vector<int> cell_begin_;  // CV range of each cell (contiguous layout)
    std::vector<double> v_, d_, u_, rhs_;
    MechStates mech_;              // every mechanism's states and constants
    std::vector<double> det_v_;    // detector voltage at the start of the step
    BlownUpCv blown_up_;        // after the last advance
    PhaseTimes times_;
};

}  // namespace arbolito
