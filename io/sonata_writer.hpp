#pragma once
// Writes voltage reports and spikes in the SONATA simulation-output layout
// (docs/sonata-output.md) with the HDF5 C API. The file is written as
// <path>.partial and renamed to <path> only by finish().
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/spike.hpp"

namespace arbolito {

struct ReportMapping {                          // SONATA compartment-report mapping
    std::vector<std::uint64_t> node_ids;        // ascending gids
    std::vector<std::uint64_t> index_pointers;  // n_nodes+1
    std::vector<std::uint32_t> element_ids;     // branch per column
    std::vector<float> element_pos;             // CV node position per column (may be empty: omitted)
    double start = 0, stop = 0, step = 0;       // ms; frames at start + r*step while t < stop

    std::size_t n_values() const { return element_ids.size(); }
    // round((stop - start) / step): the number of frames the run must append.
    std::size_t n_frames() const;
};

class SonataWriter {
public:
    // Creates path + ".partial"; report may be null (spikes only). Throws std::runtime_error
    // naming the path on failure (also for an inconsistent mapping).
    // double_data: store /report data as float64 instead of SONATA's float32 (validation
    // runs that compare voltages beyond float32's 4e-6 mV resolution; not for libsonata).
    SonataWriter(const std::string& path, const std::string& population, const ReportMapping* report,
                 bool double_data = false);
    SonataWriter(const SonataWriter&) = delete;
    SonataWriter& operator=(const SonataWriter&) = delete;
    ~SonataWriter();  // neither finish() nor interrupt() ran: close and delete the .partial

    // Row-major n_frames x n_values; extends /report/<pop>/data. Throws past the mapping's n_frames.
    void append_frames(const float* rows, std::size_t n_frames);
    void append_frames(const double* rows, std::size_t n_frames);  // converted to the file's type
    void append_spikes(const std::vector<Spike>& spikes);  // any order; buffered until the end
    void flush();                                          // H5Fflush; once per epoch

    // Writes /spikes sorted by (time, gid, source), closes, renames .partial -> path.
    // If fewer frames were appended than the mapping promises, the file is closed as by
    // interrupt() (kept as .partial, stop shrunk) and std::runtime_error is thrown.
    void finish();
    // Run cut short: shrink mapping/time stop to the frames written, write the spikes,
    // close, keep the file as path + ".partial" and log a warning.
    void interrupt();

    const std::string& path() const { return path_; }
    std::string partial_path() const { return path_ + ".partial"; }
    std::size_t frames_written() const { return frames_written_; }

private:
    enum class State { open, finished, interrupted };
    void check_open(const char* op) const;
    void append(const void* rows, std::size_t n_frames, std::int64_t mem_type);
    void write_time(double stop);
    void write_spikes();
    void close_handles();  // closes the dataset and the file, checking the file's close
    void close_quietly() noexcept;

    std::string path_, population_;
    State state_ = State::open;
    std::int64_t file_ = -1, data_ = -1;  // hid_t (int64_t since HDF5 1.10)
    std::size_t n_values_ = 0, frames_written_ = 0, frames_expected_ = 0;
    double start_ = 0, step_ = 0, stop_ = 0;
    bool has_report_ = false;
    std::vector<Spike> spikes_;
};

}  // namespace arbolito
