// The pieces that keep hostile input a named error: reading files, escaping
// control bytes, --set overrides, the memory estimate and the busyring size bound.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/cell_builders.hpp"
#include "model/memory_estimate.hpp"
#include "model/network_builders.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/model_overrides.hpp"
#include "io/model_reader.hpp"

using namespace arbolito;
using json = nlohmann::json;

namespace {

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "no InputError";
}

}  // namespace

TEST(InputHardening, ControlBytesEscaped) {
    EXPECT_EQ(escape_control("a\x1b[2J\tb\x7f\n"), "a\\x1b[2J\\x09b\\x7f\\x0a");
    EXPECT_EQ(escape_control("5 µm"), "5 µm");  // UTF-8 kept
    EXPECT_EQ(std::string(InputError("f\x01.json", "name", "bad \x07").what()), "f\\x01.json:name: bad \\x07");
}

TEST(InputHardening, InputFileRefusesWhatIsNotARegularFile) {
    EXPECT_NE(message_of([] { read_input_file("/dev/zero", "model file"); }).find("is a character device, not a regular file"),
              std::string::npos);
    EXPECT_NE(message_of([] { read_input_file("/", "SWC file"); }).find("the SWC file is a directory"), std::string::npos);
    EXPECT_NE(message_of([] { read_input_file(std::string("a\0b", 3), "SWC file"); }).find("holds a NUL byte"), std::string::npos);
    EXPECT_NE(message_of([] { read_input_file("", "model file"); }).find("empty path"), std::string::npos);
    const auto p = std::filesystem::temp_directory_path() / "arbolito_input_file_test.txt";
    std::ofstream(p) << "0123456789";
    EXPECT_EQ(read_input_file(p.string(), "model file"), "0123456789");
    EXPECT_NE(message_of([&] { read_input_file(p.string(), "model file", 5); }).find("has 10 bytes, more than"), std::string::npos);
    std::filesystem::remove(p);
}

TEST(InputHardening, OverridesSetValuesAlongAPath) {
    json doc = json::parse(R"({"network": {"num-cells": 1024}, "cells": [{"count": 1}]})");
    apply_model_overrides(doc, {"network.num-cells=64", "cells[0].count=3", "run.tfinal=10.5", "name=small",
                                "network.lengths=[100, 10]"});
    EXPECT_EQ(doc["network"]["num-cells"], 64);
    EXPECT_EQ(doc["cells"][0]["count"], 3);
    EXPECT_EQ(doc["run"]["tfinal"], 10.5);  // objects missing on the way are made
    EXPECT_EQ(doc["name"], "small");        // not JSON: a string
    EXPECT_EQ(doc["network"]["lengths"], json::parse("[100, 10]"));
}

TEST(InputHardening, OverridesNameWhatIsWrong) {
    json doc = json::parse(R"({"run": {"dt": 0.025}, "cells": []})");
    EXPECT_EQ(message_of([&] { apply_model_overrides(doc, {"run.dt"}); }), "--set: 'run.dt' is not KEY.PATH=VALUE");
    EXPECT_EQ(message_of([&] { apply_model_overrides(doc, {"run.dt.x=1"}); }), "--set: 'run.dt.x=1': run.dt is a number, not an object");
    EXPECT_EQ(message_of([&] { apply_model_overrides(doc, {"cells[0].count=1"}); }), "--set: 'cells[0].count=1': cells has no element [0]");
    EXPECT_NE(message_of([&] { apply_model_overrides(doc, {"=1"}); }).find("no key before '='"), std::string::npos);
    EXPECT_NE(message_of([&] { apply_model_overrides(doc, {"cells[x]=1"}); }).find("is not an array index"), std::string::npos);
}

TEST(InputHardening, OverridesReachTheReader) {
    const std::string text = R"({"cells": [{"morphology": {"builder": "ball_and_stick"}}]})";
    EXPECT_EQ(parse_model(text, "m.json", {"cells[0].count=4"}).cells.size(), 4u);
    EXPECT_EQ(message_of([&] { parse_model(text, "m.json", {"run.dt=-1"}); }), "m.json:run.dt: must be > 0, got -1");
}

TEST(InputHardening, MemoryShortfallNamesEstimateAndAvailable) {
    ModelSize s;
    s.cells = 10000000, s.cvs = 5e8, s.connections = 1e8;
    EXPECT_EQ(memory_shortfall(1e9, 2e9, s), "");
    EXPECT_EQ(memory_shortfall(1e9, 0, s), "");  // unknown: no check
    EXPECT_EQ(memory_shortfall(16.0 * (1 << 30), 8.0 * (1 << 30), s),
              "needs about 16 GiB (10000000 cells, 500000000 CVs, 100000000 connections, 0 generator events) but this "
              "machine has 8 GiB available");
    EXPECT_EQ(describe_bytes(1536), "1.5 KiB");
    EXPECT_EQ(describe_bytes(100), "100 bytes");
}

TEST(InputHardening, MemoryEstimateGrowsWithTheModel) {
    BusyringNetwork p;
    p.num_cells = 100;
    const MemoryEstimate small = estimate_memory(busyring_size(p));
    p.num_cells = 1000;
    const MemoryEstimate big = estimate_memory(busyring_size(p));
    EXPECT_NEAR(big.state_bytes / small.state_bytes, 10.0, 1e-9);
    EXPECT_GT(big.run_bytes, big.model_bytes + big.state_bytes);
    // The expected shape is close to what the builder draws (mean over 32 cells).
    Model m;
    p.num_cells = 32;
    build_busyring(m, p);
    const ModelSize drawn = model_size(m), expected = busyring_size(p);
    EXPECT_NEAR(drawn.cvs / expected.cvs, 1.0, 0.15);
}

// One cell: its lanes' padding scales both the state and set-up's per-CV arrays, so one
// lane (lanes=auto for one cell) needs less than four; in one lane set-up, with the cell's
// whole discretisation, is above the state; in four the padded state is.
TEST(InputHardening, MemoryEstimateOneCellFollowsTheLanes) {
    BusyringNetwork p;
    p.num_cells = 1;
    ModelSize s = busyring_size(p);
    s.largest_cell_cvs = s.cvs;
    for (int w : {1, 2, 4, 8}) s.lane_cvs[w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3] = w * s.cvs;
    const MemoryEstimate one = estimate_memory(s, 1, 1), four = estimate_memory(s, 1, 4);
    EXPECT_LT(one.run_bytes, four.run_bytes);
    EXPECT_NEAR(four.state_bytes - one.state_bytes, 3 * s.cvs * (7 * 8 + 3 * 4), 1e-6 * four.state_bytes);
    const double fixed = 24 * 1048576.0 + one.model_bytes;
    EXPECT_GT(one.run_bytes - fixed, 1.03 * one.state_bytes);     // set-up's peak
    // The state's (beside it only the ring's few connections and queued events).
    EXPECT_NEAR(four.run_bytes - fixed, 1.03 * four.state_bytes, 1e-3 * four.run_bytes);
}

TEST(InputHardening, BusyringCellSizeBounded) {
    BusyringParams p;
    p.depth = 64;
    p.branch_probs = {1, 1};  // 2^64 sections
    EXPECT_THROW(busyring_cell(0, p), std::invalid_argument);
    p = BusyringParams{};
    p.compartments = {4294967296.0, 2};
    EXPECT_THROW(busyring_cell(0, p), std::invalid_argument);
    EXPECT_NO_THROW(busyring_cell(0, BusyringParams{}));
}

TEST(InputHardening, AvailableMemoryHonoursTheCap) {
    setenv("ARBOLITO_MAX_MEMORY", "123456789", 1);
    EXPECT_EQ(available_memory_bytes(), 123456789.0);
    unsetenv("ARBOLITO_MAX_MEMORY");
    EXPECT_GT(available_memory_bytes(), 0.0);
}
