// The SONATA writer on a disk that stops taking data. The fault is real, not simulated:
// RLIMIT_FSIZE makes the kernel fail every write past a size with EFBIG (SIGXFSZ
// ignored), exactly where a full disk fails with ENOSPC: inside HDF5's write of a chunk
// or of its metadata. No root, no small filesystem and no seam in the writer are needed,
// and the path under test is the one a full disk takes (io/latching_file_driver.hpp).
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/latching_file_driver.hpp"
#include "io/sonata_writer.hpp"

namespace fs = std::filesystem;
using arbolito::ReportMapping;
using arbolito::SonataWriter;
using arbolito::Spike;

namespace {

// Files of this process may not grow past `bytes` while it lives.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &old_);
        old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit l = old_;
        l.rlim_cur = bytes;
        EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &l), 0);
    }
    ~FileSizeLimit() { lift(); }
    void lift() {
        if (lifted_) return;
        setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, old_handler_);
        lifted_ = true;
    }

private:
    rlimit old_{};
    void (*old_handler_)(int) = nullptr;
    bool lifted_ = false;
};

fs::path scratch(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("arbolito_faults_" + std::to_string(::getpid())) / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// 2,000 columns for 1,000 frames of 0.1 ms: 8 kB a frame, 8 MB in all.
ReportMapping wide_mapping() {
    ReportMapping m;
    m.node_ids = {0};
    m.index_pointers = {0, 2000};
    m.element_ids.assign(2000, 0);
    m.start = 0;
    m.stop = 100;
    m.step = 0.1;
    return m;
}

// Appends blocks of 10 frames with a flush after each (as epochs do) until a write
// fails; returns its message and the frames flushed before it.
std::string fill_until_failure(SonataWriter& w, std::size_t& flushed) {
    const std::vector<float> block(10 * 2000, -65.0f);
    flushed = 0;
    try {
        for (std::size_t f = 0; f < 1000; f += 10) {
            w.append_spikes({{0, 0, 0.1 * f + 0.05}});
            w.append_frames(block.data(), 10);
            w.flush();
            flushed = f + 10;
        }
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

struct H {
    hid_t id;
    herr_t (*close)(hid_t);
    ~H() {
        if (id >= 0) close(id);
    }
    operator hid_t() const { return id; }
};

std::vector<hsize_t> data_shape(hid_t f) {
    H ds{H5Dopen2(f, "/report/p/data", H5P_DEFAULT), H5Dclose};
    H space{H5Dget_space(ds), H5Sclose};
    std::vector<hsize_t> d(2);
    H5Sget_simple_extent_dims(space, d.data(), nullptr);
    return d;
}

std::vector<double> read_doubles(hid_t f, const char* name) {
    H ds{H5Dopen2(f, name, H5P_DEFAULT), H5Dclose};
    H space{H5Dget_space(ds), H5Sclose};
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0 || n > 100000000) return {};  // no such dataset, or a broken file's garbage
    std::vector<double> v(n);
    if (!v.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    return v;
}

}  // namespace

// The disk fills part-way: the write fails with the system's cause, the file keeps the
// frames of the last flush as a readable SONATA file (time shrunk to them), and, once
// there is room again, the spikes before that time and the `interrupted` attribute.
TEST(SonataWriterFaults, FullDiskPartWayKeepsTheLastFlush) {
    const fs::path dir = scratch("part_way");
    const std::string out = (dir / "out.h5").string();
    const ReportMapping m = wide_mapping();
    std::size_t flushed = 0;
    std::string kept;
    {
        FileSizeLimit limit(4 << 20);  // 4 MiB: chunks of 131 frames (1 MiB) fit three times
        SonataWriter w(out, "p", &m);
        const std::string what = fill_until_failure(w, flushed);
        EXPECT_NE(what.find(out + ".partial: cannot write: File too large (HDF5 "), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
        EXPECT_GT(flushed, 0u);
        EXPECT_LT(flushed, 1000u);
        EXPECT_THROW(w.append_frames(std::vector<float>(2000).data(), 1), std::runtime_error);
        limit.lift();  // room again: the salvage can add the spikes
        kept = w.interrupt("disk full");
    }
    EXPECT_NE(kept.find(std::to_string(flushed) + " of 1000 frames"), std::string::npos) << kept;
    EXPECT_FALSE(fs::exists(out));
    H f{H5Fopen((out + ".partial").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    ASSERT_GE(f.id, 0);
    EXPECT_EQ(data_shape(f), (std::vector<hsize_t>{flushed, 2000}));
    const auto time = read_doubles(f, "/report/p/mapping/time");
    ASSERT_EQ(time.size(), 3u);
    EXPECT_NEAR(time[1], 0.1 * flushed, 1e-9);
    const auto spikes = read_doubles(f, "/spikes/p/timestamps");
    EXPECT_EQ(spikes.size(), flushed / 10);  // one per flushed block, none after the stop
    EXPECT_GT(H5Aexists(f, "interrupted"), 0);
}

// Still no room when the run gives up: the file keeps the last flush's frames and says
// that the spikes could not be added; no crash on close or at exit.
TEST(SonataWriterFaults, FullDiskToTheEndStillReadable) {
    const fs::path dir = scratch("to_the_end");
    const std::string out = (dir / "out.h5").string();
    const ReportMapping m = wide_mapping();
    std::size_t flushed = 0;
    std::string kept;
    {
        FileSizeLimit limit(4 << 20);
        SonataWriter w(out, "p", &m);
        EXPECT_FALSE(fill_until_failure(w, flushed).empty());
        kept = w.interrupt("disk full");
    }
    EXPECT_NE(kept.find("frames"), std::string::npos) << kept;
    H f{H5Fopen((out + ".partial").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    ASSERT_GE(f.id, 0);
    EXPECT_EQ(data_shape(f)[0], flushed);
}

// No byte can be written: the writer fails at creation and leaves no (0-byte) file.
TEST(SonataWriterFaults, NoRoomAtAllLeavesNoFile) {
    const fs::path dir = scratch("no_room");
    const std::string out = (dir / "out.h5").string();
    const ReportMapping m = wide_mapping();
    FileSizeLimit limit(0);
    try {
        SonataWriter w(out, "p", &m);
        ADD_FAILURE() << "created a file on a full disk";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot write: File too large"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out + ".partial"));
    EXPECT_FALSE(fs::exists(out));
}

// Spikes only: they reach the file as epochs end, so a disk that fills keeps those of the
// last flush (the run used to lose them all, written only at the end).
TEST(SonataWriterFaults, SpikesOnlyKeepsTheSpikesOfTheLastFlush) {
    const fs::path dir = scratch("spikes_only");
    const std::string out = (dir / "out.h5").string();
    std::string kept;
    std::size_t flushed = 0;
    {
        SonataWriter w(out, "p", nullptr);
        FileSizeLimit limit(64 << 10);
        try {
            for (int epoch = 0; epoch < 1000; ++epoch) {
                std::vector<Spike> s;
                for (int k = 0; k < 100; ++k) s.push_back({static_cast<std::uint64_t>(k % 7), 0, epoch + 0.01 * k});
                w.append_spikes(s);
                w.flush();
                flushed += s.size();
            }
            ADD_FAILURE() << "1.6 MB of spikes went into 64 kB";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot write: File too large"), std::string::npos) << e.what();
        }
        kept = w.interrupt("disk full");
    }
    EXPECT_GT(flushed, 0u);
    EXPECT_EQ(kept, std::to_string(flushed) + " spikes in " + out + ".partial");
    H f{H5Fopen((out + ".partial").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    ASSERT_GE(f.id, 0);
    const auto times = read_doubles(f, "/spikes/p/timestamps");
    EXPECT_EQ(times.size(), flushed);
    EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
    EXPECT_GT(H5Aexists(f, "interrupted"), 0);
}

namespace {

// What a reader finds in a .partial: frames (the time stop's count, the data's rows:
// they must agree), spikes, the root attribute `interrupted`; frames -1: unreadable.
struct Found {
    long frames = -1, rows = -1, spikes = -1;
    std::string interrupted;
    bool values_ok = false;  // every kept row holds what was appended
};

std::string string_attribute(hid_t obj, const char* name) {
    if (H5Aexists(obj, name) <= 0) return "";
    H a{H5Aopen(obj, name, H5P_DEFAULT), H5Aclose};
    H t{H5Aget_type(a), H5Tclose};
    char* v = nullptr;
    if (H5Aread(a, t, &v) < 0 || !v) return "";
    std::string s = v;
    H5free_memory(v);
    return s;
}

Found read_back(const std::string& file, std::size_t cols, float (*value)(std::size_t, std::size_t)) {
    Found r;
    struct Quiet {  // a file that does not open is an answer here, not a message
        H5E_auto2_t func;
        void* data;
        Quiet() {
            H5Eget_auto2(H5E_DEFAULT, &func, &data);
            H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        }
        ~Quiet() { H5Eset_auto2(H5E_DEFAULT, func, data); }
    } quiet;
    {
        H f{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
        if (f.id >= 0) {
            r.interrupted = string_attribute(f, "interrupted");
            r.spikes = static_cast<long>(read_doubles(f, "/spikes/p/timestamps").size());
            if (cols == 0) {
                r.frames = r.rows = 0;
                r.values_ok = true;
            } else {
                const auto time = read_doubles(f, "/report/p/mapping/time");
                if (time.size() == 3) r.frames = std::lround((time[1] - time[0]) / time[2]);
                r.rows = static_cast<long>(data_shape(f)[0]);
                if (r.rows < 0 || r.rows > 1000000) return r.frames = -1, r;  // garbage: not a readable file
                std::vector<float> v(static_cast<std::size_t>(r.rows) * cols);
                H ds{H5Dopen2(f, "/report/p/data", H5P_DEFAULT), H5Dclose};
                r.values_ok = v.empty() || H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0;
                for (std::size_t k = 0; r.values_ok && k < v.size(); ++k) r.values_ok = v[k] == value(k / cols, k % cols);
            }
        }
    }
    return r;
}

float sample(std::size_t frame, std::size_t col) { return -65.0f + 0.25f * static_cast<float>(frame % 97) + 0.001f * col; }

}  // namespace

// A disk of every size from nothing to the whole file, a page at a time, filling as a
// tmpfs does (io/latching_file_driver.hpp: set_disk_space_for_tests): wherever the disk
// gives out (a chunk, a chunk index, an object header, the superblock, the flush that
// rewrites the last chunk in place), the .partial opens, its time stop counts its rows,
// its rows hold what was appended, and it keeps at least the frames and spikes of the
// last flush that succeeded. Straight-through writing left "addr overflow" here.
TEST(SonataWriterFaults, EveryDiskSizeLeavesAReadableFile) {
    const fs::path dir = scratch("every_size");
    const std::string out = (dir / "out.h5").string();
    ReportMapping m;  // 100 columns for 400 frames: one chunk of 160 kB, rewritten at each flush
    m.node_ids = {0};
    m.index_pointers = {0, 100};
    m.element_ids.assign(100, 0);
    m.stop = 40;
    m.step = 0.1;
    const std::size_t cols = 100, block = 7;
    int complete = 0;
    struct Unlimited {
        ~Unlimited() { arbolito::set_disk_space_for_tests(-1); }
    } unlimited_at_the_end;
    for (long long pages = 0; pages <= 60; ++pages) {
        arbolito::set_disk_space_for_tests(pages * 4096);
        std::size_t flushed_frames = 0, flushed_spikes = 0;
        bool created = false;
        try {
            SonataWriter w(out, "p", &m);
            created = true;
            try {
                for (std::size_t f = 0; f < 400; f += block) {
                    const std::size_t n = std::min(block, 400 - f);
                    std::vector<float> rows;
                    for (std::size_t r = f; r < f + n; ++r)
                        for (std::size_t c = 0; c < cols; ++c) rows.push_back(sample(r, c));
                    w.append_frames(rows.data(), n);
                    w.append_spikes({{f % 5, 0, 0.1 * f}, {f % 3, 0, 0.1 * f + 0.05}});
                    w.flush();
                    flushed_frames = f + n;
                    flushed_spikes += 2;
                }
                w.finish();
                ++complete;
                continue;
            } catch (const std::runtime_error& e) {
                EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
            }
            w.interrupt("disk full");
        } catch (const std::runtime_error& e) {
            EXPECT_FALSE(created) << e.what();
        }
        const std::string partial = out + ".partial";
        if (!created) {
            EXPECT_FALSE(fs::exists(partial)) << pages << " pages: a file left where none could be made";
            continue;
        }
        const Found r = read_back(partial, cols, sample);
        ASSERT_GE(r.frames, 0) << pages << " pages: the .partial does not open";
        EXPECT_EQ(r.frames, r.rows) << pages << " pages";
        EXPECT_TRUE(r.values_ok) << pages << " pages";
        EXPECT_GE(r.frames, static_cast<long>(flushed_frames)) << pages << " pages";
        EXPECT_GE(r.spikes, static_cast<long>(flushed_spikes)) << pages << " pages";
        EXPECT_FALSE(r.interrupted.empty()) << pages << " pages";
        fs::remove(partial);
    }
    EXPECT_GT(complete, 0) << "no disk size took the whole file";
}

// A process that dies between flushes (SIGKILL, a second Ctrl-C, a crash) leaves the
// file of its last flush: what HDF5 rewrote in place since (its caches evicting) never
// reached the disk.
TEST(SonataWriterFaults, KilledBetweenFlushesLeavesTheLastFlush) {
    const fs::path dir = scratch("killed");
    const std::string out = (dir / "out.h5").string();
    const ReportMapping m = wide_mapping();  // chunks of 131 frames of 8 kB
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) try {
        SonataWriter w(out, "p", &m);
        std::vector<float> rows;
        auto block = [&](std::size_t first, std::size_t n) {
            rows.clear();
            for (std::size_t r = first; r < first + n; ++r)
                for (std::size_t c = 0; c < 2000; ++c) rows.push_back(sample(r, c));
            w.append_frames(rows.data(), n);
        };
        for (std::size_t f = 0; f < 300; f += 10) {
            block(f, 10);
            w.append_spikes({{0, 0, 0.1 * f}});
            w.flush();
        }
        // Far past the chunk cache: chunks and the chunk index go out before any flush.
        for (std::size_t f = 300; f < 1000; f += 10) block(f, 10);
        ::_exit(0);  // no close, no flush
    } catch (...) {
        ::_exit(1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const Found r = read_back(out + ".partial", 2000, sample);
    ASSERT_GE(r.frames, 0) << "the .partial does not open";
    EXPECT_EQ(r.frames, 300);
    EXPECT_EQ(r.rows, 300);
    EXPECT_TRUE(r.values_ok);
    EXPECT_EQ(r.spikes, 30);
    EXPECT_EQ(r.interrupted, arbolito::kStillRunning);
}
