#pragma once
// Streams what a Simulation records into a SONATA file (io/sonata_writer).
#include <memory>
#include <string>
#include <utility>

#include "run/simulation.hpp"
#include "io/sonata_writer.hpp"

namespace arbolito {

// The report's mapping: columns of all groups of all ranks in gid order. Collective:
// every rank calls it; rank 0 gets the whole mapping, the others only its time.
ReportMapping report_mapping(const Simulation& sim, const RunSettings& run);
// The mapping of cells [0, n_cells) of `cells` on one rank (a run parallel in time, which
// holds the model's cells as the first n_cells of a group).
ReportMapping report_mapping(const FvmData& cells, int n_cells, const RunSettings& run);

class SonataSink final : public RecordSink {
public:
    SonataSink(const std::string& path, const std::string& population, const ReportMapping* report, bool double_data,
               OutputLock lock = OutputLock())
        : writer_(path, population, report, double_data, std::move(lock)) {}
    void frames(const double* rows, std::size_t n) override { writer_.append_frames(rows, n); }
    void spikes(const std::vector<Spike>& s) override { writer_.append_spikes(s); }
    void epoch_done(double) override { writer_.flush(); }
    SonataWriter& writer() { return writer_; }

private:
    SonataWriter writer_;
};

}  // namespace arbolito
