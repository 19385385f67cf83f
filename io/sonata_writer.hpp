#pragma once
// Writes voltage reports and spikes in the SONATA simulation-output layout
// (docs/sonata-output.md) with the HDF5 C API. The file is written as <path>.partial,
// locked against a second writer (io/output_lock.hpp), and renamed to <path> only by
// finish(). Frames and spikes reach the file as they come; each flush() makes the file
// on disk a complete SONATA file of what it holds (time stop, spikes, a root attribute
// `interrupted` saying that the run has not ended), and the file on disk stays that one
// until the next flush whatever happens meanwhile: a failed write, a killed process
// (io/latching_file_driver.hpp). A run cut short (interrupt()) keeps the .partial with
// the reason in `interrupted`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/output_lock.hpp"
#include "lowered_cell/spike.hpp"

namespace arbolito {

struct ReportMapping {                          // SONATA compartment-report mapping
    std::vector<std::uint64_t> node_ids;        // ascending gids
    std::vector<std::uint64_t> index_pointers;  // n_nodes+1
    std::vector<std::uint32_t> element_ids;     // branch per column
    std::vector<float> element_pos;             // CV node position per column (may be empty: omitted)
    double start = 0, stop = 0, step = 0;       // ms; frames at start + r*step while t < stop
    // Each column's variable ("v", "<mechanism>.<state>", "<ion>.e", ...), ';'-separated,
    // written as data's attribute `variables` (units then "mixed"); empty: every column is v.
    std::string variables;

    std::size_t n_values() const { return element_ids.size(); }
    // round((stop - start) / step): the number of frames the run must append.
    std::size_t n_frames() const;
};

// The height of /report/<pop>/data's chunks: whole frames, about 1 MiB, but no taller than
// the run, so that short reports stay small on disk.
std::size_t report_chunk_frames(std::size_t n_values, std::size_t value_bytes, std::size_t n_frames);

// The most bytes a finished file of n_frames frames of n_values values (value_bytes
// each; n_values 0: spikes only) of n_nodes cells takes on disk: the frames rounded up to whole chunks,
// the chunk index, the mapping, HDF5's headers and heaps, and the first chunks of the
// spikes (their number is not known ahead). Checked against files written
// (SonataFileBytes.*).
double sonata_file_bytes(std::size_t n_frames, std::size_t n_values, std::size_t value_bytes, std::size_t n_nodes);

// The text of the root attribute `interrupted` while the file is being written: what a
// .partial says when its writer ended without a word (killed, a second signal).
inline constexpr const char* kStillRunning = "the run had not ended: the file holds what its last flush wrote";

class SonataWriter {
public:
    // Takes the lock of path + ".partial" (or uses `lock`, already taken on it), creates
    // the file and flushes its layout; report may be null (spikes only). Throws
    // OutputBusy when another process holds the lock, std::runtime_error naming the path
    // and the cause on any other failure (also for an inconsistent mapping), leaving no
    // file behind.
    // double_data: store /report data as float64 instead of SONATA's float32 (validation
    // runs that compare voltages beyond float32's 4e-6 mV resolution; not for libsonata).
    SonataWriter(const std::string& path, const std::string& population, const ReportMapping* report,
                 bool double_data = false, OutputLock lock = OutputLock());
    SonataWriter(const SonataWriter&) = delete;
    SonataWriter& operator=(const SonataWriter&) = delete;
    ~SonataWriter();  // neither finish() nor interrupt() ran: close and delete the .partial

    // Row-major n_frames x n_values; extends /report/<pop>/data. Throws past the mapping's n_frames.
    // A failed write (full disk, I/O error) throws std::runtime_error naming the path and
    // the system's cause; after it only interrupt() is useful.
    void append_frames(const float* rows, std::size_t n_frames);
    void append_frames(const double* rows, std::size_t n_frames);  // converted to the file's type
    // Extends /spikes/<pop>; each call's spikes are sorted by (time, gid, source), and calls
    // in time order (as epochs come) keep the whole list sorted; otherwise finish() and
    // interrupt() sort it. Throws as append_frames does.
    void append_spikes(const std::vector<Spike>& spikes);
    // H5Fflush, once per epoch, after the time stop is set to the frames appended: the
    // file on disk is then this one.
    void flush();

    // Drops the attribute `interrupted`, closes, renames .partial -> path. If fewer
    // frames were appended than the mapping promises, the file is closed as by interrupt()
    // (kept as .partial, stop shrunk) and std::runtime_error is thrown. A failed write
    // throws as append_frames does.
    void finish();
    // Run cut short (a signal, a non-finite voltage, a failed write): keeps path.partial as
    // a SONATA file of what is on disk: the frames and spikes appended (after a failed
    // write: those of the last successful flush), mapping/time stop shrunk to the frames,
    // and the root attribute `interrupted` = reason. Returns what it kept in words for the
    // log ("12 of 50 frames (to 1.2 ms) and 3 spikes in out.h5.partial"). Where the disk
    // takes not even the reason, the file is the last flush's (its `interrupted` says the
    // run had not ended), and the words say so.
    std::string interrupt(const std::string& reason);

    const std::string& path() const { return path_; }
    std::string partial_path() const { return path_ + ".partial"; }
    std::size_t frames_written() const { return frames_written_; }

private:
    enum class State { open, finished, interrupted };
    void check_open(const char* op) const;
    void append(const void* rows, std::size_t n_frames, std::int64_t mem_type);
    void write_time(std::size_t frames);
    void write_reason(const std::string& reason);
    void sort_spikes_on_disk();
    void open_spikes();
    void close_handles();  // closes the datasets and the file, checking the file's close
    void close_quietly() noexcept;
    // Runs `op`; a failure marks the file as failed (failed_) and is rethrown.
    template <class Op>
    void guarded(Op op);
    // interrupt() after a failed write: reopen what the last flush left and complete it.
    std::string salvage(const std::string& reason);
    // The stop of `frames` frames: the mapping's own once all are there.
    double stop_after(std::size_t frames) const;
    std::string kept(std::size_t frames, std::size_t spikes) const;

    std::string path_, population_;
    OutputLock lock_;
    State state_ = State::open;
    std::int64_t file_ = -1, data_ = -1, times_ = -1, gids_ = -1;  // hid_t (int64_t since HDF5 1.10)
    std::size_t n_values_ = 0, frames_written_ = 0, frames_expected_ = 0;
    std::size_t frames_flushed_ = 0;  // frames the last successful flush put on disk
    std::size_t frames_timed_ = 0;    // frames the time stop on file covers
    std::size_t spikes_written_ = 0, spikes_flushed_ = 0;
    bool spikes_sorted_ = true;       // every call's spikes came after the previous call's
    Spike last_spike_{};
    bool failed_ = false;             // a write failed: the disk holds the last flush's file
    double start_ = 0, step_ = 0, stop_ = 0;
    bool has_report_ = false;
};

}  // namespace arbolito
