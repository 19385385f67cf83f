#pragma once
// Checks of the output file made before anything runs: a bad -o or a disk without room
// for the output is an input error (exit 2) at the start, not a failure after the run.
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace arbolito {

// The output file: -o as given (given: -o was on the command line) or <model name>.h5.
// InputError naming the path for -o "", for a path that is a directory or another
// non-regular file (a device, a FIFO, a socket; so is its .partial), and for a folder that
// does not exist or cannot be written.
std::string checked_output_path(const std::string& output, bool given, const std::string& model_name);

// A file the run writes besides its output, given by `option` (e.g. --timeline): the
// checks of checked_output_path but its .partial, the option named in the message.
void check_file_path(const std::string& path, const std::string& option);

// A file written as a stream (info --geometry): a regular file (written as <path>.partial
// and renamed, by write_file_atomically) or a character device or FIFO (/dev/stdout, a
// pipe), written in place. The checks of check_file_path for the rest.
void check_stream_path(const std::string& path, const std::string& option);

// Writes `text` to `path` (check_stream_path's kinds): a regular file through
// <path>.partial, renamed only once every byte is written and flushed, so that a full
// disk leaves no truncated file; a device or FIFO directly, every write checked. Throws
// std::runtime_error naming the path and the system's cause (/dev/full: "No space left
// on device").
void write_file_atomically(const std::string& path, const std::string& text);

// Whether a and b name the same existing file (device and inode: through "..", links and
// symbolic links alike).
bool same_file(const std::string& a, const std::string& b);

// Throws InputError naming `path` when it (or, for -o, its .partial) is one of the files
// the model was read from: writing it would destroy the input. `option` names the option
// in the message (-o, --timeline, --geometry).
void check_not_an_input(const std::string& path, const std::string& option, const std::vector<InputFile>& inputs);

// Estimated bytes of the output file: the report's frames (value_bytes each value) in
// whole chunks, its mapping and HDF5's own structures; n_values 0 for spikes only, whose
// number is not known ahead (io/sonata_writer.hpp: sonata_file_bytes).
double output_bytes(std::size_t n_frames, std::size_t n_values, std::size_t value_bytes, std::size_t n_nodes);

enum class Room { enough, tight, too_little };
// tight: the output would take more than 80 % of the free space (other writers share it).
Room room_for(double bytes, double free_bytes);

// Compares output_bytes with the free space of path's filesystem (statvfs): logs a
// warning when tight, throws InputError naming the path, the estimate and the free space
// when too little. Nothing when the free space cannot be read.
void check_output_room(const std::string& path, double bytes);

}  // namespace arbolito
