#include "run/decomposition.hpp"

#include <cmath>
#include <exception>
#include <stdexcept>

#include "lowered_cell/fvm_data.hpp"
#include "core/parallel_for.hpp"

namespace arbolito {

std::vector<std::uint64_t> split_by_weight(const std::vector<double>& weight, std::uint64_t begin, std::uint64_t end,
                                           int parts) {
    if (parts < 1 || begin > end || end > weight.size()) throw std::invalid_argument("split_by_weight: bad range or parts");
    double total = 0;
    for (std::uint64_t g = begin; g < end; ++g) total += weight[g];
    std::vector<std::uint64_t> first{begin};
    std::uint64_t i = begin;
    double acc = 0;  // weight of [begin, i)
    for (int k = 1; k < parts; ++k) {
        const double target = total * k / parts;
        while (i < end && acc + weight[i] <= target) acc += weight[i++];
        // acc <= target < acc + weight[i]: stop before cell i or after it, whichever is nearer
        // (after it on a tie, so that a lone cell goes to the first part).
        if (i < end && (acc + weight[i]) - target <= target - acc) acc += weight[i++];
        first.push_back(i);
    }
    first.push_back(end);
    return first;
}

std::vector<double> cv_counts(const Model& m) {
    std::vector<double> n(m.cells.size());
    parallel_for(static_cast<long>(n.size()), 64, [&](long g) { n[g] = count_cell_cvs(m.cells[g]); });
    return n;
}

std::vector<double> cv_counts(const Model& m, Communicator& comm) {
    return gather_slices<double>(comm, m.cells.size(), [&](std::uint64_t b, std::uint64_t e) {
        std::vector<double> mine(e - b);
        parallel_for(static_cast<long>(mine.size()), 64, [&](long i) { mine[i] = count_cell_cvs(m.cells[b + i]); });
        return mine;
    });
}

}  // namespace arbolito
