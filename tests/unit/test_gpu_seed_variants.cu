// The published cuHinesBatch/cuThomasBatch variants against the CPU: batched Thomas in the unified
// vector storage and with systems of their own sizes (padding computed or each thread
// stopping at its size), gpu-cell's block-shared solve and its padding key, and the float
// kernels of both against a bound derived below. Fresh random systems each run (the seed
// is printed on failure); skipped on a machine without a GPU.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cell_trees.hpp"
#include "core/gpu/memory.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu/thomas_batch.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "solvers/hines.hpp"
#include "tests/support/gpu_skip.hpp"

using namespace arbolito;
using namespace arbolito::gpu;

namespace {

// float's unit roundoff, 2^-24.
constexpr double u32 = 5.9604644775390625e-8;

// ---- batched Thomas ----

// nsys systems of n stored rows; system s has size[s] real rows, strictly diagonally
// dominant with margin at least 0.5: |b| = |a| + |c| + [0.5, 1.5), a, c in [-1, 1).
// Padding rows: a = c = 0, b = 1, d = `pad_d`.
struct Batch {
    int n = 0, nsys = 0;
    std::vector<int> size;
    std::vector<double> a, b, c, d;             // interleaved, row i of system s at i * nsys + s
    std::vector<std::vector<double>> ref;       // per system, its real rows: the CPU's x
    std::vector<double> kappa;                  // per system: ||A||_inf / margin >= cond_inf(A)
};

std::vector<double> cpu_thomas(const std::vector<double>& a, const std::vector<double>& b,
                               const std::vector<double>& c, const std::vector<double>& d) {
    const std::size_t n = b.size();
    std::vector<double> cp(n), dp(n), x(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double ai = i ? a[i] : 0.0;
        const double m = 1.0 / (b[i] - ai * (i ? cp[i - 1] : 0.0));
        cp[i] = c[i] * m;
        dp[i] = (d[i] - ai * (i ? dp[i - 1] : 0.0)) * m;
    }
    for (std::size_t i = n; i-- > 0;) x[i] = dp[i] - (i + 1 < n ? cp[i] * x[i + 1] : 0.0);
    return x;
}

Batch make_batch(int n, int nsys, bool variable, double pad_d, std::mt19937& gen) {
    std::uniform_real_distribution<double> off(-1.0, 1.0), extra(0.5, 1.5), rhs(-1.0, 1.0);
    Batch B;
    B.n = n, B.nsys = nsys;
    const std::size_t N = static_cast<std::size_t>(n) * nsys;
    B.a.assign(N, 0.0), B.b.assign(N, 1.0), B.c.assign(N, 0.0), B.d.assign(N, pad_d);
    for (int s = 0; s < nsys; ++s) {
        const int m = variable ? std::uniform_int_distribution<int>(0, n)(gen) : n;
        B.size.push_back(m);
        std::vector<double> sa(m), sb(m), sc(m), sd(m);
        double norm = 0, margin = INFINITY;
        for (int i = 0; i < m; ++i) {
            sa[i] = i ? off(gen) : 0.0;
            sc[i] = i + 1 < m ? off(gen) : 0.0;
            const double e = extra(gen);
            sb[i] = std::abs(sa[i]) + std::abs(sc[i]) + e;
            if (std::bernoulli_distribution(0.5)(gen)) sb[i] = -sb[i];
            sd[i] = rhs(gen);
            norm = std::max(norm, std::abs(sa[i]) + std::abs(sb[i]) + std::abs(sc[i]));
            margin = std::min(margin, e);
            const std::size_t x = static_cast<std::size_t>(i) * nsys + s;
            B.a[x] = sa[i], B.b[x] = sb[i], B.c[x] = sc[i], B.d[x] = sd[i];
        }
        B.ref.push_back(cpu_thomas(sa, sb, sc, sd));
        B.kappa.push_back(m ? norm / margin : 0.0);
    }
    return B;
}

// The batch solved on the GPU in value type T, storage `unified` or interleaved; returns
// d (interleaved numbering) after the solve, and checks that a, b, c come back intact.
template <class T>
std::vector<T> gpu_thomas(const Batch& B, bool unified, const ThomasTuning& t) {
    const int n = B.n, nsys = B.nsys;
    const std::size_t N = static_cast<std::size_t>(n) * nsys;
    auto cast = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
    const std::vector<T> a = cast(B.a), b = cast(B.b), c = cast(B.c), d = cast(B.d);
    DeviceArray<int> sizes(B.size);
    DeviceArray<T> scratch(N);
    CUDA_CHECK(cudaMemset(scratch.data(), 0xff, N * sizeof(T)));  // NaN: never read unwritten
    std::vector<T> x(N), a2(N), b2(N), c2(N);
    if (unified) {
        std::vector<T> v(4 * N);
        for (int i = 0; i < n; ++i)
            for (int s = 0; s < nsys; ++s) {
                const std::size_t k = static_cast<std::size_t>(i) * nsys + s, r = 4 * static_cast<std::size_t>(i) * nsys + s;
                v[r] = a[k], v[r + nsys] = b[k], v[r + 2 * nsys] = c[k], v[r + 3 * nsys] = d[k];
            }
        DeviceArray<T> dv(v);
        thomas_batch(unified_systems(dv.data(), nsys, sizes.data()), scratch.data(), n, nsys, nullptr, t);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<T> w = dv.download();
        for (int i = 0; i < n; ++i)
            for (int s = 0; s < nsys; ++s) {
                const std::size_t k = static_cast<std::size_t>(i) * nsys + s, r = 4 * static_cast<std::size_t>(i) * nsys + s;
                a2[k] = w[r], b2[k] = w[r + nsys], c2[k] = w[r + 2 * nsys], x[k] = w[r + 3 * nsys];
            }
    } else {
        DeviceArray<T> da(a), db(b), dc(c), dd(d);
        thomas_batch(interleaved_systems<T>(da.data(), db.data(), dc.data(), dd.data(), nsys, sizes.data()),
                     scratch.data(), n, nsys, nullptr, t);
        CUDA_CHECK(cudaDeviceSynchronize());
        x = dd.download(), a2 = da.download(), b2 = db.download(), c2 = dc.download();
    }
    auto same_bits = [](const std::vector<T>& p, const std::vector<T>& q) {
        return std::memcmp(p.data(), q.data(), p.size() * sizeof(T)) == 0;
    };
    EXPECT_TRUE(same_bits(a2, a) && same_bits(b2, b) && same_bits(c2, c)) << "a, b or c modified";
    return x;
}

// Worst over the systems of ||x - ref||_inf / ||ref||_inf, and (bound_per_kappa > 0) the
// worst ratio of that to bound_per_kappa * kappa of the system.
template <class T>
std::pair<double, double> thomas_errors(const Batch& B, const std::vector<T>& x, double bound_per_kappa) {
    double worst = 0, worst_ratio = 0;
    for (int s = 0; s < B.nsys; ++s) {
        double num = 0, den = 0;
        for (int i = 0; i < B.size[s]; ++i) {
            const double xi = x[static_cast<std::size_t>(i) * B.nsys + s];
            num = std::max(num, std::isnan(xi) ? INFINITY : std::abs(xi - B.ref[s][i]));
            den = std::max(den, std::abs(B.ref[s][i]));
        }
        const double e = den > 0 ? num / den : num;
        worst = std::max(worst, e);
        if (bound_per_kappa > 0 && B.size[s] > 0) worst_ratio = std::max(worst_ratio, e / (bound_per_kappa * B.kappa[s]));
    }
    return {worst, worst_ratio};
}

std::vector<ThomasTuning> thomas_tunings(ThomasPadding p) {
    // The automatic one, one warp a block, the shallowest and deepest prefetch, and the
    // L2-resident mode with 1 and 3 warps per SM (it loops over batches of 32 systems).
    std::vector<ThomasTuning> t = {ThomasTuning{}, ThomasTuning{8, 0, 32, 0}, ThomasTuning{2, 0, 64, 0},
                                   ThomasTuning{16, 0, 64, 0}, ThomasTuning{4, 0, 64, 1}, ThomasTuning{16, 0, 64, 3}};
    for (auto& x : t) x.padding = p;
    return t;
}

// float Thomas against double, the bound. The systems are strictly diagonally dominant by
// rows with margin delta >= 0.5, so ||A^-1||_inf <= 1/delta and cond_inf(A) <= kappa =
// ||A||_inf / delta (<= 11 here, whatever n). Thomas is LU without pivoting; for a
// tridiagonal A the computed solution satisfies (A + dA) x^ = d with
// |dA| <= (4u + O(u^2)) |L^||U^|, and |L^||U^| <= 3|A| for diagonally dominant A
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §9.6): |dA| <= 12u|A|
// componentwise, no factor n. On top: the inputs rounded to float (u|A|, u|d|) and the
// device's reciprocal (one Newton step from rcp.approx: within 2 ulp instead of 0.5, i.e.
// up to 4u more per pivot): a backward error eps <= 18u. Then
// ||x^ - x||/||x|| <= kappa eps / (1 - kappa eps) <= 2 kappa eps = 36 u kappa while
// kappa eps <= 1/2 (here kappa eps <= 1.2e-5).
constexpr double thomas_float_bound_per_kappa = 36 * u32;

}  // namespace

TEST(ThomasVariants, StorageAndPaddingAgainstCpu) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    for (int n : {1, 37, 256})
        for (int nsys : {1, 33, 700})
            for (ThomasPadding pad : {ThomasPadding::compute, ThomasPadding::stop}) {
                // compute: padding d = 0 and its solution 0; stop: padding rows NaN in a, b,
                // c, d (a row read would spoil a result) and left exactly as they were.
                const bool stop = pad == ThomasPadding::stop;
                Batch B = make_batch(n, nsys, true, stop ? NAN : 0.0, gen);
                if (stop)
                    for (int s = 0; s < nsys; ++s)
                        for (int i = B.size[s]; i < n; ++i) {
                            const std::size_t x = static_cast<std::size_t>(i) * nsys + s;
                            B.a[x] = B.b[x] = B.c[x] = NAN;
                        }
                for (bool unified : {false, true})
                    for (const ThomasTuning& t : thomas_tunings(pad)) {
                        SCOPED_TRACE("n " + std::to_string(n) + " nsys " + std::to_string(nsys) +
                                     (stop ? " stop" : " compute") + (unified ? " unified" : " interleaved") +
                                     " prefetch " + std::to_string(t.prefetch) + " threads " +
                                     std::to_string(t.threads) + " resident " + std::to_string(t.resident_warps));
                        const std::vector<double> x = gpu_thomas<double>(B, unified, t);
                        // A different but equivalent rounding (the device's reciprocal): 1e-12.
                        EXPECT_LT(thomas_errors(B, x, 0).first, 1e-12);
                        for (int s = 0; s < nsys; ++s)
                            for (int i = B.size[s]; i < n; ++i) {
                                const double xi = x[static_cast<std::size_t>(i) * nsys + s];
                                if (stop) ASSERT_TRUE(std::isnan(xi)) << "padding row " << i << " of system " << s << " written";
                                else ASSERT_EQ(xi, 0.0) << "padding row " << i << " of system " << s;
                            }
                    }
            }
}

TEST(ThomasVariants, StopNeedsSizesAndNoSharedRows) {
    SKIP_WITHOUT_GPU();
    DeviceArray<double> v(64);
    ThomasTuning t;
    t.padding = ThomasPadding::stop;
    EXPECT_THROW(thomas_batch(v.data(), v.data(), v.data(), v.data(), v.data(), 8, 8, nullptr, t), std::invalid_argument);
    DeviceArray<int> sizes(std::vector<int>(8, 8));
    t.smem_rows = 4;
    t.resident_warps = 0;
    EXPECT_THROW(thomas_batch(interleaved_systems<double>(v.data(), v.data(), v.data(), v.data(), 8, sizes.data()),
                              v.data(), 8, 8, nullptr, t),
                 std::invalid_argument);
}

// The automatic tuning is per value type: float loads twice the rows ahead and runs twice
// the resident warps, and goes resident at the same n as double once nsys fills them.
TEST(ThomasVariants, AutomaticTuningPerPrecision) {
    SKIP_WITHOUT_GPU();
    for (int n : {64, 128, 256, 512, 1024}) {
        SCOPED_TRACE("n " + std::to_string(n));
        const int nsys = 8 * 32 * arbolito::gpu::device_shape().sms;  // fills 8 warps per SM
        const ThomasTuning d = thomas_resolve({}, n, nsys, 8), f = thomas_resolve({}, n, nsys, 4);
        EXPECT_EQ(d.prefetch, 8);
        EXPECT_EQ(f.prefetch, f.resident_warps > 0 ? 16 : 8);  // float: 16 ahead only where c' stays in L2
        EXPECT_TRUE(d.resident_warps == 0 || d.resident_warps == 4) << d.resident_warps;
        EXPECT_EQ(f.resident_warps, 2 * d.resident_warps);
        ThomasTuning pinned;
        pinned.prefetch = 4;
        pinned.resident_warps = 0;
        EXPECT_EQ(thomas_resolve(pinned, n, nsys, 4).prefetch, 4);
        EXPECT_EQ(thomas_resolve(pinned, n, nsys, 4).resident_warps, 0);
    }
    EXPECT_THROW(thomas_resolve({}, 8, 8, 2), std::invalid_argument);
}

// The kernels take the row stride as nsys or 4 nsys (compile-time multiples): others refused.
TEST(ThomasVariants, RowStrideOfTheTwoStoragesOnly) {
    SKIP_WITHOUT_GPU();
    DeviceArray<double> v(4 * 8 * 8);
    ThomasSystems<double> sys = interleaved_systems<double>(v.data(), v.data(), v.data(), v.data(), 8);
    sys.row_stride = 2 * 8;
    EXPECT_THROW(thomas_batch(sys, v.data(), 8, 8, nullptr), std::invalid_argument);
}

TEST(ThomasVariants, FloatWithinDerivedBound) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    for (int n : {64, 512})
        for (bool variable : {false, true}) {
            const Batch B = make_batch(n, 300, variable, 0.0, gen);
            for (ThomasPadding pad : {ThomasPadding::compute, ThomasPadding::stop})
                for (bool unified : {false, true})
                    for (const ThomasTuning& t : {thomas_tunings(pad)[0], thomas_tunings(pad)[4]}) {
                        SCOPED_TRACE("n " + std::to_string(n) + (variable ? " variable" : " fixed") +
                                     (unified ? " unified" : " interleaved") + " resident " +
                                     std::to_string(t.resident_warps));
                        const auto [err, ratio] = thomas_errors(B, gpu_thomas<float>(B, unified, t),
                                                                thomas_float_bound_per_kappa);
                        EXPECT_LE(ratio, 1.0) << "worst error " << err;
                        RecordProperty("float_error_n" + std::to_string(n), std::to_string(err));
                    }
        }
}

namespace {

// ---- gpu-cell ----

// One cell's Hines system in natural order (d = c + the conductances at the CV, u = -g to
// the parent: an M-matrix, strictly diagonally dominant by margin min c) and its CPU solve.
struct CellSystem {
    std::vector<double> d, u, rhs, x;
    double kappa = 0;   // ||A||_inf / min c >= cond_inf(A)
    int children = 0;   // most children of one CV
};

CellSystem random_cell(const std::vector<int>& p, std::mt19937& gen) {
    std::uniform_real_distribution<double> g(0.1, 2.0), c(0.1, 2.0), b(-1.0, 1.0);
    const int n = static_cast<int>(p.size());
    CellSystem s{std::vector<double>(n), std::vector<double>(n, 0.0), std::vector<double>(n), {}};
    std::vector<double> row(n, 0.0);  // sum of |off-diagonal| per row
    std::vector<int> kids(n, 0);
    double cmin = INFINITY;
    for (int i = 0; i < n; ++i) s.d[i] = c(gen), cmin = std::min(cmin, s.d[i]), s.rhs[i] = b(gen);
    for (int i = 1; i < n; ++i) {
        const double gi = g(gen);
        s.u[i] = -gi, s.d[i] += gi, s.d[p[i]] += gi;
        row[i] += gi, row[p[i]] += gi, ++kids[p[i]];
    }
    double norm = 0;
    for (int i = 0; i < n; ++i) norm = std::max(norm, s.d[i] + row[i]);
    s.kappa = n ? norm / cmin : 0;
    s.children = n ? *std::max_element(kids.begin(), kids.end()) : 0;
    s.x = s.rhs;
    std::vector<double> d = s.d;
    if (n) hines_solve(0, n, p.data(), d.data(), s.u.data(), s.x.data());
    return s;
}

// The batch solved in `layout` with the plan's options, in T; the whole rhs array after the
// solve (layout numbering). Padding rows d = 1, u = 0, rhs = 0 as the group keeps them.
template <class T>
std::vector<T> gpu_cells(const std::vector<std::vector<int>>& cells, const std::vector<CellSystem>& sys,
                         const GpuCellNumbering& g, CellKernel kernel, const CellPlanOptions& o) {
    const Layout& l = g.layout;
    const GpuCellPlan plan = make_gpu_cell_plan(l, g.slots, kernel, o);
    std::vector<T> d(l.n_cv, T(1)), u(l.n_cv, T(0)), rhs(l.n_cv, T(0));
    for (std::size_t c = 0; c < cells.size(); ++c)
        for (std::size_t i = 0; i < cells[c].size(); ++i) {
            const int x = l.index[c][i];
            d[x] = T(sys[c].d[i]), u[x] = T(sys[c].u[i]), rhs[x] = T(sys[c].rhs[i]);
        }
    DeviceArray<T> dd(d), du(u), dr(rhs);
    gpu_cell_solve(plan, dd.data(), du.data(), dr.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return dr.download();
}

// Worst over the cells of ||x - ref||_inf / ||ref||_inf, and of its ratio to bound(cell).
template <class T, class Bound>
std::pair<double, double> cell_errors(const std::vector<std::vector<int>>& cells, const std::vector<CellSystem>& sys,
                                      const Layout& l, const std::vector<T>& x, Bound bound) {
    double worst = 0, worst_ratio = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) {
        double num = 0, den = 0;
        for (std::size_t i = 0; i < cells[c].size(); ++i) {
            const double xi = x[l.index[c][i]];
            num = std::max(num, std::isnan(xi) ? INFINITY : std::abs(xi - sys[c].x[i]));
            den = std::max(den, std::abs(sys[c].x[i]));
        }
        const double e = den > 0 ? num / den : num;
        worst = std::max(worst, e);
        if (!cells[c].empty()) worst_ratio = std::max(worst_ratio, e / bound(sys[c]));
    }
    return {worst, worst_ratio};
}

std::vector<std::vector<int>> cell_batch(std::mt19937& gen) {
    // Random trees of 1 to 400 CVs (a branch point every 2 to 40 CVs), a star, a single CV,
    // two CVs, a bare chain: blocks of very different sizes, so padding is everywhere.
    std::vector<std::vector<int>> cells = trees::random_batch(300, 1, 400, 2, gen);
    cells.push_back(trees::star(60));
    cells.push_back({-1});
    cells.push_back({-1, 0});
    cells.push_back(trees::synthetic(300, 1, gen));
    return cells;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST(GpuCellVariants, BlockSharedAndPaddingAgainstCpu) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    const auto cells = cell_batch(gen);
    std::vector<CellSystem> sys;
    for (const auto& p : cells) sys.push_back(random_cell(p, gen));
    // 400-CV cells: 64 slots need 200 KiB of shared memory for their rhs (fits an H100's
    // 227 KiB), 128 would need 400 KiB (refused, below).
    for (int bs : {1, 7, 32, 64}) {
        const GpuCellNumbering g = gpu_cell_layout(cells, "block-shared:" + std::to_string(bs));
        for (CellKernel k : {CellKernel::rowparent4, CellKernel::rowparent8, CellKernel::rowparent16}) {
            std::vector<double> first;
            for (bool shared : {false, true})
                for (CellPadding pad : {CellPadding::stop, CellPadding::compute}) {
                    SCOPED_TRACE("block " + std::to_string(bs) + " " + to_string(k) +
                                 (shared ? " block-shared" : " block-interleaved") +
                                 (pad == CellPadding::compute ? " padding compute" : " padding stop"));
                    const std::vector<double> x = gpu_cells<double>(cells, sys, g, k, {shared, pad});
                    // Roundoff of an equivalent elimination order (the device's reciprocal,
                    // FMA): 1e-12, as for every gpu-cell kernel.
                    EXPECT_LT(cell_errors(cells, sys, g.layout, x, [](const CellSystem&) { return 1.0; }).first, 1e-12);
                    for (int p : g.layout.padding) ASSERT_EQ(x[p], 0.0) << "padding row " << p;
                    // rhs in shared memory or not, padding walked or not: the same arithmetic
                    // on every real row, so the same bits.
                    if (first.empty()) first = x;
                    else EXPECT_TRUE(same_bits(x, first)) << "bits differ from block-interleaved, padding stop";
                }
        }
    }
}

TEST(GpuCellVariants, BlockSharedRefusals) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(7);
    const std::vector<std::vector<int>> cells(200, trees::synthetic(400, 8, gen));
    const GpuCellNumbering g = gpu_cell_layout(cells, "block-shared:128");
    const std::size_t room = shared_bytes_per_block();
    if (128 * 400 * sizeof(double) > room) {
        try {
            make_gpu_cell_plan(g.layout, g.slots, std::nullopt, {true, CellPadding::automatic});
            ADD_FAILURE() << "block-shared:128 with 400-CV cells accepted";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("block=128"), std::string::npos) << what;
            EXPECT_NE(what.find("shared memory"), std::string::npos) << what;
        }
    }
    // auto: the largest power of two up to 128 that fits.
    const int bs = block_shared_auto(400);
    ASSERT_GE(bs, 1);
    EXPECT_LE(static_cast<std::size_t>(bs) * 400 * sizeof(double), room);
    if (bs < 128) EXPECT_GT(static_cast<std::size_t>(2 * bs) * 400 * sizeof(double), room);
    EXPECT_EQ(block_shared_auto(100000000), 0);
    const GpuCellNumbering g32 = gpu_cell_layout(cells, "block-shared:32");
    EXPECT_THROW(make_gpu_cell_plan(g32.layout, g32.slots, CellKernel::pipelined2, {true, CellPadding::automatic}),
                 std::invalid_argument);
    // Slots not in block-interleaved order (two swapped). (flat is block-interleaved:1.)
    CellSlots swapped = g32.slots;
    std::swap(swapped.first[0], swapped.first[1]);
    EXPECT_THROW(make_gpu_cell_plan(g32.layout, swapped, CellKernel::rowparent8, {true, CellPadding::automatic}),
                 std::invalid_argument);
    EXPECT_THROW(make_gpu_cell_plan(g32.layout, g32.slots, CellKernel::pipelined4, {false, CellPadding::compute}),
                 std::invalid_argument);
    EXPECT_THROW(make_gpu_cell_plan(g32.layout, g32.slots, CellKernel::plain, {false, CellPadding::stop}),
                 std::invalid_argument);
}

// float gpu-cell against double, the bound. The matrix is an M-matrix (positive diagonal,
// u < 0), strictly diagonally dominant with margin min c, so cond_inf(A) <= kappa =
// ||A||_inf / min c. The Hines elimination is LU without pivoting in an order without
// fill-in; for an M-matrix |L^||U^| = |L^U^| (every product on a diagonal is positive, none
// off it), and each entry of L^U^ sums at most k + 1 products (k: the most children of one
// CV), so |dA| <= gamma_{k+1} |A| (Higham, op. cit., Thm 9.3). On top, as for Thomas: the
// inputs rounded to float (u) and the reciprocal (4u): eps <= (k + 6)u, and
// ||x^ - x||/||x|| <= 2 kappa eps while kappa eps <= 1/2.
TEST(GpuCellVariants, FloatWithinDerivedBound) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    const auto cells = cell_batch(gen);
    std::vector<CellSystem> sys;
    for (const auto& p : cells) sys.push_back(random_cell(p, gen));
    auto bound = [](const CellSystem& s) { return 2 * s.kappa * (s.children + 6) * u32; };
    for (const char* layout : {"block-interleaved:32", "block-shared:32", "interleaved"})
        for (CellPadding pad : {CellPadding::stop, CellPadding::compute}) {
            SCOPED_TRACE(std::string(layout) + (pad == CellPadding::compute ? " padding compute" : " padding stop"));
            const GpuCellNumbering g = gpu_cell_layout(cells, layout);
            const bool shared = std::string(layout).rfind("block-shared", 0) == 0;
            const std::vector<float> x = gpu_cells<float>(cells, sys, g, CellKernel::rowparent8, {shared, pad});
            const auto [err, ratio] = cell_errors(cells, sys, g.layout, x, bound);
            EXPECT_LE(ratio, 1.0) << "worst error " << err;
            EXPECT_GT(err, 0.0);  // float really ran
        }
    // Kernels without a float version say so.
    const GpuCellNumbering g = gpu_cell_layout(cells, "interleaved");
    EXPECT_THROW(gpu_cells<float>(cells, sys, g, CellKernel::pipelined2, {}), std::invalid_argument);
}
