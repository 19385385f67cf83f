// A deterministic fuzzer for the SWC and model readers, built with any compiler and run
// by ctest for a fixed number of inputs (tests/fuzz.cmake): seeds from tests/data and
// examples, mutated by a fixed-seed std::mt19937_64 (byte flips, insertions, deletions,
// repeats, splices and tokens known to hurt parsers: 1e400, nan, -1, huge counts, NUL,
// control bytes) and, for models, JSON-aware edits that keep the document valid. An input that makes the reader throw anything but InputError fails
// the test and is written to the working directory as fuzz-failure-<target>-<n>.
// libFuzzer harnesses beside it (libfuzzer_*.cpp) explore further in clang builds.
//
// usage: fuzz_readers swc|model ITERATIONS SEED_FILE...
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "tests/fuzz/reader_targets.hpp"

namespace {

using arbolito::fuzz::Target;

const std::vector<std::string> tokens = {
    "1e400", "-1e400", "1e308", "1e-300", "nan", "inf", "-1", "0", "-0", "4294967296", "9223372036854775807",
    "18446744073709551616", "100000000", "0.5", "\"\"", "\".\"", "\"a/b\"", "null", "true", "[]", "{}", "[", "]", "{", "}",
    ",", ":", "\"", "\\u0000", "\\", "#", "\n", "\r", "\t", " ", std::string(1, '\0'), "\x1b[31m", "\x7f", "\xff",
    "\"count\": 100000000", "\"num-cells\"", "\"synapses\"", "\"interval\"", "\"rate_hz\"", "\"extent\"", "\"n\"",
    "\"swc\": \"/dev/zero\"", "\"swc\": \".\"", "\"tfinal\"", "\"dt\"", "\"name\"", " -1\n", " 1 1 0 0 0 1 -1\n"};

std::string mutate(std::string s, const std::vector<std::string>& seeds, std::mt19937_64& rng) {
    const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    const int edits = 1 + static_cast<int>(pick(4));
    for (int e = 0; e < edits; ++e) {
        const std::size_t at = pick(s.size() + 1);
        switch (pick(7)) {
            case 0:  // flip a byte
                if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 + pick(255));
                break;
            case 1:  // insert a random byte
                s.insert(at, 1, static_cast<char>(pick(256)));
                break;
            case 2: {  // delete a range
                const std::size_t n = std::min(s.size() - std::min(at, s.size()), 1 + pick(16));
                s.erase(std::min(at, s.size()), n);
                break;
            }
            case 3: {  // repeat a range
                if (s.empty()) break;
                const std::size_t from = pick(s.size()), n = std::min(s.size() - from, 1 + pick(64));
                s.insert(at, s.substr(from, n));
                break;
            }
            case 4:  // a token that hurts parsers
                s.insert(at, tokens[pick(tokens.size())]);
                break;
            case 5: {  // replace a number with a token
                const std::size_t d = s.find_first_of("0123456789", at);
                if (d == std::string::npos) break;
                const std::size_t end = s.find_first_not_of("0123456789.eE+-", d);
                s.replace(d, (end == std::string::npos ? s.size() : end) - d, tokens[pick(11)]);
                break;
            }
            default: {  // splice another seed
                const std::string& o = seeds[pick(seeds.size())];
                const std::size_t from = pick(o.size() + 1);
                s = s.substr(0, at) + o.substr(from, pick(256));
                break;
            }
        }
    }
    return s;
}

// For models: a mutation that keeps the JSON valid, so that the reader's checks of
// values and keys are reached (byte mutations mostly stop at the parser): one value
// somewhere in the document replaced by a value that hurts, or one key removed.
std::string mutate_json(const std::string& text, std::mt19937_64& rng) {
    using json = nlohmann::json;
    static const std::vector<json> values = {
        json(1e308), json(-1), json(0), json(1e-300), json(100000000), json(4294967296LL), json(-9223372036854775807LL),
        json(18446744073709551615ULL), json(""), json("."), json("a/b"), json("\x1b[2J"), json(std::string("a\0b", 3)),
        json::array(), json::object(), json(nullptr), json(true), json(0.5), json(1e6), json(65), json::array({0, 1e308})};
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) return text;
    const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    const int edits = 1 + static_cast<int>(pick(3));
    for (int e = 0; e < edits; ++e) {
        json* at = &doc;
        // Walk down a random path; stop at a leaf or by chance.
        while ((at->is_object() || at->is_array()) && !at->empty() && pick(4) != 0) {
            json* child = nullptr;
            if (at->is_array()) {
                child = &(*at)[pick(at->size())];
            } else {
                auto it = at->begin();
                std::advance(it, static_cast<long>(pick(at->size())));
                if (pick(8) == 0) {  // drop this key
                    at->erase(it);
                    break;
                }
                child = &it.value();
            }
            at = child;
        }
        *at = values[pick(values.size())];
    }
    return doc.dump();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: fuzz_readers swc|model ITERATIONS SEED_FILE...\n";
        return 2;
    }
    const std::string which = argv[1];
    const Target target = which == "swc" ? Target::swc : Target::model;
    const long iterations = std::stol(argv[2]);
    std::vector<std::string> seeds, paths;
    for (int i = 3; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        seeds.push_back(ss.str());
        paths.push_back(argv[i]);
    }
    spdlog::set_level(spdlog::level::off);  // readers' warnings (e.g. SWC repairs) are not the subject
    std::mt19937_64 rng(20240514);
    long read = 0, refused = 0;
    for (long n = 0; n < iterations; ++n) {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(0, seeds.size() - 1)(rng);
        const bool json_aware = target == Target::model && std::uniform_int_distribution<int>(0, 1)(rng) == 0;
        const std::string input = n < static_cast<long>(seeds.size()) ? seeds[n]
                                  : json_aware                       ? mutate_json(seeds[k], rng)
                                                                     : mutate(seeds[k], seeds, rng);
        const std::string& path = paths[n < static_cast<long>(seeds.size()) ? n : k];
        try {
            (arbolito::fuzz::read_as(target, input, path) ? read : refused)++;
        } catch (const std::exception& e) {
            const std::string name = "fuzz-failure-" + which + "-" + std::to_string(n);
            std::ofstream(name, std::ios::binary) << input;
            std::cerr << "FAIL input " << n << " (mutated from " << path << ", saved as " << name
                      << "): not an InputError: " << e.what() << "\n";
            return 1;
        }
    }
    std::cout << which << ": " << iterations << " inputs from " << seeds.size() << " seeds: " << read << " read, " << refused
              << " refused with one InputError, no other outcome\n";
    return 0;
}
