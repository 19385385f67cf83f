// `--solver auto` (run/solver_auto.hpp): the rule on the machine at hand, the model
// shape it reads, and its choices against the tables measured on the H100
// (bench/branch_bench_h100.tsv: the multi-morphology study, solve alone;
// bench/busyring_solvers_h100.tsv: whole busyring runs): on every benchmark model the
// choice is within 10 % of the fastest solver measured on it.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/network_builders.hpp"
#include "run/solver_auto.hpp"
#include "run/solver_spec.hpp"
#include "solvers/branch_layout.hpp"

using namespace arbolito;

namespace {

// A TSV file as rows of column -> text.
std::vector<std::map<std::string, std::string>> read_tsv(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::map<std::string, std::string>> rows;
    std::string line;
    if (!std::getline(in, line)) return rows;
    std::vector<std::string> head;
    for (std::stringstream ss(line); std::getline(ss, line, '\t');) head.push_back(line);
    while (std::getline(in, line)) {
        std::map<std::string, std::string> r;
        std::stringstream ss(line);
        for (const auto& h : head) std::getline(ss, r[h], '\t');
        rows.push_back(r);
    }
    return rows;
}

std::string source_path(const std::string& rel) { return std::string(ARBOLITO_SOURCE_DIR) + "/" + rel; }

// Per benchmark model: the shape and every variant's time.
struct Measured {
    ModelShape shape;
    std::map<std::string, double> seconds;  // by solver spec
};

void expect_auto_within_10_percent(const std::map<std::string, Measured>& models) {
    for (const auto& [name, m] : models) {
        const AutoChoice c = choose_solver(m.shape, true, 16);
        ASSERT_TRUE(m.seconds.count(c.spec)) << name << ": auto chose " << c.spec << ", not measured";
        double best = 1e300;
        std::string best_spec;
        for (const auto& [spec, s] : m.seconds)
            if (s < best) best = s, best_spec = spec;
        EXPECT_LE(m.seconds.at(c.spec), 1.10 * best)
            << name << ": auto chose " << c.spec << " (" << c.why << "), " << best_spec << " is faster";
    }
}

}  // namespace

TEST(SolverAuto, WithoutGpu) {
    ModelShape s;
    s.cells = 1024, s.cvs = 1 << 20, s.cvs_per_branch = 12;
    EXPECT_EQ(choose_solver(s, false, 1).spec, "cpu");
    EXPECT_EQ(choose_solver(s, false, 8).spec, "omp");
    EXPECT_EQ(choose_solver(s, true, 1).spec, "gpu-fine:step=resident");
    s.max_levels = 64;
    EXPECT_EQ(choose_solver(s, true, 1).spec, "gpu-branch:coupling=edd");
    s.max_levels = 0;
    // Every choice is a spec the registry accepts (GPU choices only where the build has
    // the GPU solvers).
#ifdef ARBOLITO_HAVE_CUDA
    const bool gpu_build = true;
#else
    const bool gpu_build = false;
#endif
    for (std::uint64_t cells : {1ull, 5000ull, 50000ull})
        for (double per_branch : {3.0, 100.0}) {
            s.cells = cells, s.cvs_per_branch = per_branch;
            EXPECT_NO_THROW(parse_solver_spec(choose_solver(s, gpu_build, 1).spec));
        }
    EXPECT_TRUE(parse_solver_spec("auto").solver->is_auto);
    EXPECT_THROW(parse_solver_spec("auto:x=1"), std::invalid_argument);
}

TEST(SolverAuto, ModelShapeOfBusyring) {
    Model m;
    BusyringNetwork p;
    p.num_cells = 8;
    build_busyring(m, p);
    const ModelShape s = model_shape(m);
    EXPECT_EQ(s.cells, 8u);
    EXPECT_GT(s.cvs, 8 * 1000);
    EXPECT_GT(s.cvs_per_branch, 5);  // short runs: gpu-fine's side of the rule
    EXPECT_LT(s.cvs_per_branch, 24);
    EXPECT_GE(s.max_levels, 10);
    // About 74 branch points a cell: tile=auto leaves EDD untiled on the busyring.
    EXPECT_GT(s.max_branch_points, 64);
    EXPECT_EQ(edd_auto_tile(s.max_branch_points, s.max_cell_cvs), 0);
    EXPECT_GT(s.max_cell_cvs, 1000);
}

// The seed's study, solve alone (bench/branch_bench.cu on the H100): each solver at its
// defaults as auto would run it. The resident step solves with gpu-fine's block solve
// (solvers/gpu/fine_block.cuh), so there it is measured by gpu-fine's solve; EDD by its
// tiles where tile=auto tiles the set (edd-c32-tN, N = edd_auto_tile_cvs), else untiled
// (edd-cut32).
TEST(SolverAuto, WithinTenPercentOnTheSolveStudy) {
    const auto rows = read_tsv(source_path("bench/branch_bench_h100.tsv"));
    ASSERT_GT(rows.size(), 50u) << "bench/branch_bench_h100.tsv missing or short";
    const std::string auto_tiles = "edd-c32-t" + std::to_string(edd_auto_tile_cvs);
    const std::map<std::string, std::string> as_spec = {{"gpu-cell", "gpu-cell"},
                                                        {"gpu-fine", "gpu-fine"},
                                                        {"fold", "gpu-branch:coupling=fold"},
                                                        {"edd-cut32", "gpu-branch:coupling=edd"},
                                                        {auto_tiles, "gpu-branch:coupling=edd"}};
    std::map<std::string, Measured> models;
    for (const auto& r : rows) {
        if (!as_spec.count(r.at("variant"))) continue;
        const bool tiled = edd_auto_tile(std::stoi(r.at("max_branch_points")),
                                         std::stol(r.at("real_cv")) / std::stol(r.at("cells"))) > 0;
        if (r.at("variant") == (tiled ? "edd-cut32" : auto_tiles)) continue;
        Measured& m = models[r.at("set") + " x " + r.at("cells")];
        m.shape.cells = std::stoull(r.at("cells"));
        m.shape.cvs = std::stol(r.at("real_cv"));
        m.shape.cvs_per_branch = std::stod(r.at("cvs_per_branch"));
        m.shape.max_levels = std::stoi(r.at("levels"));
        m.shape.max_branch_points = std::stoi(r.at("max_branch_points"));
        m.shape.max_cell_cvs = m.shape.cvs / static_cast<long>(m.shape.cells);  // about 512 in every set
        m.seconds[as_spec.at(r.at("variant"))] = std::stod(r.at("ms")) * 1e-3;
        if (r.at("variant") == "gpu-fine") m.seconds["gpu-fine:step=resident"] = std::stod(r.at("ms")) * 1e-3;
    }
    EXPECT_GE(models.size(), 20u);
    expect_auto_within_10_percent(models);
}

// Whole busyring runs, 200 ms (bench/busyring_table.sh on the H100, every solver at every
// size; bench/RESULTS.md, "Busyring on the GPU against Arbor's GPU busyring"): run time
// without set-up.
TEST(SolverAuto, WithinTenPercentOnBusyring) {
    const auto rows = read_tsv(source_path("bench/busyring_solvers_h100.tsv"));
    ASSERT_GE(rows.size(), 9u) << "bench/busyring_solvers_h100.tsv missing or short";
    std::map<std::string, Measured> models;
    for (const auto& r : rows) {
        Measured& m = models["busyring x " + r.at("cells")];
        m.shape.cells = std::stoull(r.at("cells"));
        m.shape.cvs = std::stol(r.at("cvs"));
        m.shape.cvs_per_branch = std::stod(r.at("cvs_per_branch"));
        m.shape.max_levels = std::stoi(r.at("max_levels"));
        m.seconds[r.at("solver")] = std::stod(r.at("run_s"));
    }
    EXPECT_EQ(models.size(), 3u);
    expect_auto_within_10_percent(models);
}
