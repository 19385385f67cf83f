#include "io/swc.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>

#include "io/input_error.hpp"
#include "io/input_file.hpp"

namespace arbolito {

namespace {

struct Sample {
    long long id;
    int type;
    Eigen::Vector3d x;
    double r;
    long long parent_id;
    int line;
};

std::string num(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

constexpr double min_radius_um = 1e-3, max_coordinate_um = 1e6;

std::string at_line(int line) { return "line " + std::to_string(line); }

// from_chars rather than strtod: independent of the C locale.
bool parse_number(std::string_view s, double& v) {
    if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
    const char* e = s.data() + s.size();
    const auto [p, ec] = std::from_chars(s.data(), e, v, std::chars_format::general);
    return ec == std::errc() && p == e && std::isfinite(v);
}

std::vector<Sample> read_samples(std::istream& in, const std::string& path) {
    static const char* const names[7] = {"id", "type", "x", "y", "z", "radius", "parent"};
    std::vector<Sample> samples;
    std::unordered_map<long long, int> line_of;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        std::string_view l(text);
        l = l.substr(0, l.find('#'));  // whole-line and trailing comments (small_detailed.swc has the latter)
        std::vector<std::string_view> cols;
        std::size_t i = 0;
        while (true) {
            i = l.find_first_not_of(" \t\r\v\f", i);
            if (i == std::string_view::npos) break;
            const std::size_t j = std::min(l.find_first_of(" \t\r\v\f", i), l.size());
            cols.push_back(l.substr(i, j - i));
            i = j;
        }
        if (cols.empty()) continue;
        const std::string where = at_line(line);
        if (cols.size() != 7)
            throw InputError(path, where, "expected 7 columns (id type x y z radius parent), found " + std::to_string(cols.size()));
        double v[7];
        for (int c = 0; c < 7; ++c) {
            if (!parse_number(cols[c], v[c]))
                throw InputError(path, where, std::string(names[c]) + " '" + std::string(cols[c]) + "' is not a number");
            const bool integral = c == 0 || c == 1 || c == 6;
            if (integral && (v[c] != std::floor(v[c]) || std::abs(v[c]) > (c == 1 ? INT_MAX : 9e15)))
                throw InputError(path, where, std::string(names[c]) + " '" + std::string(cols[c]) + "' is not an integer");
        }
        Sample s{static_cast<long long>(v[0]), static_cast<int>(v[1]), {v[2], v[3], v[4]}, v[5], static_cast<long long>(v[6]), line};
        if (s.id < 0) throw InputError(path, where, "id " + std::to_string(s.id) + " is negative (ids must be >= 0)");
        if (!(s.r > 0)) throw InputError(path, where, "radius " + num(s.r) + " (every radius must be > 0)");
        // Thinner than any neurite, or farther than a metre: a unit or typing error, and
        // a radius of 1e-310 µm makes conductances of inf (docs/swc.md).
        if (s.r < min_radius_um)
            throw InputError(path, where, "radius " + num(s.r) + " µm is below " + num(min_radius_um) + " µm");
        for (int c = 0; c < 3; ++c)
            if (std::abs(s.x[c]) > max_coordinate_um)
                throw InputError(path, where, std::string(names[2 + c]) + " " + num(s.x[c]) + " µm lies beyond ±" +
                                                  num(max_coordinate_um) + " µm");
        const auto [it, fresh] = line_of.emplace(s.id, line);
        if (!fresh)
            throw InputError(path, where, "duplicate id " + std::to_string(s.id) + " (first on line " + std::to_string(it->second) + ")");
        samples.push_back(s);
    }
    if (in.bad()) throw InputError(path, "", "read error");
    if (samples.empty()) throw InputError(path, "", "no samples");
    return samples;
}

class Reader {
public:
    Reader(const std::string& path, std::vector<Sample> samples) : path_(path), s_(std::move(samples)) {}

    Morphology build() {
        link();
        check_soma();
        Morphology m;
        m.source = path_;
        std::vector<Pending> stack;
        if (soma_.empty()) {
            const auto& ch = children_[root_];
            if (ch.empty()) fail(root_, "the only sample is not a soma sample: no geometry to build");
            for (std::size_t k = ch.size(); k-- > 1;) stack.push_back({0, 0.0, root_, ch[k]});
            stack.push_back({-1, 0.0, root_, ch[0]});
        } else {
            add_soma(m);
            std::vector<std::pair<int, int>> out;  // (first neurite sample, soma sample)
            for (int i : soma_)
                for (int c : children_[i])
                    if (s_[c].type != tag_soma) out.push_back({c, i});
            std::sort(out.begin(), out.end(), [&](auto a, auto b) { return s_[a.first].id < s_[b.first].id; });
            for (std::size_t k = out.size(); k-- > 0;) stack.push_back({0, 0.5, out[k].second, out[k].first, true});
        }
        while (!stack.empty()) {
            const Pending p = stack.back();
            stack.pop_back();
            const std::vector<int> chain = chain_from(p.first);
            Branch b;
            b.parent = p.parent;
            b.parent_x = p.parent_x;
            b.tag = s_[p.first].type;
            std::vector<int> pts;
            if (p.from_soma && chain.size() == 1) {
                // Nothing of its own to draw but one sample: start at the soma sample.
                b.xyz = {s_[p.fork].x, s_[p.first].x};
                b.radius = {s_[p.first].r, s_[p.first].r};
                pts = {p.first, p.first};
            } else {
                if (!p.from_soma) pts.push_back(p.fork);
                pts.insert(pts.end(), chain.begin(), chain.end());
                for (int i : pts) {
                    b.xyz.push_back(s_[i].x);
                    b.radius.push_back(s_[i].r);
                }
            }
            const auto& ch = children_[chain.back()];
            if (ch.empty()) merge_tip(b, pts);
            point_samples_.push_back(pts);
            first_own_.push_back(p.first);
            const int self = static_cast<int>(m.branches.size());
            m.branches.push_back(std::move(b));
            for (std::size_t k = ch.size(); k-- > 0;) stack.push_back({self, 1.0, chain.back(), ch[k]});
        }
        check_lengths(m);
        try {
            validate(m);
        } catch (const std::invalid_argument& e) {
            throw InputError(path_, "", e.what());
        }
        return m;
    }

private:
    struct Pending {
        int parent;
        double parent_x;
        int fork;  // sample the branch starts from (the soma sample when from_soma)
        int first; // its first own sample
        bool from_soma = false;
    };

    [[noreturn]] void fail(int i, const std::string& why) const { throw InputError(path_, at_line(s_[i].line), why); }

    void link() {
        std::unordered_map<long long, int> index;
        for (std::size_t i = 0; i < s_.size(); ++i) index[s_[i].id] = static_cast<int>(i);
        parent_.assign(s_.size(), -1);
        children_.assign(s_.size(), {});
        std::vector<int> roots;
        for (std::size_t i = 0; i < s_.size(); ++i) {
            if (s_[i].parent_id == -1) {
                roots.push_back(static_cast<int>(i));
                continue;
            }
            const auto it = index.find(s_[i].parent_id);
            if (it == index.end()) fail(static_cast<int>(i), "parent " + std::to_string(s_[i].parent_id) + " does not exist");
            parent_[i] = it->second;
            children_[it->second].push_back(static_cast<int>(i));
        }
        if (roots.empty()) throw InputError(path_, "", "no root (no sample has parent -1)");
        if (roots.size() > 1) {
            std::string ids;
            const std::size_t shown = std::min<std::size_t>(roots.size(), 6);
            for (std::size_t k = 0; k < shown; ++k)
                ids += (k == 0 ? "" : k + 1 == roots.size() ? " and " : ", ") + std::to_string(s_[roots[k]].id);
            if (shown < roots.size()) ids += ", ...";
            fail(roots[1], std::to_string(roots.size()) + " roots (samples " + ids + "): a cell needs exactly one");
        }
        root_ = roots[0];
        for (auto& ch : children_)
            std::sort(ch.begin(), ch.end(), [&](int a, int b) { return s_[a].id < s_[b].id; });

        std::vector<char> reached(s_.size(), 0);
        std::vector<int> todo{root_};
        reached[root_] = 1;
        while (!todo.empty()) {
            const int i = todo.back();
            todo.pop_back();
            for (int c : children_[i]) reached[c] = 1, todo.push_back(c);
        }
        for (std::size_t u = 0; u < s_.size(); ++u) {
            if (reached[u]) continue;
            // Not reachable from the only root, so following parents must come round to a cycle.
            std::vector<char> seen(s_.size(), 0);
            int i = static_cast<int>(u);
            while (!seen[i]) seen[i] = 1, i = parent_[i];
            fail(i, "sample " + std::to_string(s_[i].id) + " is on a cycle of parent links (it never reaches the root)");
        }
    }

    void check_soma() {
        for (std::size_t i = 0; i < s_.size(); ++i)
            if (s_[i].type == tag_soma) soma_.push_back(static_cast<int>(i));
        if (soma_.empty()) return;
        std::sort(soma_.begin(), soma_.end(), [&](int a, int b) { return s_[a].line < s_[b].line; });
        if (s_[root_].type != tag_soma)
            fail(soma_[0], "soma samples are not contiguous: the root (sample " + std::to_string(s_[root_].id) +
                               ") is not a soma sample");
        for (int i : soma_) {
            if (i != root_ && s_[parent_[i]].type != tag_soma)
                fail(i, "soma samples are not contiguous: sample " + std::to_string(s_[i].id) + " has parent " +
                            std::to_string(s_[parent_[i]].id) + " of type " + std::to_string(s_[parent_[i]].type));
            const std::size_t n = soma_children(i).size();
            if (n > (i == root_ ? 2u : 1u))
                fail(i, "the soma branches at sample " + std::to_string(s_[i].id) + " (" + std::to_string(n) +
                            " soma children): soma samples must form one unbranched chain");
        }
    }

    std::vector<int> soma_children(int i) const {
        std::vector<int> out;
        for (int c : children_[i])
            if (s_[c].type == tag_soma) out.push_back(c);
        return out;
    }

    // Rule (b): NeuroMorpho coordinates carry two decimals, so the outer points can sit up to
    // ~0.009 µm off r (pyramidal.swc: 4.4591 for r = 4.46694); hence 1e-3 relative plus 0.01 µm.
    bool three_point_soma(int a, int b) const {
        const Sample& c = s_[root_];
        const double tol = 1e-3 * c.r + 0.01;
        const Eigen::Vector3d da = s_[a].x - c.x, db = s_[b].x - c.x;
        return std::abs(da.norm() - c.r) <= tol && std::abs(db.norm() - c.r) <= tol && (da + db).norm() <= 2 * tol &&
               std::abs(s_[a].r - c.r) <= tol && std::abs(s_[b].r - c.r) <= tol;
    }

    void add_soma(Morphology& m) {
        Branch b;
        b.parent = -1;
        b.tag = tag_soma;
        const Sample& c = s_[root_];
        const std::vector<int> sc = soma_children(root_);
        std::vector<int> pts;
        const bool three = soma_.size() == 3 && sc.size() == 2 && three_point_soma(sc[0], sc[1]);
        if (soma_.size() == 1 || three) {
            // A cylinder of length 2r and radius r: the sphere's membrane area, 4πr².
            const Eigen::Vector3d u = three ? Eigen::Vector3d((s_[sc[1]].x - s_[sc[0]].x).normalized()) : Eigen::Vector3d(0, 1, 0);
            b.xyz = {c.x - c.r * u, c.x + c.r * u};
            b.radius = {c.r, c.r};
            pts = {root_, root_};
        } else {
            if (sc.size() == 2) {
                pts = soma_chain(sc[0]);
                std::reverse(pts.begin(), pts.end());
            }
            pts.push_back(root_);
            if (!sc.empty()) {
                const auto rest = soma_chain(sc.back());
                pts.insert(pts.end(), rest.begin(), rest.end());
            }
            for (int i : pts) {
                b.xyz.push_back(s_[i].x);
                b.radius.push_back(s_[i].r);
            }
        }
        point_samples_.push_back(pts);
        first_own_.push_back(root_);
        m.branches.push_back(std::move(b));
    }

    std::vector<int> soma_chain(int i) const {
        std::vector<int> out{i};
        for (auto ch = soma_children(i); !ch.empty(); ch = soma_children(ch[0])) out.push_back(ch[0]);
        return out;
    }

    std::vector<int> chain_from(int i) const {
        std::vector<int> out{i};
        while (children_[i].size() == 1 && s_[children_[i][0]].type == s_[i].type) out.push_back(i = children_[i][0]);
        return out;
    }

    // A branch that ends in samples coincident with the one before (a zero-length segment
    // at a tip) would end in a CV of no length under every_segment, whose conductance to
    // its neighbour is infinite: the run turned to NaN at its first step. Of the same
    // radius the segment is nothing (no length, area or volume): merged, the sample
    // dropped. With a radius step it would be an end face of area but no length: refused.
    void merge_tip(Branch& b, std::vector<int>& pts) {
        while (b.xyz.size() > 2 && b.xyz.back() == b.xyz[b.xyz.size() - 2]) {
            const int last = pts.back(), before = pts[pts.size() - 2];
            if (b.radius.back() != b.radius[b.radius.size() - 2])
                fail(last, "sample " + std::to_string(s_[last].id) + " ends its branch at the position of sample " +
                               std::to_string(s_[before].id) + ", with another radius (" + num(s_[before].r) + " to " +
                               num(s_[last].r) + " µm): a zero-length segment at a tip (remove the sample, or give it "
                               "its parent's radius)");
            if (merged_tips_++ == 0) first_merged_line_ = s_[last].line;
            b.xyz.pop_back();
            b.radius.pop_back();
            pts.pop_back();
        }
    }

    void check_lengths(const Morphology& m) const {
        int n_zero = 0, first_line = 0;
        for (std::size_t b = 0; b < m.branches.size(); ++b) {
            const auto& br = m.branches[b];
            const auto& pts = point_samples_[b];
            if (!(br.length() > 0))
                fail(first_own_[b], "branch from sample " + std::to_string(s_[first_own_[b]].id) + " to sample " +
                                 std::to_string(s_[pts.back()].id) + " has zero length");
            for (std::size_t k = 1; k < br.xyz.size(); ++k)
                if (br.xyz[k] == br.xyz[k - 1] && n_zero++ == 0) first_line = s_[pts[k]].line;
        }
        if (n_zero > 0)
            spdlog::warn("{}:line {}: {} zero-length segment{} (coincident consecutive samples); kept", path_, first_line, n_zero,
                         n_zero == 1 ? "" : "s");
        if (merged_tips_ > 0)
            spdlog::warn("{}:line {}: {} zero-length segment{} at a branch tip (a sample where its parent is, of the same "
                         "radius); merged into the parent",
                         path_, first_merged_line_, merged_tips_, merged_tips_ == 1 ? "" : "s");
    }

    const std::string& path_;
    std::vector<Sample> s_;
    std::vector<int> parent_;
    std::vector<std::vector<int>> children_;  // by increasing id
    std::vector<int> soma_;                   // in file order
    int root_ = -1;
    std::vector<std::vector<int>> point_samples_;  // per branch, the sample behind each point (for messages)
    std::vector<int> first_own_;                   // per branch, its first own sample (for messages)
    int merged_tips_ = 0, first_merged_line_ = 0;  // zero-length tip segments merged (merge_tip)
};

}  // namespace

Morphology parse_swc(const std::string& text, const std::string& path) {
    std::istringstream in(text);
    return Reader(path, read_samples(in, path)).build();
}

Morphology read_swc(const std::string& path) { return parse_swc(read_input_file(path, "SWC file"), path); }

}  // namespace arbolito
