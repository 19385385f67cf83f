#pragma once
// The multicore backend: one cell group integrated by one thread (solver `cpu`; `omp`
// runs several such groups on OpenMP threads). Cells are stepped W at a time in SIMD
// lanes (lane_layout's blocks): the per-CV loops, the mechanisms and the Hines
// sweeps run on Lanes<W> (core/lanes.hpp), each lane computing exactly what the scalar
// code computes for its cell, so every width gives the same bits (W = 1: the scalar path).
#include <array>
#include <cstdint>
#include <functional>

#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/timings.hpp"
#include "mechanisms/instance.hpp"
#include "solvers/lane_layout.hpp"

namespace arbolito {

// The lane width of lanes=auto: 4 doubles where the target has AVX (AVX2, AVX-512), else 2.
int native_lane_width();
// lanes=auto for a group of `cells` cells: min(width, the largest power of two <= cells),
// a width the cells fill (one cell: 1, the scalar path; 3 cells of 4 lanes: 2). A lane
// costs its rows whether a cell fills it or not (one Allen cell in 4 lanes ran 1.4x as
// long as in 1; three in 2 lanes no slower than in 4, bench/RESULTS.md), and a narrower
// block pads less: with fewer cells than `width` the blocks of the narrower width, each as
// long as its own largest cell, never hold more rows than one block of `width`. Every
// width gives the same bits. The memory estimate lays cells out by the same rule
// (layout_lane_width).
int lanes_for_cells(int width, std::uint64_t cells);
const char* native_lane_isa();  // "AVX-512", "AVX2", "AVX" or "SSE2/other"

// A cell's solve in place of the double Hines sweeps, where the lanes are 1 (a lane block
// is then one cell): rows first..last-1 in layout numbering, first the root, parent and u
// in layout numbering; on return rhs holds the solution, d may be overwritten. The
// long double reference (solve=long-double) is one; accuracy tests put in other solvers'
// host references (the GPU solvers' arithmetic in the CPU's whole run).
using CellSolve = std::function<void(int first, int last, const int* parent, double* d, const double* u, double* rhs)>;

class CpuCellGroup final : public CellGroup {
public:
    CpuCellGroup(FvmData data, LaneBlocks blocks, const StepSettings& s);
    // Every cell's solve from now on by `solve` (null: the double Hines sweeps again).
    // Throws std::invalid_argument unless the lanes are 1.
    void solve_cells_by(CellSolve solve);
    void advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                 std::vector<Spike>& spikes, std::vector<double>& frames) override;
    void initial_frame(std::vector<double>& frames) override;
    BlownUpCv first_blown_up_v() const override { return blown_up_; }
    const FvmData& data() const override { return f_; }
    const PhaseTimes& times() const override { return times_; }
    std::vector<double> voltages() const override;
    std::vector<double> state() const override;
    void set_state(const std::vector<double>& s) override;

private:
    // One step of a chunk, phase by phase (lowered_cell/step_sequence.hpp's run_step).
    template <int W>
    struct ChunkStep;
    // Steps [step_begin, step_end) of chunk k, its frames into rows of `frames` (row 0:
    // frame first_frame); false where a stop was asked for.
    template <int W>
    bool run_chunk(int k, long step_begin, long step_end, const std::vector<StepEvent>& events,
                   std::vector<Spike>& spikes, double* frames, long first_frame);
    void detect_chunk(int chunk, double t, std::vector<Spike>& spikes) const;
    void deliver(const StepEvent& e);
    MechColumns columns(int mechanism) { return host_columns(f_, mech_, mechanism); }  // f_'s instances, mech_'s states
    // M's ion slots in ions_ (none without ions: no work per step).
    template <class M>
    MechIons<M> ions_of() {
        if constexpr (n_ions<M> > 0) return mech_ions<M>(f_, ions_);
        return {};
    }
    // The ion phases of a chunk's step (docs/mechanisms.md, "Ions"); groups without ions
    // skip them. Each ion's current to 0 where it is used (ion_cv_), its reversal potential
    // by Nernst where a mechanism writes its concentrations (the written concentrations
    // reach the ions within the states phase, as each mechanism advances).
    void ions_begin(int chunk);

    // Cells are stepped in chunks of about cache size, and each chunk through the whole
    // epoch before the next starts: within an epoch no cell depends on another (events
    // come from the queue, spikes leave at its end), so a chunk's state stays in L2 for
    // the epoch's steps instead of streaming from memory once per step (busyring 1,024
    // cells: 1.8 M CVs, 270 MB of state). A chunk is whole lane blocks: a contiguous range
    // of CVs. Per chunk: its blocks, CVs, cells and its instances of every mechanism.
    struct Chunk {
        int block_begin, block_end, cv_begin, cv_end;
        int instances[n_mechanisms][2];  // [first, end) of each mechanism's instances
        std::vector<std::array<int, 2>> nernst;  // per ion species, [first, end) of its nernst_cv
        std::vector<std::array<int, 2>> ion_cvs;  // per ion species, [first, end) of its ion_cv_
        std::vector<int> cells;          // ascending
    };
    std::vector<Chunk> chunks_;
    std::vector<int> target_chunk_;              // chunk of each synapse target
    std::vector<std::vector<int>> chunk_probes_;  // probes (columns) on each chunk's CVs
    std::vector<std::vector<int>> chunk_current_probes_;  // those of them recording a mechanism's current
    std::vector<double> probe_current_;  // per column: its mechanism current (probed_current_at), if it records one
    std::vector<std::vector<int>> chunk_events_;  // this epoch's events per chunk, in order
    // Per chunk: d and rhs hold the next step's base terms (its last solve wrote them at
    // the voltage it left in v), so its assembly pass is skipped; 0 at first and after set_state.
    std::vector<char> base_ready_;

    FvmData f_;
    LaneBlocks blocks_;
    StepSettings s_;
    all_mechanisms::Globals globals_;
    // Per CV, constant over the run: cap/dt and the diagonal before membrane currents,
    // cap/dt + g_sum (assemble_base's terms, the same bits); padding rows 0 and 1.
    std::vector<double> cap_dt_, d_base_, rhs_base_;
    std::vector<double> v_, d_, u_, rhs_;
    CellSolve cell_solve_;         // null: lane_hines_solve
    MechStates mech_;              // every mechanism's states and constants
    IonStates ions_;               // per ion species of the group (FvmData::ions)
    // Per ion species: the CVs of the instances that use it, ascending. Only there does a
    // step's currents phase write the ion's current, so only there is it set to 0 first
    // (elsewhere it stays the 0 it starts at).
    std::vector<std::vector<int>> ion_cv_;
    std::vector<const double*> probe_at_;  // where probes record other than v (probe_pointers); empty: all v
    // Every mechanism's step constants for s_.dt (step_derived), by column then instance.
    std::array<std::vector<double>, n_mechanisms> step_derived_;
    std::vector<double> det_v_;    // detector voltage at the start of the step
    BlownUpCv blown_up_;        // after the last advance
    PhaseTimes times_;
};

}  // namespace arbolito
