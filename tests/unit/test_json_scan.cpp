// The pass over a model's JSON before it is parsed (io/json_scan): the bytes the parsed
// document takes, against the heap (glibc's mallinfo2) on documents of the shapes models
// have, and keys given twice, refused with their key path.
#include <malloc.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/input_error.hpp"
#include "io/json_scan.hpp"
#include "io/model_reader.hpp"

using arbolito::InputError;
using arbolito::scan_json;

namespace {

// Heap bytes the parsed document of `text` holds (glibc's count of bytes in use).
double document_heap(const std::string& text) {
    const std::size_t before = mallinfo2().uordblks;
    const nlohmann::json j = nlohmann::json::parse(text);
    return static_cast<double>(mallinfo2().uordblks) - static_cast<double>(before);
}

std::string connections(int n) {
    std::string t = R"({"cells": [], "connections": [)";
    for (int k = 0; k < n; ++k)
        t += (k ? "," : "") + std::string(R"({"source": )") + std::to_string(k % 97) + R"(, "target": )" +
             std::to_string(k % 89) + R"(, "weight": 0.01, "delay": 1.5})";
    return t + "]}";
}

std::string numbers(int n) {
    std::string t = R"({"times": [)";
    for (int k = 0; k < n; ++k) t += (k ? "," : "") + std::to_string(0.01 * k);
    return t + "]}";
}

std::string strings(int n) {
    std::string t = "[";
    for (int k = 0; k < n; ++k)
        t += (k ? "," : "") + std::string(R"({"a_key_longer_than_fifteen": "a value longer than fifteen characters", "m": "hh"})");
    return t + "]";
}

}  // namespace

// The estimate is at least what the parsed document holds on the heap, and less than
// about twice it (5 % more): it adds the buffers a long array outgrew, which glibc keeps resident
// (tools/memory_table.py holds the whole estimate to the peak resident memory of runs).
TEST(JsonScan, DocumentBytesBoundTheHeap) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's: mallinfo2 counts nothing";
#endif
    for (const std::string& text : {connections(50000), numbers(200000), strings(20000)}) {
        const double estimate = scan_json(text, "x.json").document_bytes, heap = document_heap(text);
        EXPECT_GE(estimate, heap) << text.substr(0, 60);
        EXPECT_LE(estimate, 2.25 * heap) << text.substr(0, 60);
    }
}

TEST(JsonScan, KeysGivenTwiceAreRefusedWithTheirPath) {
    auto error_of = [](const std::string& text) {
        try {
            scan_json(text, "m.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error_of(R"({"run": {"dt": 0.1, "dt": 0.2}})").find("m.json:run.dt: key given twice"), std::string::npos);
    EXPECT_NE(error_of(R"({"cells": [{"paint": [{}, {"mechanism": "hh", "mechanism": "pas"}]}]})")
                  .find("m.json:cells[0].paint[1].mechanism: key given twice"),
              std::string::npos);
    EXPECT_EQ(error_of(R"({"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 1}]})"), "");  // the same key in other objects
    std::string many = "{";
    for (int k = 0; k < 100; ++k) many += "\"k" + std::to_string(k) + "\": 1, ";
    EXPECT_NE(error_of(many + "\"k50\": 2}").find("m.json:k50: key given twice"), std::string::npos);
    EXPECT_EQ(error_of("{\"a\": 1"), "");  // not JSON: the parser says where
    EXPECT_FALSE(scan_json("{\"a\": 1", "m.json").complete);
}

// A model whose parsed JSON cannot fit is refused before it is parsed, naming the file
// (a 200 MB list of connections was parsed into 1.8 GB under a 300 MB cap).
TEST(JsonScan, ModelTooBigToParseIsRefused) {
    const std::string text = connections(100000);  // 7 MB of text, about 50 MB parsed
    setenv("ARBOLITO_MAX_MEMORY", "30e6", 1);
    try {
        arbolito::parse_model(text, "big.json");
        ADD_FAILURE() << "parsed under a 30 MB cap";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("big.json: reading the model needs about"), std::string::npos) << e.what();
    }
    unsetenv("ARBOLITO_MAX_MEMORY");
}
