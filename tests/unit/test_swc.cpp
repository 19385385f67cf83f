#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "model/morphology.hpp"
#include "io/input_error.hpp"
#include "model/discretization.hpp"
#include "io/swc.hpp"

using namespace arbolito;
namespace fs = std::filesystem;

namespace {

const fs::path data_dir = fs::path(ARBOLITO_SOURCE_DIR) / "tests/data/morphologies";

// The files that must load (the two zero-radius ones are tested separately).
const char* const good_files[] = {
    "ball_and_stick.swc", "small_detailed.swc", "retinal_ganglion_gc2.CNG.swc", "tc200.CNG.swc",
    "Pvalb_470522102_m.swc", "BS0284.swc", "Sst-IRES-Cre_Ai14-165865.05.02.01_491119537_m.swc",
    "ca1_pyramidal_n120.swc", "ca1_pyramidal_n120_point_soma.swc", "allen_485574832.swc",
    "purkinje_mouse_original.swc", "allen_cell.swc", "pyramidal.swc", "l5_pyramidal_with_axon.swc",
    "edge_somatic_branchpoint.swc", "edge_disordered_ids.swc"};

struct Row {
    long id;
    int type;
    double x, y, z, r;
    long parent;
    int line;
};

// A deliberately plain second reading of a (well-formed) file, for cross-checks.
std::vector<Row> rows(const fs::path& p) {
    std::ifstream in(p);
    std::vector<Row> out;
    std::string l;
    for (int line = 1; std::getline(in, l); ++line) {
        std::istringstream s(l.substr(0, l.find('#')));
        Row r{};
        if (s >> r.id >> r.type >> r.x >> r.y >> r.z >> r.r >> r.parent) r.line = line, out.push_back(r);
    }
    return out;
}

std::string error_of(const fs::path& p) {
    try {
        read_swc(p.string());
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

double lateral_area(const Branch& b) {
    double a = 0;
    for (std::size_t k = 1; k < b.xyz.size(); ++k) {
        const double l = (b.xyz[k] - b.xyz[k - 1]).norm(), r0 = b.radius[k - 1], r1 = b.radius[k];
        a += M_PI * (r0 + r1) * std::sqrt((r1 - r0) * (r1 - r0) + l * l);
    }
    return a;
}

void expect_same(const Morphology& a, const Morphology& b) {
    ASSERT_EQ(a.branches.size(), b.branches.size());
    for (std::size_t i = 0; i < a.branches.size(); ++i) {
        const Branch &x = a.branches[i], &y = b.branches[i];
        EXPECT_EQ(x.parent, y.parent) << i;
        EXPECT_EQ(x.parent_x, y.parent_x) << i;
        EXPECT_EQ(x.tag, y.tag) << i;
        EXPECT_EQ(x.xyz, y.xyz) << i;
        EXPECT_EQ(x.radius, y.radius) << i;
    }
}

class SwcTemp : public ::testing::Test {
protected:
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("arbolito_swc_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    fs::path write(const std::string& name, const std::string& text) {
        const fs::path p = dir / name;
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    // The error for a hand-written file, "" if it loads.
    std::string error_for(const std::string& name, const std::string& text) { return error_of(write(name, text)); }
};

// Captures spdlog's output while alive.
struct LogCapture {
    std::ostringstream text;
    std::shared_ptr<spdlog::logger> old = spdlog::default_logger();
    LogCapture() { spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text))); }
    ~LogCapture() { spdlog::set_default_logger(old); }
};

}  // namespace

TEST(Swc, EveryRealFileLoads) {
    for (const char* f : good_files) {
        SCOPED_TRACE(f);
        Morphology m;
        ASSERT_NO_THROW(m = read_swc((data_dir / f).string()));
        EXPECT_EQ(m.source, (data_dir / f).string());
        ASSERT_EQ(m.soma(), 0);
        EXPECT_NO_THROW(validate(m));
        for (const auto& b : m.branches)
            if (b.parent == 0) EXPECT_EQ(b.parent_x, 0.5);
    }
}

// Every sample is one point of one branch, except: fork points start each child branch
// again; the 1- and 3-point somata are drawn with two points; a one-sample neurite on the
// soma also gets the soma sample's position.
TEST(Swc, SampleCountConsistency) {
    for (const char* f : good_files) {
        SCOPED_TRACE(f);
        const Morphology m = read_swc((data_dir / f).string());
        const auto rs = rows(data_dir / f);
        std::map<long, const Row*> by_id;
        std::map<long, std::vector<const Row*>> kids;
        for (const auto& r : rs) by_id[r.id] = &r, kids[r.parent].push_back(&r);
        int n_soma = 0, single = 0;
        for (const auto& r : rs) {
            if (r.type != 1) continue;
            ++n_soma;
            for (const Row* c : kids[r.id]) {
                const auto& ck = kids[c->id];
                if (c->type != 1 && !(ck.size() == 1 && ck[0]->type == c->type)) ++single;
            }
        }
        long points = 0, forks = 0;
        for (std::size_t b = 1; b < m.branches.size(); ++b) {
            points += static_cast<long>(m.branches[b].xyz.size());
            if (m.branches[b].parent != 0) ++forks;
        }
        EXPECT_EQ(points - forks - single, static_cast<long>(rs.size()) - n_soma);
        const std::size_t soma_points = m.branches[0].xyz.size();
        if (n_soma == 1 || (n_soma == 3 && soma_points == 2)) EXPECT_EQ(soma_points, 2u);
        else EXPECT_EQ(soma_points, static_cast<std::size_t>(n_soma));
    }
}

// Both somata are cylinders of length 2r computed from one centre: rounding only, far below 1e-12.
TEST(Swc, PointSomaAreaIsSphereArea) {
    for (const char* f : {"ball_and_stick.swc", "purkinje_mouse_original.swc", "allen_cell.swc", "pyramidal.swc"}) {
        SCOPED_TRACE(f);
        const Morphology m = read_swc((data_dir / f).string());
        const double r = rows(data_dir / f).front().r;
        ASSERT_EQ(m.branches[0].xyz.size(), 2u);
        EXPECT_NEAR(lateral_area(m.branches[0]) / (4 * M_PI * r * r), 1.0, 1e-12);
    }
}

TEST(Swc, SomaGeometry) {
    // One point: along y, centred on the sample; neurites start at their own first sample.
    const Morphology bs = read_swc((data_dir / "ball_and_stick.swc").string());
    ASSERT_EQ(bs.branches.size(), 2u);
    const double r = 6.30785;
    EXPECT_EQ(bs.branches[0].xyz[0], Eigen::Vector3d(0, -r, 0));
    EXPECT_EQ(bs.branches[0].xyz[1], Eigen::Vector3d(0, r, 0));
    EXPECT_EQ(bs.branches[1].parent, 0);
    EXPECT_EQ(bs.branches[1].parent_x, 0.5);
    EXPECT_EQ(bs.branches[1].tag, tag_dend);
    EXPECT_EQ(bs.branches[1].xyz[0], Eigen::Vector3d(r, 0, 0));
    EXPECT_EQ(bs.branches[1].radius, std::vector<double>({0.5, 0.5}));

    // Three points (NeuroMorpho): centred on the root, along the outer points.
    const Morphology py = read_swc((data_dir / "pyramidal.swc").string());
    const Eigen::Vector3d mid = (py.branches[0].xyz[0] + py.branches[0].xyz[1]) / 2;
    EXPECT_LT(mid.norm(), 1e-12);
    EXPECT_GT((py.branches[0].xyz[1] - py.branches[0].xyz[0]).normalized().dot(Eigen::Vector3d(-0.66, 4.41, 0).normalized()), 1 - 1e-12);

    // Two chains leaving the root: the first reversed, then the root, then the second.
    const Morphology ca1 = read_swc((data_dir / "ca1_pyramidal_n120.swc").string());
    ASSERT_EQ(ca1.branches[0].xyz.size(), 12u);
    EXPECT_EQ(ca1.branches[0].xyz[0], Eigen::Vector3d(4.06, -11.45, 0));
    EXPECT_EQ(ca1.branches[0].xyz[8], Eigen::Vector3d(0, 0, 0));
    EXPECT_EQ(ca1.branches[0].xyz[9], Eigen::Vector3d(-0.76, 1.5, 0));
    EXPECT_EQ(ca1.branches[0].radius[0], 2.6);

    // tc200: sample 422 leaves soma sample 413 and forks at once, so its branch starts at 413.
    const Morphology tc = read_swc((data_dir / "tc200.CNG.swc").string());
    int found = 0;
    for (const auto& b : tc.branches)
        if (b.parent == 0 && b.xyz.size() == 2 && b.xyz[0] == Eigen::Vector3d(1.5, 8., -1.5) &&
            b.xyz[1] == Eigen::Vector3d(11.5, 9., -2.5)) {
            ++found;
            EXPECT_EQ(b.radius, std::vector<double>({0.47, 0.47}));
        }
    EXPECT_EQ(found, 1);
}

TEST(Swc, BranchesForksAndTypeChanges) {
    // small_detailed.swc, branch by branch, in depth-first, increasing-id order.
    const Morphology m = read_swc((data_dir / "small_detailed.swc").string());
    struct Expect { int parent; double x; int tag; std::vector<double> px, radius; };
    const std::vector<Expect> want = {
        {-1, 1.0, 1, {0, 40}, {2, 2}},
        {0, 0.5, 3, {40, 80, 120}, {0.8, 0.8, 0.8}},
        {1, 1.0, 3, {120, 200, 260}, {0.8, 0.4, 0.2}},
        {1, 1.0, 3, {120, 120, 190}, {0.8, 0.5, 0.5}},
        {3, 1.0, 4, {190, 240}, {0.5, 0.2}},
        {3, 1.0, 4, {190, 230, 360}, {0.5, 0.2, 0.2}},
        {0, 0.5, 2, {-70, -100}, {0.4, 0.4}},
    };
    ASSERT_EQ(m.branches.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE(i);
        const Branch& b = m.branches[i];
        EXPECT_EQ(b.parent, want[i].parent);
        EXPECT_EQ(b.parent_x, want[i].x);
        EXPECT_EQ(b.tag, want[i].tag);
        ASSERT_EQ(b.xyz.size(), want[i].px.size());
        for (std::size_t k = 0; k < b.xyz.size(); ++k) EXPECT_EQ(b.xyz[k].x(), want[i].px[k]);
        EXPECT_EQ(b.radius, want[i].radius);
    }

    // Several neurites on one soma sample, and one on the end of the soma chain.
    const Morphology e = read_swc((data_dir / "edge_somatic_branchpoint.swc").string());
    ASSERT_EQ(e.branches.size(), 3u);
    EXPECT_EQ(e.branches[0].xyz.size(), 4u);
    EXPECT_EQ(e.branches[0].xyz[0].x(), 1);
    EXPECT_EQ(e.branches[0].xyz[3].x(), -2);
    EXPECT_EQ(e.branches[1].tag, tag_axon);
    EXPECT_EQ(e.branches[1].xyz[0], Eigen::Vector3d(0, -2, 0));
    EXPECT_EQ(e.branches[2].tag, tag_dend);
    EXPECT_EQ(e.branches[2].xyz[0], Eigen::Vector3d(5, 0, 0));
}

TEST_F(SwcTemp, DisorderedIdsGiveTheSortedMorphology) {
    auto rs = rows(data_dir / "edge_disordered_ids.swc");
    std::sort(rs.begin(), rs.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
    std::ifstream in(data_dir / "edge_disordered_ids.swc");
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::string sorted;
    for (const auto& r : rs) sorted += lines[r.line - 1] + "\n";
    const Morphology a = read_swc((data_dir / "edge_disordered_ids.swc").string());
    const Morphology b = read_swc(write("sorted.swc", sorted).string());
    expect_same(a, b);
    EXPECT_EQ(a.branches.size(), 9u);
}

TEST(Swc, ZeroRadiusSkeletonsAreRefused) {
    for (const char* f : {"retina_20161028_1.swc", "720575940661205633.swc"}) {
        SCOPED_TRACE(f);
        int first = 0;
        for (const auto& r : rows(data_dir / f))
            if (r.r <= 0) {
                first = r.line;
                break;
            }
        const std::string e = error_of(data_dir / f);
        EXPECT_NE(e.find(std::string(f) + ":line " + std::to_string(first) + ": radius 0"), std::string::npos) << e;
    }
}

TEST(Swc, MalformedFiles) {
    const std::map<std::string, std::string> reason = {
        {"missing_parents.swc", "does not exist"},
        {"disconnected_components.swc", "5 roots"},
        // Its second sample 3 comes before the second root, so it fails as a duplicate id.
        {"multiple_roots.swc", "duplicate id 3"},
        {"soma_zero_radius.swc", "radius 0"},
    };
    for (const auto& [f, why] : reason) {
        SCOPED_TRACE(f);
        const std::string e = error_of(data_dir / "malformed" / f);
        EXPECT_NE(e.find(f + ":line "), std::string::npos) << e;
        EXPECT_NE(e.find(why), std::string::npos) << e;
    }
    {
        LogCapture log;
        EXPECT_EQ(error_of(data_dir / "malformed/zero_length_segments.swc"), "");
        const std::string w = log.text.str();
        EXPECT_NE(w.find("zero_length_segments.swc:line "), std::string::npos) << w;
        EXPECT_NE(w.find("4 zero-length segments"), std::string::npos) << w;
        EXPECT_EQ(std::count(w.begin(), w.end(), '\n'), 1) << w;
    }
    {
        LogCapture log;
        const Morphology tip = read_swc((data_dir / "malformed/zero_length_tip.swc").string());
        EXPECT_EQ(tip.branches.back().xyz.size(), 2u);
        EXPECT_NE(log.text.str().find("zero_length_tip.swc:line 6: 1 zero-length segment at a branch tip"), std::string::npos)
            << log.text.str();
    }
    // Its soma samples (1, 2, 5, 6) form one connected chain; only their ids are interleaved
    // with a dendrite's, as in edge_somatic_branchpoint.swc, so it is a valid cell.
    const Morphology m = read_swc((data_dir / "malformed/interrupted_soma.swc").string());
    EXPECT_EQ(m.branches[0].xyz.size(), 4u);
    EXPECT_EQ(m.branches.size(), 2u);
    for (const auto& entry : fs::directory_iterator(data_dir / "malformed"))
        EXPECT_TRUE(reason.count(entry.path().filename().string()) || entry.path().filename() == "zero_length_segments.swc" ||
                    entry.path().filename() == "zero_length_tip.swc" || entry.path().filename() == "interrupted_soma.swc")
            << "untested file " << entry.path();
}

TEST_F(SwcTemp, HandWrittenErrors) {
    const std::string ok = "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n3 3 0 15 0 1 2\n";
    EXPECT_EQ(error_for("ok.swc", ok), "");
    auto has = [](const std::string& e, const std::string& s) { return e.find(s) != std::string::npos; };
    std::string e;
    e = error_for("six.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1\n");
    EXPECT_TRUE(has(e, "six.swc:line 2: expected 7 columns")) << e;
    e = error_for("eight.swc", "1 1 0 0 0 5 -1 0\n");
    EXPECT_TRUE(has(e, "eight.swc:line 1: expected 7 columns")) << e;
    e = error_for("word.swc", "1 1 0 0 0 5 -1\n2 3 0 abc 0 1 1\n");
    EXPECT_TRUE(has(e, "word.swc:line 2: y 'abc' is not a number")) << e;
    e = error_for("nan.swc", "1 1 0 0 nan 5 -1\n");
    EXPECT_TRUE(has(e, "nan.swc:line 1: z 'nan' is not a number")) << e;
    // Physically meaningless values (docs/swc.md): a radius of 1e-310 made inf conductances.
    e = error_for("thin.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1e-310 1\n");
    EXPECT_TRUE(has(e, "thin.swc:line 2: radius 1e-310 µm is below 0.001 µm")) << e;
    EXPECT_EQ(error_for("thin_ok.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 0.001 1\n"), "");
    e = error_for("far.swc", "1 1 0 0 0 5 -1\n2 3 0 -2e6 0 1 1\n");
    EXPECT_TRUE(has(e, "far.swc:line 2: y -2e+06 µm lies beyond ±1e+06 µm")) << e;
    e = error_for("frac.swc", "1 1 0 0 0 5 -1\n2.5 3 0 5 0 1 1\n");
    EXPECT_TRUE(has(e, "frac.swc:line 2: id '2.5' is not an integer")) << e;
    e = error_for("dup.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n\n2 3 0 9 0 1 1\n");
    EXPECT_TRUE(has(e, "dup.swc:line 4: duplicate id 2 (first on line 2)")) << e;
    e = error_for("cycle.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1 3\n3 3 0 9 0 1 2\n");
    EXPECT_TRUE(has(e, "cycle.swc:line ") && has(e, "cycle")) << e;
    e = error_for("parent.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1 17\n");
    EXPECT_TRUE(has(e, "parent.swc:line 2: parent 17 does not exist")) << e;
    e = error_for("roots.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n9 3 0 9 0 1 -1\n");
    EXPECT_TRUE(has(e, "roots.swc:line 3: 2 roots (samples 1 and 9): a cell needs exactly one")) << e;
    e = error_for("noroot.swc", "1 1 0 0 0 5 2\n2 3 0 5 0 1 1\n");
    EXPECT_TRUE(has(e, "noroot.swc: no root")) << e;
    e = error_for("radius.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 0 1\n");
    EXPECT_TRUE(has(e, "radius.swc:line 2: radius 0 (every radius must be > 0)")) << e;
    e = error_for("split.swc", "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n3 1 0 9 0 5 2\n");
    EXPECT_TRUE(has(e, "split.swc:line 3: soma samples are not contiguous")) << e;
    e = error_for("fork.swc", "1 1 0 0 0 5 -1\n2 1 0 5 0 5 1\n3 1 0 9 0 5 2\n4 1 1 9 0 5 2\n");
    EXPECT_TRUE(has(e, "fork.swc:line 2: the soma branches at sample 2")) << e;
    e = error_for("flat.swc", "1 1 0 0 0 5 -1\n2 3 0 0 0 1 1\n3 3 0 0 0 1 2\n");
    EXPECT_TRUE(has(e, "flat.swc:line 2: branch from sample 2 to sample 3 has zero length")) << e;
    e = error_for("one.swc", "# nothing but comments\n\n");
    EXPECT_TRUE(has(e, "one.swc: no samples")) << e;
}

TEST_F(SwcTemp, MissingFileIsNamed) {
    const std::string e = error_of(dir / "no_such_cell.swc");
    EXPECT_NE(e.find("no_such_cell.swc"), std::string::npos) << e;
}

TEST_F(SwcTemp, CrlfBlanksAndComments) {
    const std::string lf = "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n3 3 0 15 0 1 2\n4 2 0 -5 0 1 1\n";
    const std::string crlf = "# header\r\n   \r\n  1 1 0 0 0 5 -1  \r\n\t# indented comment\r\n2\t3 0 5 0 1 1\r\n"
                             "3 3 0 15 0 1 2 # trailing\r\n+4 2 0 -5 0 1. 1";  // no final newline
    expect_same(read_swc(write("lf.swc", lf).string()), read_swc(write("crlf.swc", crlf).string()));
}

TEST_F(SwcTemp, NoSomaStartsAtTheRoot) {
    const Morphology m = read_swc(write("nosoma.swc", "1 2 0 0 0 1 -1\n2 2 10 0 0 1 1\n3 2 20 0 0 1 2\n").string());
    ASSERT_EQ(m.branches.size(), 1u);
    EXPECT_EQ(m.soma(), -1);
    EXPECT_EQ(m.branches[0].xyz.size(), 3u);
    // A forking root: the first child continues branch 0, the others leave its start.
    const Morphology f = read_swc(write("fork.swc", "1 3 0 0 0 2 -1\n2 3 10 0 0 1 1\n3 3 0 10 0 1 1\n").string());
    ASSERT_EQ(f.branches.size(), 2u);
    EXPECT_EQ(f.branches[0].xyz[1], Eigen::Vector3d(10, 0, 0));
    EXPECT_EQ(f.branches[1].parent, 0);
    EXPECT_EQ(f.branches[1].parent_x, 0.0);
    EXPECT_EQ(f.branches[1].xyz[0], Eigen::Vector3d(0, 0, 0));
    EXPECT_EQ(f.branches[1].radius[0], 2);
}

// An unbranched chain of 100,000 samples cut at every sample (discretisation was
// quadratic in the samples of a branch, 23 s here): every piece's area is its frustum's,
// so the total is the cylinder's lateral area to rounding (1e-9 relative: 1e5 additions of
// terms of one sign, each correct to an ulp), and the resistances add up to the chain's.
// Its run time is in `bench/setup_scale.sh discretize`, not asserted here.
TEST(Swc, LongChainDiscretisesLinearly) {
    const int n = 100000;
    std::string text = "1 1 0 0 0 5 -1\n";
    for (int i = 2; i <= n; ++i) text += std::to_string(i) + " 3 " + std::to_string(i) + " 0 0 0.5 " + std::to_string(i - 1) + "\n";
    const Morphology m = parse_swc(text, "chain.swc");
    const CellCvs cvs = discretize(m, {CvPolicy::every_segment, 1, 0}, std::vector<double>(m.branches.size(), 100.0));
    double dend_area = 0;
    for (int i = 0; i < cvs.size(); ++i)
        if (m.branches[cvs.branch[i]].tag == 3) dend_area += cvs.area[i];
    const double pi = 3.14159265358979323846, length = n - 2;  // dendrite samples at x = 2 .. n
    EXPECT_NEAR(dend_area / (2 * pi * 0.5 * length), 1.0, 1e-9);
    EXPECT_GE(cvs.size(), n - 1);
}

// A zero-length segment at a branch tip (the last sample where its parent is): under
// every_segment it was a CV of no length, whose infinite conductance turned every run to
// NaN at the first check. Of the same radius it is merged into its parent (one warning
// naming the line); with a radius step it is refused with its line.
TEST_F(SwcTemp, ZeroLengthTipIsMergedOrRefused) {
    const std::string tip = "1 1 0 0 0 6.3 -1\n2 3 6.3 0 0 0.5 1\n3 3 200 0 0 0.5 2\n4 3 200 0 0 0.5 3\n";
    {
        LogCapture log;
        const Morphology m = read_swc(write("tip.swc", tip).string());
        ASSERT_EQ(m.branches.size(), 2u);
        EXPECT_EQ(m.branches[1].xyz.size(), 2u);  // samples 2 and 3: 4 merged into 3
        EXPECT_EQ(m.branches[1].xyz.back(), Eigen::Vector3d(200, 0, 0));
        const std::string w = log.text.str();
        EXPECT_NE(w.find("tip.swc:line 4: 1 zero-length segment at a branch tip"), std::string::npos) << w;
        EXPECT_NE(w.find("merged into the parent"), std::string::npos) << w;
    }
    const std::string e = error_for("step.swc", "1 1 0 0 0 6.3 -1\n2 3 6.3 0 0 0.5 1\n3 3 200 0 0 0.5 2\n4 3 200 0 0 0.3 3\n");
    EXPECT_NE(e.find("step.swc:line 4: sample 4 ends its branch at the position of sample 3, with another radius (0.5 to 0.3 µm)"),
              std::string::npos)
        << e;
    // Elsewhere a zero-length segment stays (a radius step where a branch starts): its
    // CV has the length of the half segments around it.
    LogCapture log;
    const Morphology m = read_swc(write("start.swc", "1 1 0 0 0 6.3 -1\n2 3 6.3 0 0 0.5 1\n3 3 100 0 0 0.5 2\n"
                                                     "4 3 100 0 0 0.3 3\n5 3 200 0 0 0.3 4\n6 3 100 0 0 0.3 3\n7 3 100 100 0 0.3 6\n")
                                          .string());
    EXPECT_NE(log.text.str().find("zero-length segments (coincident consecutive samples); kept"), std::string::npos);
    EXPECT_EQ(m.branches.size(), 4u);
}
