#pragma once
// Writes voltage reports and spikes in the SONATA simulation-output layout
// (docs/sonata-output.md) with the HDF5 C API. The file is written as
// <path>.partial and renamed to <path> only by finish(). Each flush() leaves a readable
// file on disk; a run cut short (interrupt()) keeps the .partial as a smaller SONATA file
// of what reached the disk, also after a failed write (io/latching_file_driver.hpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lowered_cell/spike.hpp"

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
    // Creates path + ".partial" and flushes its layout; report may be null (spikes only).
    // Throws std::runtime_error naming the path and the cause on failure (also for an
    // inconsistent mapping), leaving no file behind.
    // double_data: store /report data as float64 instead of SONATA's float32 (validation
    // runs that compare voltages beyond float32's 4e-6 mV resolution; not for libsonata).
    SonataWriter(const std::string& path, const std::string& population, const ReportMapping* report,
                 bool double_data = false);
    SonataWriter(const SonataWriter&) = delete;
    SonataWriter& operator=(const SonataWriter&) = delete;
    ~SonataWriter();  // neither finish() nor interrupt() ran: close and delete the .partial

    // Row-major n_frames x n_values; extends /report/<pop>/data. Throws past the mapping's n_frames.
    // A failed write (full disk, I/O error) throws std::runtime_error naming the path and
    // the system's cause; after it only interrupt() is useful.
    void append_frames(const float* rows, std::size_t n_frames);
    void append_frames(const double* rows, std::size_t n_frames);  // converted to the file's type
    void append_spikes(const std::vector<Spike>& spikes);  // any order; buffered until the end
    void flush();                                          // H5Fflush; once per epoch

    // Writes /spikes sorted by (time, gid, source), closes, renames .partial -> path.
    // If fewer frames were appended than the mapping promises, the file is closed as by
    // interrupt() (kept as .partial, stop shrunk) and std::runtime_error is thrown. A
    // failed write throws as append_frames does.
    void finish();
    // Run cut short (a signal, a non-finite voltage, a failed write): keeps path.partial as
    // a SONATA file of what is on disk: the frames appended (after a failed write: those
    // of the last successful flush), mapping/time stop shrunk to them, the spikes before
    // that stop, and a string attribute `interrupted` = reason on the root group. Returns
    // what it kept in words for the log ("12 of 50 frames (to 1.2 ms) and 3 spikes in
    // out.h5.partial"). Where the disk takes not even that, returns what it kept and why
    // not more; a .partial with nothing readable is removed (and the words say so).
    std::string interrupt(const std::string& reason);

    const std::string& path() const { return path_; }
    std::string partial_path() const { return path_ + ".partial"; }
    std::size_t frames_written() const { return frames_written_; }

private:
    enum class State { open, finished, interrupted };
    void check_open(const char* op) const;
    void append(const void* rows, std::size_t n_frames, std::int64_t mem_type);
    void write_time(double stop);
    void write_spikes(const std::vector<Spike>& spikes);
    void close_handles();  // closes the dataset and the file, checking the file's close
    void close_quietly() noexcept;
    // Runs `op`; a failure marks the file as failed (failed_) and is rethrown.
    template <class Op>
    void guarded(Op op);
    // interrupt() after a failed write: reopen what the last flush left and complete it.
    std::string salvage(const std::string& reason);
    // The stop of `frames` frames; the spikes before it (all without a report).
    double stop_after(std::size_t frames) const { return start_ + static_cast<double>(frames) * step_; }
    std::vector<Spike> spikes_before(double stop) const;
    std::string kept(std::size_t frames, std::size_t spikes) const;

    std::string path_, population_;
    State state_ = State::open;
    std::int64_t file_ = -1, data_ = -1;  // hid_t (int64_t since HDF5 1.10)
    std::size_t n_values_ = 0, frames_written_ = 0, frames_expected_ = 0;
    std::size_t frames_flushed_ = 0;  // frames the last successful flush put on disk
    bool failed_ = false;             // a write failed: the disk holds the last flush's file
    double start_ = 0, step_ = 0, stop_ = 0;
    bool has_report_ = false;
    std::vector<Spike> spikes_;
};

}  // namespace arbolito
