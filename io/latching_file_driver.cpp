#include "io/latching_file_driver.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace arbolito {

namespace {

// The disk of set_disk_space_for_tests: pages left, and per file (device, inode) which of
// its 4 KiB pages hold data.
constexpr off_t kPage = 4096;
struct TestDisk {
    long long pages_left = -1;  // -1: no limit
    std::map<std::pair<dev_t, ino_t>, std::vector<char>> pages;
};
TestDisk& test_disk() {
    static TestDisk d;
    return d;
}

// Overwrites of the committed bytes, held until the next commit: extents by start,
// neither overlapping nor touching.
using Held = std::map<haddr_t, std::vector<unsigned char>>;

// HDF5 does not hand out its own POSIX driver's callbacks (H5Iobject_verify refuses
// library types), so this is a small POSIX driver of its own: pread/pwrite on one file
// descriptor, as HDF5's sec2 does, plus the commits and the latch.
struct LatchingFile {
    H5FD_t pub;  // first: HDF5 sees the driver's files as H5FD_t
    int fd = -1;
    haddr_t eoa = 0, eof = 0;  // end of the allocated space, end of the file as HDF5 wrote it
    haddr_t committed = 0;     // [0, committed): the file of the last commit, never overwritten before the next
    dev_t device = 0;
    ino_t inode = 0;
    bool latched = false;  // a write failed: later ones are taken as done, unwritten
    int error = 0;         // its errno
    bool hold_raw = false; // raw data below the committed end held too (hold_raw_writes)
    Held* held = nullptr;
};

LatchingFile* of(H5FD_t* f) { return reinterpret_cast<LatchingFile*>(f); }
const LatchingFile* of(const H5FD_t* f) { return reinterpret_cast<const LatchingFile*>(f); }

// The system's words for errno in HDF5's error stack, in the form HDF5's own POSIX driver
// uses ("error message = '...'"), which SonataWriter reads back as the cause.
void push_error(H5E_minor_t what, const char* op, int err) {
    H5Epush2(H5E_DEFAULT, __FILE__, op, __LINE__, H5E_ERR_CLS, H5E_VFL, what, "%s failed, errno = %d, error message = '%s'",
             op, err, std::strerror(err));
}

// --- the disk: pwrite and ftruncate, through the test disk's budget where one is set ---

std::vector<char>* test_pages(const LatchingFile* f) {
    TestDisk& d = test_disk();
    if (d.pages_left < 0) return nullptr;
    return &d.pages[{f->device, f->inode}];
}

ssize_t disk_pwrite(const LatchingFile* f, const unsigned char* p, std::size_t n, off_t at) {
    if (std::vector<char>* pages = test_pages(f)) {
        // Pages are taken in order; at the first that does not fit, write up to it.
        const off_t first = at / kPage, last = (at + static_cast<off_t>(n) - 1) / kPage;
        if (static_cast<off_t>(pages->size()) <= last) pages->resize(last + 1, 0);
        for (off_t pg = first; pg <= last; ++pg) {
            if ((*pages)[pg]) continue;
            if (test_disk().pages_left == 0) {
                if (pg == first) {
                    errno = ENOSPC;
                    return -1;
                }
                n = static_cast<std::size_t>(pg * kPage - at);
                break;
            }
            (*pages)[pg] = 1;
            --test_disk().pages_left;
        }
    }
    return ::pwrite(f->fd, p, n, at);
}

int disk_truncate(const LatchingFile* f, off_t size) {
    if (::ftruncate(f->fd, size) != 0) return errno;
    if (std::vector<char>* pages = test_pages(f))
        for (off_t pg = (size + kPage - 1) / kPage; pg < static_cast<off_t>(pages->size()); ++pg)
            if ((*pages)[pg]) (*pages)[pg] = 0, ++test_disk().pages_left;
    return 0;
}

// 0 or the errno of the failure (a write of nothing at all counts as a full disk).
int write_all(const LatchingFile* f, haddr_t addr, std::size_t size, const unsigned char* p) {
    while (size > 0) {
        const ssize_t n = disk_pwrite(f, p, std::min<std::size_t>(size, std::size_t{1} << 30), static_cast<off_t>(addr));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : ENOSPC;
        size -= n;
        addr += n;
        p += n;
    }
    return 0;
}

// Past the end of the file: zeros, as HDF5 expects.
int read_all(const LatchingFile* f, haddr_t addr, std::size_t size, unsigned char* p) {
    while (size > 0) {
        const ssize_t n = ::pread(f->fd, p, std::min<std::size_t>(size, std::size_t{1} << 30), static_cast<off_t>(addr));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) {
            std::memset(p, 0, size);
            break;
        }
        size -= n;
        addr += n;
        p += n;
    }
    return 0;
}

// --- held overwrites ---

void hold(Held& held, haddr_t a, std::size_t n, const unsigned char* p) {
    if (n == 0) return;
    const haddr_t e = a + n;
    // The first extent that overlaps or touches [a, e).
    auto it = held.upper_bound(a);
    if (it != held.begin() && std::prev(it)->first + std::prev(it)->second.size() >= a) --it;
    // Inside one extent (a rewrite): in place.
    if (it != held.end() && it->first <= a && e <= it->first + it->second.size()) {
        std::memcpy(it->second.data() + (a - it->first), p, n);
        return;
    }
    haddr_t lo = a, hi = e;
    auto last = it;
    for (; last != held.end() && last->first <= e; ++last) {
        lo = std::min(lo, last->first);
        hi = std::max<haddr_t>(hi, last->first + last->second.size());
    }
    std::vector<unsigned char> merged(hi - lo);
    for (auto k = it; k != last; ++k) std::copy(k->second.begin(), k->second.end(), merged.begin() + (k->first - lo));
    std::memcpy(merged.data() + (a - lo), p, n);
    held.erase(it, last);
    held.emplace(lo, std::move(merged));
}

// What is held over [addr, addr + size), copied onto what was read from the disk.
void overlay(const Held& held, haddr_t addr, std::size_t size, unsigned char* p) {
    const haddr_t e = addr + size;
    auto it = held.upper_bound(addr);
    if (it != held.begin()) --it;
    for (; it != held.end() && it->first < e; ++it) {
        const haddr_t b = std::max(addr, it->first), f = std::min<haddr_t>(e, it->first + it->second.size());
        if (b < f) std::memcpy(p + (b - addr), it->second.data() + (b - it->first), f - b);
    }
}

// The first failed write: later writes are taken as done, unwritten; what was held is
// dropped and the file cut back to its last commit (freeing what was written past it).
void latch(LatchingFile* f, int err) {
    f->latched = true;
    f->error = err;
    f->held->clear();
    disk_truncate(f, static_cast<off_t>(f->committed));
}

// Writes the held overwrites in place, keeping what they replace until all are written:
// a failure puts it back, so the disk holds the previous commit's file again.
int commit(LatchingFile* f) {
    if (f->latched) return f->error;
    struct stat st {};
    if (::fstat(f->fd, &st) != 0) return errno;
    std::vector<std::pair<haddr_t, std::vector<unsigned char>>> replaced;
    int err = 0;
    for (const auto& [a, bytes] : *f->held) {
        std::vector<unsigned char> old(bytes.size());
        if ((err = read_all(f, a, old.size(), old.data())) != 0) break;
        replaced.emplace_back(a, std::move(old));
        if ((err = write_all(f, a, bytes.size(), bytes.data())) != 0) break;
    }
    // HDF5 shortened the file below the committed end: cut it now.
    if (err == 0 && f->eoa < f->committed) err = disk_truncate(f, static_cast<off_t>(f->eoa));
    if (err != 0) {
        for (auto k = replaced.rbegin(); k != replaced.rend(); ++k) write_all(f, k->first, k->second.size(), k->second.data());
        disk_truncate(f, st.st_size);
        latch(f, err);
        return err;
    }
    f->held->clear();
    f->committed = f->eoa;
    return 0;
}

// --- the driver's callbacks ---

H5FD_t* open_file(const char* name, unsigned flags, hid_t /*fapl*/, haddr_t /*maxaddr*/) {
    int o = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC) o |= O_TRUNC;
    if (flags & H5F_ACC_CREAT) o |= O_CREAT;
    if (flags & H5F_ACC_EXCL) o |= O_EXCL;
    const int fd = ::open(name, o | O_CLOEXEC, 0666);
    if (fd < 0) {
        push_error(H5E_CANTOPENFILE, "open", errno);
        return nullptr;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        push_error(H5E_CANTOPENFILE, "fstat", errno);
        ::close(fd);
        return nullptr;
    }
    auto* f = static_cast<LatchingFile*>(std::calloc(1, sizeof(LatchingFile)));
    Held* held = f ? new (std::nothrow) Held : nullptr;
    if (!held) {
        std::free(f);
        ::close(fd);
        return nullptr;
    }
    f->fd = fd;
    f->eof = static_cast<haddr_t>(st.st_size);
    f->committed = f->eof;  // an existing file is as its writer's last commit left it
    f->device = st.st_dev;
    f->inode = st.st_ino;
    f->held = held;
    if (std::vector<char>* pages = test_pages(f)) {
        const off_t have = (st.st_size + kPage - 1) / kPage;
        for (off_t pg = have; pg < static_cast<off_t>(pages->size()); ++pg)
            if ((*pages)[pg]) (*pages)[pg] = 0, ++test_disk().pages_left;  // truncated on open
        pages->resize(have, 1);
    }
    return &f->pub;
}

herr_t close_file(H5FD_t* h) {
    LatchingFile* f = of(h);
    // A clean close is a commit; a failed one leaves the last commit's file (its
    // flushed state), so closing succeeds either way.
    commit(f);
    const int r = ::close(f->fd);
    const int err = errno;
    delete f->held;
    std::free(f);
    if (r != 0 && !(err == EINTR)) {
        push_error(H5E_CANTCLOSEFILE, "close", err);
        return -1;
    }
    return 0;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
    const LatchingFile *x = of(a), *y = of(b);
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
    return 0;
}

herr_t query(const H5FD_t*, unsigned long* flags) {
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE;
    return 0;
}

haddr_t get_eoa(const H5FD_t* f, H5FD_mem_t) { return of(f)->eoa; }
herr_t set_eoa(H5FD_t* f, H5FD_mem_t, haddr_t addr) {
    of(f)->eoa = addr;
    return 0;
}
haddr_t get_eof(const H5FD_t* f, H5FD_mem_t) { return of(f)->eof; }

herr_t get_handle(H5FD_t* f, hid_t, void** handle) {
    *handle = &of(f)->fd;
    return 0;
}

herr_t read(H5FD_t* h, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buf) {
    LatchingFile* f = of(h);
    auto* p = static_cast<unsigned char*>(buf);
    if (const int err = read_all(f, addr, size, p)) {
        push_error(H5E_READERROR, "pread", err);
        return -1;
    }
    if (addr < f->committed) overlay(*f->held, addr, size, p);
    return 0;
}

// Whether anything is held over [a, e).
bool holds(const Held& held, haddr_t a, haddr_t e) {
    auto it = held.upper_bound(a);
    if (it != held.begin() && std::prev(it)->first + std::prev(it)->second.size() > a) return true;
    return it != held.end() && it->first < e;
}

herr_t write(H5FD_t* h, H5FD_mem_t type, hid_t, haddr_t addr, size_t size, const void* buf) {
    LatchingFile* f = of(h);
    if (f->latched) return 0;
    const auto* p = static_cast<const unsigned char*>(buf);
    const haddr_t end = addr + size;
    // Raw data below the committed end is a chunk rewritten whole: its committed rows
    // with the same bytes, the rest rows past the committed extent, which nothing
    // committed reads. Written in place at once it keeps the commit intact, and holding
    // it would copy a chunk of up to 1 MiB three times per epoch. (The time stop, which
    // does change, is a compact dataset: metadata, held.)
    const bool direct = type == H5FD_MEM_DRAW && !f->hold_raw && !holds(*f->held, addr, end);
    if (addr < f->committed && !direct) hold(*f->held, addr, std::min(end, f->committed) - addr, p);
    if (end > f->committed || direct) {
        const haddr_t from = direct ? addr : std::max(addr, f->committed);
        if (const int err = write_all(f, from, end - from, p + (from - addr))) {
            latch(f, err);
            push_error(H5E_WRITEERROR, "pwrite", err);
            return -1;
        }
    }
    f->eof = std::max(f->eof, end);
    return 0;
}

// HDF5 sets the file's length to its allocated end (on flush and close). Past the
// committed end that happens now; below it, at the next commit.
herr_t truncate(H5FD_t* h, hid_t, hbool_t) {
    LatchingFile* f = of(h);
    if (f->latched || f->eoa == f->eof) return 0;
    const haddr_t now = std::max(f->eoa, f->committed);
    if (const int err = disk_truncate(f, static_cast<off_t>(now))) {
        latch(f, err);
        push_error(H5E_WRITEERROR, "ftruncate", err);
        return -1;
    }
    f->eof = f->eoa;
    return 0;
}

hid_t driver_id() {
    static const hid_t id = [] {
        static H5FD_class_t c{};
#if H5_VERSION_GE(1, 14, 0)
        c.version = H5FD_CLASS_VERSION;
        c.value = static_cast<H5FD_class_value_t>(600);  // a user driver's number
#endif
        c.name = "arbolito_latching_posix";
        c.maxaddr = (haddr_t(1) << (8 * sizeof(off_t) - 1)) - 1;
        c.fc_degree = H5F_CLOSE_WEAK;
        c.open = open_file;
        c.close = close_file;
        c.cmp = compare;
        c.query = query;
        c.get_eoa = get_eoa;
        c.set_eoa = set_eoa;
        c.get_eof = get_eof;
        c.get_handle = get_handle;
        c.read = read;
        c.write = write;
        c.truncate = truncate;
        const H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
        std::copy(std::begin(map), std::end(map), c.fl_map);
        return H5FDregister(&c);
    }();
    if (id < 0) throw std::runtime_error("cannot register the HDF5 output file driver");
    return id;
}

// The driver's file behind an open file's hid_t, or null.
LatchingFile* file_of(std::int64_t file) {
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return nullptr;
    // The handle is the address of the file's descriptor inside its LatchingFile.
    return reinterpret_cast<LatchingFile*>(static_cast<char*>(handle) - offsetof(LatchingFile, fd));
}

}  // namespace

int latched_error(std::int64_t file) {
    const LatchingFile* f = file_of(file);
    return f && f->latched ? f->error : 0;
}

void hold_raw_writes(std::int64_t file, bool hold) {
    if (LatchingFile* f = file_of(file)) f->hold_raw = hold;
}

int commit_flushed(std::int64_t file) {
    LatchingFile* f = file_of(file);
    return f ? commit(f) : 0;
}

void set_disk_space_for_tests(long long bytes) {
    TestDisk& d = test_disk();
    d.pages.clear();
    d.pages_left = bytes < 0 ? -1 : bytes / kPage;
}

std::int64_t latching_fapl() {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) throw std::runtime_error("HDF5 H5Pcreate failed");
    if (H5Pset_driver(fapl, driver_id(), nullptr) < 0) {
        H5Pclose(fapl);
        throw std::runtime_error("HDF5 H5Pset_driver failed");
    }
    return fapl;
}

}  // namespace arbolito
