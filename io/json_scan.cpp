#include "io/json_scan.hpp"

#include <cmath>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/input_error.hpp"

namespace arbolito {

namespace {

using json = nlohmann::json;

// The heap bytes of one allocation of n bytes: glibc's 8-byte header, 16-byte alignment,
// 32 bytes at least.
double heap(double n) { return std::max(32.0, std::ceil((n + 8) / 16) * 16); }
// A std::string's heap: none for the 15 characters kept inline.
double string_heap(std::size_t n) { return n > 15 ? heap(static_cast<double>(n) + 1) : 0; }

// What nlohmann::json allocates for what it reads: per value a 16-byte json (inside its
// parent), per object a std::map and per member a tree node (32 bytes of links, the key
// string, the value), per array a std::vector grown by doubling, per string its heap.
class Counter : public nlohmann::json_sax<json> {
public:
    Counter(const std::string& path) : path_(path) {}
    double bytes = 16;  // the root

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t& s) override {
        bytes += heap(32) + string_heap(s.size());  // the string object is allocated too
        return value();
    }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override {
        bytes += heap(48);
        value();
        frames_.push_back({true, {}, "", 0, {}});
        return true;
    }
    bool key(string_t& k) override {
        Frame& f = frames_.back();
        if (!f.insert(k)) {
            f.key = k;
            throw InputError(path_, where(), "key given twice in one object (JSON takes each key once; the second would "
                                             "replace the first)");
        }
        f.key = k;
        bytes += heap(32 + 32 + 16) + string_heap(k.size());
        return true;
    }
    bool end_object() override {
        frames_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        bytes += heap(24);
        value();
        frames_.push_back({false, {}, "", 0, {}});
        return true;
    }
    bool end_array() override {
        // The elements' vector, grown by doubling as the parser appends. A long array's
        // outgrown buffers (half, a quarter, ... of the last) are freed, but glibc keeps
        // their pages among the elements': as much again as the last buffer (a short
        // array's are reused at once).
        const double n = static_cast<double>(frames_.back().index);
        if (n > 0) bytes += heap(16 * std::exp2(std::ceil(std::log2(n)))) * (n > 8192 ? 2 : 1);
        frames_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    struct Frame {
        bool object;
        std::vector<std::string> few;  // an object's keys: searched while few, then a set
        std::string key;
        std::size_t index;
        std::set<std::string> many;
        bool insert(const std::string& k) {
            if (!many.empty()) return many.insert(k).second;
            for (const std::string& x : few)
                if (x == k) return false;
            few.push_back(k);
            if (few.size() > 32) {
                many.insert(few.begin(), few.end());
                few.clear();
            }
            return true;
        }
    };
    bool value() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
        return true;
    }
    // The key path of the current key: cells[0].paint[1].mechanism
    std::string where() const {
        std::string p;
        for (const Frame& f : frames_) {
            if (f.object) p += (p.empty() ? "" : ".") + f.key;
            else p += "[" + std::to_string(f.index - 1) + "]";
        }
        return p;
    }
    const std::string& path_;
    std::vector<Frame> frames_;
};

}  // namespace

JsonScan scan_json(const std::string& text, const std::string& path) {
    Counter c(path);
    JsonScan s;
    try {
        s.complete = json::sax_parse(text, &c);
    } catch (const json::exception&) {
        s.complete = false;  // the parser reports it, with its line
    }
    // 5 % and a page above the count: the parser's own buffers and the heap's slack
    // (JsonScan.DocumentBytesBoundTheHeap, tools/memory_table.py).
    s.document_bytes = 1.05 * c.bytes + 4096;
    return s;
}

}  // namespace arbolito
