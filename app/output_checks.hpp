#pragma once
// Checks of the output file made before anything runs: a bad -o or a disk without room
// for the output is an input error (exit 2) at the start, not a failure after the run.
#include <cstdint>
#include <string>

namespace arbolito {

// The output file: -o as given (given: -o was on the command line) or <model name>.h5.
// InputError naming the path for -o "", for a path that is a directory or another
// non-regular file (a device, a FIFO, a socket; so is its .partial), and for a folder that
// does not exist or cannot be written.
std::string checked_output_path(const std::string& output, bool given, const std::string& model_name);

// A file the run writes besides its output, given by `option` (e.g. --timeline): the
// checks of checked_output_path but its .partial, the option named in the message.
void check_file_path(const std::string& path, const std::string& option);

// Estimated bytes of the output file: the report's frames (value_bytes each value) and
// its mapping; the spikes are not known ahead.
double output_bytes(std::size_t n_frames, std::size_t n_values, std::size_t value_bytes);

enum class Room { enough, tight, too_little };
// tight: the output would take more than 80 % of the free space (other writers share it).
Room room_for(double bytes, double free_bytes);

// Compares output_bytes with the free space of path's filesystem (statvfs): logs a
// warning when tight, throws InputError naming the path, the estimate and the free space
// when too little. Nothing when the free space cannot be read.
void check_output_room(const std::string& path, double bytes);

}  // namespace arbolito
