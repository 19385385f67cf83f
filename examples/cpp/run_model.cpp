// Runs a model file on the CPU and prints what it recorded: a C++ program linking the
// engine through find_package(arbolito) (docs/cpp-api.md).
//   run_model MODEL.json [KEY.PATH=VALUE ...]
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "api/run_in_memory.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODEL.json [KEY.PATH=VALUE ...]\n", argv[0]);
        return 2;
    }
    try {
        // The model file with --set's assignments, read as `arbolito run` reads it.
        const std::vector<std::string> sets(argv + 2, argv + argc);
        const arbolito::Model m = arbolito::read_model(argv[1], sets, arbolito::ReadFor::run);
        arbolito::SimOptions o;
        o.solver = arbolito::parse_solver_spec("cpu");
        const arbolito::InMemoryRecord r = arbolito::run_in_memory(m, o);
        std::printf("%s: %zu cells, %zu spikes, %zu frames of %zu columns, run %.3f s\n", m.name.c_str(), m.cells.size(),
                    r.spikes.size(), r.n_frames(), r.mapping.n_values(), r.report.run_s);
        for (std::size_t i = 0; i < r.spikes.size() && i < 5; ++i)
            std::printf("  spike: gid %llu at %.6f ms\n", static_cast<unsigned long long>(r.spikes[i].gid), r.spikes[i].time);
    } catch (const arbolito::InputError& e) {
        std::fprintf(stderr, "[error] %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[critical] %s\n", e.what());
        return 1;
    }
    return 0;
}
