#include "io/sonata_writer.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <type_traits>

#include <spdlog/spdlog.h>

#include "io/latching_file_driver.hpp"

namespace arbolito {

static_assert(std::is_same_v<hid_t, std::int64_t>, "the header stores hid_t as std::int64_t");

namespace {

constexpr std::uint32_t kMagic = 0x0A7A;
constexpr std::uint32_t kVersion[2] = {0, 1};
constexpr hsize_t kChunkBytes = hsize_t(1) << 20;
constexpr hsize_t kSpikeChunk = 1024;  // spikes per chunk: 8 KiB of times, 8 KiB of gids
enum : std::uint8_t { sorting_none = 0, sorting_by_id = 1, sorting_by_time = 2 };

// HDF5 prints its error stack to stderr by default; we report failures through the
// exception instead (with HDF5's innermost message), so silence it for one call.
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

herr_t take_innermost(unsigned n, const H5E_error2_t* e, void* out) {
    if (n == 0 && e && e->desc) *static_cast<std::string*>(out) = e->desc;
    return 1;  // stop after the most specific entry
}

// HDF5's description of a failed system call holds the system's words for it ("...,
// errno = 28, error message = 'No space left on device', ..."): those alone name the cause.
std::string system_cause(const std::string& why) {
    const std::string key = "error message = '";
    const auto b = why.find(key);
    if (b == std::string::npos) return "";
    const auto e = why.find('\'', b + key.size());
    return e == std::string::npos ? "" : why.substr(b + key.size(), e - b - key.size());
}

[[noreturn]] void fail(const std::string& file, const std::string& op) {
    std::string why;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, &why);
    H5Eclear2(H5E_DEFAULT);
    if (const std::string cause = system_cause(why); !cause.empty())
        throw std::runtime_error(file + ": cannot write: " + cause + " (HDF5 " + op + ")");
    std::replace(why.begin(), why.end(), '\n', ' ');  // one line in the log
    throw std::runtime_error(file + ": HDF5 " + op + " failed" + (why.empty() ? "" : " (" + why + ")"));
}

// Closes an HDF5 id, once more if the first close failed and left it open (a failed
// flush); a file written through the latching driver closes at the second try.
void close_id(hid_t& id, herr_t (*close)(hid_t)) noexcept {
    for (int tries = 0; id >= 0 && tries < 2; ++tries)
        if (close(id) >= 0 || H5Iis_valid(id) <= 0) id = -1;
    id = -1;
}

template <class T>
T ok(T r, const std::string& file, const std::string& op) {
    if (r < 0) fail(file, op);
    return r;
}

// Flushes the file, checks that every write of it reached the disk (some write errors
// do not reach the caller through HDF5) and commits it: the file on disk is this one
// until the next commit (io/latching_file_driver.hpp).
void flush_checked(hid_t f, const std::string& file) {
    ok(H5Fflush(f, H5F_SCOPE_LOCAL), file, "H5Fflush");
    int err = latched_error(f);
    if (err == 0) err = commit_flushed(f);
    if (err != 0) throw std::runtime_error(file + ": cannot write: " + std::strerror(err) + " (HDF5 H5Fflush)");
}

// An HDF5 identifier closed on scope exit.
class Id {
public:
    using Closer = herr_t (*)(hid_t);
    Id(hid_t id, Closer close, const std::string& file, const std::string& op)
        : id_(ok(id, file, op)), close_(close) {}
    Id(Id&& o) noexcept : id_(o.release()), close_(o.close_) {}
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    Id& operator=(Id&&) = delete;
    ~Id() {
        if (id_ >= 0) close_(id_);
    }
    operator hid_t() const { return id_; }
    hid_t release() {
        const hid_t id = id_;
        id_ = -1;
        return id;
    }

private:
    hid_t id_;
    Closer close_;
};

// Everything below writes into one file; `file` names it in errors.
struct Out {
    std::string file;
    hid_t gcpl = -1, dcpl = -1;  // creation lists without modification times (reproducible files)

    Id group(hid_t loc, const std::string& name) const {
        return Id(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose, file,
                  "H5Gcreate2 " + name);
    }

    void attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, int rank, const hsize_t* dims,
                   const void* value) const {
        Id space(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, nullptr), H5Sclose, file,
                 std::string("H5Screate for attribute ") + name);
        Id attr(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, file,
                std::string("H5Acreate2 ") + name);
        ok(H5Awrite(attr, mem_type, value), file, std::string("H5Awrite ") + name);
    }

    // `str` of the format: a scalar variable-length UTF-8 string.
    void string_attribute(hid_t obj, const char* name, const char* value) const {
        Id type(H5Tcopy(H5T_C_S1), H5Tclose, file, "H5Tcopy");
        ok(H5Tset_size(type, H5T_VARIABLE), file, "H5Tset_size");
        ok(H5Tset_cset(type, H5T_CSET_UTF8), file, "H5Tset_cset");
        attribute(obj, name, type, type, 0, nullptr, &value);
    }

    Id dataset_1d(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, std::size_t n, const void* buf) const {
        const hsize_t dims[1] = {n};
        Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, file, std::string("H5Screate_simple ") + name);
        Id ds(H5Dcreate2(loc, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose, file,
              std::string("H5Dcreate2 ") + name);
        if (n > 0) ok(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), file, std::string("H5Dwrite ") + name);
        return ds;
    }
};

Out make_out(const std::string& file, Id& gcpl, Id& dcpl) {
    ok(H5Pset_obj_track_times(gcpl, 0), file, "H5Pset_obj_track_times");
    ok(H5Pset_obj_track_times(dcpl, 0), file, "H5Pset_obj_track_times");
    return Out{file, gcpl, dcpl};
}

void check_mapping(const ReportMapping& m, const std::string& file) {
    auto bad = [&](const std::string& why) { throw std::runtime_error(file + ": report mapping: " + why); };
    const std::size_t n = m.element_ids.size();
    if (n == 0) bad("no columns");
    if (m.index_pointers.size() != m.node_ids.size() + 1)
        bad("index_pointers has " + std::to_string(m.index_pointers.size()) + " entries for " +
            std::to_string(m.node_ids.size()) + " nodes (needs n_nodes + 1)");
    if (m.index_pointers.front() != 0 || m.index_pointers.back() != n)
        bad("index_pointers must run from 0 to the number of columns " + std::to_string(n));
    if (!std::is_sorted(m.index_pointers.begin(), m.index_pointers.end())) bad("index_pointers decrease");
    if (std::adjacent_find(m.node_ids.begin(), m.node_ids.end(), std::greater_equal<>()) != m.node_ids.end())
        bad("node_ids are not strictly ascending");
    if (!m.element_pos.empty() && m.element_pos.size() != n) bad("element_pos and element_ids differ in length");
    if (!(m.step > 0) || !std::isfinite(m.start) || !std::isfinite(m.stop) || !(m.stop >= m.start))
        bad("time needs finite start <= stop and step > 0");
    // Readers count frames differently (libsonata: t < stop - 1e-6; BMTK: round); they
    // agree only when (stop - start) / step is an integer.
    const double frames = (m.stop - m.start) / m.step;
    if (std::fabs(frames - std::round(frames)) > 1e-6 * std::max(1.0, frames))
        bad("(stop - start) / step = " + std::to_string(frames) + " is not a whole number of frames");
}

}  // namespace

std::size_t report_chunk_frames(std::size_t n_values, std::size_t value_bytes, std::size_t n_frames) {
    const std::size_t frame_bytes = std::max<std::size_t>(1, n_values * value_bytes);
    return std::max<std::size_t>(1, std::min<std::size_t>(kChunkBytes / frame_bytes, std::max<std::size_t>(1, n_frames)));
}

double sonata_file_bytes(std::size_t n_frames, std::size_t n_values, std::size_t value_bytes, std::size_t n_nodes) {
    // Measured: a spikes-only file without spikes takes 8.2 kB (superblock, groups,
    // attributes, a 4 KiB global heap); its first spikes add two chunks and their index.
    const double page = 4096, base = 4 * page, spikes = 2.0 * kSpikeChunk * 8 + page;
    double report = 0;
    if (n_values > 0) {
        const std::size_t chunk = report_chunk_frames(n_values, value_bytes, n_frames);
        const double chunks = std::ceil(static_cast<double>(n_frames) / static_cast<double>(chunk));
        // Chunks whole, an index entry of at most 64 bytes each (v1 B-tree), element ids and
        // positions (8 bytes a column), node ids and pointers (16 a node), and the report's
        // groups and headers.
        report = chunks * (static_cast<double>(chunk) * n_values * value_bytes + 64) + 8.0 * n_values +
                 16.0 * (n_nodes + 1) + 4 * page;
    }
    return base + spikes + report + page;  // the last page partly used
}

std::size_t ReportMapping::n_frames() const {
    if (!(step > 0) || !(stop > start)) return 0;
    return static_cast<std::size_t>(std::llround((stop - start) / step));
}

SonataWriter::SonataWriter(const std::string& path, const std::string& population, const ReportMapping* report,
                           bool double_data, OutputLock lock)
    : path_(path), population_(population), has_report_(report != nullptr) {
    const std::string file = partial_path();
    if (population.empty() || population.find('/') != std::string::npos || population == "." || population == "..")
        throw std::runtime_error(file + ": invalid population name '" + population + "'");
    if (report) {
        check_mapping(*report, file);
        n_values_ = report->n_values();
        frames_expected_ = report->n_frames();
        start_ = report->start;
        stop_ = report->stop;
        step_ = report->step;
    }
    lock_ = lock.held() ? std::move(lock) : OutputLock::take(file);
    lock_.keep();  // from here this writer removes the file where it fails

    QuietErrors quiet;
    try {
        {
            Id fapl(latching_fapl(), H5Pclose, file, "H5Pcreate");
            file_ = ok(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), file, "H5Fcreate");
        }
        Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, file, "H5Pcreate");
        Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate");
        const Out out = make_out(file, gcpl, dcpl);

        const hsize_t two[1] = {2};
        out.attribute(file_, "magic", H5T_STD_U32LE, H5T_NATIVE_UINT32, 0, nullptr, &kMagic);
        out.attribute(file_, "version", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, two, kVersion);
        out.string_attribute(file_, "interrupted", kStillRunning);

        if (report) {
            const ReportMapping& m = *report;
            Id root(out.group(file_, "report"));
            Id pop(out.group(root, population));

            // data: float32 [0, n] growing along time, in chunks of report_chunk_frames.
            const hsize_t n = n_values_;
            const hsize_t dims[2] = {0, n}, maxdims[2] = {H5S_UNLIMITED, n};
            const hsize_t frame_bytes = n * (double_data ? sizeof(double) : sizeof(float));
            const hsize_t chunk_frames = report_chunk_frames(n, double_data ? sizeof(double) : sizeof(float), frames_expected_);
            const hsize_t chunk[2] = {chunk_frames, n};
            Id space(H5Screate_simple(2, dims, maxdims), H5Sclose, file, "H5Screate_simple data");
            Id data_cpl(H5Pcopy(dcpl), H5Pclose, file, "H5Pcopy");
            ok(H5Pset_chunk(data_cpl, 2, chunk), file, "H5Pset_chunk data");
            // Appends rarely cover whole chunks: keep a few chunks cached so that a partly
            // written chunk is completed in memory, not re-read from disk.
            Id data_apl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose, file, "H5Pcreate");
            const std::size_t cache_bytes = std::max<std::size_t>(kChunkBytes, 4 * chunk_frames * frame_bytes);
            ok(H5Pset_chunk_cache(data_apl, 521, cache_bytes, 1.0), file, "H5Pset_chunk_cache");
            data_ = ok(H5Dcreate2(pop, "data", double_data ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, space, H5P_DEFAULT, data_cpl,
                                  data_apl),
                       file, "H5Dcreate2 data");
            out.string_attribute(data_, "units", m.variables.empty() ? "mV" : "mixed");
            if (!m.variables.empty()) out.string_attribute(data_, "variables", m.variables.c_str());

            Id map(out.group(pop, "mapping"));
            {
                Id ids(out.dataset_1d(map, "node_ids", H5T_STD_U64LE, H5T_NATIVE_UINT64, m.node_ids.size(),
                                      m.node_ids.data()));
                const std::int8_t sorted = 1;
                out.attribute(ids, "sorted", H5T_STD_I8LE, H5T_NATIVE_INT8, 0, nullptr, &sorted);
            }
            out.dataset_1d(map, "index_pointers", H5T_STD_U64LE, H5T_NATIVE_UINT64, m.index_pointers.size(),
                           m.index_pointers.data());
            // BMTK reads the singular name: a hard link shares the dataset.
            ok(H5Lcreate_hard(map, "index_pointers", map, "index_pointer", H5P_DEFAULT, H5P_DEFAULT), file,
               "H5Lcreate_hard index_pointer");
            out.dataset_1d(map, "element_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, n, m.element_ids.data());
            if (!m.element_pos.empty())
                out.dataset_1d(map, "element_pos", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, n, m.element_pos.data());
            // The stop of the frames on file (none yet): a reader counts the frames from it.
            // Compact: the stop changes at every flush, and in the dataset's header it is
            // metadata, which the driver holds until the flush commits.
            const double time[3] = {m.start, stop_after(0), m.step};
            Id time_cpl(H5Pcopy(dcpl), H5Pclose, file, "H5Pcopy");
            ok(H5Pset_layout(time_cpl, H5D_COMPACT), file, "H5Pset_layout time");
            const Out compact{file, gcpl, time_cpl};
            Id t(compact.dataset_1d(map, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, time));
            out.string_attribute(t, "units", "ms");
        }

        // spikes: timestamps and gids growing as epochs end, sorted by time.
        Id root(out.group(file_, "spikes"));
        Id pop(out.group(root, population));
        Id sorting(H5Tenum_create(H5T_STD_U8LE), H5Tclose, file, "H5Tenum_create");
        for (const auto& [name, value] : {std::pair{"none", sorting_none}, std::pair{"by_id", sorting_by_id},
                                          std::pair{"by_time", sorting_by_time}}) {
            const std::uint8_t v = value;
            ok(H5Tenum_insert(sorting, name, &v), file, std::string("H5Tenum_insert ") + name);
        }
        const std::uint8_t by_time = sorting_by_time;
        out.attribute(pop, "sorting", sorting, sorting, 0, nullptr, &by_time);
        const hsize_t zero[1] = {0}, unlimited[1] = {H5S_UNLIMITED}, chunk[1] = {kSpikeChunk};
        Id space(H5Screate_simple(1, zero, unlimited), H5Sclose, file, "H5Screate_simple spikes");
        Id spikes_cpl(H5Pcopy(dcpl), H5Pclose, file, "H5Pcopy");
        ok(H5Pset_chunk(spikes_cpl, 1, chunk), file, "H5Pset_chunk spikes");
        times_ = ok(H5Dcreate2(pop, "timestamps", H5T_IEEE_F64LE, space, H5P_DEFAULT, spikes_cpl, H5P_DEFAULT), file,
                    "H5Dcreate2 timestamps");
        out.string_attribute(times_, "units", "ms");
        gids_ = ok(H5Dcreate2(pop, "node_ids", H5T_STD_U64LE, space, H5P_DEFAULT, spikes_cpl, H5P_DEFAULT), file,
                   "H5Dcreate2 node_ids");
        flush_checked(file_, file);  // a readable file from the start
    } catch (...) {
        // H5Fcreate may have made the file before its first write failed (a full disk):
        // remove whatever of it exists.
        close_quietly();
        std::error_code ec;
        if (std::filesystem::is_regular_file(file, ec)) std::remove(file.c_str());
        throw;
    }
}

SonataWriter::~SonataWriter() {
    if (state_ != State::open) return;
    close_quietly();
    const std::string file = partial_path();
    if (std::remove(file.c_str()) == 0) spdlog::warn("removed the incomplete output {}", file);
}

void SonataWriter::check_open(const char* op) const {
    if (state_ != State::open)
        throw std::runtime_error(partial_path() + ": " + op + " after the file was closed");
    if (failed_) throw std::runtime_error(partial_path() + ": " + op + " after a failed write");
}

double SonataWriter::stop_after(std::size_t frames) const {
    return frames == frames_expected_ ? stop_ : start_ + static_cast<double>(frames) * step_;
}

void SonataWriter::append_frames(const float* rows, std::size_t n_frames) { append(rows, n_frames, H5T_NATIVE_FLOAT); }

void SonataWriter::append_frames(const double* rows, std::size_t n_frames) { append(rows, n_frames, H5T_NATIVE_DOUBLE); }

template <class Op>
void SonataWriter::guarded(Op op) {
    try {
        op();
    } catch (const std::runtime_error&) {
        failed_ = true;
        throw;
    }
}

namespace {

// Appends n values to a 1-D dataset that holds `have`.
void append_1d(hid_t ds, std::size_t have, std::size_t n, hid_t mem_type, const void* values, const std::string& file,
               const char* name) {
    const hsize_t extent[1] = {have + n}, start[1] = {have}, count[1] = {n};
    ok(H5Dset_extent(ds, extent), file, std::string("H5Dset_extent ") + name);
    Id fspace(H5Dget_space(ds), H5Sclose, file, std::string("H5Dget_space ") + name);
    ok(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr), file,
       std::string("H5Sselect_hyperslab ") + name);
    Id mspace(H5Screate_simple(1, count, nullptr), H5Sclose, file, "H5Screate_simple");
    ok(H5Dwrite(ds, mem_type, mspace, fspace, H5P_DEFAULT, values), file, std::string("H5Dwrite ") + name);
}

std::size_t extent_1d(hid_t ds, const std::string& file) {
    Id space(H5Dget_space(ds), H5Sclose, file, "H5Dget_space");
    hsize_t n = 0;
    ok(H5Sget_simple_extent_dims(space, &n, nullptr), file, "H5Sget_simple_extent_dims");
    return n;
}

bool spike_order(const Spike& a, const Spike& b) { return std::tie(a.time, a.gid, a.source) < std::tie(b.time, b.gid, b.source); }

}  // namespace

void SonataWriter::append(const void* rows, std::size_t n_frames, std::int64_t mem_type) {
    check_open("append_frames");
    const std::string file = partial_path();
    if (!has_report_) throw std::runtime_error(file + ": append_frames on a spikes-only file");
    if (n_frames == 0) return;
    if (frames_written_ + n_frames > frames_expected_)
        throw std::runtime_error(file + ": appending " + std::to_string(n_frames) + " frames to " +
                                 std::to_string(frames_written_) + " exceeds the " + std::to_string(frames_expected_) +
                                 " frames of the report's time");
    QuietErrors quiet;
    guarded([&] {
        const hsize_t extent[2] = {frames_written_ + n_frames, n_values_};
        ok(H5Dset_extent(data_, extent), file, "H5Dset_extent data");
        Id fspace(H5Dget_space(data_), H5Sclose, file, "H5Dget_space data");
        const hsize_t start[2] = {frames_written_, 0}, count[2] = {n_frames, n_values_};
        ok(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr), file, "H5Sselect_hyperslab data");
        Id mspace(H5Screate_simple(2, count, nullptr), H5Sclose, file, "H5Screate_simple");
        ok(H5Dwrite(data_, mem_type, mspace, fspace, H5P_DEFAULT, rows), file, "H5Dwrite data");
    });
    frames_written_ += n_frames;
}

void SonataWriter::append_spikes(const std::vector<Spike>& spikes) {
    check_open("append_spikes");
    if (spikes.empty()) return;
    std::vector<Spike> sorted = spikes;
    std::sort(sorted.begin(), sorted.end(), spike_order);
    if (spikes_written_ > 0 && spike_order(sorted.front(), last_spike_)) spikes_sorted_ = false;
    last_spike_ = sorted.back();
    std::vector<double> times(sorted.size());
    std::vector<std::uint64_t> gids(sorted.size());
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        times[k] = sorted[k].time;
        gids[k] = sorted[k].gid;
    }
    const std::string file = partial_path();
    QuietErrors quiet;
    guarded([&] {
        append_1d(times_, spikes_written_, times.size(), H5T_NATIVE_DOUBLE, times.data(), file, "timestamps");
        append_1d(gids_, spikes_written_, gids.size(), H5T_NATIVE_UINT64, gids.data(), file, "node_ids");
    });
    spikes_written_ += sorted.size();
}

void SonataWriter::write_time(std::size_t frames) {
    if (!has_report_ || frames == frames_timed_) return;
    const std::string file = partial_path();
    const std::string name = "/report/" + population_ + "/mapping/time";
    Id t(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose, file, "H5Dopen2 " + name);
    const double time[3] = {start_, stop_after(frames), step_};
    ok(H5Dwrite(t, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, time), file, "H5Dwrite " + name);
    frames_timed_ = frames;
}

void SonataWriter::write_reason(const std::string& reason) {
    const std::string file = partial_path();
    if (ok(H5Aexists(file_, "interrupted"), file, "H5Aexists interrupted") > 0) {
        // Reading the old text loads the global heap collection that holds it, so that the
        // new text goes into its free room rather than into a new collection: on a full
        // disk, after a reopen, that is the difference between a reason and none.
        Id attr(H5Aopen(file_, "interrupted", H5P_DEFAULT), H5Aclose, file, "H5Aopen interrupted");
        Id type(H5Aget_type(attr), H5Tclose, file, "H5Aget_type interrupted");
        if (H5Tis_variable_str(type) > 0) {
            char* old = nullptr;
            if (H5Aread(attr, type, &old) >= 0 && old) H5free_memory(old);
        }
        H5Eclear2(H5E_DEFAULT);
    }
    if (ok(H5Aexists(file_, "interrupted"), file, "H5Aexists interrupted") > 0)
        ok(H5Adelete(file_, "interrupted"), file, "H5Adelete interrupted");
    if (reason.empty()) return;
    Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, file, "H5Pcreate");
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate");
    make_out(file, gcpl, dcpl).string_attribute(file_, "interrupted", reason.c_str());
}

// Spikes came out of time order (an epoch's first spike before the previous one's last,
// or appends not in time order): sort what is on file, in place (the same bytes' room).
void SonataWriter::sort_spikes_on_disk() {
    if (spikes_sorted_) return;
    // Committed spikes change places: held until the flush commits them all.
    hold_raw_writes(file_, true);
    const std::string file = partial_path();
    const std::size_t n = extent_1d(times_, file);
    std::vector<double> times(n);
    std::vector<std::uint64_t> gids(n);
    if (n > 0) {
        ok(H5Dread(times_, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, times.data()), file, "H5Dread timestamps");
        ok(H5Dread(gids_, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, gids.data()), file, "H5Dread node_ids");
    }
    std::vector<std::size_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return std::tie(times[a], gids[a]) < std::tie(times[b], gids[b]); });
    std::vector<double> t(n);
    std::vector<std::uint64_t> g(n);
    for (std::size_t k = 0; k < n; ++k) t[k] = times[order[k]], g[k] = gids[order[k]];
    if (n > 0) {
        ok(H5Dwrite(times_, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data()), file, "H5Dwrite timestamps");
        ok(H5Dwrite(gids_, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, g.data()), file, "H5Dwrite node_ids");
    }
    spikes_sorted_ = true;
}

void SonataWriter::flush() {
    check_open("flush");
    QuietErrors quiet;
    guarded([&] {
        write_time(frames_written_);
        flush_checked(file_, partial_path());
    });
    frames_flushed_ = frames_written_;
    spikes_flushed_ = spikes_written_;
}

void SonataWriter::close_handles() {
    const std::string file = partial_path();
    for (hid_t* ds : {&data_, &times_, &gids_}) {
        const herr_t d = *ds >= 0 ? H5Dclose(*ds) : 0;
        if (d >= 0) *ds = -1;
        ok(d, file, "H5Dclose");
    }
    const herr_t c = file_ >= 0 ? H5Fclose(file_) : 0;
    if (c >= 0) file_ = -1;
    ok(c, file, "H5Fclose");
}

void SonataWriter::close_quietly() noexcept {
    QuietErrors quiet;
    close_id(data_, H5Dclose);
    close_id(times_, H5Dclose);
    close_id(gids_, H5Dclose);
    close_id(file_, H5Fclose);
    H5Eclear2(H5E_DEFAULT);
}

std::string SonataWriter::kept(std::size_t frames, std::size_t spikes) const {
    std::string s;
    if (has_report_) {
        char t[32];
        std::snprintf(t, sizeof t, "%.9g", stop_after(frames));
        s = std::to_string(frames) + " of " + std::to_string(frames_expected_) + " frames (to " + t + " ms) and ";
    }
    return s + std::to_string(spikes) + " spikes in " + partial_path();
}

void SonataWriter::finish() {
    check_open("finish");
    const std::string file = partial_path();
    if (has_report_ && frames_written_ != frames_expected_) {
        const std::string why = "the run appended " + std::to_string(frames_written_) + " of the " +
                                std::to_string(frames_expected_) + " frames of the report";
        interrupt(why);
        throw std::runtime_error(file + ": " + why + "; kept as .partial");
    }
    {
        QuietErrors quiet;
        guarded([&] {
            write_time(frames_written_);
            sort_spikes_on_disk();
            write_reason("");
            flush_checked(file_, file);
            close_handles();
        });
    }
    state_ = State::finished;
    std::error_code ec;
    std::filesystem::rename(file, path_, ec);
    if (ec) throw std::runtime_error(path_ + ": cannot rename " + file + " to it: " + ec.message());
}

std::string SonataWriter::interrupt(const std::string& reason) {
    if (state_ != State::open) throw std::runtime_error(partial_path() + ": interrupt after the file was closed");
    if (failed_) return salvage(reason);
    const std::string file = partial_path();
    try {
        QuietErrors quiet;
        write_time(frames_written_);
        sort_spikes_on_disk();
        write_reason(reason);
        flush_checked(file_, file);
        close_handles();
    } catch (const std::runtime_error&) {
        failed_ = true;  // the disk holds what the last flush wrote
        return salvage(reason);
    }
    state_ = State::interrupted;
    return kept(frames_written_, spikes_written_);
}

void SonataWriter::open_spikes() {
    const std::string file = partial_path();
    const std::string pop = "/spikes/" + population_;
    times_ = ok(H5Dopen2(file_, (pop + "/timestamps").c_str(), H5P_DEFAULT), file, "H5Dopen2 timestamps");
    gids_ = ok(H5Dopen2(file_, (pop + "/node_ids").c_str(), H5P_DEFAULT), file, "H5Dopen2 node_ids");
}

std::string SonataWriter::salvage(const std::string& reason) {
    const std::string file = partial_path();
    close_quietly();  // the driver drops what the last flush did not commit
    state_ = State::interrupted;
    QuietErrors quiet;
    {
        Id fapl(latching_fapl(), H5Pclose, file, "H5Pcreate");
        file_ = H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl);
    }
    if (file_ < 0) {
        H5Eclear2(H5E_DEFAULT);
        std::error_code ec;
        if (std::filesystem::is_regular_file(file, ec)) std::remove(file.c_str());
        return "nothing readable reached the disk: removed " + file;
    }
    // The file is the last flush's: its frames, its spikes, its time stop.
    std::size_t frames = frames_flushed_, spikes = spikes_flushed_;
    frames_timed_ = frames_flushed_;
    try {
        if (has_report_) {
            const std::string name = "/report/" + population_ + "/data";
            data_ = ok(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), file, "H5Dopen2 " + name);
            Id space(H5Dget_space(data_), H5Sclose, file, "H5Dget_space data");
            hsize_t dims[2] = {0, 0};
            ok(H5Sget_simple_extent_dims(space, dims, nullptr), file, "H5Sget_simple_extent_dims data");
            frames = dims[0];
        }
        open_spikes();
        spikes = extent_1d(times_, file);
        sort_spikes_on_disk();
        write_reason(reason);
        flush_checked(file_, file);
        close_handles();
    } catch (const std::runtime_error& e) {
        close_quietly();
        return kept(frames, spikes) + ", which says only that the run had not ended (" + e.what() + ")";
    }
    return kept(frames, spikes);
}

}  // namespace arbolito
