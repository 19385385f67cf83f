#include "io/output_lock.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace arbolito {

namespace {

// 0: locked; EWOULDBLOCK: another holds it; else the errno.
int lock_exclusive(int fd) {
#ifdef F_OFD_SETLK
    struct flock l {};
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;  // the whole file, however long it grows
    if (::fcntl(fd, F_OFD_SETLK, &l) == 0) return 0;
    if (errno == EAGAIN || errno == EACCES) return EWOULDBLOCK;
    if (errno != EINVAL) return errno;  // EINVAL: a kernel without OFD locks
#endif
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
    return errno == EWOULDBLOCK ? EWOULDBLOCK : errno;
}

}  // namespace

OutputLock OutputLock::take(const std::string& partial) {
    // The file may be renamed away (a run that finished) between open and lock: lock the
    // file that the name holds once locked.
    for (int tries = 0; tries < 100; ++tries) {
        bool created = true;
        int fd = ::open(partial.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST) {
            created = false;
            fd = ::open(partial.c_str(), O_RDWR | O_CLOEXEC);
            if (fd < 0 && errno == ENOENT) continue;
        }
        if (fd < 0) throw std::runtime_error(partial + ": cannot open: " + std::strerror(errno));
        if (const int err = lock_exclusive(fd)) {
            ::close(fd);
            if (err == EWOULDBLOCK)
                throw OutputBusy(partial + ": another run is writing this output now (it holds the file's lock): give "
                                           "another -o, or wait until that run ends");
            throw std::runtime_error(partial + ": cannot lock: " + std::strerror(err));
        }
        struct stat mine {}, named {};
        if (::fstat(fd, &mine) == 0 && ::stat(partial.c_str(), &named) == 0 && mine.st_dev == named.st_dev &&
            mine.st_ino == named.st_ino) {
            OutputLock l;
            l.fd_ = fd;
            l.path_ = partial;
            l.created_ = created;
            return l;
        }
        ::close(fd);
    }
    throw std::runtime_error(partial + ": cannot lock: the file keeps being replaced");
}

OutputLock::OutputLock(OutputLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)), created_(o.created_) {
    o.fd_ = -1;
    o.created_ = false;
}

OutputLock& OutputLock::operator=(OutputLock&& o) noexcept {
    if (this != &o) {
        release();
        fd_ = o.fd_;
        path_ = std::move(o.path_);
        created_ = o.created_;
        o.fd_ = -1;
        o.created_ = false;
    }
    return *this;
}

OutputLock::~OutputLock() { release(); }

void OutputLock::release() noexcept {
    if (fd_ < 0) return;
    if (created_) {
        // Still the file this lock created (and nothing was written into it): remove it.
        struct stat mine {}, named {};
        if (::fstat(fd_, &mine) == 0 && mine.st_size == 0 && ::stat(path_.c_str(), &named) == 0 &&
            mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
            ::unlink(path_.c_str());
    }
    ::close(fd_);
    fd_ = -1;
}

}  // namespace arbolito
