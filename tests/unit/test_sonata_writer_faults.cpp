// The SONATA writer on a disk that stops taking data. The fault is real, not simulated:
// RLIMIT_FSIZE makes the kernel fail every write past a size with EFBIG (SIGXFSZ
// ignored), exactly where a full disk fails with ENOSPC: inside HDF5's write of a chunk
// or of its metadata. No root, no small filesystem and no seam in the writer are needed,
// and the path under test is the one a full disk takes (io/latching_file_driver.hpp).
#include <hdf5.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

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
    std::vector<double> v(H5Sget_simple_extent_npoints(space));
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

// Spikes only: they are written at the end, and a full disk then fails finish() cleanly;
// the file stays readable (its magic), the spikes are named as lost in the words kept.
TEST(SonataWriterFaults, SpikesOnlyFinishOnFullDisk) {
    const fs::path dir = scratch("spikes_only");
    const std::string out = (dir / "out.h5").string();
    std::string kept;
    {
        SonataWriter w(out, "p", nullptr);
        std::vector<Spike> s;
        for (int k = 0; k < 100000; ++k) s.push_back({static_cast<std::uint64_t>(k % 7), 0, 0.01 * k});
        w.append_spikes(s);  // 1.6 MB of spikes
        FileSizeLimit limit(64 << 10);
        try {
            w.finish();
            ADD_FAILURE() << "finish() wrote 1.6 MB into 64 kB";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot write: File too large"), std::string::npos) << e.what();
        }
        kept = w.interrupt("disk full");
    }
    EXPECT_NE(kept.find("without its spikes"), std::string::npos) << kept;
    H f{H5Fopen((out + ".partial").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    ASSERT_GE(f.id, 0);
    EXPECT_GT(H5Aexists(f, "magic"), 0);
}
