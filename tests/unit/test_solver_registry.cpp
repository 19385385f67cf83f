// The solver registry and the spec grammar (run/solver_registry.hpp, solver_spec.hpp):
// what this build has, and one clear error for each kind of bad spec.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/run_common.hpp"
#include "cpu/cpu_cell_group.hpp"
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

// The same for the checks of any solver, in this build or not (a GPU solver's keys in a CPU build).
std::string any_build_error_of(const std::string& spec) {
    try {
        parse_solver_spec_any_build(spec);
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
    // Each key with its type, what it takes and its default.
    EXPECT_TRUE(has(describe_solvers(), "timing=on|off (flag, default on)"));
    EXPECT_TRUE(has(describe_solvers(), "lanes=auto|1|2|4|8 (integer, default auto)"));
    EXPECT_TRUE(has(describe_solvers(), "cut=N >= 0 (integer, default 32)"));
    EXPECT_TRUE(has(describe_solvers(), "shared=1..1024 or auto (integer, default auto)"));
    EXPECT_TRUE(has(describe_solvers(), "coupling=fold|edd (choice, default fold)"));
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
    EXPECT_FALSE(cpu.options.number("lanes"));  // default: auto
    EXPECT_EQ(cpu.options.text("lanes"), "auto");
    EXPECT_EQ(cpu.options.choice("solve"), "double");
    EXPECT_EQ(cpu.text(), "cpu");
    EXPECT_EQ(parse_solver_spec("omp:lanes=1").options.number("lanes"), 1);
    EXPECT_EQ(parse_solver_spec("omp:lanes=1").lane_width(), 1);
    EXPECT_EQ(parse_solver_spec("cpu:lanes=8").lane_width(), 8);
    EXPECT_EQ(parse_solver_spec("cpu:solve=long-double").lane_width(), 1);  // lanes=auto: one at a time
    EXPECT_EQ(parse_solver_spec("cpu").lane_width(), native_lane_width());
    EXPECT_EQ(parse_solver_spec("auto").lane_width(), 1);
    // lanes=auto for a group: no wider than the largest power of two its cells fill.
    EXPECT_EQ(lanes_for_cells(4, 1), 1);
    EXPECT_EQ(lanes_for_cells(4, 2), 2);
    EXPECT_EQ(lanes_for_cells(4, 3), 2);
    EXPECT_EQ(lanes_for_cells(4, 4), 4);
    EXPECT_EQ(lanes_for_cells(4, 1000), 4);
    EXPECT_EQ(lanes_for_cells(2, 1), 1);
    EXPECT_EQ(lanes_for_cells(2, 3), 2);
    EXPECT_EQ(lanes_for_cells(8, 5), 4);
    EXPECT_EQ(lanes_for_cells(8, 8), 8);
    // The memory estimate's layout follows it where lanes are auto, not where they are given.
    EXPECT_EQ(layout_lane_width(parse_solver_spec("cpu"), 1), 1);
    EXPECT_EQ(layout_lane_width(parse_solver_spec("omp"), 2), std::min(2, native_lane_width()));
    EXPECT_EQ(layout_lane_width(parse_solver_spec("cpu"), 1000), native_lane_width());
    EXPECT_EQ(layout_lane_width(parse_solver_spec("cpu:lanes=4"), 1), 4);
    EXPECT_EQ(layout_lane_width(parse_solver_spec("auto"), 1), 1);
    // Solvers without lanes (the GPU's) declare no `lanes` key: one lane, whatever the cells.
    EXPECT_EQ(layout_lane_width(parse_solver_spec_any_build("gpu-cell"), 1), 1);
    EXPECT_EQ(layout_lane_width(parse_solver_spec_any_build("gpu-fine:step=resident"), 1000), 1);
    const SolverSpec g = parse_solver_spec_any_build("gpu-cell:timing=off:layout=flat");
    EXPECT_FALSE(g.options.flag("timing"));
    EXPECT_EQ(g.options.choice("layout"), "flat");
    EXPECT_FALSE(g.options.number("block"));  // default auto: 32 for block-interleaved
    EXPECT_EQ(g.options.number_or("block", 32), 32);
    EXPECT_EQ(g.options.choice("kernel"), "auto");
    EXPECT_EQ(g.text(), "gpu-cell:timing=off:layout=flat");
    EXPECT_EQ(g.lane_width(), 1);
    const SolverSpec f = parse_solver_spec_any_build("gpu-fine:step=resident:threads=256:shared=50:sort=off");
    EXPECT_EQ(f.options.choice("step"), "resident");
    EXPECT_EQ(f.options.number("threads"), 256);
    EXPECT_EQ(f.options.number("shared"), 50);
    EXPECT_FALSE(f.options.flag("sort"));
    EXPECT_FALSE(f.options.flag("reroot"));  // default off: the CPU's elimination
    const SolverSpec b = parse_solver_spec_any_build("gpu-branch:cut=8:tile=0");
    EXPECT_EQ(b.options.number("cut"), 8);
    EXPECT_EQ(b.options.number("tile"), 0);  // a number, not auto
    EXPECT_FALSE(b.options.number("prefetch"));
    EXPECT_TRUE(b.options.flag("graph"));
}

TEST(SolverSpec, BadSpecsSayWhatIsAllowed) {
    EXPECT_TRUE(has(error_of("warp"), "unknown solver 'warp' (this build has: cpu, omp"));
    EXPECT_TRUE(has(error_of(""), "unknown solver ''"));
    EXPECT_TRUE(has(error_of("omp:threads=4"), "unknown option 'threads' (keys: lanes, solve)"));
    EXPECT_TRUE(has(error_of("cpu:lanes=3"), "solver cpu: lanes=3: unknown value (lanes takes auto|1|2|4|8)"));
    EXPECT_TRUE(has(error_of("cpu:"), "is not KEY=VALUE"));
    EXPECT_TRUE(has(error_of("cpu:=1"), "is not KEY=VALUE"));
#ifdef ARBOLITO_HAVE_CUDA
    EXPECT_TRUE(has(error_of("gpu-cell:timing=fast"), "timing=fast: not on or off (timing takes on|off)"));
    EXPECT_TRUE(has(error_of("gpu-cell:block=0"), "block=0: out of range (block takes N >= 1 or auto)"));
    EXPECT_TRUE(has(error_of("gpu-cell:block=x"), "not a whole number"));
    EXPECT_TRUE(has(error_of("gpu-cell:kernel=fast"), "rowparent8"));
    EXPECT_TRUE(has(error_of("gpu-cell:warp=1"), "keys: layout, block, kernel, timing, threads, padding"));
    EXPECT_TRUE(has(error_of("gpu-cell:timing=on:timing=off"), "given twice"));
    EXPECT_TRUE(has(error_of("gpu-cell:layout=block-interleaved:32"), "is not KEY=VALUE"));  // the old grammar
    EXPECT_TRUE(has(error_of("gpu-branch:tile=x"), "tile=x: not a whole number (tile takes N >= 0 or auto)"));
    EXPECT_NO_THROW(parse_solver_spec("gpu-branch:coupling=edd:tile=auto"));
    EXPECT_NO_THROW(parse_solver_spec("gpu-branch:coupling=edd:tile=0"));
#else
    EXPECT_TRUE(has(error_of("gpu-cell"), "gpu-cell needs the CUDA build"));
    EXPECT_TRUE(has(error_of("gpu-cell:timing=off"), "gpu-cell needs the CUDA build"));
#endif
}

// Every kind of bad value, in every build: one line naming the solver, the key and what it
// takes (the GPU solvers' keys are checked here through parse_solver_spec_any_build).
TEST(SolverSpec, TypedValuesCheckedOnce) {
    struct Bad {
        const char* spec;
        const char* message;
    };
    for (const Bad& b : std::vector<Bad>{
             // integer from a list, or auto
             {"cpu:lanes=3", "solver cpu: lanes=3: unknown value (lanes takes auto|1|2|4|8)"},
             {"cpu:lanes=four", "solver cpu: lanes=four: not a whole number (lanes takes auto|1|2|4|8)"},
             {"omp:lanes=-4", "solver omp: lanes=-4: not a whole number (lanes takes auto|1|2|4|8)"},
             // choice
             {"cpu:solve=quad", "solver cpu: solve=quad: unknown value (solve takes double|long-double)"},
             // a rule across keys
             {"cpu:lanes=4:solve=long-double", "solver cpu: solve=long-double steps cells one at a time: lanes=4"},
             // unknown key: the solver's keys
             {"cpu:lane=4", "solver cpu: unknown option 'lane' (keys: lanes, solve)"},
             {"gpu-fine:steps=resident", "solver gpu-fine: unknown option 'steps' (keys: sort, reroot, split, block"},
             // integer in a range
             {"gpu-branch:cut=-1", "solver gpu-branch: cut=-1: not a whole number (cut takes N >= 0)"},
             {"gpu-branch:cut=1e3", "solver gpu-branch: cut=1e3: not a whole number (cut takes N >= 0)"},
             {"gpu-branch:cut=99999999999", "solver gpu-branch: cut=99999999999: not a whole number (cut takes N >= 0)"},
             {"gpu-branch:block=0", "solver gpu-branch: block=0: out of range (block takes N >= 1)"},
             {"gpu-fine:shared=0", "solver gpu-fine: shared=0: out of range (shared takes 1..1024 or auto)"},
             {"gpu-fine:shared=2048", "solver gpu-fine: shared=2048: out of range (shared takes 1..1024 or auto)"},
             {"gpu-fine:block=auto2", "solver gpu-fine: block=auto2: not a whole number (block takes N >= 1 or auto)"},
             // integer from a list, no word
             {"gpu-fine:threads=96", "solver gpu-fine: threads=96: unknown value (threads takes 64|128|256)"},
             {"gpu-fine:threads=auto", "solver gpu-fine: threads=auto: not a whole number (threads takes 64|128|256)"},
             {"gpu-fine:ahead=6", "solver gpu-fine: ahead=6: unknown value (ahead takes auto|4|8)"},
             // flag
             {"gpu-fine:sort=yes", "solver gpu-fine: sort=yes: not on or off (sort takes on|off)"},
             {"gpu-branch:graph=1", "solver gpu-branch: graph=1: not on or off (graph takes on|off)"},
             // choice
             {"gpu-fine:step=epoch", "solver gpu-fine: step=epoch: unknown value (step takes streaming|resident)"},
             {"gpu-cell:layout=diagonal", "solver gpu-cell: layout=diagonal: unknown value (layout takes flat|interleaved"},
             // a rule across keys
             {"gpu-cell:layout=block-shared:block=129", "solver gpu-cell: layout=block-shared with block=129: at most 128"},
             // given twice
             {"gpu-fine:step=resident:step=streaming", "solver gpu-fine: option 'step' given twice"},
         }) {
        const std::string e = any_build_error_of(b.spec);
        EXPECT_TRUE(has(e, b.message)) << b.spec << ": " << e;
    }
    // The spellings the docs and tests use, each accepted.
    for (const char* good : {"cpu:lanes=1", "cpu:lanes=auto:solve=long-double", "cpu:lanes=1:solve=long-double",
                             "omp:lanes=8", "gpu-fine:step=resident:threads=128", "gpu-fine:step=resident:shared=74",
                             "gpu-fine:split=on:ahead=4:memory=shared", "gpu-branch:cut=8", "gpu-branch:coupling=edd:tile=1536",
                             "gpu-branch:coupling=edd:prefetch=0:skew=8000:threads=64", "gpu-cell:layout=block-shared:block=128",
                             "gpu-cell:layout=interleaved:timing=off:threads=96:padding=stop", "auto"})
        EXPECT_EQ(any_build_error_of(good), "") << good;
    // A typed option read as another type is a programming error, not bad input.
    const SolverSpec cpu = parse_solver_spec("cpu");
    EXPECT_THROW(cpu.options.flag("lanes"), std::logic_error);
    EXPECT_THROW(cpu.options.number("solve"), std::logic_error);
    EXPECT_THROW(cpu.options.choice("threads"), std::logic_error);
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
