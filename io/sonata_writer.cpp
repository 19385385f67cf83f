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

// Flushes the file and checks that every write of it reached the disk (some write errors
// do not reach the caller through HDF5: io/latching_file_driver.hpp).
void flush_checked(hid_t f, const std::string& file) {
    ok(H5Fflush(f, H5F_SCOPE_LOCAL), file, "H5Fflush");
    if (const int err = latched_error(f))
        throw std::runtime_error(file + ": cannot write: " + std::strerror(err) + " (HDF5 H5Fflush)");
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

std::size_t ReportMapping::n_frames() const {
    if (!(step > 0) || !(stop > start)) return 0;
    return static_cast<std::size_t>(std::llround((stop - start) / step));
}

SonataWriter::SonataWriter(const std::string& path, const std::string& population, const ReportMapping* report,
                           bool double_data)
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
        if (!report) {
            flush_checked(file_, file);  // a readable file from the start
            return;
        }

        const ReportMapping& m = *report;
        Id root(out.group(file_, "report"));
        Id pop(out.group(root, population));

        // data: float32 [0, n] growing along time; chunks of whole frames, about 1 MiB,
        // but no taller than the run so that short reports stay small on disk.
        const hsize_t n = n_values_;
        const hsize_t dims[2] = {0, n}, maxdims[2] = {H5S_UNLIMITED, n};
        const hsize_t frame_bytes = n * (double_data ? sizeof(double) : sizeof(float));
        const hsize_t chunk_frames =
            std::max<hsize_t>(1, std::min<hsize_t>(kChunkBytes / frame_bytes, std::max<std::size_t>(1, frames_expected_)));
        const hsize_t chunk[2] = {chunk_frames, n};
        Id space(H5Screate_simple(2, dims, maxdims), H5Sclose, file, "H5Screate_simple data");
        Id data_cpl(H5Pcopy(dcpl), H5Pclose, file, "H5Pcopy");
        ok(H5Pset_chunk(data_cpl, 2, chunk), file, "H5Pset_chunk data");
        // Appends rarely cover whole chunks: keep a few chunks cached so that a partly
        // written chunk is completed in memory, not re-read from disk.
        Id data_apl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose, file, "H5Pcreate");
        const std::size_t cache_bytes = std::max<std::size_t>(kChunkBytes, 4 * chunk_frames * frame_bytes);
        ok(H5Pset_chunk_cache(data_apl, 521, cache_bytes, 1.0), file, "H5Pset_chunk_cache");
        data_ = ok(H5Dcreate2(pop, "data", double_data ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, space, H5P_DEFAULT, data_cpl, data_apl), file,
                   "H5Dcreate2 data");
        out.string_attribute(data_, "units", "mV");

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
        const double time[3] = {m.start, m.stop, m.step};
        Id t(out.dataset_1d(map, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, time));
        out.string_attribute(t, "units", "ms");
        flush_checked(file_, file);
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

void SonataWriter::append(const void* rows, std::size_t n_frames, std::int64_t mem_type) {
    check_open("append_frames");
    if (failed_) throw std::runtime_error(partial_path() + ": append_frames after a failed write");
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
    spikes_.insert(spikes_.end(), spikes.begin(), spikes.end());
}

void SonataWriter::flush() {
    check_open("flush");
    if (failed_) throw std::runtime_error(partial_path() + ": flush after a failed write");
    QuietErrors quiet;
    guarded([&] { flush_checked(file_, partial_path()); });
    frames_flushed_ = frames_written_;
}

void SonataWriter::write_time(double stop) {
    const std::string file = partial_path();
    const std::string name = "/report/" + population_ + "/mapping/time";
    Id t(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose, file, "H5Dopen2 " + name);
    const double time[3] = {start_, stop, step_};
    ok(H5Dwrite(t, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, time), file, "H5Dwrite " + name);
}

void SonataWriter::write_spikes(const std::vector<Spike>& spikes) {
    const std::string file = partial_path();
    Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, file, "H5Pcreate");
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate");
    const Out out = make_out(file, gcpl, dcpl);

    // by_time, ties broken by gid (and detector) so that the file is deterministic.
    std::vector<Spike> sorted = spikes;
    std::sort(sorted.begin(), sorted.end(), [](const Spike& a, const Spike& b) {
        return std::tie(a.time, a.gid, a.source) < std::tie(b.time, b.gid, b.source);
    });
    std::vector<double> times(sorted.size());
    std::vector<std::uint64_t> gids(sorted.size());
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        times[k] = sorted[k].time;
        gids[k] = sorted[k].gid;
    }

    Id root(out.group(file_, "spikes"));
    Id pop(out.group(root, population_));
    Id sorting(H5Tenum_create(H5T_STD_U8LE), H5Tclose, file, "H5Tenum_create");
    for (const auto& [name, value] : {std::pair{"none", sorting_none}, std::pair{"by_id", sorting_by_id},
                                      std::pair{"by_time", sorting_by_time}}) {
        const std::uint8_t v = value;
        ok(H5Tenum_insert(sorting, name, &v), file, std::string("H5Tenum_insert ") + name);
    }
    const std::uint8_t by_time = sorting_by_time;
    out.attribute(pop, "sorting", sorting, sorting, 0, nullptr, &by_time);
    Id ts(out.dataset_1d(pop, "timestamps", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, times.size(), times.data()));
    out.string_attribute(ts, "units", "ms");
    out.dataset_1d(pop, "node_ids", H5T_STD_U64LE, H5T_NATIVE_UINT64, gids.size(), gids.data());
}

void SonataWriter::close_handles() {
    const std::string file = partial_path();
    const herr_t d = data_ >= 0 ? H5Dclose(data_) : 0;
    if (d >= 0) data_ = -1;
    ok(d, file, "H5Dclose data");
    const herr_t c = file_ >= 0 ? H5Fclose(file_) : 0;
    if (c >= 0) file_ = -1;
    ok(c, file, "H5Fclose");
}

void SonataWriter::close_quietly() noexcept {
    QuietErrors quiet;
    close_id(data_, H5Dclose);
    close_id(file_, H5Fclose);
    H5Eclear2(H5E_DEFAULT);
}

std::vector<Spike> SonataWriter::spikes_before(double stop) const {
    if (!has_report_) return spikes_;
    std::vector<Spike> out;
    for (const Spike& s : spikes_)
        if (s.time < stop) out.push_back(s);
    return out;
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
            write_spikes(spikes_);
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
    check_open("interrupt");
    if (failed_) return salvage(reason);
    const std::string file = partial_path();
    const double stop = stop_after(frames_written_);
    const std::vector<Spike> spikes = spikes_before(stop);
    try {
        QuietErrors quiet;
        if (has_report_) {
            // After a failed append the extent may run past the frames written.
            const hsize_t extent[2] = {frames_written_, n_values_};
            ok(H5Dset_extent(data_, extent), file, "H5Dset_extent data");
            if (frames_written_ != frames_expected_) write_time(stop);
        }
        Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, file, "H5Pcreate");
        Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate");
        make_out(file, gcpl, dcpl).string_attribute(file_, "interrupted", reason.c_str());
        write_spikes(spikes);
        flush_checked(file_, file);
        close_handles();
    } catch (const std::runtime_error&) {
        failed_ = true;  // the disk holds what the last flush wrote
        return salvage(reason);
    }
    state_ = State::interrupted;
    return kept(frames_written_, spikes.size());
}

std::string SonataWriter::salvage(const std::string& reason) {
    const std::string file = partial_path();
    close_quietly();  // the latching driver lets it close without writing more
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
    // Each step is flushed: what the disk takes stays a readable file.
    std::size_t frames = 0, n_spikes = 0;
    try {
        if (has_report_) {
            const std::string name = "/report/" + population_ + "/data";
            data_ = ok(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), file, "H5Dopen2 " + name);
            Id space(H5Dget_space(data_), H5Sclose, file, "H5Dget_space data");
            hsize_t dims[2] = {0, 0};
            ok(H5Sget_simple_extent_dims(space, dims, nullptr), file, "H5Sget_simple_extent_dims data");
            frames = std::min<std::size_t>(dims[0], frames_flushed_);
            const hsize_t extent[2] = {frames, n_values_};
            ok(H5Dset_extent(data_, extent), file, "H5Dset_extent data");
            write_time(stop_after(frames));
            flush_checked(file_, file);
        }
        Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, file, "H5Pcreate");
        Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate");
        make_out(file, gcpl, dcpl).string_attribute(file_, "interrupted", reason.c_str());
        flush_checked(file_, file);
        const std::vector<Spike> spikes = spikes_before(stop_after(frames));
        write_spikes(spikes);
        flush_checked(file_, file);
        close_handles();
        n_spikes = spikes.size();
    } catch (const std::runtime_error& e) {
        close_quietly();
        return kept(frames, 0) + ", without its spikes (" + e.what() + ")";
    }
    return kept(frames, n_spikes);
}

}  // namespace arbolito
