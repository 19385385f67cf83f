#pragma once
// One writer per output file: a run holds an exclusive lock on OUT.h5.partial from before
// its set-up until the file is renamed or kept, so that a second run given the same -o is
// refused at once instead of writing into the same file (which left one run's data under
// the other's time axis, and the other pointing at a .partial that no longer existed).
//
// The lock is an open-file-description lock (fcntl F_OFD_SETLK; flock where the kernel
// lacks it) on the .partial itself: it ends with the process, so a run that crashed leaves
// no stale lock, and unlike a POSIX record lock it survives HDF5 closing its own
// descriptor of the same file.
#include <stdexcept>
#include <string>

namespace arbolito {

// Another process holds the lock: what() names the file and says so.
struct OutputBusy : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class OutputLock {
public:
    OutputLock() = default;  // holds nothing
    // Locks `partial`, creating it (empty) where it does not exist. Throws OutputBusy when
    // another process holds its lock, std::runtime_error naming it when it cannot be
    // opened or locked.
    static OutputLock take(const std::string& partial);
    OutputLock(OutputLock&& o) noexcept;
    OutputLock& operator=(OutputLock&& o) noexcept;
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;
    // Releases the lock. A file that take() created is removed, unless keep() said that a
    // writer has made it its own (the run failed before writing anything).
    ~OutputLock();

    bool held() const { return fd_ >= 0; }
    const std::string& path() const { return path_; }
    void keep() { created_ = false; }

private:
    void release() noexcept;
    int fd_ = -1;
    std::string path_;
    bool created_ = false;
};

}  // namespace arbolito
