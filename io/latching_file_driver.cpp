#include "io/latching_file_driver.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace arbolito {

namespace {

// HDF5 does not hand out its own POSIX driver's callbacks (H5Iobject_verify refuses
// library types), so this is a small POSIX driver of its own: pread/pwrite on one file
// descriptor, as HDF5's sec2 does, plus the latch.
struct LatchingFile {
    H5FD_t pub;  // first: HDF5 sees the driver's files as H5FD_t
    int fd = -1;
    haddr_t eoa = 0, eof = 0;  // end of the allocated space, end of the file on disk
    dev_t device = 0;
    ino_t inode = 0;
    bool latched = false;  // a write failed: later ones are taken as done, unwritten
    int error = 0;         // its errno
};

LatchingFile* of(H5FD_t* f) { return reinterpret_cast<LatchingFile*>(f); }
const LatchingFile* of(const H5FD_t* f) { return reinterpret_cast<const LatchingFile*>(f); }

// The system's words for errno in HDF5's error stack, in the form HDF5's own POSIX driver
// uses ("error message = '...'"), which SonataWriter reads back as the cause.
void push_error(H5E_minor_t what, const char* op, int err) {
    H5Epush2(H5E_DEFAULT, __FILE__, op, __LINE__, H5E_ERR_CLS, H5E_VFL, what, "%s failed, errno = %d, error message = '%s'",
             op, err, std::strerror(err));
}

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
    if (!f) {
        ::close(fd);
        return nullptr;
    }
    f->fd = fd;
    f->eof = static_cast<haddr_t>(st.st_size);
    f->device = st.st_dev;
    f->inode = st.st_ino;
    return &f->pub;
}

herr_t close_file(H5FD_t* h) {
    LatchingFile* f = of(h);
    const int r = ::close(f->fd);
    const int err = errno;
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
    while (size > 0) {
        const ssize_t n = ::pread(f->fd, p, std::min<size_t>(size, 1UL << 30), static_cast<off_t>(addr));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            push_error(H5E_READERROR, "pread", errno);
            return -1;
        }
        if (n == 0) {  // past the end of the file: zeros, as HDF5 expects
            std::memset(p, 0, size);
            break;
        }
        size -= n;
        addr += n;
        p += n;
    }
    return 0;
}

herr_t write(H5FD_t* h, H5FD_mem_t, hid_t, haddr_t addr, size_t size, const void* buf) {
    LatchingFile* f = of(h);
    if (f->latched) return 0;
    auto* p = static_cast<const unsigned char*>(buf);
    while (size > 0) {
        const ssize_t n = ::pwrite(f->fd, p, std::min<size_t>(size, 1UL << 30), static_cast<off_t>(addr));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            f->latched = true;
            f->error = n < 0 ? errno : ENOSPC;
            push_error(H5E_WRITEERROR, "pwrite", f->error);
            return -1;
        }
        size -= n;
        addr += n;
        p += n;
    }
    f->eof = std::max(f->eof, addr);
    return 0;
}

// Closing (and flushing) extends the file to its allocated end; after a failure that
// would claim space the last flush never described.
herr_t truncate(H5FD_t* h, hid_t, hbool_t) {
    LatchingFile* f = of(h);
    if (f->latched || f->eoa == f->eof) return 0;
    if (::ftruncate(f->fd, static_cast<off_t>(f->eoa)) != 0) {
        f->latched = true;
        f->error = errno;
        push_error(H5E_WRITEERROR, "ftruncate", f->error);
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

}  // namespace

int latched_error(std::int64_t file) {
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return 0;
    // The handle is the address of the file's descriptor inside its LatchingFile.
    const auto* f = reinterpret_cast<const LatchingFile*>(static_cast<const char*>(handle) - offsetof(LatchingFile, fd));
    return f->latched ? f->error : 0;
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
