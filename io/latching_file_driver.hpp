#pragma once
// An HDF5 file driver for output files: a POSIX driver (pread/pwrite, as HDF5's sec2),
// except that after a file's first failed write (ENOSPC, EIO, EFBIG) it fails that write
// and then takes every later write to the file as done without writing it.
//
// Why: HDF5 cannot close a file whose metadata it cannot write. On a full disk the
// output's H5Fclose failed, the file stayed open, and HDF5's clean-up at exit looped on
// it and crashed (exit 139). With the latch the failing call still reports the
// failure (with the system's cause), but closing succeeds, and the file on disk stays as
// its last successful H5Fflush left it: a readable file that SonataWriter reopens and
// completes as far as the disk allows.
#include <cstdint>

namespace arbolito {

// A new file access property list that selects the driver; the caller closes it (H5Pclose).
std::int64_t latching_fapl();

// The errno of the first failed write to `file` (an open file's hid_t, opened with
// latching_fapl), or 0. HDF5 drops some write errors on the way up (a dataset's close
// flushing its buffer): after a flush this says whether everything reached the disk.
int latched_error(std::int64_t file);

}  // namespace arbolito
