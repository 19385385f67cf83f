#include "gpu/resident_epoch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gpu/apply_events.cuh"
#include "gpu/resident_profile.cuh"
#include "lowered_cell/step_sequence.hpp"
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance_currents.hpp"
#include "mechanisms/instance_ions.hpp"
#include "mechanisms/threshold.hpp"
#include "solvers/gpu/fine_block.cuh"
#include "core/gpu/shared_memory_limit.hpp"

namespace arbolito::gpu {

namespace {

// Instances (CVs in the assembly) a thread loads before their arithmetic in the
// assembly, the currents and the point mechanisms' advance: what a block keeps in device
// memory (busyring's expsyn, the assembly's terms) then costs one
// latency per eight of a thread's items, not per one or four (core/strided_batches.hpp).
// Mechanisms with more than four columns take one at a time (registers).
constexpr int resident_batch = 8;
template <class M>
constexpr int mech_batch = n_params<M> + n_states<M> + n_derived<M> <= 4 ? resident_batch : 1;

// Where each mechanism's Globals sits in MechGlobals (8-byte aligned, list order).
template <class... Ms>
constexpr std::array<int, sizeof...(Ms) + 1> globals_offsets_of(mech_list<Ms...>) {
    std::array<int, sizeof...(Ms) + 1> o{};
    const int size[] = {static_cast<int>((sizeof(typename Ms::Globals) + 7) / 8 * 8)...};
    for (std::size_t i = 0; i < sizeof...(Ms); ++i) o[i + 1] = o[i] + size[i];
    return o;
}
constexpr auto globals_offsets = globals_offsets_of(all_mechanisms{});
static_assert(globals_offsets[n_mechanisms] <= static_cast<int>(sizeof(MechGlobals::bytes)));
template <class M>
constexpr int globals_offset = globals_offsets[mech_index<M>];

template <class M>
__device__ __forceinline__ const typename M::Globals& globals_of(const MechGlobals& g) {
    return *reinterpret_cast<const typename M::Globals*>(g.bytes + globals_offset<M>);
}

struct Args {
    ResidentState st;
    BlockEvents ev;
    const ResidentBlock* blocks;
    const FineSchedule::Block* fine_blocks;
    const FineSchedule::Level* levels;
    const int *pos_base, *length, *parent_cv, *child_begin, *child, *distal_cv, *up_run, *junction_kids, *run_order;
    double* fold;   // the blocks' solve scratch in device memory (Block::fold0)
    double* edd_h;  // EDD's h in device memory, per CV
    const int *probe_col, *probe_cv;
    const ResidentProbeSource* probe_source;  // null: every column records v
    const int* nernst_range;                  // ResidentPlan::nernst_range
    const int* launch_order;                  // CUDA block i runs block launch_order[i] (LaunchOrder)
    long long* block_cycles;                  // null, or each block's clock cycles in this run, by block
    bool defer_density;  // density mechanisms without ions advance at the next step's start (BlockStep::states)
    long b, e;
    long frame0;           // the piece's first frame: step n samples into row frame_after(n) - frame0
    StepSettings steps;    // dt, the sampling, the event rules
    MechGlobals g;
};

// A per-CV array of the block: staged in shared memory, or the group's in device memory.
template <class T>
__device__ __forceinline__ T* block_array(const ResidentBlock& rb, int a, char* base, T* global) {
    return rb.offset[a] >= 0 ? reinterpret_cast<T*>(base + rb.offset[a]) : global;
}

// Mechanism M's instances of the block as columns: staged (stride: the block's count; see
// resident_array_bytes for the order), or the group's columns from the block's first
// instance on. Loads the staged copy with every thread.
template <class M>
__device__ __forceinline__ MechColumns block_mech(const ResidentBlock& rb, char* base, const MechColumns& g) {
    constexpr int x = mech_index<M>;
    const int n = rb.inst_n[x], i0 = rb.inst_begin[x];
    if (rb.offset[res_mech0 + x] < 0 || n == 0) {
        const bool w = M::kind == MechKind::density;
        return {g.n, g.cv + i0, w ? g.weight + i0 : nullptr, g.p + i0, g.s + i0, g.c + i0, g.k ? g.k + i0 : nullptr};
    }
    auto* at = reinterpret_cast<double*>(base + rb.offset[res_mech0 + x]);
    MechColumns m;
    m.n = n;
    double* weight = M::kind == MechKind::density ? at : nullptr;
    double* p = at + (M::kind == MechKind::density ? n : 0);
    double* s = p + static_cast<long>(n_params<M>) * n;
    double* c = s + static_cast<long>(n_states<M>) * n;
    int* cv = reinterpret_cast<int*>(c + static_cast<long>(n_derived<M>) * n);
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        cv[k] = g.cv[i0 + k];
        if (weight) weight[k] = g.weight[i0 + k];
        for (int j = 0; j < n_params<M>; ++j) p[j * n + k] = g.p[static_cast<long>(j) * g.n + i0 + k];
        for (int j = 0; j < n_states<M>; ++j) s[j * n + k] = g.s[static_cast<long>(j) * g.n + i0 + k];
        for (int j = 0; j < n_derived<M>; ++j) c[j * n + k] = g.c[static_cast<long>(j) * g.n + i0 + k];
    }
    m.cv = cv;
    m.weight = weight;
    m.p = p;
    m.s = s;
    m.c = c;
    m.k = nullptr;  // advance computes the step constants of a staged copy (the same bits)
    return m;
}

template <class M>
__device__ __forceinline__ void store_mech(const ResidentBlock& rb, const MechColumns& m, const MechColumns& g) {
    constexpr int x = mech_index<M>;
    const int n = rb.inst_n[x], i0 = rb.inst_begin[x];
    if (rb.offset[res_mech0 + x] < 0 || n == 0) return;
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        for (int j = 0; j < n_states<M>; ++j) g.s[static_cast<long>(j) * g.n + i0 + k] = m.s[j * n + k];
}

// The first resident_ion_species ion species' per-CV arrays of the block, by block-local CV:
// field f (ResidentIonField) of species q at block_ions[q][f], staged or the group's from
// the block's first CV (set at the kernel's start).
__shared__ double* block_ions[resident_ion_species][res_ion_fields];

// Field f of a species' arrays.
__device__ __forceinline__ double* ion_field(const IonArrays& a, int f) {
    return f == res_ion_e ? a.e : f == res_ion_xi ? a.xi : f == res_ion_xo ? a.xo : a.i;
}

// Species q's arrays for the block (block-local CVs).
__device__ __forceinline__ IonArrays ion_arrays(const Args& a, int q, int first) {
    if (q < resident_ion_species) {
        double* const* b = block_ions[q];
        return {b[res_ion_e], b[res_ion_xi], b[res_ion_xo], b[res_ion_i]};
    }
    const IonArrays& g = a.st.ions[q].a;
    return {g.e + first, g.xi + first, g.xo + first, g.i + first};
}

// M's ion slots for the block (mechanisms/instance_ions.hpp), by block-local CV.
template <class M>
__device__ __forceinline__ MechIons<M> block_mech_ions(const Args& a, int first) {
    MechIons<M> io;
    constexpr int off = ion_slot_offsets[mech_index<M>];
    for (int j = 0; j < n_ions<M>; ++j) io.slot[j] = ion_arrays(a, a.st.mech_ion_species[off + j], first);
    io.cv_weight = a.st.ion_cv_weight + first;
    return io;
}

// M's currents into D and R (block-local CVs), with the streaming kernel's per-instance
// functions, mech_batch<M> instances' loads at a time: density instances as
// add_density_currents adds them, point instances sharing a CV summed in instance order by
// the first one's thread (the same sums as one instance at a time). Mechanisms with ions:
// the streaming kernels' add_density_current_with_ions and point_terms_with_ions on the
// block's ion arrays.
template <class M>
__device__ __forceinline__ void add_currents(const Args& a, const MechColumns& m, int n, int first, double t_mid,
                                             const double* V, double* D, double* R) {
    const auto& gl = globals_of<M>(a.g);
    if constexpr (n_ions<M> > 0 && M::kind == MechKind::density) {
        const MechIons<M> io = block_mech_ions<M>(a, first);
        for (int k = threadIdx.x; k < n; k += blockDim.x)
            add_density_current_with_ions<M>(m, k, m.cv[k] - first, io, gl, t_mid, V, D, R);
    } else if constexpr (n_ions<M> > 0) {  // point: d, rhs and the written ion currents, as below
        constexpr int N = 2 + n_written_ion_currents<M>();
        const MechIons<M> io = block_mech_ions<M>(a, first);
        for (int k = threadIdx.x; k < n; k += blockDim.x) {
            const int cv = m.cv[k], c = cv - first;
            if (k > 0 && m.cv[k - 1] == cv) continue;
            double x[N];
            point_terms_with_ions<M>(m, k, c, io, V[c], t_mid, gl, x);
            for (int j = k + 1; j < n && m.cv[j] == cv; ++j) {
                double y[N];
                point_terms_with_ions<M>(m, j, c, io, V[c], t_mid, gl, y);
                for (int q = 0; q < N; ++q) x[q] += y[q];
            }
            D[c] += x[0];
            R[c] += x[1];
            for_each_ion_slot<M>([&](auto slot) {
                constexpr int j = decltype(slot)::value;
                if constexpr ((M::ions[j].flags & ion_write_i) != 0) io.slot[j].i[c] += x[2 + written_ion_current_index<M>(j)];
            });
        }
    } else if constexpr (M::kind == MechKind::density) {
        add_density_currents<M, mech_batch<M>>(threadIdx.x, blockDim.x, m, n, first, gl, t_mid, V, D, R);
    } else {
        struct In {
            Instance<M> in;
            double v;
            int cv, prev, next;  // next: the following instance's CV, loaded with the batch
        };
        for_strided_in_batches<mech_batch<M>>(
            threadIdx.x, blockDim.x, n,
            [&](int k) {
                In x;
                x.cv = m.cv[k];
                x.prev = k > 0 ? m.cv[k - 1] : -1;
                x.next = k + 1 < n ? m.cv[k + 1] : -1;
                x.in = Instance<M>(m, k);
                x.v = V[x.cv - first];
                return x;
            },
            [&](int k, const In& x) {
                if (x.prev == x.cv) return;  // not the first instance on its CV
                const int c = x.cv - first;
                double dd, dr;
                instance_terms_at<M>(x.in, 1.0, x.v, t_mid, gl, dd, dr);
                if (x.next == x.cv)  // others on its CV (the loop's first test without a load)
                    for (int j = k + 1; j < n && m.cv[j] == x.cv; ++j) {
                        double jd, jr;
                        point_terms<M>(m, j, x.v, t_mid, gl, jd, jr);
                        dd += jd;
                        dr += jr;
                    }
                D[c] += dd;
                R[c] += dr;
            });
    }
}

// Where M's states advance independently (hh's gates), state j of instance k goes to
// thread (32·j + k) mod the block's size: a block's few instances (hh at the soma) advance
// their states on different warps side by side, each with advance's arithmetic for it.
// A mechanism with ions: the streaming kernel's advance_with_ions on the block's ion arrays.
// On threads t of nt (the block's, or those beside the junctions' tree).
template <class M>
__device__ __forceinline__ void advance_states(const Args& a, const MechColumns& m, int n, int first, double dt,
                                               const double* V, int t, int nt) {
    const MechGlobals& g = a.g;
    if constexpr (n_ions<M> > 0) {
        const MechIons<M> io = block_mech_ions<M>(a, first);
        for (int k = t; k < n; k += nt) advance_with_ions<M>(m, k, m.cv[k] - first, io, globals_of<M>(g), dt, V);
    } else if constexpr (M::independent_states > 1) {
#pragma unroll
        for (int j = 0; j < M::independent_states; ++j)  // unrolled: state j a constant (no local memory)
            for (int k = ((t - 32 * j) % nt + nt) % nt; k < n; k += nt) {
                Instance<M> in(m, k);
                M::advance_state(j, V[m.cv[k] - first], dt, globals_of<M>(g), in.p.v, in.s.v, in.c.v);
                m.s[static_cast<long>(j) * m.n + k] = in.s.v[j];
            }
    } else if constexpr (n_states<M> > 0) {
        struct In {
            Instance<M> in;
            InstanceStepConstants<M> sk;
            double v;
        };
        for_strided_in_batches<mech_batch<M>>(
            t, nt, n,
            [&](int k) {
                In x;
                x.in = Instance<M>(m, k);
                x.sk = InstanceStepConstants<M>(m, k);
                x.v = V[m.cv[k] - first];
                return x;
            },
            [&](int k, const In& x) {
                Instance<M> in = x.in;
                advance_instance<M>(m, x.sk, in, x.v, dt, globals_of<M>(g));
                in.store_states(m, k);
            });
    }
}
template <class M>
__device__ __forceinline__ void advance_states(const Args& a, const MechColumns& m, int n, int first, double dt,
                                               const double* V) {
    advance_states<M>(a, m, n, first, dt, V, threadIdx.x, blockDim.x);
}

// A point mechanism without ions whose advance reads no v (a synapse's decay): in an EDD
// block it advances on the threads beside the junctions' tree (BlockStep::solve), which
// otherwise wait at its barrier; nothing reads its states between the currents and the
// step's end but its advance.
template <class M>
constexpr bool advances_beside_tree() {
    return M::kind != MechKind::density && n_ions<M> == 0 && n_states<M> > 0 && !M::advance_reads_v;
}

// The mechanisms, in list order (the order of the additions to D and R).
template <class... Ms>
struct ForMechs {
    template <class F>
    __device__ __forceinline__ static void run(F&& f) {
        (f(MechTag<Ms>{}), ...);
    }
};
template <class... Ms>
ForMechs<Ms...> for_mechs_of(mech_list<Ms...>);
using for_mechs = decltype(for_mechs_of(all_mechanisms{}));

// Mechanisms a block of an Extended group computes side by side: a density mechanism with
// at most a warp's instances in the block (the channels at the somata). Each is given its
// own lanes of one warp, the mechanisms spread over the block's warps
// (side_by_side_lanes), so that their exp-heavy rates and kinetic schemes run at once
// instead of one mechanism per barrier. Their currents' sums still reach d, rhs and the
// ions in list order (the same bits); one whose currents read its ions' currents (which
// the others are adding to) computes them in list order instead.
template <class M>
constexpr bool side_by_side_mech() {
    return M::kind == MechKind::density && !M::constant_terms;
}
// A side-by-side density mechanism without ions whose states advance as one (not hh's
// gates, each on a warp of its own): it advances in the states phase on its lanes beside
// the channels with ions, not at the next step's start on the threads of the events and
// the assembly (Ih at the somata: its chain held the block's first warp there).
template <class M>
constexpr bool side_by_side_advance() {
    return side_by_side_mech<M>() && n_ions<M> == 0 && n_states<M> > 0 && M::independent_states <= 1;
}
template <class M>
constexpr bool side_by_side_currents() {
    for (int j = 0; j < n_ions<M>; ++j)
        if ((M::ions[j].flags & ion_read_i) != 0) return false;
    return side_by_side_mech<M>();
}
// Whether M's state update reads or writes an ion concentration (the states phase keeps
// NEURON's order between a mechanism writing one and another reading or writing one).
template <class M>
constexpr bool reads_concentration() {
    for (int j = 0; j < n_ions<M>; ++j)
        if ((M::ions[j].flags & (ion_read_xi | ion_read_xo)) != 0) return true;
    return false;
}
template <class M>
constexpr bool writes_concentration() {
    for (int j = 0; j < n_ions<M>; ++j)
        if ((M::ions[j].flags & (ion_write_xi | ion_write_xo)) != 0) return true;
    return false;
}
template <class... Ms>
constexpr int max_ions_of(mech_list<Ms...>) {
    int n = 0;
    ((n = n_ions<Ms> > n ? n_ions<Ms> : n), ...);
    return n;
}
constexpr int max_ions = max_ions_of(all_mechanisms{});

// Thread 0: the first thread of each side-by-side mechanism's instances in the block (its
// instance k on thread first + k), or -1. Round robin over the warps, each mechanism on
// lanes of one warp.
__device__ void side_by_side_lanes(const ResidentBlock& rb, int threads, short* lane0) {
    constexpr int max_warps = 8;
    int used[max_warps] = {}, next = 0;
    const int warps = threads / 32 < max_warps ? threads / 32 : max_warps;
    for_mechs::run([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int m = mech_index<M>;
        lane0[m] = -1;
        if constexpr (side_by_side_mech<M>()) {
            const int n = rb.inst_n[m];
            if (n == 0 || n > 32) return;
            for (int j = 0; j < warps; ++j) {
                const int w = (next + j) % warps;
                if (used[w] + n <= 32) {
                    lane0[m] = static_cast<short>(32 * w + used[w]);
                    used[w] += n;
                    next = w + 1;
                    return;
                }
            }
        }
    });
}

// The block's per-CV arrays for its steps: V and R trade places after each solve, or,
// with CopyV (V in device memory, R staged), the new V is copied out to V every step.
struct StepArrays {
    double *V, *R, *D;
    const double *U, *DB, *CDT, *RB;  // d_base, cap_dt, rhs_base
    double *F, *H;                    // the solve's scratch (FineSchedule::fold_doubles), EDD's h
};

// Step `step` of the block, phase by phase; run_step calls them in order. A barrier ends
// each phase whose writes the next reads. Extended: the group has ions or probes that
// record other than v; the kernel instance without (Extended false) has none of their
// code on its path (ResidentEpoch picks the instance).
template <int Ahead, bool CopyV, bool Extended, class Clock, class AfterLevel>
struct BlockStep {
    const Args& a;
    const ResidentBlock& rb;
    const MechColumns* loc;
    const FineBlockSchedule& sched;
    const int blk;  // the schedule's block this CUDA block runs
    StepArrays x;  // V and R trade places after each solve (unless CopyV)
    const int first, n;
    Clock& clock;
    AfterLevel after_level;
    const unsigned* eo;  // the block's event offsets by step, or null: no events
    const bool tracing;  // this thread records the phases (enter)
    const short* lane0;  // side_by_side_lanes (Extended groups)
    int my_mech = -1, my_k = 0;  // the side-by-side instance this thread computes, if any
    MechClock mclock;            // its cycles (profile builds)
    double held[2 + max_ions];   // its terms (density_terms_with_ions) until its turn in list order
    long step = 0;
    double t0 = 0, t_mid = 0;
    double *Vold = nullptr, *Vnew = nullptr;  // the step's start and end voltages, from its solve on

    // Where a test asked (CellGroup::trace_phases), thread 0 of block 0 records the phases
    // after their count.
    __device__ __forceinline__ void enter(Phase p) {
        if (tracing) {
            unsigned* trace = a.st.phase_trace;
            const unsigned k = trace[0]++;
            trace[1 + k] = static_cast<unsigned>(p);
        }
    }

    // Column k's value where it may record other than v (ResidentProbeSource).
    __device__ __forceinline__ double probe_value(const ResidentProbeSource& p, int c, int k) const {
        switch (p.kind) {
            case ProbeVariable::mech_current: return a.st.probe_current[a.probe_col[k]];  // set before the step
            case ProbeVariable::mech_state: {
                const MechColumns& m = loc[p.index];
                return m.s[static_cast<long>(p.state) * m.n + p.instance];
            }
            case ProbeVariable::ion_e: return ion_arrays(a, p.index, first).e[c];
            case ProbeVariable::ion_xi: return ion_arrays(a, p.index, first).xi[c];
            case ProbeVariable::ion_xo: return ion_arrays(a, p.index, first).xo[c];
            case ProbeVariable::ion_i: return ion_arrays(a, p.index, first).i[c];
            default: return Vnew[c];
        }
    }

    // The first event of each target applies the target's run.
    __device__ __forceinline__ void events() {
        if (eo) {
            const long s = step - a.ev.step_begin;
            const unsigned e0 = eo[s], e1 = eo[s + 1];
            if (e0 < e1) {
                for (unsigned i = e0 + threadIdx.x; i < e1; i += blockDim.x) {
                    const std::uint64_t k = a.ev.key[i];
                    if (i > e0 && a.ev.key[i - 1] == k) continue;
                    const auto target = static_cast<std::uint32_t>(k & a.ev.target_mask);
                    const int m = a.st.target_mech[target];
                    const int inst = a.st.target_instance[target] - rb.inst_begin[m];
                    apply_run_any(all_mechanisms{}, m, loc, inst, i, e1, a.ev.key, k, a.ev.weight);
                }
                __syncthreads();
            }
        }
        clock.lap(prof_events);
    }

    // Each ion's current to 0 on the block's CVs, e by Nernst on its CVs that need it (the
    // streaming step's memset and nernst_kernel). The assembly's barrier ends the phase.
    __device__ __forceinline__ void ions_begin() {
        if constexpr (Extended) {
            const int nq = a.st.n_ions;
            for (int q = 0; q < nq; ++q) {
                const IonArrays io = ion_arrays(a, q, first);
                for (int i = threadIdx.x; i < n; i += blockDim.x) io.i[i] = 0.0;
                const ResidentIon& sp = a.st.ions[q];
                const int r = 2 * (blk * nq + q);
                for (int j = a.nernst_range[r] + static_cast<int>(threadIdx.x); j < a.nernst_range[r + 1];
                     j += blockDim.x) {
                    const int c = sp.nernst_cv[j] - first;
                    io.e[c] = nernst(io.xi[c], io.xo[c], sp.valence, a.steps.celsius);
                }
            }
        }
    }

    __device__ __forceinline__ void assemble() {
        assemble_strided<resident_batch>(threadIdx.x, blockDim.x, n, x.DB, x.CDT, x.RB, x.V, x.D, x.R);
        __syncthreads();
        clock.lap(prof_assemble);
    }

    // The thread's side-by-side instance, if any (once per kernel).
    __device__ __forceinline__ void find_side_by_side() {
        if constexpr (Extended) {
            const int t = threadIdx.x;
            for_mechs::run([&](auto tag) {
                constexpr int m = mech_index<typename decltype(tag)::type>;
                if (lane0[m] >= 0 && t >= lane0[m] && t < lane0[m] + rb.inst_n[m]) my_mech = m, my_k = t - lane0[m];
            });
        }
    }

    __device__ __forceinline__ void currents() {
        if constexpr (Extended) {  // the side-by-side mechanisms' terms, at once
            for_mechs::run([&](auto tag) {
                using M = typename decltype(tag)::type;
                constexpr int m = mech_index<M>;
                if constexpr (side_by_side_currents<M>())
                    if (my_mech == m) {
                        const long long c0 = mclock.start();
                        const MechColumns& mc = loc[m];
                        const int c = mc.cv[my_k] - first;
                        if constexpr (n_ions<M> > 0) {
                            density_terms_with_ions<M>(mc, my_k, c, block_mech_ions<M>(a, first), globals_of<M>(a.g),
                                                       t_mid, x.V, held);
                        } else {
                            const Instance<M> in(mc, my_k);
                            instance_terms_at<M>(in, mc.weight[my_k], x.V[c], t_mid, globals_of<M>(a.g), held[0],
                                                 held[1]);
                        }
                        mclock.add(0, c0);
                    }
            });
            clock.lap(prof_side);
        }
        for_mechs::run([&](auto tag) {  // every mechanism's sums in list order
            using M = typename decltype(tag)::type;
            constexpr int m = mech_index<M>;
            // A group without ions has no instance of one; constant terms are the assembly's.
            if constexpr (!M::constant_terms && (n_ions<M> == 0 || Extended)) {
                if (rb.inst_n[m] == 0) return;
                if constexpr (Extended && side_by_side_currents<M>()) {
                    if (lane0[m] >= 0) {
                        if (my_mech == m) {
                            const int c = loc[m].cv[my_k] - first;
                            if constexpr (n_ions<M> > 0) {
                                add_density_terms_with_ions<M>(c, block_mech_ions<M>(a, first), held, x.D, x.R);
                            } else {
                                x.D[c] += held[0];
                                x.R[c] += held[1];
                            }
                        }
                        __syncthreads();
                        return;
                    }
                }
                add_currents<M>(a, loc[m], rb.inst_n[m], first, t_mid, x.V, x.D, x.R);
                __syncthreads();
            }
        });
        clock.lap(prof_currents);
    }

    // The solution in R is the new V; the old one stays for the detectors.
    __device__ __forceinline__ void solve() {
        const auto beside_tree = [&](int t, int nt) {
            for_mechs::run([&](auto tag) {
                using M = typename decltype(tag)::type;
                if constexpr (advances_beside_tree<M>()) {
                    constexpr int m = mech_index<M>;
                    advance_states<M>(a, loc[m], rb.inst_n[m], first, a.steps.dt, x.V, t, nt);
                }
            });
        };
        solve_block_schedule<Ahead>(sched, x.D, x.U, x.R, x.F, x.H, after_level, beside_tree);  // ends with a barrier
        clock.lap(prof_solve);
        Vold = x.V, Vnew = x.R;
        if constexpr (!CopyV) x.V = Vnew, x.R = Vold;
    }

    // Point mechanisms (which take events) advance here; density mechanisms without ions
    // (hh) in states_deferred, at the start of the next step: no event and nothing of the
    // step's end reads their states, so their threads (thread 0 for the soma's hh m gate, a
    // long chain of divisions and exponentials) overlap the next step's events and assembly
    // instead of holding every thread at the barrier. Their currents, after the
    // assembly's barrier, see them advanced. Where a probe records a state
    // (a.defer_density false) they advance here too. Mechanisms with ions advance here,
    // in list order with a barrier after each: a later one reads the concentrations an
    // earlier one wrote on the same CV (NEURON's order, the streaming step's kernels').
    // A side-by-side density mechanism without ions (side_by_side_advance) advances here
    // on its lanes instead. The side-by-side mechanisms with ions advance at once on their own lanes, with a
    // barrier only between one that writes a concentration and a later one that reads or
    // writes one (or one that writes after one that reads), so that each reads what it read
    // in list order.
    __device__ __forceinline__ void states() {
        bool reads = false, writes = false;  // concentrations touched since the last barrier
        for_mechs::run([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int m = mech_index<M>;
            if constexpr (n_ions<M> > 0) {
                if constexpr (Extended && n_states<M> > 0) {  // the streaming step launches nothing for one without
                    if (rb.inst_n[m] == 0) return;
                    constexpr bool r = reads_concentration<M>(), w = writes_concentration<M>();
                    if constexpr (side_by_side_mech<M>()) {
                        if (lane0[m] >= 0) {
                            if ((writes && (r || w)) || (reads && w)) {
                                __syncthreads();
                                reads = writes = false;
                            }
                            if (my_mech == m) {
                                const long long c0 = mclock.start();
                                const MechColumns& mc = loc[m];
                                advance_with_ions<M>(mc, my_k, mc.cv[my_k] - first, block_mech_ions<M>(a, first),
                                                     globals_of<M>(a.g), a.steps.dt, Vnew);
                                mclock.add(1, c0);
                            }
                            reads = reads || r;
                            writes = writes || w;
                            return;
                        }
                    }
                    if (reads || writes) {
                        __syncthreads();
                        reads = writes = false;
                    }
                    advance_states<M>(a, loc[m], rb.inst_n[m], first, a.steps.dt, Vnew);
                    __syncthreads();
                }
            } else if constexpr (M::kind != MechKind::density) {
                if constexpr (Ahead == edd_solve && advances_beside_tree<M>()) return;  // advanced beside the tree
                advance_states<M>(a, loc[m], rb.inst_n[m], first, a.steps.dt, Vnew);
            } else if constexpr (Extended) {
                if constexpr (side_by_side_advance<M>()) {
                    if (lane0[m] >= 0) {  // what states_deferred would compute at the next step's start: the same V
                        if (my_mech == m) {
                            const long long c0 = mclock.start();
                            const MechColumns& mc = loc[m];
                            Instance<M> in(mc, my_k);
                            M::advance(Vnew[mc.cv[my_k] - first], a.steps.dt, globals_of<M>(a.g), in.p.v, in.s.v,
                                       in.c.v);
                            in.store_states(mc, my_k);
                            mclock.add(1, c0);
                        }
                        return;
                    }
                }
                if (!a.defer_density) advance_states<M>(a, loc[m], rb.inst_n[m], first, a.steps.dt, Vnew);
            }
        });
        if constexpr (Extended)
            if (reads || writes) __syncthreads();  // the states and concentrations complete, as before
        clock.lap(prof_advance);
    }
    // The density mechanisms' (without ions) part of the last step's states, at its new V (x.V).
    __device__ __forceinline__ void states_deferred() {
        if constexpr (Extended)
            if (!a.defer_density) return;
        for_mechs::run([&](auto tag) {
            using M = typename decltype(tag)::type;
            constexpr int m = mech_index<M>;
            if constexpr (M::kind == MechKind::density && n_ions<M> == 0) {
                if constexpr (Extended && side_by_side_advance<M>())
                    if (lane0[m] >= 0) return;  // advanced in the states phase
                advance_states<M>(a, loc[m], rb.inst_n[m], first, a.steps.dt, x.V);
            }
        });
        clock.lap(prof_deferred);
    }

    // The written concentrations reached the ions in the states phase (advance_with_ions,
    // each mechanism's after its own advance, as in the streaming step): nothing left here.
    __device__ __forceinline__ void ions_end() {}

    __device__ __forceinline__ void detect() {
        const double dt = a.steps.dt;
        const bool at_step_end = a.steps.rules == EventRules::neuron;
        for (int j = threadIdx.x; j < rb.det_n; j += blockDim.x) {
            const int k = rb.det_begin + j, c = a.st.det_cv[k] - first;
            const double v0 = Vold[c], v1 = Vnew[c], th = a.st.det_threshold[k];
            if (threshold::crossed(v0, v1, th)) {
                const unsigned slot = atomicAdd(a.st.spike_count, 1u);  // order-free: the host sorts spikes
                if (slot < a.st.spike_capacity)
                    a.st.spikes[slot] = {threshold::crossing_time(t0, dt, v0, v1, th, at_step_end),
                                         static_cast<std::uint32_t>(k)};
            }
        }
    }

    // Columns recording other than v read the block's states and ion arrays once the
    // states phase's writes are done (a barrier).
    // With CopyV the new V is copied out to V once the detectors have read the old one.
    __device__ __forceinline__ void sample() {
        if (const long frame = a.steps.frame_after(step); frame >= 0) {
            if constexpr (Extended)
                if (a.probe_source) __syncthreads();
            for (int j = threadIdx.x; j < rb.probe_n; j += blockDim.x) {
                const int k = rb.probe_begin + j, c = a.probe_cv[k];
                double value = Vnew[c];
                if constexpr (Extended)
                    if (a.probe_source) value = probe_value(a.probe_source[k], c, k);
                a.st.frames[(frame - a.frame0) * a.st.n_columns + a.probe_col[k]] = value;
            }
        }
        if constexpr (CopyV) {
            __syncthreads();  // the detectors have read the old V
            for (int i = threadIdx.x; i < n; i += blockDim.x) x.V[i] = x.R[i];
        }
        __syncthreads();
        clock.lap(prof_states);
    }
};

// Steps [a.b, a.e) of the block; returns where the final V lies. Inlined three times by
// the kernel, so that where the solve's arrays are staged the compiler sees shared memory
// (32-bit shared loads and stores) instead of generic pointers chosen at run time.
template <int Ahead, bool CopyV, bool Extended, class Clock, class AfterLevel>
__device__ __forceinline__ double* run_steps(const Args& a, const ResidentBlock& rb, const MechColumns* loc,
                                             const FineBlockSchedule& sched, int blk, StepArrays x, int first,
                                             int n, Clock& clock, AfterLevel after_level, const short* lane0) {
    const unsigned* eo = a.ev.offset ? a.ev.offset + static_cast<long>(blk) * (a.ev.n_steps + 1) : nullptr;
    const bool tracing = a.st.phase_trace && blk == 0 && threadIdx.x == 0;
    BlockStep<Ahead, CopyV, Extended, Clock, AfterLevel> s{a, rb, loc, sched, blk, x, first, n, clock, after_level, eo,
                                                          tracing, lane0};
    s.find_side_by_side();
    for (long step = a.b; step < a.e; ++step) {
        if (step > a.b) s.states_deferred();  // the last step's
        s.step = step;
        // Rounded as the host rounds them for the streaming kernels (no fused multiply-add
        // into what follows): the same spike times and stimulus onsets to the bit.
        s.t0 = __dmul_rn(static_cast<double>(step), a.steps.dt);
        s.t_mid = __dadd_rn(s.t0, 0.5 * a.steps.dt);
        run_step(s);
    }
    s.states_deferred();  // the last step's
    __syncthreads();      // before the states are written back
    s.mclock.flush(s.my_mech, s.my_k);
    return s.x.V;
}

// Two instances: blocks of at most 128 threads of which shared memory lets at most
// resident_blocks_per_sm (three) share an SM, the default, may have 168 registers a
// thread (MaxThreads 128); any other block 128 (MaxThreads 256: two blocks of 256 or four
// of 128 threads per SM). Each with and without the Extended parts (BlockStep).
template <int Ahead, int MaxThreads, bool Extended>
__global__ void __launch_bounds__(MaxThreads, MaxThreads <= 128 ? resident_blocks_per_sm : 2)
    resident_kernel(const Args a) {
    extern __shared__ double sm[];
    __shared__ MechColumns loc[n_mechanisms];
    __shared__ ResidentBlock rb;
    __shared__ short lane0[n_mechanisms];
    const long long clock0 = clock64();
    const int blk = a.launch_order[blockIdx.x];
    const FineSchedule::Block B = a.fine_blocks[blk];
    const int t = threadIdx.x, nt = blockDim.x, n = B.n_cv, first = B.first_cv;
    if (t == 0) rb = a.blocks[blk];
    __syncthreads();
    if (t == 0) {
        if constexpr (Extended) {
            side_by_side_lanes(rb, nt, lane0);
        } else {
            for (int m = 0; m < n_mechanisms; ++m) lane0[m] = -1;
        }
    }
    char* base = reinterpret_cast<char*>(sm);

    // Stage the voltages and the constant per-CV arrays that the plan put in shared memory.
    auto staged = [&](int arr, auto* global) {
        if (rb.offset[arr] >= 0) {
            auto* to = reinterpret_cast<double*>(base + rb.offset[arr]);
            for (int i = t; i < n; i += nt) to[i] = global[first + i];
        }
        return block_array(rb, arr, base, global + first);
    };
    StepArrays x;
    x.V = staged(res_v, a.st.v);
    x.R = block_array(rb, res_rhs, base, a.st.rhs + first);
    x.D = block_array(rb, res_d, base, a.st.d + first);
    x.U = staged(res_u, a.st.u);
    x.DB = staged(res_d_base, a.st.d_base);
    x.CDT = staged(res_cap_dt, a.st.cap_dt);
    x.RB = staged(res_rhs_base, a.st.rhs_base);
    x.F = block_array(rb, res_fold, base, a.fold + B.fold0);
    x.H = block_array(rb, res_edd_h, base, a.edd_h ? a.edd_h + first : nullptr);
    const FineBlockSchedule sched =
        load_fine_schedule(B, reinterpret_cast<int*>(base + rb.data_bytes), a.levels, a.pos_base, a.length,
                           a.parent_cv, a.child_begin, a.child, a.distal_cv, a.up_run, a.junction_kids,
                           a.run_order);
    for_mechs::run([&](auto tag) {
        using M = typename decltype(tag)::type;
        const MechColumns m = block_mech<M>(rb, base, a.st.mechs[mech_index<M>]);
        if (t == 0) loc[mech_index<M>] = m;
    });
    // The ions' arrays: staged where the plan put them, else the group's.
    const int staged_ions = !Extended ? 0 : a.st.n_ions < resident_ion_species ? a.st.n_ions : resident_ion_species;
    for (int q = 0; q < staged_ions; ++q)
        for (int f = 0; f < res_ion_fields; ++f) {
            double* g = ion_field(a.st.ions[q].a, f) + first;
            double* to = g;
            if (const int o = rb.offset[res_ion0 + res_ion_fields * q + f]; o >= 0) {
                to = reinterpret_cast<double*>(base + o);
                for (int i = t; i < n; i += nt) to[i] = g[i];
            }
            if (t == 0) block_ions[q][f] = to;
        }
    __syncthreads();

    // Where rhs, d, u and the folds are all staged (the plan offers them shared memory
    // first), the step runs on pointers the compiler knows to be shared.
    ARBOLITO_PROFILE_LEVELS
    auto in_shared = [&](int arr) { return reinterpret_cast<double*>(base + rb.offset[arr]); };
    // EDD's h too, where the schedule has any (its runs' row loops store and load it).
    const bool chain_staged = rb.offset[res_rhs] >= 0 && rb.offset[res_d] >= 0 && rb.offset[res_u] >= 0 &&
                              rb.offset[res_fold] >= 0 && (rb.offset[res_edd_h] >= 0 || B.h_cvs == 0);
    double* V;
    if (chain_staged) {
        StepArrays y = x;
        y.R = in_shared(res_rhs);
        y.D = in_shared(res_d);
        y.U = in_shared(res_u);
        y.F = in_shared(res_fold);
        y.H = in_shared(rb.offset[res_edd_h] >= 0 ? res_edd_h : res_rhs);  // rhs: a pointer never read (no h)
        if (rb.offset[res_v] >= 0) {
            y.V = in_shared(res_v);
            V = run_steps<Ahead, false, Extended>(a, rb, loc, sched, blk, y, first, n, clock, after_level, lane0);
        } else {
            V = run_steps<Ahead, true, Extended>(a, rb, loc, sched, blk, y, first, n, clock, after_level, lane0);  // v: the group's
        }
    } else {
        V = run_steps<Ahead, false, Extended>(a, rb, loc, sched, blk, x, first, n, clock, after_level, lane0);
    }
    if (t == 0) clock.flush();

    // Write back: the final voltage to the group's v, and the staged states.
    if (V != a.st.v + first)
        for (int i = t; i < n; i += nt) a.st.v[first + i] = V[i];
    for_mechs::run([&](auto tag) {
        using M = typename decltype(tag)::type;
        store_mech<M>(rb, loc[mech_index<M>], a.st.mechs[mech_index<M>]);
    });
    for (int q = 0; q < staged_ions; ++q)
        for (int f = 0; f < res_ion_fields; ++f)
            if (rb.offset[res_ion0 + res_ion_fields * q + f] >= 0) {
                double* g = ion_field(a.st.ions[q].a, f) + first;
                const double* from = block_ions[q][f];
                for (int i = t; i < n; i += nt) g[i] = from[i];
            }
    if (t == 0 && a.block_cycles) a.block_cycles[blk] = clock64() - clock0;  // one SM's clock: a difference only
}

// The current device's shared memory per SM, and what a block takes of it beside its
// dynamic bytes (the reserve and the kernel's static shared memory).
struct SharedPerSm {
    long per_sm, per_block;
    long blocks(long dynamic_bytes) const { return per_sm / (dynamic_bytes + per_block); }  // blocks an SM holds
    long dynamic_for(long blocks) const { return per_sm / blocks - per_block; }            // the most that many hold
};
// The larger static shared memory of the instances with and without the Extended parts.
SharedPerSm shared_per_sm() {
    const DeviceShape d = device_shape();
    long static_bytes = 0;
    for (auto* k : {resident_kernel<4, 128, false>, resident_kernel<4, 128, true>, resident_kernel<edd_solve, 128, false>,
                    resident_kernel<edd_solve, 128, true>}) {
        cudaFuncAttributes attr{};
        CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
        static_bytes = std::max(static_bytes, static_cast<long>(attr.sharedSizeBytes));
    }
    return {d.shared_per_sm, d.shared_reserved + static_bytes};
}

// The kernel instance a group runs (ResidentEpoch's extended_, wide_registers_, the solve's ahead).
// (ahead edd_solve: an EDD schedule's.)
template <int Ahead>
auto kernel_with(bool extended, bool wide_registers) {
    return extended ? (wide_registers ? resident_kernel<Ahead, 128, true> : resident_kernel<Ahead, 256, true>)
                    : (wide_registers ? resident_kernel<Ahead, 128, false> : resident_kernel<Ahead, 256, false>);
}
auto kernel_for(bool extended, bool wide_registers, int ahead) {
    return ahead == 4   ? kernel_with<4>(extended, wide_registers)
           : ahead == 8 ? kernel_with<8>(extended, wide_registers)
                        : kernel_with<edd_solve>(extended, wide_registers);
}

}  // namespace

int resident_shared_kib_for(int blocks_per_sm) {
    return static_cast<int>(std::max(shared_per_sm().dynamic_for(blocks_per_sm), 1024L) / 1024);
}

ResidentEpoch::ResidentEpoch(const FvmData& f, const FineSchedule& s, const GpuFinePlan& solve, int budget_bytes,
                             int threads, LaunchOrder launch, const all_mechanisms::Globals& globals)
    : plan_(resident_plan(f, s, budget_bytes)),
      solve_(solve),
      // An EDD schedule's runs loop over the block's threads: the option's count (more
      // threads, fewer blocks an SM), not its widest level's.
      threads_(s.edd() ? threads : std::max(threads, solve.threads)),
      launch_(launch) {
    if (threads < 32 || threads > 256 || threads % 32 != 0)
        throw std::invalid_argument("gpu-fine step=resident: threads must be a multiple of 32 in [32, 256]");
    const int optin = device_shape().shared_optin;
    const int static_bytes =
        static_cast<int>(sizeof(MechColumns) * n_mechanisms + sizeof(ResidentBlock) +
                         sizeof(double*) * resident_ion_species * res_ion_fields);  // block_ions
    if (budget_bytes + static_bytes > optin)
        throw std::invalid_argument("gpu-fine step=resident: shared=" + std::to_string(budget_bytes / 1024) +
                                    " KiB per block is more than the device offers (" +
                                    std::to_string((optin - static_bytes) / 1024) + " KiB)");
    if (plan_.shared_bytes + static_bytes > optin)
        throw std::invalid_argument("gpu-fine step=resident: a block needs " +
                                    std::to_string(plan_.shared_bytes + static_bytes) +
                                    " bytes of shared memory, the device offers " + std::to_string(optin) +
                                    " (lower shared=)");
    for (int ahead : {4, 8, edd_solve})
        for (bool extended : {false, true})
            for (bool wide : {false, true})
                raise_dynamic_shared_limit(kernel_for(extended, wide, ahead), std::max(plan_.shared_bytes, 1));
    extended_ = !f.ions.empty() || !plan_.probe_source.empty();
    wide_registers_ = threads_ <= 128 && shared_per_sm().blocks(plan_.shared_bytes) <= resident_blocks_per_sm;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        std::memcpy(globals_.bytes + globals_offsets[x], &std::get<x>(globals), sizeof(typename M::Globals));
    });
    blocks_ = DeviceArray<ResidentBlock>(plan_.blocks);
    probe_col_ = DeviceArray<int>(plan_.probe_col);
    probe_cv_ = DeviceArray<int>(plan_.probe_cv);
    if (!plan_.probe_source.empty()) probe_source_ = DeviceArray<ResidentProbeSource>(plan_.probe_source);
    if (!plan_.nernst_range.empty()) nernst_range_ = DeviceArray<int>(plan_.nernst_range);
    // The blocks the device runs at once: the kernel instance's occupancy on every SM.
    auto kernel = kernel_for(extended_, wide_registers_, solve_.ahead);
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads_, std::max(plan_.shared_bytes, 1)));
    slots_ = per_sm * device_shape().sms;
    launch_order_ = DeviceArray<int>(resident_launch_order(s, launch_ == LaunchOrder::index ? 0 : slots_));
    if (launch_ == LaunchOrder::measured || launch_ == LaunchOrder::longest) {
        block_cycles_ = DeviceArray<long long>(plan_.blocks.size());
        host_cycles_.reserve(plan_.blocks.size());
        total_cycles_.assign(plan_.blocks.size(), 0.0);
        CUDA_CHECK(cudaEventCreateWithFlags(&cycles_ready_, cudaEventDisableTiming));
    }
}

ResidentEpoch::~ResidentEpoch() {
    print_resident_profile<all_mechanisms>();
    if (cycles_ready_) {  // no throw from a destructor; a copy in flight lands before its buffer goes
        if (cycles_pending_) cudaEventSynchronize(cycles_ready_);
        cudaEventDestroy(cycles_ready_);
    }
}

// Where the last copy of the blocks' cycles has arrived, their sums so far order the next
// runs (queued on `stream` before them: the order in use is never overwritten while a
// kernel reads it). Every few runs a new copy is queued behind the kernel.
void ResidentEpoch::reorder_from_cycles(cudaStream_t stream) {
    if (cycles_pending_) {
        const cudaError_t q = cudaEventQuery(cycles_ready_);
        if (q == cudaErrorNotReady) return;
        CUDA_CHECK(q);
        cycles_pending_ = false;
        for (std::size_t b = 0; b < total_cycles_.size(); ++b) total_cycles_[b] += static_cast<double>(host_cycles_[b]);
        const std::vector<int> order = launch_ == LaunchOrder::longest ? costliest_first_order(total_cycles_)
                                                                       : cheapest_last_order(total_cycles_, slots_);
        CUDA_CHECK(cudaMemcpyAsync(launch_order_.data(), order.data(), order.size() * sizeof(int),
                                   cudaMemcpyHostToDevice, stream));  // pageable: staged before the call returns
    }
}

void ResidentEpoch::run(const ResidentState& st, const BlockEvents& ev, long b, long e, long frame0,
                        const StepSettings& s, cudaStream_t stream) {
    if (plan_.blocks.empty() || e <= b) return;
    Args a;
    a.st = st;
    a.ev = ev;
    a.blocks = blocks_.data();
    a.fine_blocks = solve_.blocks.data();
    a.levels = solve_.levels.data();
    a.pos_base = solve_.pos_base.data();
    a.length = solve_.length.data();
    a.parent_cv = solve_.parent_cv.data();
    a.child_begin = solve_.child_begin.data();
    a.child = solve_.child.data();
    a.distal_cv = solve_.distal_cv.data();
    a.up_run = solve_.up_run.data();
    a.junction_kids = solve_.junction_kids.data();
    a.run_order = solve_.run_order.data();
    a.fold = solve_.fold.data();
    a.edd_h = solve_.edd_h.data();
    a.probe_col = probe_col_.data();
    a.probe_cv = probe_cv_.data();
    a.probe_source = probe_source_.size() ? probe_source_.data() : nullptr;
    a.nernst_range = nernst_range_.data();
    a.launch_order = launch_order_.data();
    a.block_cycles = nullptr;
    // Measured orders: the cycles of runs 0, 4, 8, ... (their sums converge; a copy and an
    // order every run would cost the group's thread each epoch for little).
    constexpr long measure_every = 4;
    const bool measured_order = block_cycles_.size() > 0;
    if (measured_order) reorder_from_cycles(stream);
    const bool measure = measured_order && !cycles_pending_ && runs_ % measure_every == 0;
    if (measure) a.block_cycles = block_cycles_.data();
    ++runs_;
    a.defer_density = !plan_.probes_read_states;
    a.b = b;
    a.e = e;
    a.frame0 = frame0;
    a.steps = s;
    a.g = globals_;
    auto kernel = kernel_for(extended_, wide_registers_, solve_.ahead);
    kernel<<<static_cast<unsigned>(plan_.blocks.size()), threads_, plan_.shared_bytes, stream>>>(a);
    CUDA_CHECK_LAUNCH();
    if (measure) {
        CUDA_CHECK(cudaMemcpyAsync(host_cycles_.data(), block_cycles_.data(), block_cycles_.size() * sizeof(long long),
                                   cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaEventRecord(cycles_ready_, stream));
        cycles_pending_ = true;
    }
}

}  // namespace arbolito::gpu
