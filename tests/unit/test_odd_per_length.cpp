// The odd_per_length discretisation (nseg = 1 + 2*floor(L/length) per branch, the AllenSDK
// rule at 40 µm): piece counts at and around multiples of the length, the reader's key,
// the memory estimate's CV count and the parareal coarsening.
#include <string>

#include <gtest/gtest.h>

#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "model/memory_estimate.hpp"
#include "parareal/cell_coarsening.hpp"

using namespace arbolito;

namespace {
Model ball_and_stick(double dend_length, const std::string& discretization) {
    return parse_model(R"({"cells": [{"morphology": {"builder": "ball_and_stick", "dend_length": )" +
                           std::to_string(dend_length) + "}, \"discretization\": " + discretization + "}]}",
                       "m.json");
}
int dend_pieces(double dend_length, const std::string& discretization) {
    return discretize_cell(ball_and_stick(dend_length, discretization).cells[0]).n_pieces[1];
}
}  // namespace

TEST(OddPerLength, PiecesAreOneAndTwoPerLength) {
    const std::string allen = R"({"policy": "odd_per_length", "length": 40})";
    EXPECT_EQ(dend_pieces(30, allen), 1);     // the Allen axon stubs
    EXPECT_EQ(dend_pieces(39.999, allen), 1);
    EXPECT_EQ(dend_pieces(40, allen), 3);
    EXPECT_EQ(dend_pieces(200, allen), 11);   // 1 + 2*5
    EXPECT_EQ(dend_pieces(200, R"({"policy": "odd_per_length"})"), 11);  // 40 µm by default
    EXPECT_EQ(dend_pieces(200, R"({"policy": "odd_per_length", "length": 20})"), 21);
    const Model m = ball_and_stick(200, allen);
    EXPECT_EQ(discretize_cell(m.cells[0]).n_pieces[0], 1);  // the 12.6 µm soma
    // The estimate counts the same CVs: 1 + 11 pieces, an x = 1 node per branch, the root's x = 0.
    EXPECT_EQ(model_size(m).cvs, static_cast<double>(discretize_cell(m.cells[0]).size()));
}

TEST(OddPerLength, ReaderRefusesANonPositiveLength) {
    try {
        ball_and_stick(200, R"({"policy": "odd_per_length", "length": 0})");
        FAIL() << "length 0 was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cells[0].discretization.length"), std::string::npos) << e.what();
    }
}

TEST(OddPerLength, CoarserPolicyScalesTheLength) {
    EXPECT_EQ(coarser_policy(CvPolicy{CvPolicy::odd_per_length, 1, 40.0}, 3).extent, 120.0);
}
