// The SONATA writer, read back with the HDF5 C API against docs/sonata-output.md.
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sonata_writer.hpp"

namespace fs = std::filesystem;
using arbolito::ReportMapping;
using arbolito::SonataWriter;
using arbolito::Spike;

namespace {

const fs::path& scratch_root() {
    static const fs::path root = fs::temp_directory_path() / ("arbolito_sonata_" + std::to_string(::getpid()));
    static const struct Cleanup {
        ~Cleanup() {
            std::error_code ec;
            fs::remove_all(root, ec);
        }
    } cleanup;
    return root;
}

// A fresh directory per test.
fs::path scratch(const std::string& name) {
    const fs::path d = scratch_root() / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// The format's tiny example: cell 0's soma and two CVs of branch 4 of cell 3, 0.1 ms for 5 ms.
ReportMapping tiny_mapping() {
    ReportMapping m;
    m.node_ids = {0, 3};
    m.index_pointers = {0, 1, 3};
    m.element_ids = {0, 4, 4};
    m.element_pos = {0.5f, 0.25f, 0.75f};
    m.start = 0;
    m.stop = 5;
    m.step = 0.1;
    return m;
}

float sample(std::size_t frame, std::size_t col) { return -65.0f + 0.5f * frame + 0.01f * col; }

std::vector<float> frames(std::size_t first, std::size_t n, std::size_t cols) {
    std::vector<float> v;
    for (std::size_t f = first; f < first + n; ++f)
        for (std::size_t c = 0; c < cols; ++c) v.push_back(sample(f, c));
    return v;
}

// Appends frames [0, n) in uneven blocks with a flush after each, as epochs would.
void write_frames(SonataWriter& w, std::size_t n, std::size_t cols, std::size_t block = 7) {
    for (std::size_t f = 0; f < n; f += block) {
        const std::size_t k = std::min(block, n - f);
        w.append_frames(frames(f, k, cols).data(), k);
        w.flush();
    }
}

// --- reading helpers -----------------------------------------------------------------

struct H {  // closes an HDF5 id
    hid_t id;
    herr_t (*close)(hid_t);
    ~H() {
        if (id >= 0) close(id);
    }
    operator hid_t() const { return id; }
};

H open_file(const fs::path& p) { return {H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose}; }
H open_ds(hid_t f, const std::string& name) { return {H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose}; }

bool exists(hid_t f, const std::string& path) {
    // H5Lexists needs every intermediate link to exist.
    std::string sofar;
    std::size_t pos = 1;
    while (pos <= path.size()) {
        const std::size_t next = path.find('/', pos);
        sofar = path.substr(0, next);
        if (H5Lexists(f, sofar.c_str(), H5P_DEFAULT) <= 0) return false;
        if (next == std::string::npos) break;
        pos = next + 1;
    }
    return true;
}

std::vector<hsize_t> shape(hid_t ds, std::vector<hsize_t>* maxdims = nullptr) {
    H space{H5Dget_space(ds), H5Sclose};
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> d(rank), m(rank);
    H5Sget_simple_extent_dims(space, d.data(), m.data());
    if (maxdims) *maxdims = m;
    return d;
}

// The dataset's file type equals `expected` (class, size, sign and byte order).
::testing::AssertionResult has_type(hid_t ds, hid_t expected) {
    H t{H5Dget_type(ds), H5Tclose};
    if (H5Tequal(t, expected) > 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "class " << H5Tget_class(t) << " size " << H5Tget_size(t);
}

template <class T>
std::vector<T> read_all(hid_t f, const std::string& name, hid_t mem_type) {
    H ds = open_ds(f, name);
    EXPECT_GE(ds.id, 0) << name;
    std::size_t n = 1;
    for (auto d : shape(ds)) n *= d;
    std::vector<T> v(n);
    if (n) {
        EXPECT_GE(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
    }
    return v;
}

// A `str` attribute: scalar, variable-length, UTF-8; returns its value.
std::string str_attribute(hid_t obj, const char* name) {
    H a{H5Aopen(obj, name, H5P_DEFAULT), H5Aclose};
    EXPECT_GE(a.id, 0) << name;
    H t{H5Aget_type(a), H5Tclose};
    H s{H5Aget_space(a), H5Sclose};
    EXPECT_EQ(H5Tget_class(t), H5T_STRING);
    EXPECT_GT(H5Tis_variable_str(t), 0);
    EXPECT_EQ(H5Tget_cset(t), H5T_CSET_UTF8);
    EXPECT_EQ(H5Sget_simple_extent_type(s), H5S_SCALAR);
    char* v = nullptr;
    EXPECT_GE(H5Aread(a, t, &v), 0);
    std::string r = v ? v : "";
    H5free_memory(v);
    return r;
}

void expect_spikes_group(hid_t f, const std::string& pop, const std::vector<double>& t,
                         const std::vector<std::uint64_t>& gid) {
    const std::string g = "/spikes/" + pop;
    H grp{H5Gopen2(f, g.c_str(), H5P_DEFAULT), H5Gclose};
    ASSERT_GE(grp.id, 0);
    {  // sorting: scalar enum on uint8 {none=0, by_id=1, by_time=2}, value by_time
        H a{H5Aopen(grp, "sorting", H5P_DEFAULT), H5Aclose};
        ASSERT_GE(a.id, 0);
        H type{H5Aget_type(a), H5Tclose};
        H s{H5Aget_space(a), H5Sclose};
        EXPECT_EQ(H5Sget_simple_extent_type(s), H5S_SCALAR);
        ASSERT_EQ(H5Tget_class(type), H5T_ENUM);
        H base{H5Tget_super(type), H5Tclose};
        EXPECT_GT(H5Tequal(base, H5T_STD_U8LE), 0);
        ASSERT_EQ(H5Tget_nmembers(type), 3);
        const char* names[3] = {"none", "by_id", "by_time"};
        for (unsigned i = 0; i < 3; ++i) {
            char* n = H5Tget_member_name(type, i);
            std::uint8_t v = 99;
            H5Tget_member_value(type, i, &v);
            EXPECT_STREQ(n, names[v]);
            H5free_memory(n);
        }
        std::uint8_t value = 0;
        ASSERT_GE(H5Aread(a, type, &value), 0);
        EXPECT_EQ(value, 2);
        char name[16] = {};
        ASSERT_GE(H5Tenum_nameof(type, &value, name, sizeof name), 0);
        EXPECT_STREQ(name, "by_time");
    }
    H ts = open_ds(f, g + "/timestamps");
    H ids = open_ds(f, g + "/node_ids");
    EXPECT_TRUE(has_type(ts, H5T_IEEE_F64LE));
    EXPECT_TRUE(has_type(ids, H5T_STD_U64LE));
    EXPECT_EQ(shape(ts), std::vector<hsize_t>{t.size()});
    EXPECT_EQ(shape(ids), std::vector<hsize_t>{gid.size()});
    EXPECT_EQ(str_attribute(ts, "units"), "ms");
    EXPECT_EQ(read_all<double>(f, g + "/timestamps", H5T_NATIVE_DOUBLE), t);
    EXPECT_EQ(read_all<std::uint64_t>(f, g + "/node_ids", H5T_NATIVE_UINT64), gid);
}

void expect_root_attributes(hid_t f) {
    H magic{H5Aopen(f, "magic", H5P_DEFAULT), H5Aclose};
    H mt{H5Aget_type(magic), H5Tclose};
    EXPECT_GT(H5Tequal(mt, H5T_STD_U32LE), 0);
    std::uint32_t m = 0;
    H5Aread(magic, H5T_NATIVE_UINT32, &m);
    EXPECT_EQ(m, 0x0A7Au);
    H version{H5Aopen(f, "version", H5P_DEFAULT), H5Aclose};
    H vt{H5Aget_type(version), H5Tclose};
    H vs{H5Aget_space(version), H5Sclose};
    EXPECT_GT(H5Tequal(vt, H5T_STD_U32LE), 0);
    hsize_t n = 0;
    ASSERT_EQ(H5Sget_simple_extent_ndims(vs), 1);
    H5Sget_simple_extent_dims(vs, &n, nullptr);
    ASSERT_EQ(n, 2u);
    std::uint32_t v[2] = {9, 9};
    H5Aread(version, H5T_NATIVE_UINT32, v);
    EXPECT_EQ(v[0], 0u);
    EXPECT_EQ(v[1], 1u);
}

// Both names are hard links to one object.
void expect_same_object(hid_t loc, const char* a, const char* b) {
    H5L_info_t la, lb;
    ASSERT_GE(H5Lget_info(loc, a, &la, H5P_DEFAULT), 0);
    ASSERT_GE(H5Lget_info(loc, b, &lb, H5P_DEFAULT), 0);
    EXPECT_EQ(la.type, H5L_TYPE_HARD);
    EXPECT_EQ(lb.type, H5L_TYPE_HARD);
#if H5_VERSION_GE(1, 12, 0)
    int cmp = 1;
    H5Otoken_cmp(loc, &la.u.token, &lb.u.token, &cmp);
    EXPECT_EQ(cmp, 0);
#else
    EXPECT_EQ(la.u.address, lb.u.address);
#endif
}

}  // namespace

TEST(SonataWriter, ReportAndSpikesFollowTheFormat) {
    const fs::path dir = scratch("layout");
    const fs::path out = dir / "out.h5";
    const ReportMapping m = tiny_mapping();
    ASSERT_EQ(m.n_frames(), 50u);
    {
        SonataWriter w(out.string(), "ring", &m);
        EXPECT_TRUE(fs::exists(dir / "out.h5.partial"));
        write_frames(w, 50, 3);
        // Out of order, with a tie at 7.3 ms that the gid breaks.
        w.append_spikes({{3, 0, 7.3}, {0, 0, 1.925}});
        w.append_spikes({{0, 0, 9.05}, {1, 0, 7.3}});
        w.finish();
    }
    ASSERT_TRUE(fs::exists(out));
    EXPECT_FALSE(fs::exists(dir / "out.h5.partial"));

    H f = open_file(out);
    ASSERT_GE(f.id, 0);
    expect_root_attributes(f);
    expect_spikes_group(f, "ring", {1.925, 7.3, 7.3, 9.05}, {0, 1, 3, 0});

    // data: float32 [50, 3], extendible in time, chunked by whole frames.
    H data = open_ds(f, "/report/ring/data");
    ASSERT_GE(data.id, 0);
    {
        H t{H5Dget_type(data), H5Tclose};
        EXPECT_EQ(H5Tget_class(t), H5T_FLOAT);  // what libsonata checks
        EXPECT_EQ(H5Tget_size(t), 4u);
    }
    EXPECT_TRUE(has_type(data, H5T_IEEE_F32LE));
    std::vector<hsize_t> maxdims;
    EXPECT_EQ(shape(data, &maxdims), (std::vector<hsize_t>{50, 3}));
    EXPECT_EQ(maxdims, (std::vector<hsize_t>{H5S_UNLIMITED, 3}));
    {
        H dcpl{H5Dget_create_plist(data), H5Pclose};
        ASSERT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
        hsize_t chunk[2] = {0, 0};
        ASSERT_EQ(H5Pget_chunk(dcpl, 2, chunk), 2);
        EXPECT_EQ(chunk[1], 3u);
        EXPECT_EQ(chunk[0], 50u);  // 1 MiB would be 87381 frames: capped at the run's length
    }
    EXPECT_EQ(str_attribute(data, "units"), "mV");
    const auto values = read_all<float>(f, "/report/ring/data", H5T_NATIVE_FLOAT);
    ASSERT_EQ(values.size(), 150u);
    for (std::size_t r = 0; r < 50; ++r)
        for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(values[r * 3 + c], sample(r, c)) << r << "," << c;

    const std::string map = "/report/ring/mapping/";
    H ids = open_ds(f, map + "node_ids");
    EXPECT_TRUE(has_type(ids, H5T_STD_U64LE));
    EXPECT_EQ(read_all<std::uint64_t>(f, map + "node_ids", H5T_NATIVE_UINT64), m.node_ids);
    {
        H a{H5Aopen(ids, "sorted", H5P_DEFAULT), H5Aclose};
        ASSERT_GE(a.id, 0);
        H t{H5Aget_type(a), H5Tclose};
        EXPECT_GT(H5Tequal(t, H5T_STD_I8LE), 0);
        std::int8_t sorted = 0;
        H5Aread(a, H5T_NATIVE_INT8, &sorted);
        EXPECT_EQ(sorted, 1);
    }
    H ptr = open_ds(f, map + "index_pointers");
    EXPECT_TRUE(has_type(ptr, H5T_STD_U64LE));
    EXPECT_EQ(shape(ptr), std::vector<hsize_t>{3});
    EXPECT_EQ(read_all<std::uint64_t>(f, map + "index_pointers", H5T_NATIVE_UINT64), m.index_pointers);
    EXPECT_EQ(read_all<std::uint64_t>(f, map + "index_pointer", H5T_NATIVE_UINT64), m.index_pointers);
    {
        H mg{H5Gopen2(f, map.c_str(), H5P_DEFAULT), H5Gclose};
        expect_same_object(mg, "index_pointers", "index_pointer");
    }
    H el = open_ds(f, map + "element_ids");
    EXPECT_TRUE(has_type(el, H5T_STD_U32LE));
    EXPECT_EQ(read_all<std::uint32_t>(f, map + "element_ids", H5T_NATIVE_UINT32), m.element_ids);
    H pos = open_ds(f, map + "element_pos");
    EXPECT_TRUE(has_type(pos, H5T_IEEE_F32LE));
    EXPECT_EQ(read_all<float>(f, map + "element_pos", H5T_NATIVE_FLOAT), m.element_pos);
    H time = open_ds(f, map + "time");
    EXPECT_TRUE(has_type(time, H5T_IEEE_F64LE));
    EXPECT_EQ(read_all<double>(f, map + "time", H5T_NATIVE_DOUBLE), (std::vector<double>{0.0, 5.0, 0.1}));
    EXPECT_EQ(str_attribute(time, "units"), "ms");
}

TEST(SonataWriter, SpikesOnlyFileHasJustSpikes) {
    const fs::path dir = scratch("spikes_only");
    const fs::path out = dir / "spikes.h5";
    {
        SonataWriter w(out.string(), "default", nullptr);
        w.flush();
        w.finish();
    }
    H f = open_file(out);
    ASSERT_GE(f.id, 0);
    expect_root_attributes(f);
    H5G_info_t info;
    ASSERT_GE(H5Gget_info(f, &info), 0);
    EXPECT_EQ(info.nlinks, 1u);
    EXPECT_FALSE(exists(f, "/report"));
    // No spikes: both datasets stay, with length 0.
    expect_spikes_group(f, "default", {}, {});
}

TEST(SonataWriter, SpikesOnlyRejectsFrames) {
    const fs::path dir = scratch("spikes_only_frames");
    SonataWriter w((dir / "s.h5").string(), "default", nullptr);
    const float row[1] = {0};
    EXPECT_THROW(w.append_frames(row, 1), std::runtime_error);
}

TEST(SonataWriter, WideReportUsesOneFrameChunks) {
    const fs::path dir = scratch("wide");
    ReportMapping m;
    const std::size_t cols = 300000;  // 1.2 MB a frame: more than a 1 MiB chunk
    m.node_ids = {7};
    m.index_pointers = {0, cols};
    m.element_ids.assign(cols, 1);
    m.stop = 0.075;
    m.step = 0.025;
    ASSERT_EQ(m.n_frames(), 3u);
    {
        SonataWriter w((dir / "wide.h5").string(), "p", &m);
        write_frames(w, 3, cols, 2);
        w.finish();
    }
    H f = open_file(dir / "wide.h5");
    H data = open_ds(f, "/report/p/data");
    EXPECT_EQ(shape(data), (std::vector<hsize_t>{3, cols}));
    H dcpl{H5Dget_create_plist(data), H5Pclose};
    hsize_t chunk[2] = {0, 0};
    ASSERT_EQ(H5Pget_chunk(dcpl, 2, chunk), 2);
    EXPECT_EQ(chunk[0], 1u);
    EXPECT_EQ(chunk[1], cols);
    EXPECT_FALSE(exists(f, "/report/p/mapping/element_pos"));  // optional, left out when not given
    const auto v = read_all<float>(f, "/report/p/data", H5T_NATIVE_FLOAT);
    EXPECT_EQ(v[2 * cols + 12345], sample(2, 12345));
}

TEST(SonataWriter, InterruptKeepsReadablePartialWithShrunkStop) {
    const fs::path dir = scratch("interrupt");
    const fs::path out = dir / "out.h5";
    const ReportMapping m = tiny_mapping();
    {
        SonataWriter w(out.string(), "ring", &m);
        write_frames(w, 12, 3, 5);
        w.append_spikes({{3, 0, 0.9}, {0, 0, 0.4}});
        const std::string kept = w.interrupt("a test");
        EXPECT_EQ(kept, "12 of 50 frames (to 1.2 ms) and 2 spikes in " + (dir / "out.h5.partial").string());
        EXPECT_THROW(w.append_frames(frames(12, 1, 3).data(), 1), std::runtime_error);
        EXPECT_THROW(w.finish(), std::runtime_error);
    }  // the destructor keeps the interrupted file
    EXPECT_FALSE(fs::exists(out));
    const fs::path partial = dir / "out.h5.partial";
    ASSERT_TRUE(fs::exists(partial));
    H f = open_file(partial);
    ASSERT_GE(f.id, 0);
    H data = open_ds(f, "/report/ring/data");
    EXPECT_EQ(shape(data), (std::vector<hsize_t>{12, 3}));
    const auto time = read_all<double>(f, "/report/ring/mapping/time", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(time.size(), 3u);
    EXPECT_EQ(time[0], 0.0);
    EXPECT_DOUBLE_EQ(time[1], 1.2);
    EXPECT_EQ(time[2], 0.1);
    EXPECT_EQ(std::llround((time[1] - time[0]) / time[2]), 12);  // the n_frames rule still holds
    EXPECT_EQ(read_all<float>(f, "/report/ring/data", H5T_NATIVE_FLOAT), frames(0, 12, 3));
    expect_spikes_group(f, "ring", {0.4, 0.9}, {0, 3});
    EXPECT_EQ(str_attribute(f, "interrupted"), "a test");
}

TEST(SonataWriter, FinishWithMissingFramesKeepsPartial) {
    const fs::path dir = scratch("short");
    const ReportMapping m = tiny_mapping();
    SonataWriter w((dir / "out.h5").string(), "ring", &m);
    write_frames(w, 49, 3);
    EXPECT_THROW(w.finish(), std::runtime_error);
    EXPECT_FALSE(fs::exists(dir / "out.h5"));
    H f = open_file(dir / "out.h5.partial");
    ASSERT_GE(f.id, 0);
    EXPECT_EQ(shape(open_ds(f, "/report/ring/data")), (std::vector<hsize_t>{49, 3}));
}

TEST(SonataWriter, TooManyFramesThrow) {
    const fs::path dir = scratch("long");
    const ReportMapping m = tiny_mapping();
    SonataWriter w((dir / "out.h5").string(), "ring", &m);
    write_frames(w, 48, 3);
    EXPECT_THROW(w.append_frames(frames(48, 3, 3).data(), 3), std::runtime_error);
    w.append_frames(frames(48, 2, 3).data(), 2);  // the failed call wrote nothing
    w.finish();
    H f = open_file(dir / "out.h5");
    EXPECT_EQ(read_all<float>(f, "/report/ring/data", H5T_NATIVE_FLOAT), frames(0, 50, 3));
}

TEST(SonataWriter, DestructorWithoutFinishDeletesPartial) {
    const fs::path dir = scratch("abandon");
    const ReportMapping m = tiny_mapping();
    try {
        SonataWriter w((dir / "out.h5").string(), "ring", &m);
        write_frames(w, 20, 3);
        w.append_spikes({{0, 0, 1.0}});
        ASSERT_TRUE(fs::exists(dir / "out.h5.partial"));
        throw std::runtime_error("the run failed");
    } catch (const std::runtime_error&) {
    }
    EXPECT_FALSE(fs::exists(dir / "out.h5.partial"));
    EXPECT_FALSE(fs::exists(dir / "out.h5"));
}

TEST(SonataWriter, FinishReplacesAnOlderFile) {
    const fs::path dir = scratch("replace");
    const fs::path out = dir / "out.h5";
    std::ofstream(out) << "an older output";
    {
        SonataWriter w(out.string(), "default", nullptr);
        w.append_spikes({{2, 0, 3.5}});
        EXPECT_EQ(fs::file_size(out), 15u);  // untouched while the run writes .partial
        w.finish();
    }
    H f = open_file(out);
    ASSERT_GE(f.id, 0);
    expect_spikes_group(f, "default", {3.5}, {2});
}

TEST(SonataWriter, ErrorsNameThePath) {
    const fs::path dir = scratch("errors");
    const std::string missing = (dir / "no" / "such" / "dir" / "out.h5").string();
    try {
        SonataWriter w(missing, "default", nullptr);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(missing + ".partial"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cannot open: No such file or directory"), std::string::npos) << e.what();
    }

    ReportMapping bad = tiny_mapping();
    bad.index_pointers = {0, 3};  // n_nodes entries instead of n_nodes + 1
    const std::string out = (dir / "bad.h5").string();
    try {
        SonataWriter w(out, "default", &bad);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(out), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out + ".partial"));

    bad = tiny_mapping();
    bad.stop = 4.95;  // 49.5 frames: readers would disagree on the count
    EXPECT_THROW(SonataWriter(out, "default", &bad), std::runtime_error);
    bad = tiny_mapping();
    bad.node_ids = {3, 0};
    EXPECT_THROW(SonataWriter(out, "default", &bad), std::runtime_error);
    EXPECT_THROW(SonataWriter(out, "a/b", nullptr), std::runtime_error);
    EXPECT_FALSE(fs::exists(out + ".partial"));
}

// The free-space check's estimate (sonata_file_bytes) holds for files as written: at least
// their size on disk (blocks allocated), at most 64 KiB or a tenth more, for spikes only
// (none, and a chunk's worth) and reports whose chunks are full, partly used, one frame.
TEST(SonataFileBytes, BoundsTheFilesWritten) {
    const fs::path dir = scratch("file_bytes");
    struct Shape {
        std::size_t cols, frames, spikes;
    };
    for (const Shape& s : {Shape{0, 0, 0}, Shape{0, 0, 1000}, Shape{3, 50, 10}, Shape{16, 10000, 1000},
                           Shape{2000, 1000, 0}, Shape{100, 400, 5}, Shape{300000, 3, 0}, Shape{1, 100000, 1}}) {
        const fs::path out = dir / "f.h5";
        ReportMapping m;
        m.node_ids = {0};
        m.index_pointers = {0, s.cols};
        m.element_ids.assign(s.cols, 0);
        m.element_pos.assign(s.cols, 0.5f);  // as runs write it
        m.step = 0.1;
        m.stop = 0.1 * s.frames;
        {
            SonataWriter w(out.string(), "p", s.cols ? &m : nullptr);
            if (s.cols) write_frames(w, s.frames, s.cols, 997);
            std::vector<Spike> spikes;
            for (std::size_t k = 0; k < s.spikes; ++k) spikes.push_back({k % 8, 0, 0.01 * k});
            w.append_spikes(spikes);
            w.finish();
        }
        struct stat st {};
        ASSERT_EQ(::stat(out.c_str(), &st), 0);
        const double on_disk = std::max<double>(st.st_size, 512.0 * st.st_blocks);
        const double estimate = arbolito::sonata_file_bytes(s.frames, s.cols, sizeof(float), 1);
        EXPECT_GE(estimate, on_disk) << s.cols << " columns, " << s.frames << " frames, " << s.spikes << " spikes";
        EXPECT_LE(estimate, std::max(on_disk + 65536, 1.1 * on_disk)) << s.cols << " columns, " << s.frames << " frames";
        fs::remove(out);
    }
}
