// Writes small SONATA files with the real writer for the Python tool tests:
//   write_example_h5 OUT.h5 [reference | perturbed | spikes-only | empty]
// reference: the format's tiny example (cells 0 and 3, three columns, 0.1 ms for 5 ms) with
// synthetic traces and three spikes; perturbed: the same, one sample 0.5 mV off and one
// spike 0.05 ms later; spikes-only: no /report; empty: an HDF5 file with neither group.
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/sonata_writer.hpp"

using namespace arbolito;

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s OUT.h5 [reference|perturbed|spikes-only|empty]\n", argv[0]);
        return 2;
    }
    const std::string out = argv[1];
    const std::string variant = argc == 3 ? argv[2] : "reference";
    try {
        if (variant == "empty") {
            const hid_t f = H5Fcreate(out.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
            if (f < 0 || H5Fclose(f) < 0) throw std::runtime_error(out + ": cannot create");
            return 0;
        }
        if (variant != "reference" && variant != "perturbed" && variant != "spikes-only")
            throw std::runtime_error("unknown variant " + variant);
        const bool perturbed = variant == "perturbed";

        ReportMapping m;
        m.node_ids = {0, 3};
        m.index_pointers = {0, 1, 3};
        m.element_ids = {0, 4, 4};
        m.element_pos = {0.5f, 0.25f, 0.75f};
        m.start = 0;
        m.stop = 5;
        m.step = 0.1;
        SonataWriter w(out, "ring", variant == "spikes-only" ? nullptr : &m);
        if (variant != "spikes-only") {
            const std::size_t n = m.n_frames(), cols = m.n_values();
            std::vector<float> rows(n * cols);
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t c = 0; c < cols; ++c)
                    rows[r * cols + c] = float(-65.0 + 30.0 * std::exp(-std::pow((r * m.step - 2.0 - c) / 0.3, 2)));
            if (perturbed) rows[20 * cols + 1] += 0.5f;
            for (std::size_t r = 0; r < n; r += 10) w.append_frames(&rows[r * cols], std::min<std::size_t>(10, n - r));
        }
        w.append_spikes({{0, 0, 1.925}, {1, 0, perturbed ? 7.35 : 7.3}, {0, 0, 9.05}});
        w.finish();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "write_example_h5: %s\n", e.what());
        return 1;
    }
    return 0;
}
