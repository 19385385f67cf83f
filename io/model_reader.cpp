#include "io/model_reader.hpp"

#include <cmath>
#include <filesystem>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/cell_builders.hpp"
#include "model/memory_estimate.hpp"
#include "model/network_builders.hpp"
#include "model/run_settings.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/json_scan.hpp"
#include "io/model_overrides.hpp"
#include "io/swc.hpp"
#include "mechanisms/catalogue.hpp"

namespace arbolito {

namespace {

using json = nlohmann::json;

// Walks a JSON document, naming the key path of every value it complains about.
class Reader {
public:
    Reader(std::string file, ReadFor purpose = ReadFor::description) : file_(std::move(file)), purpose_(purpose) {}
    ReadFor purpose() const { return purpose_; }

    [[noreturn]] void fail(const std::string& key, const std::string& why) const { throw InputError(file_, key, why); }

    void only_keys(const json& j, const std::string& path, std::initializer_list<const char*> allowed) const {
        if (!j.is_object()) fail(path, "expected an object");
        for (auto it = j.begin(); it != j.end(); ++it) {
            bool ok = false;
            for (const char* a : allowed) ok |= it.key() == a;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                fail(join(path, it.key()), "unknown key (expected one of: " + list + ")");
            }
        }
    }
    static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
    static std::string at(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

    double number(const json& j, const std::string& path) const {
        if (!j.is_number()) fail(path, "expected a number, got " + std::string(j.type_name()));
        const double v = j.get<double>();
        if (!std::isfinite(v)) fail(path, "must be finite");
        return v;
    }
    double number(const json& obj, const std::string& path, const char* key, double def) const {
        return obj.contains(key) ? number(obj[key], join(path, key)) : def;
    }
    double positive(const json& obj, const std::string& path, const char* key, double def) const {
        const double v = number(obj, path, key, def);
        if (!(v > 0)) fail(join(path, key), "must be > 0, got " + fmt(v));
        return v;
    }
    long integer(const json& j, const std::string& path, long lo, long hi) const {
        if (!j.is_number_integer()) fail(path, "expected an integer, got " + std::string(j.type_name()));
        const long v = j.get<long>();
        if (v < lo || v > hi) fail(path, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(v));
        return v;
    }
    std::string string(const json& j, const std::string& path) const {
        if (!j.is_string()) fail(path, "expected a string, got " + std::string(j.type_name()));
        return j.get<std::string>();
    }
    const json& array(const json& j, const std::string& path) const {
        if (!j.is_array()) fail(path, "expected an array, got " + std::string(j.type_name()));
        return j;
    }
    const json& require(const json& obj, const std::string& path, const char* key) const {
        if (!obj.contains(key)) fail(join(path, key), "missing");
        return obj[key];
    }
    static std::string fmt(double v) { std::ostringstream s; s << v; return s.str(); }
    const std::string& file() const { return file_; }

    // The files read besides the model file (SWC), each once.
    void read_file(const std::string& path, const std::string& role) const {
        for (const InputFile& f : files_)
            if (f.path == path) return;
        files_.push_back({path, role});
    }
    const std::vector<InputFile>& files() const { return files_; }

private:
    std::string file_;
    ReadFor purpose_;
    mutable std::vector<InputFile> files_;
};

int region_tag(const Reader& r, const json& j, const std::string& path) {
    if (j.is_number_integer()) return static_cast<int>(r.integer(j, path, 0, 1000000));
    const std::string s = r.string(j, path);
    if (s == "all") return -1;
    if (s == "soma") return tag_soma;
    if (s == "axon") return tag_axon;
    if (s == "dend") return tag_dend;
    if (s == "apic") return tag_apic;
    r.fail(path, "unknown region '" + s + "' (all, soma, axon, dend, apic, or an SWC type number)");
}

// What a probe records: "v", "<density mechanism>.<state>", "<density mechanism>.<current>"
// ("i", its whole current; "i<ion>", its current of an ion it writes; its nonspecific
// current's name where that is the whole) or "<ion>.<e|xi|xo|i>".
ProbeVariable probe_variable(const Reader& r, const json& j, const std::string& path) {
    ProbeVariable v;
    v.name = r.string(j, path);
    if (v.name == "v") return v;
    const auto dot = v.name.find('.');
    const std::string head = v.name.substr(0, dot), tail = dot == std::string::npos ? "" : v.name.substr(dot + 1);
    if (const MechInfo* info = find_mechanism(head)) {
        if (info->kind != MechKind::density)
            r.fail(path, "'" + head + "' is a point mechanism: probes record density mechanisms' states and currents");
        v.mechanism = head;
        std::string states;
        for (std::size_t k = 0; k < info->states.size(); ++k) {
            if (tail == info->states[k].name) {
                v.kind = ProbeVariable::mech_state;
                v.state = static_cast<int>(k);
                return v;
            }
            states += (states.empty() ? "" : ", ") + std::string(info->states[k].name);
        }
        std::string currents;
        for (const MechCurrent& c : mechanism_currents(*info)) {
            if (tail == c.name) {
                v.kind = ProbeVariable::mech_current;
                v.state = c.which;
                return v;
            }
            currents += (currents.empty() ? "" : ", ") + c.name;
        }
        r.fail(path, "'" + head + "' has no state or current '" + tail + "' (states: " +
                         (states.empty() ? "none" : states) + "; currents: " + currents + ")");
    }
    if (ion_valence(head) != 0) {
        v.ion = head;
        if (tail == "e") v.kind = ProbeVariable::ion_e;
        else if (tail == "xi") v.kind = ProbeVariable::ion_xi;
        else if (tail == "xo") v.kind = ProbeVariable::ion_xo;
        else if (tail == "i") v.kind = ProbeVariable::ion_i;
        else r.fail(path, "ion " + head + " has no value '" + tail + "' (e, xi, xo, i)");
        return v;
    }
    r.fail(path, "unknown variable '" + v.name + "' (v, <mechanism>.<state>, <mechanism>.<current>, or <ion>.e, .xi, .xo, .i)");
}

// A SONATA population name: it names an HDF5 group and the default output file
// (<name>.h5), so it must be a plain name: letters, digits, '_', '-', '.', not only dots,
// at most 128 characters.
std::string population_name(const Reader& r, const json& j, const std::string& path) {
    const std::string s = r.string(j, path);
    if (s.empty()) r.fail(path, "empty name (it names the SONATA population and the output file)");
    if (s.size() > 128) r.fail(path, "longer than 128 characters");
    for (const char ch : s)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.'))
            r.fail(path, "'" + s + "' holds '" + std::string(1, ch) + "': a population name takes letters, digits, '_', '-' and '.'");
    if (s.find_first_not_of('.') == std::string::npos) r.fail(path, "'" + s + "' is not a name (it names a file and an HDF5 group)");
    return s;
}

std::map<std::string, double> param_map(const Reader& r, const json& j, const std::string& path) {
    if (!j.is_object()) r.fail(path, "expected an object of parameter values");
    std::map<std::string, double> out;
    for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = r.number(it.value(), Reader::join(path, it.key()));
    return out;
}

std::vector<double> mech_params(const Reader& r, const json& obj, const std::string& path, const std::string& mech) {
    const std::string ppath = Reader::join(path, "params");
    const auto given = obj.contains("params") ? param_map(r, obj["params"], ppath) : std::map<std::string, double>{};
    try {
        return resolve_params(mech, given);
    } catch (const std::invalid_argument& e) {
        r.fail(ppath, e.what());
    }
}

// Parameters that are no finite number or below the least value the mechanism's
// description allows (conductances and time constants: 0).
void check_bounds(const Reader& r, const MechInfo& info, const std::vector<double>& params, const std::string& path) {
    for (std::size_t k = 0; k < params.size(); ++k)
        if (!std::isfinite(params[k]))
            r.fail(Reader::join(path, "params." + std::string(info.params[k].name)), "must be a finite number");
        else if (params[k] < info.params[k].min)
            r.fail(Reader::join(path, "params." + std::string(info.params[k].name)), "must be >= " + Reader::fmt(info.params[k].min));
}

Location location(const Reader& r, const json& j, const std::string& path, const Morphology& m) {
    if (j.is_string()) {
        if (j.get<std::string>() != "soma") r.fail(path, "unknown location '" + j.get<std::string>() + "' (\"soma\" or {\"branch\": b, \"x\": x})");
        if (m.soma() < 0) r.fail(path, "the cell has no soma (" + m.source + ")");
        return {0, 0.5};
    }
    r.only_keys(j, path, {"branch", "x"});
    Location l;
    l.branch = static_cast<int>(r.integer(r.require(j, path, "branch"), Reader::join(path, "branch"), 0, 1L << 30));
    if (l.branch >= static_cast<int>(m.branches.size()))
        r.fail(Reader::join(path, "branch"), "location off the cell: branch " + std::to_string(l.branch) + " but the cell has " +
                                                 std::to_string(m.branches.size()) + " branches");
    l.x = r.number(r.require(j, path, "x"), Reader::join(path, "x"));
    if (l.x < 0 || l.x > 1) r.fail(Reader::join(path, "x"), "location off the cell: x must be in [0, 1], got " + Reader::fmt(l.x));
    return l;
}

std::array<double, 2> pair(const Reader& r, const json& obj, const std::string& path, const char* key, std::array<double, 2> def) {
    if (!obj.contains(key)) return def;
    const json& a = r.array(obj[key], Reader::join(path, key));
    if (a.size() != 2) r.fail(Reader::join(path, key), "expected [first, last]");
    return {r.number(a[0], Reader::at(Reader::join(path, key), 0)), r.number(a[1], Reader::at(Reader::join(path, key), 1))};
}

// Rounds to the nearest float. The volatile matters: GCC 12 at -O2 vectorised the plain
// double→float→double round trip over a point's coordinates into a no-op for x and y.
double to_float32(double v) {
    volatile float f = static_cast<float>(v);
    return f;
}

// The morphology of one cell; `gid` seeds generated ones.
std::shared_ptr<const Morphology> morphology(const Reader& r, const json& j, const std::string& path, std::uint64_t gid,
                                             const std::filesystem::path& dir) {
    if (!j.is_object()) r.fail(path, "expected an object with \"swc\" or \"builder\"");
    if (j.contains("swc")) {
        r.only_keys(j, path, {"swc", "neuron_float32"});
        const std::string key = Reader::join(path, "swc");
        const std::string name = r.string(j["swc"], key);
        if (name.find('\0') != std::string::npos) r.fail(key, "the path holds a NUL byte");
        std::filesystem::path p = name;
        if (p.is_relative()) p = dir / p;
        if (!std::filesystem::exists(p)) r.fail(key, "file not found: " + p.string());
        // Not a regular file (a directory, /dev/zero) or too large: named with the key.
        try {
            check_input_file(p.string(), "SWC file");
        } catch (const InputError& e) {
            r.fail(key, e.what());
        }
        Morphology m = read_swc(p.string());
        r.read_file(p.string(), "the SWC file of " + key);
        if (j.contains("neuron_float32")) {
            if (!j["neuron_float32"].is_boolean()) r.fail(Reader::join(path, "neuron_float32"), "expected true or false");
            // NEURON keeps pt3d points and diameters in float32: rounding ours the same
            // way lets validation runs compare the two below float32's resolution.
            if (j["neuron_float32"].get<bool>())
                for (auto& b : m.branches) {
                    for (auto& x : b.xyz)
                        for (int k = 0; k < 3; ++k) x[k] = to_float32(x[k]);
                    for (auto& rad : b.radius) rad = to_float32(2 * rad) / 2;
                }
        }
        return std::make_shared<Morphology>(std::move(m));
    }
    const std::string b = r.string(r.require(j, path, "builder"), Reader::join(path, "builder"));
    if (b == "ball_and_stick") {
        r.only_keys(j, path, {"builder", "soma_diameter", "dend_length", "dend_radius"});
        const double soma = r.positive(j, path, "soma_diameter", 12.6157), length = r.positive(j, path, "dend_length", 200.0),
                     radius = r.positive(j, path, "dend_radius", 0.5);
        try {
            return std::make_shared<Morphology>(ball_and_stick(soma, length, radius));
        } catch (const std::invalid_argument& e) {  // sizes that vanish in rounding (1e-300)
            r.fail(path, e.what());
        }
    }
    if (b == "busyring") {
        r.only_keys(j, path, {"builder", "depth", "branch-probs", "compartments", "lengths"});
        BusyringParams bp;
        if (j.contains("depth")) bp.depth = static_cast<unsigned>(r.integer(j["depth"], Reader::join(path, "depth"), 1, 64));
        bp.branch_probs = pair(r, j, path, "branch-probs", bp.branch_probs);
        bp.compartments = pair(r, j, path, "compartments", bp.compartments);
        bp.lengths = pair(r, j, path, "lengths", bp.lengths);
        try {
            return std::make_shared<Morphology>(busyring_cell(gid, bp));
        } catch (const std::invalid_argument& e) {
            r.fail(path, e.what());
        }
    }
    r.fail(Reader::join(path, "builder"), "unknown builder '" + b + "' (ball_and_stick, busyring)");
}

// The most CVs a discretisation policy may cut one branch into.
constexpr long max_pieces_per_branch = 1000000;

// A zero-area value ("keep" or "fold") at key `path`: a cell's discretization and busyring's network.
CvPolicy::ZeroArea zero_area_value(const Reader& r, const json& j, const std::string& path) {
    const std::string z = r.string(j, path);
    if (z == "fold") return CvPolicy::fold;
    if (z != "keep") r.fail(path, "unknown value '" + z + "' (keep, fold)");
    return CvPolicy::keep;
}

CvPolicy policy(const Reader& r, const json& j, const std::string& path) {
    CvPolicy p;
    r.only_keys(j, path, {"policy", "n", "extent", "length", "zero_area", "coalesce_synapses"});
    const std::string kind = r.string(r.require(j, path, "policy"), Reader::join(path, "policy"));
    if (kind == "nseg" || kind == "per_branch") {
        p.kind = CvPolicy::nseg;
        p.n = j.contains("n") ? static_cast<int>(r.integer(j["n"], Reader::join(path, "n"), 1, max_pieces_per_branch)) : 1;
    } else if (kind == "max_extent") {
        p.kind = CvPolicy::max_extent;
        p.extent = r.positive(j, path, "extent", 20.0);
    } else if (kind == "every_segment") {
        p.kind = CvPolicy::every_segment;
    } else if (kind == "odd_per_length") {
        p.kind = CvPolicy::odd_per_length;
        p.extent = r.positive(j, path, "length", 40.0);
    } else {
        r.fail(Reader::join(path, "policy"), "unknown policy '" + kind + "' (nseg, per_branch, max_extent, every_segment, odd_per_length)");
    }
    if (j.contains("zero_area")) p.zero_area = zero_area_value(r, j["zero_area"], Reader::join(path, "zero_area"));
    if (j.contains("coalesce_synapses")) {
        if (!j["coalesce_synapses"].is_boolean()) r.fail(Reader::join(path, "coalesce_synapses"), "expected true or false");
        p.coalesce_synapses = j["coalesce_synapses"].get<bool>();
    }

    return p;
}

// One cell description for `gid` (the morphology may be shared among a "count" of cells).
CellDesc cell(const Reader& r, const json& j, const std::string& path, std::uint64_t gid,
              std::shared_ptr<const Morphology> morph) {
    CellDesc c;
    c.morphology = morph;
    const Morphology& m = *morph;
    if (j.contains("discretization")) {
        const std::string dp = Reader::join(path, "discretization");
        c.policy = policy(r, j["discretization"], dp);
        // As many pieces per branch as nseg's n may have, at most: an extent of 1e-300
        // would ask for more CVs than there are bytes.
        if (c.policy.kind == CvPolicy::max_extent || c.policy.kind == CvPolicy::odd_per_length)
            for (std::size_t b = 0; b < m.branches.size(); ++b) {
                const double pieces = (c.policy.kind == CvPolicy::odd_per_length ? 2.0 : 1.0) * m.branches[b].length() / c.policy.extent;
                if (pieces > max_pieces_per_branch)
                    r.fail(Reader::join(dp, c.policy.kind == CvPolicy::max_extent ? "extent" : "length"), "cuts branch " + std::to_string(b) + " (" + Reader::fmt(m.branches[b].length()) +
                                                           " µm) into " + Reader::fmt(pieces) + " CVs, more than " +
                                                           Reader::fmt(max_pieces_per_branch));
            }
    }
    c.v_init = r.number(j, path, "v_init", -65.0);
    c.cm[-1] = r.positive(j, path, "cm", 1.0);
    c.ra[-1] = r.positive(j, path, "ra", 35.4);
    if (j.contains("regions")) {
        const json& regs = j["regions"];
        const std::string rp = Reader::join(path, "regions");
        if (!regs.is_object()) r.fail(rp, "expected an object of region: {cm, ra}");
        for (auto it = regs.begin(); it != regs.end(); ++it) {
            const std::string kp = Reader::join(rp, it.key());
            const int tag = region_tag(r, json(it.key()), kp);
            r.only_keys(it.value(), kp, {"cm", "ra"});
            if (it.value().contains("cm")) c.cm[tag] = r.positive(it.value(), kp, "cm", 1.0);
            if (it.value().contains("ra")) c.ra[tag] = r.positive(it.value(), kp, "ra", 35.4);
        }
    }
    if (j.contains("paint")) {
        const std::string pp = Reader::join(path, "paint");
        const json& a = r.array(j["paint"], pp);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string ip = Reader::at(pp, i);
            r.only_keys(a[i], ip, {"region", "mechanism", "params"});
            Paint p;
            p.tag = a[i].contains("region") ? region_tag(r, a[i]["region"], Reader::join(ip, "region")) : -1;
            p.mechanism = r.string(r.require(a[i], ip, "mechanism"), Reader::join(ip, "mechanism"));
            const MechInfo* info = find_mechanism(p.mechanism);
            if (!info) r.fail(Reader::join(ip, "mechanism"), "unknown mechanism '" + p.mechanism + "'");
            if (info->kind != MechKind::density) r.fail(Reader::join(ip, "mechanism"), p.mechanism + " is a point mechanism: use \"place\"");
            p.params = mech_params(r, a[i], ip, p.mechanism);
            check_bounds(r, *info, p.params, ip);
            c.paints.push_back(std::move(p));
        }
    }
    if (j.contains("place")) {
        const std::string pp = Reader::join(path, "place");
        const json& a = r.array(j["place"], pp);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string ip = Reader::at(pp, i);
            r.only_keys(a[i], ip, {"location", "mechanism", "params"});
            Placement p;
            p.where = location(r, r.require(a[i], ip, "location"), Reader::join(ip, "location"), m);
            p.mechanism = r.string(r.require(a[i], ip, "mechanism"), Reader::join(ip, "mechanism"));
            const MechInfo* info = find_mechanism(p.mechanism);
            if (!info) r.fail(Reader::join(ip, "mechanism"), "unknown mechanism '" + p.mechanism + "'");
            if (info->kind == MechKind::density) r.fail(Reader::join(ip, "mechanism"), p.mechanism + " is a density mechanism: use \"paint\"");
            p.params = mech_params(r, a[i], ip, p.mechanism);
            check_bounds(r, *info, p.params, ip);
            (info->kind == MechKind::synapse ? c.synapses : c.stimuli).push_back(std::move(p));
        }
    }
    if (j.contains("detectors")) {
        const std::string dp = Reader::join(path, "detectors");
        const json& a = r.array(j["detectors"], dp);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string ip = Reader::at(dp, i);
            r.only_keys(a[i], ip, {"location", "threshold"});
            c.detectors.push_back({location(r, r.require(a[i], ip, "location"), Reader::join(ip, "location"), m),
                                   r.number(a[i], ip, "threshold", -10.0)});
        }
    }
    if (j.contains("ions")) {
        const std::string ip0 = Reader::join(path, "ions");
        const json& a = r.array(j["ions"], ip0);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string ip = Reader::at(ip0, i);
            r.only_keys(a[i], ip, {"ion", "region", "e", "xi", "xo"});
            IonSetting s;
            s.ion = r.string(r.require(a[i], ip, "ion"), Reader::join(ip, "ion"));
            if (ion_valence(s.ion) == 0)
                r.fail(Reader::join(ip, "ion"), "unknown ion '" + s.ion + "' (na, k, ca, or one a mechanism uses)");
            s.tag = a[i].contains("region") ? region_tag(r, a[i]["region"], Reader::join(ip, "region")) : -1;
            if (a[i].contains("e")) s.e = r.number(a[i]["e"], Reader::join(ip, "e"));
            if (a[i].contains("xi")) s.xi = r.positive(a[i], ip, "xi", 1.0);
            if (a[i].contains("xo")) s.xo = r.positive(a[i], ip, "xo", 1.0);
            c.ions.push_back(std::move(s));
        }
    }
    if (j.contains("probes")) {
        const std::string pp = Reader::join(path, "probes");
        const json& a = r.array(j["probes"], pp);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string ip = Reader::at(pp, i);
            r.only_keys(a[i], ip, {"location", "all_cvs", "variable"});
            Probe p;
            if (a[i].contains("variable")) p.variable = probe_variable(r, a[i]["variable"], Reader::join(ip, "variable"));
            if (a[i].contains("all_cvs")) {
                if (!a[i]["all_cvs"].is_boolean()) r.fail(Reader::join(ip, "all_cvs"), "expected true or false");
                p.all_cvs = a[i]["all_cvs"].get<bool>();
            }
            if (!p.all_cvs) p.where = location(r, r.require(a[i], ip, "location"), Reader::join(ip, "location"), m);
            c.probes.push_back(p);
        }
    }
    (void)gid;
    return c;
}

// Refuses, naming `key`, a model whose description alone (cells, morphologies,
// connections: what this reader is about to build) cannot fit in this machine's memory;
// `run` checks the whole run's estimate once the model is read (model/memory_estimate).
void require_room(const Reader& r, const std::string& key, const ModelSize& s) {
    const MemoryEstimate e = estimate_memory(s);
    const double available = available_memory_bytes();
    std::string why = memory_shortfall(e.model_bytes, available, s);
    if (!why.empty()) r.fail(key, "the model's description " + why);
    // Read to run: the run's estimate (its layout's lanes unknown here: none, the least).
    if (r.purpose() == ReadFor::run && !(why = memory_shortfall(e.run_bytes, available, s)).empty())
        r.fail(key, "the run " + why);
}

// The most events one regular or Poisson generator may make (80 MB of times).
constexpr double max_generator_events = 1e7;

std::vector<double> generator_times(const Reader& r, const json& j, const std::string& path, double tfinal) {
    const std::string kind = r.string(r.require(j, path, "kind"), Reader::join(path, "kind"));
    std::vector<double> t;
    if (kind == "explicit") {
        r.only_keys(j, path, {"kind", "target", "synapse", "weight", "times"});
        const std::string tp = Reader::join(path, "times");
        const json& a = r.array(r.require(j, path, "times"), tp);
        t.reserve(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            const double v = r.number(a[i], Reader::at(tp, i));
            if (v < 0) r.fail(Reader::at(tp, i), "event times must be >= 0");
            t.push_back(v);
        }
        std::sort(t.begin(), t.end());
    } else if (kind == "regular" || kind == "poisson") {
        if (kind == "regular") r.only_keys(j, path, {"kind", "target", "synapse", "weight", "start", "stop", "interval"});
        else r.only_keys(j, path, {"kind", "target", "synapse", "weight", "start", "stop", "rate_hz", "seed"});
        const double start = r.number(j, path, "start", 0.0);
        const double stop = r.number(j, path, "stop", tfinal);
        if (start < 0) r.fail(Reader::join(path, "start"), "must be >= 0");
        // The expected number of events, bounded before any is drawn: an interval of
        // 1e-300 or a rate of 1e300 would fill the memory.
        const auto bound = [&](double expected, const char* key) {
            if (expected > max_generator_events)
                r.fail(Reader::join(path, key), "makes about " + Reader::fmt(expected) + " events between " + Reader::fmt(start) +
                                                    " and " + Reader::fmt(stop) + " ms, more than the " +
                                                    Reader::fmt(max_generator_events) + " a generator may make");
        };
        if (kind == "regular") {
            const double dt = r.positive(j, path, "interval", 1.0);
            bound((stop - start) / dt, "interval");
            for (long k = 0; start + k * dt < stop; ++k) t.push_back(start + k * dt);
        } else {
            const double rate = r.positive(j, path, "rate_hz", 10.0);
            bound((stop - start) * rate / 1000.0, "rate_hz");
            const auto seed = j.contains("seed") ? r.integer(j["seed"], Reader::join(path, "seed"), 0, 1L << 62) : 0;
            std::mt19937_64 gen(static_cast<std::uint64_t>(seed));
            std::exponential_distribution<double> isi(rate / 1000.0);  // per ms
            for (double x = start + isi(gen); x < stop; x += isi(gen)) {
                // Far from 0 an interval can vanish in rounding (x + isi == x): stop there.
                if (t.size() >= 2 * max_generator_events) bound(static_cast<double>(t.size()), "rate_hz");
                t.push_back(x);
            }
        }
    } else {
        r.fail(Reader::join(path, "kind"), "unknown generator kind '" + kind + "' (explicit, regular, poisson)");
    }
    return t;
}

// Arbor's busyring configuration (its JSON keys); "dt" and "duration" set the run.
void busyring(const Reader& r, const json& n, Model& m, const json* run) {
    r.only_keys(n, "network", {"builder", "name", "num-cells", "synapses", "unconnected-synapses", "min-delay", "duration",
                               "ring-size", "event-weight", "dt", "depth", "branch-probs", "compartments", "lengths", "record",
                               "spikes", "complex", "stdp", "cpu-group-size", "zero-area", "coalesce-synapses"});
    for (const char* k : {"complex", "stdp"})
        if (n.contains(k) && !(n[k].is_boolean() && !n[k].get<bool>()))
            r.fail(Reader::join("network", k), "only the simple cell without STDP is supported (false)");
    for (const char* k : {"dt", "duration"})
        if (n.contains(k) && run && run->contains(k == std::string("dt") ? "dt" : "tfinal"))
            r.fail(Reader::join("network", k), "given twice: here and in \"run\"");
    BusyringNetwork p;
    const auto integer = [&](const char* k, long lo, long hi, long def) {
        return n.contains(k) ? r.integer(n[k], Reader::join("network", k), lo, hi) : def;
    };
    p.num_cells = static_cast<std::uint64_t>(integer("num-cells", 2, 100000000, 1000));
    p.synapses = static_cast<unsigned>(integer("synapses", 1, 1000000, 1));
    // Arbor's ring.cpp places `synapses` unconnected expsyn beside the connected one.
    p.unconnected_synapses = static_cast<unsigned>(integer("unconnected-synapses", 0, 1000000, p.synapses));
    p.ring_size = static_cast<unsigned>(integer("ring-size", 1, 100000000, 10));
    p.min_delay = r.positive(n, "network", "min-delay", 10.0);
    p.event_weight = r.number(n, "network", "event-weight", 0.05);
    if (n.contains("record")) {
        if (!n["record"].is_boolean()) r.fail("network.record", "expected true or false");
        p.record = n["record"].get<bool>();
    }
    if (n.contains("zero-area")) p.zero_area = zero_area_value(r, n["zero-area"], "network.zero-area");
    if (n.contains("coalesce-synapses")) {
        if (!n["coalesce-synapses"].is_boolean()) r.fail("network.coalesce-synapses", "expected true or false");
        p.coalesce_synapses = n["coalesce-synapses"].get<bool>();
    }
    if (n.contains("depth")) p.cell.depth = static_cast<unsigned>(r.integer(n["depth"], "network.depth", 1, 64));
    p.cell.branch_probs = pair(r, n, "network", "branch-probs", p.cell.branch_probs);
    p.cell.compartments = pair(r, n, "network", "compartments", p.cell.compartments);
    p.cell.lengths = pair(r, n, "network", "lengths", p.cell.lengths);
    if (n.contains("dt")) m.run.dt = r.positive(n, "network", "dt", 0.025);
    if (n.contains("duration")) m.run.tfinal = r.positive(n, "network", "duration", 100.0);
    if (p.min_delay < m.run.dt) r.fail("network.min-delay", "shorter than dt (" + Reader::fmt(m.run.dt) + ")");
    try {
        validate_run_settings(m.run, {});
    } catch (const RunSettingError& e) {
        const bool here = e.key == "run.dt" ? n.contains("dt") : e.key == "run.tfinal" && n.contains("duration");
        r.fail(!here ? e.key : e.key == "run.dt" ? "network.dt" : "network.duration", e.reason);
    }
    if (n.contains("name")) m.name = population_name(r, n["name"], "network.name");
    // Sized from the cells' expected shape before any is built: num-cells 1e8 is an
    // error, not bad_alloc; so is a cell of 2^64 sections.
    try {
        busyring_cell(0, p.cell);
    } catch (const std::invalid_argument& e) {
        r.fail("network", e.what());
    }
    // Read to run, every rank draws only the connections onto its own cells, at set-up.
    const ConnectionsDrawn drawn = r.purpose() == ReadFor::run ? ConnectionsDrawn::on_demand : ConnectionsDrawn::now;
    ModelSize size = model_size(m);
    size += busyring_size(p, drawn);
    require_room(r, n.contains("num-cells") ? "network.num-cells" : "network", size);
    try {
        build_busyring(m, p, drawn);
    } catch (const std::invalid_argument& e) {
        r.fail("network", e.what());
    }
}

// The model's "run" settings, checked (validate_run_settings) before anything uses them;
// the connections' delays are checked once they are read.
void read_run_settings(const Reader& r, const json& j, Model& m) {
    if (j.contains("run")) {
        const json& run = j["run"];
        r.only_keys(run, "run", {"dt", "tfinal", "sample_dt", "celsius", "event_rules"});
        m.run.dt = r.number(run, "run", "dt", 0.025);
        m.run.tfinal = r.number(run, "run", "tfinal", 100.0);
        m.run.sample_dt = r.number(run, "run", "sample_dt", std::max(m.run.dt, 0.1));
        m.run.celsius = r.number(run, "run", "celsius", 6.3);
        // hh's rates scale by 3^((celsius - 6.3)/10): below absolute zero or past 1000 °C
        // the value is a typing error, and past ~6,000 °C the scale overflows.
        if (!(m.run.celsius >= -273.15 && m.run.celsius <= 1000))
            r.fail("run.celsius", "must lie in [-273.15, 1000] °C, got " + Reader::fmt(m.run.celsius));
        if (run.contains("event_rules")) {
            const std::string s = r.string(run["event_rules"], "run.event_rules");
            if (s == "arbor") m.run.rules = EventRules::arbor;
            else if (s == "neuron") m.run.rules = EventRules::neuron;
            else r.fail("run.event_rules", "unknown rules '" + s + "' (arbor, neuron)");
        }
    }
    try {
        validate_run_settings(m.run, {});
    } catch (const RunSettingError& e) {
        r.fail(e.key, e.reason);
    }
}

// The "cells" list, each entry `count` times, the model's size checked as they come
// (require_room); busyring's cells are built already (build_model).
void read_cells(const Reader& r, const json& cells, Model& m, const std::filesystem::path& dir) {
    if (cells.empty() && m.cells.empty()) r.fail("cells", "a model needs at least one cell");
    // The size of the cells built so far, added up as they come.
    ModelSize built;
    std::size_t sized = 0;
    const auto size_so_far = [&] {
        for (; sized < m.cells.size(); ++sized)
            built += cell_size(m.cells[sized], sized == 0 || m.cells[sized].morphology != m.cells[sized - 1].morphology);
        return built;
    };
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::string cp = Reader::at("cells", i);
        r.only_keys(cells[i], cp, {"count", "morphology", "discretization", "v_init", "cm", "ra", "regions", "paint", "place",
                                   "ions", "detectors", "probes"});
        const long count = cells[i].contains("count") ? r.integer(cells[i]["count"], Reader::join(cp, "count"), 1, 100000000) : 1;
        const json& mj = r.require(cells[i], cp, "morphology");
        const bool per_gid = mj.is_object() && mj.contains("builder") && mj["builder"] == "busyring";
        std::shared_ptr<const Morphology> shared;
        for (long k = 0; k < count; ++k) {
            const std::uint64_t gid = m.cells.size();
            if (!shared || per_gid) shared = morphology(r, mj, Reader::join(cp, "morphology"), gid, dir);
            m.cells.push_back(cell(r, cells[i], cp, gid, shared));
            // Sized from the first copy before the others are made.
            if (k == 0 && count > 1) {
                ModelSize size = size_so_far();
                size += cell_size(m.cells.back(), per_gid).times(static_cast<double>(count - 1));
                require_room(r, Reader::join(cp, "count"), size);
            }
        }
    }
}

// A connection's or generator's references into the cells: gids, and synapses and
// detectors by index; a missing one is named with what the model does have.
struct CellRefs {
    const Reader& r;
    const Model& m;
    long n_cells() const { return static_cast<long>(m.cells.size()); }

    std::uint64_t gid(const json& obj, const std::string& p, const char* key) const {
        const std::string kp = Reader::join(p, key);
        const long gid = r.integer(r.require(obj, p, key), kp, 0, std::numeric_limits<long>::max());
        const long nc = n_cells();
        if (gid >= nc)
            r.fail(kp, "no cell with gid " + std::to_string(gid) + " (the model has " + std::to_string(nc) +
                           (nc == 1 ? " cell, gid 0)" : " cells, gids 0 to " + std::to_string(nc - 1) + ")"));
        return static_cast<std::uint64_t>(gid);
    }
    std::uint32_t index(const json& obj, const std::string& p, const char* key, std::uint64_t gid, std::size_t n,
                        const char* what, const char* gid_key) const {
        const std::string cell = "cell " + std::to_string(gid);
        if (n == 0) r.fail(Reader::join(p, gid_key), cell + " has no " + what + "s");
        const long i = obj.contains(key) ? r.integer(obj[key], Reader::join(p, key), 0, std::numeric_limits<long>::max()) : 0;
        if (i >= static_cast<long>(n))
            r.fail(Reader::join(p, key), cell + " has no " + what + " " + std::to_string(i) + " (it has " +
                                             (n == 1 ? std::string("one, index 0)")
                                                     : std::to_string(n) + ", indices 0 to " + std::to_string(n - 1) + ")"));
        return static_cast<std::uint32_t>(i);
    }
    std::uint32_t synapse(const json& obj, const std::string& p, std::uint64_t gid) const {
        return index(obj, p, "synapse", gid, m.cells[gid].n_synapses(), "synapse", "target");
    }
};

// The "connections" list, then the run settings' rules again with their delays.
void read_connections(const Reader& r, const json& list, Model& m) {
    const CellRefs refs{r, m};
    const json& a = r.array(list, "connections");
    m.connections.reserve(m.connections.size() + a.size());  // no growth: the peak while read is the list once
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string p = Reader::at("connections", i);
        r.only_keys(a[i], p, {"source", "detector", "target", "synapse", "weight", "delay"});
        Connection c;
        c.source = refs.gid(a[i], p, "source");
        c.detector = refs.index(a[i], p, "detector", c.source, m.cells[c.source].detectors.size(), "detector", "source");
        c.target = refs.gid(a[i], p, "target");
        c.synapse = refs.synapse(a[i], p, c.target);
        c.weight = r.number(r.require(a[i], p, "weight"), Reader::join(p, "weight"));
        c.delay = r.number(r.require(a[i], p, "delay"), Reader::join(p, "delay"));
        m.connections.push_back(c);
    }
    try {
        validate_run_settings(m.run, m.connections);
    } catch (const RunSettingError& e) {
        r.fail(e.key, e.reason);
    }
}

// The "generators" list.
void read_generators(const Reader& r, const json& list, Model& m) {
    const CellRefs refs{r, m};
    const json& a = r.array(list, "generators");
    m.generators.reserve(m.generators.size() + a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string p = Reader::at("generators", i);
        Generator g;
        if (!a[i].is_object()) r.fail(p, "expected an object");
        g.target = refs.gid(a[i], p, "target");
        g.synapse = refs.synapse(a[i], p, g.target);
        g.weight = r.number(r.require(a[i], p, "weight"), Reader::join(p, "weight"));
        g.times = generator_times(r, a[i], p, m.run.tfinal);
        m.generators.push_back(std::move(g));
    }
}

// The ring network's connections and kick over the cells read (network.builder "ring").
void ring_network(const Reader& r, const json& n, const std::string& builder, Model& m) {
    r.only_keys(n, "network", {"builder", "weight", "delay", "kick_time", "kick_weight"});
    if (builder != "ring") r.fail("network.builder", "unknown network builder '" + builder + "' (ring, busyring)");
    const double delay = r.positive(n, "network", "delay", 5.0);
    if (delay < m.run.dt) r.fail("network.delay", "shorter than dt (" + Reader::fmt(m.run.dt) + ")");
    try {
        build_ring(m, r.number(n, "network", "weight", 0.05), delay, r.number(n, "network", "kick_time", 1.0),
                   r.number(n, "network", "kick_weight", 0.1));
    } catch (const std::invalid_argument& e) {
        r.fail("network", e.what());
    }
}

// The model from its parsed document (parse_model has applied the overrides): its name
// and run settings, its cells (busyring's, or the "cells" list), connections, generators,
// then a ring network's.
Model build_model(const Reader& r, const json& j, const std::string& path) {
    r.only_keys(j, "", {"name", "run", "cells", "connections", "generators", "network"});
    Model m;
    m.source = path;
    m.inputs.push_back({path, "the model file"});
    if (j.contains("name")) m.name = population_name(r, j["name"], "name");
    read_run_settings(r, j, m);
    const std::string net_builder = j.contains("network") && j["network"].is_object() && j["network"].contains("builder")
                                        ? r.string(j["network"]["builder"], "network.builder") : "";
    if (net_builder == "busyring") {
        if (j.contains("cells")) r.fail("cells", "the busyring network builds its own cells: leave \"cells\" out");
        busyring(r, j["network"], m, j.contains("run") ? &j["run"] : nullptr);
    }
    read_cells(r, net_builder == "busyring" ? json::array() : r.array(r.require(j, "", "cells"), "cells"), m,
               std::filesystem::path(path).parent_path());
    if (j.contains("connections")) read_connections(r, j["connections"], m);
    if (j.contains("generators")) read_generators(r, j["generators"], m);
    if (j.contains("network") && net_builder != "busyring") ring_network(r, j["network"], net_builder, m);
    m.inputs.insert(m.inputs.end(), r.files().begin(), r.files().end());
    return m;
}

}  // namespace

Model parse_model(const std::string& text, const std::string& path, const std::vector<std::string>& overrides,
                  ReadFor purpose) {
    Reader r(path, purpose);
    json j;
    // Byte offset -> line number for the messages.
    const auto line_at = [&](std::size_t byte) {
        const std::size_t upto = std::min<std::size_t>(byte, text.size());
        return "line " + std::to_string(1 + std::count(text.begin(), text.begin() + upto, '\n'));
    };
    // Before the document is built: a key given twice is refused, and a document that
    // cannot fit is refused before it takes the memory (model/memory_estimate.hpp).
    const JsonScan scan = scan_json(text, path);
    const double read_bytes = static_cast<double>(text.size()) + scan.document_bytes;
    {
        const double available = available_memory_bytes();
        if (available > 0 && read_bytes > available)
            throw InputError(path, "", "reading the model needs about " + describe_bytes(read_bytes) + " (its " +
                                           describe_bytes(static_cast<double>(text.size())) +
                                           " of JSON parsed) but this machine has " + describe_bytes(available) +
                                           " available");
    }
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        const auto pos = what.find("; ");
        throw InputError(path, line_at(e.byte), "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
    } catch (const json::exception& e) {
        // A number beyond double's range (1e400): nlohmann names the token, not where.
        std::string what = e.what();
        const auto q = what.find('\'');
        const std::string token = q == std::string::npos ? "" : what.substr(q + 1, what.rfind('\'') - q - 1);
        const std::size_t at = token.empty() ? std::string::npos : text.find(token);
        throw InputError(path, at == std::string::npos ? "" : line_at(at),
                         token.empty() ? "invalid JSON: " + what : "number " + token + " is out of range (beyond ±1.8e308)");
    }
    apply_model_overrides(j, overrides);
    try {
        Model m = build_model(r, j, path);
        m.read_bytes = read_bytes;
        return m;
    } catch (const json::exception& e) {
        // Every value is checked before use; this is the net under a check missed.
        throw InputError(path, "", std::string("unusable JSON value: ") + e.what());
    }
}

Model read_model(const std::string& path, const std::vector<std::string>& overrides, ReadFor purpose) {
    Model m = parse_model(read_input_file(path, "model file"), path, overrides, purpose);
#ifdef __GLIBC__
    // The text and its parsed JSON (up to about 10 times the file) are freed now, but glibc
    // keeps the pages, and the set-up's threads allocate from arenas of their own: the run's
    // peak would be both. Hand them back.
    malloc_trim(0);
#endif
    return m;
}

}  // namespace arbolito
