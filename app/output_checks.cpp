#include "app/output_checks.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "model/memory_estimate.hpp"
#include "io/input_error.hpp"

namespace arbolito {

namespace fs = std::filesystem;

namespace {

// What is at p, if anything, other than a regular file (or a link to one).
std::string not_a_file(const fs::path& p) {
    std::error_code ec;
    const fs::file_status s = fs::status(p, ec);
    if (ec || !fs::exists(s) || fs::is_regular_file(s)) return "";
    if (fs::is_directory(s)) return "is a directory";
    if (fs::is_block_file(s) || fs::is_character_file(s)) return "is a device, not a regular file";
    if (fs::is_fifo(s)) return "is a FIFO, not a regular file";
    if (fs::is_socket(s)) return "is a socket, not a regular file";
    return "is not a regular file";
}

// A file name (not a folder, a device, a FIFO or a socket) in a folder that exists and can
// be written; what names the file in the message.
void check_file_at(const std::string& path, const std::string& what) {
    if (const std::string why = not_a_file(path); !why.empty())
        throw InputError(path, "", why + ": " + what + " must be a file name");
    if (path.back() == '/') throw InputError(path, "", "names a folder: " + what + " must be a file name");
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) folder = ".";
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw InputError(path, "", "its folder " + folder.string() + " does not exist");
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw InputError(path, "", "cannot write into its folder " + folder.string() + ": " + std::strerror(errno));
}

}  // namespace

std::string checked_output_path(const std::string& output, bool given, const std::string& model_name) {
    if (given && output.empty()) throw InputError("-o", "", "empty file name");
    const std::string path = given ? output : model_name + ".h5";
    check_file_at(path, "the output (-o)");
    if (const std::string why = not_a_file(path + ".partial"); !why.empty())
        throw InputError(path + ".partial", "", why + ": the output (-o) must be a file name");
    return path;
}

void check_file_path(const std::string& path, const std::string& option) {
    if (path.empty()) throw InputError(option, "", "empty file name");
    check_file_at(path, option);
}

double output_bytes(std::size_t n_frames, std::size_t n_values, std::size_t value_bytes) {
    // Mapping: element_ids (4) and element_pos (4) per column, node ids and pointers
    // (16 per node, at most one node per column).
    return static_cast<double>(n_frames) * n_values * value_bytes + 24.0 * n_values;
}

Room room_for(double bytes, double free_bytes) {
    if (bytes > free_bytes) return Room::too_little;
    if (bytes > 0.8 * free_bytes) return Room::tight;
    return Room::enough;
}

void check_output_room(const std::string& path, double bytes) {
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) folder = ".";
    struct statvfs st {};
    if (::statvfs(folder.c_str(), &st) != 0) return;
    const double free_bytes = static_cast<double>(st.f_bavail) * st.f_frsize;
    switch (room_for(bytes, free_bytes)) {
    case Room::too_little:
        throw InputError(path, "", "the output needs about " + describe_bytes(bytes) + " and its filesystem has " + describe_bytes(free_bytes) +
                                       " free (shorten --tfinal, record fewer probes or use --spikes-only)");
    case Room::tight:
        spdlog::warn("{}: the output needs about {} of the {} free on its filesystem", path, describe_bytes(bytes), describe_bytes(free_bytes));
        break;
    case Room::enough:
        break;
    }
}

}  // namespace arbolito
