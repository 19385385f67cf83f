#pragma once
// An HDF5 file driver for output files that keeps the file on disk readable whatever
// happens between two flushes: a POSIX driver (pread/pwrite, as HDF5's sec2) with two
// additions.
//
// Commits: the bytes a file had at its last commit (commit_flushed(), after a successful
// H5Fflush) are never changed before the next one. HDF5 rewrites metadata in place
// (object headers, chunk indexes, the superblock) whenever its caches evict, so a file
// written straight through is consistent only at the moment a flush ends: a write that
// fails part-way through a flush, or a process killed between flushes, left a file that
// HDF5 cannot open ("addr overflow"). Here metadata writes below the committed end are
// held in memory (reads see them) and written in place by the next commit, which first
// reads what they replace and puts it back if any of them fails. Writes past the
// committed end go to disk at once: no committed metadata points there. So do raw data
// writes: an appending writer's rewrite of a chunk repeats its committed rows byte for
// byte (a writer that changes committed raw data says so: hold_raw_writes). On disk there
// is therefore always the file as the last commit left it (plus unreferenced bytes past
// its end, which a reader ignores), except during the commit's in-place writes themselves.
//
// The latch: after a file's first failed write (ENOSPC, EIO, EFBIG) the driver fails that
// write and takes every later one as done without writing it, and it drops what was held
// and cuts the file back to the committed end (freeing the space written since). HDF5
// cannot close a file whose metadata it cannot write: without the latch H5Fclose failed,
// the file stayed open and HDF5's clean-up at exit crashed. With it the failing call still
// reports the failure (with the system's cause), closing succeeds, and the file is the
// last commit's, which SonataWriter reopens and completes as far as the disk allows.
#include <cstdint>

namespace arbolito {

// A new file access property list that selects the driver; the caller closes it (H5Pclose).
std::int64_t latching_fapl();

// The errno of the first failed write to `file` (an open file's hid_t, opened with
// latching_fapl), or 0. HDF5 drops some write errors on the way up (a dataset's close
// flushing its buffer): after a flush this says whether everything reached the disk.
int latched_error(std::int64_t file);

// After a successful H5Fflush of `file`: writes the held overwrites in place, so that the
// file on disk is the flushed one, and makes it the state kept until the next commit.
// Returns 0, or the errno of a write that failed (the file is then latched and back at
// the previous commit). Closing a file that has not latched commits it too.
int commit_flushed(std::int64_t file);

// Raw data written below the committed end is held like metadata (hold = true) or
// written at once (false, the default): a writer that rewrites committed raw data with
// other bytes (sorting a dataset in place) holds it for that while.
void hold_raw_writes(std::int64_t file, bool hold);

// For tests: from now on every file of this driver shares a disk of `bytes` more bytes
// (whole 4 KiB pages, allocated when first written, freed when a file is cut short, as
// tmpfs does); a write that needs a page past it writes up to that page and then fails
// with ENOSPC. Negative: no limit (the default).
void set_disk_space_for_tests(long long bytes);

}  // namespace arbolito
