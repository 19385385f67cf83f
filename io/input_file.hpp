#pragma once
// Reading a user's input file (model JSON, SWC) whole, with the checks that keep a
// wrong path a named error instead of a hang or a crash: the file must be a regular
// file (not a directory, /dev/zero or a FIFO, which would block or never end) and no
// larger than a bound, and a path must not hold a NUL byte (which the OS would cut).
#include <cstddef>
#include <string>

namespace arbolito {

// The largest model or SWC file read: 256 MiB (a larger JSON text would need several
// GiB parsed; busyring-sized networks come from builders, not listed connections).
inline constexpr std::size_t max_input_file_bytes = std::size_t{256} << 20;

// Throws InputError(path, "", reason) when `path` is not a readable regular file of at
// most `max_bytes` bytes; `what` names the kind of file in the message ("model file").
void check_input_file(const std::string& path, const std::string& what, std::size_t max_bytes = max_input_file_bytes);

// check_input_file, then the whole file's bytes.
std::string read_input_file(const std::string& path, const std::string& what, std::size_t max_bytes = max_input_file_bytes);

}  // namespace arbolito
