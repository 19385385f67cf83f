// The solver registry and the spec grammar (run/solver_registry.hpp, solver_spec.hpp):
// what this build has, and one clear error for each kind of bad spec.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "model/run_settings.hpp"
#include "run/solver_auto.hpp"
#include "run/solver_spec.hpp"

using namespace arbolito;

namespace {

// The message of the invalid_argument that parsing `spec` throws ("" if none).
std::string error_of(const std::string& spec) {
    try {
        parse_solver_spec(spec);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(SolverRegistry, ContentsPerBuild) {
    ASSERT_NE(find_solver("cpu"), nullptr);
    ASSERT_NE(find_solver("omp"), nullptr);
    ASSERT_NE(find_solver("gpu-cell"), nullptr);
    ASSERT_NE(find_solver("gpu-fine"), nullptr);
    ASSERT_NE(find_solver("gpu-branch"), nullptr);
    EXPECT_EQ(find_solver("gpu-edd"), nullptr);
    EXPECT_TRUE(find_solver("gpu-fine")->needs_cuda);
    EXPECT_TRUE(find_solver("gpu-branch")->needs_cuda);
    EXPECT_FALSE(find_solver("cpu")->needs_cuda);
    EXPECT_FALSE(find_solver("omp")->needs_cuda);
    EXPECT_TRUE(find_solver("gpu-cell")->needs_cuda);
    EXPECT_EQ(find_solver("omp")->groups_per_thread, 4);
    EXPECT_EQ(find_solver("cpu")->groups_per_thread, 0);
#ifdef ARBOLITO_HAVE_CUDA
    EXPECT_EQ(available_solver_names(), "cpu, omp, gpu-cell, gpu-fine, gpu-branch, auto");
    EXPECT_TRUE(find_solver("gpu-cell")->make_group);
    EXPECT_TRUE(find_solver("gpu-fine")->make_group);
    EXPECT_TRUE(find_solver("gpu-branch")->make_group);
#else
    EXPECT_EQ(available_solver_names(), "cpu, omp, auto");
    EXPECT_FALSE(find_solver("gpu-cell")->make_group);
    EXPECT_FALSE(find_solver("gpu-fine")->make_group);
    EXPECT_FALSE(find_solver("gpu-branch")->make_group);
#endif
    for (const SolverInfo& s : all_solvers()) {
        EXPECT_FALSE(s.description.empty()) << s.name;
        if (!s.needs_cuda && !s.is_auto) EXPECT_TRUE(s.make_group) << s.name;  // only GPU solvers may be missing
    }
    EXPECT_TRUE(has(describe_solvers(), "gpu-cell"));
    EXPECT_TRUE(has(describe_solvers(), "timing=on|off (default on)"));
}

// What can run here: the CPU solvers and auto always; a GPU solver with the CUDA build and
// a usable device, else not, with the reason (compare checks every solver before any runs).
TEST(SolverRegistry, AvailableHere) {
    for (const char* name : {"cpu", "omp", "auto"}) {
        std::string why = "unset";
        EXPECT_TRUE(solver_available(*find_solver(name), &why)) << name;
        EXPECT_EQ(why, "") << name;
    }
    for (const char* name : {"gpu-cell", "gpu-fine", "gpu-branch"}) {
        std::string why;
        const bool ok = solver_available(*find_solver(name), &why);
#ifdef ARBOLITO_HAVE_CUDA
        EXPECT_EQ(ok, gpu_available()) << name;
        EXPECT_EQ(why, ok ? "" : "needs a CUDA device, and none is usable here") << name;
#else
        EXPECT_FALSE(ok) << name;
        EXPECT_EQ(why, "needs the CUDA build of arbolito") << name;
#endif
    }
}

TEST(SolverSpec, DefaultsAndGivenKeys) {
    const SolverSpec cpu = parse_solver_spec("cpu");
    EXPECT_EQ(cpu.solver->name, "cpu");
    EXPECT_EQ(cpu.options.at("lanes"), "auto");  // default
    EXPECT_EQ(cpu.text(), "cpu");
    EXPECT_EQ(parse_solver_spec("omp:lanes=1").options.at("lanes"), "1");
#ifdef ARBOLITO_HAVE_CUDA
    const SolverSpec g = parse_solver_spec("gpu-cell:timing=off:layout=flat");
    EXPECT_EQ(g.options.at("timing"), "off");
    EXPECT_EQ(g.options.at("layout"), "flat");
    EXPECT_EQ(g.options.at("block"), "auto");  // default: 32 for block-interleaved
    EXPECT_EQ(g.options.at("kernel"), "auto");
    EXPECT_EQ(g.text(), "gpu-cell:timing=off:layout=flat");
#endif
}

TEST(SolverSpec, BadSpecsSayWhatIsAllowed) {
    EXPECT_TRUE(has(error_of("warp"), "unknown solver 'warp' (this build has: cpu, omp"));
    EXPECT_TRUE(has(error_of(""), "unknown solver ''"));
    EXPECT_TRUE(has(error_of("omp:threads=4"), "unknown option 'threads' (keys: lanes, solve)"));
    EXPECT_TRUE(has(error_of("cpu:lanes=3"), "lanes=3: unknown value (lanes takes auto|1|2|4|8)"));
    EXPECT_TRUE(has(error_of("cpu:"), "is not KEY=VALUE"));
    EXPECT_TRUE(has(error_of("cpu:=1"), "is not KEY=VALUE"));
#ifdef ARBOLITO_HAVE_CUDA
    EXPECT_TRUE(has(error_of("gpu-cell:timing=fast"), "timing=fast: unknown value (timing takes on|off)"));
    EXPECT_TRUE(has(error_of("gpu-cell:block=0"), "block=0: not a whole number >= 1 (block takes N >= 1 or auto)"));
    EXPECT_TRUE(has(error_of("gpu-cell:block=x"), "not a whole number"));
    EXPECT_TRUE(has(error_of("gpu-cell:kernel=fast"), "rowparent8"));
    EXPECT_TRUE(has(error_of("gpu-cell:warp=1"), "keys: layout, block, kernel, timing, threads, padding"));
    EXPECT_TRUE(has(error_of("gpu-cell:timing=on:timing=off"), "given twice"));
    EXPECT_TRUE(has(error_of("gpu-cell:layout=block-interleaved:32"), "is not KEY=VALUE"));  // the old grammar
    EXPECT_TRUE(has(error_of("gpu-branch:tile=x"), "tile=x: not a whole number >= 0 (tile takes N >= 0 or auto)"));
    EXPECT_NO_THROW(parse_solver_spec("gpu-branch:coupling=edd:tile=auto"));
    EXPECT_NO_THROW(parse_solver_spec("gpu-branch:coupling=edd:tile=0"));
#else
    EXPECT_TRUE(has(error_of("gpu-cell"), "gpu-cell needs the CUDA build"));
    EXPECT_TRUE(has(error_of("gpu-cell:timing=off"), "gpu-cell needs the CUDA build"));
#endif
}

TEST(SolverSpec, ListCheckedWhole) {
    EXPECT_EQ(parse_solver_list("cpu,omp").size(), 2u);
    EXPECT_EQ(parse_solver_list("cpu,,omp,").size(), 2u);
    EXPECT_THROW(parse_solver_list("cpu,omp,warp"), std::invalid_argument);
    EXPECT_THROW(parse_solver_list(","), std::invalid_argument);
#ifndef ARBOLITO_HAVE_CUDA
    EXPECT_THROW(parse_solver_list("cpu,omp,gpu-cell"), std::invalid_argument);
#endif
}

TEST(RunSettings, OneSetOfRules) {
    RunSettings r;
    std::vector<Connection> c(2);
    c[0].delay = 1, c[1].delay = 0.5;
    EXPECT_NO_THROW(validate_run_settings(r, c));
    auto key_of = [&](const RunSettings& x, const std::vector<Connection>& cs) -> std::string {
        try {
            validate_run_settings(x, cs);
        } catch (const RunSettingError& e) {
            return e.key + ": " + e.reason;
        }
        return "";
    };
    RunSettings bad = r;
    bad.dt = 0;
    EXPECT_EQ(key_of(bad, c), "run.dt: must be > 0, got 0");
    bad = r, bad.tfinal = -1;
    EXPECT_EQ(key_of(bad, c), "run.tfinal: must be >= 0, got -1");
    bad = r, bad.sample_dt = 0.03;
    EXPECT_EQ(key_of(bad, c), "run.sample_dt: must be a whole multiple of dt (0.025)");
    bad = r, bad.dt = 0.6, bad.sample_dt = 1.2;
    EXPECT_EQ(key_of(bad, c), "connections[1].delay: 0.5 ms is shorter than dt (0.6 ms)");
    c[0].delay = -2;
    EXPECT_EQ(key_of(r, c), "connections[0].delay: must be > 0, got -2");
}
