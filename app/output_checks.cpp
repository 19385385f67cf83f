#include "app/output_checks.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "model/memory_estimate.hpp"
#include "io/input_error.hpp"
#include "io/sonata_writer.hpp"

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

namespace {

// A character device or FIFO (/dev/stdout, a pipe): written in place, not renamed over.
bool is_stream(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    return !ec && (fs::is_character_file(st) || fs::is_fifo(st));
}

// 0 or the errno of the first failure; every byte written (a short write is retried).
int write_all(int fd, const std::string& text) {
    for (std::size_t at = 0; at < text.size();) {
        const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : ENOSPC;
        at += static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace

void check_stream_path(const std::string& path, const std::string& option) {
    if (path.empty()) throw InputError(option, "", "empty file name");
    if (is_stream(path)) {
        if (::access(path.c_str(), W_OK) != 0)
            throw InputError(path, "", "cannot write: " + std::string(std::strerror(errno)));
        return;
    }
    check_file_at(path, option);
}

void write_file_atomically(const std::string& path, const std::string& text) {
    const bool stream = is_stream(path);
    const std::string target = stream ? path : path + ".partial";
    const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | (stream ? 0 : O_CREAT | O_TRUNC), 0666);
    if (fd < 0) throw std::runtime_error(target + ": cannot write: " + std::strerror(errno));
    int err = write_all(fd, text);
    if (err == 0 && !stream && ::fsync(fd) != 0) err = errno;
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && !stream && std::rename(target.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0) {
        if (!stream) ::unlink(target.c_str());
        throw std::runtime_error(path + ": cannot write: " + std::strerror(err));
    }
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat x {}, y {};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void check_not_an_input(const std::string& path, const std::string& option, const std::vector<InputFile>& inputs) {
    for (const InputFile& in : inputs)
        if (same_file(path, in.path))
            throw InputError(path, "", "is " + in.role + " (" + in.path + "): " + option + " must name another file");
}

void check_file_path(const std::string& path, const std::string& option) {
    if (path.empty()) throw InputError(option, "", "empty file name");
    check_file_at(path, option);
}

double output_bytes(std::size_t n_frames, std::size_t n_values, std::size_t value_bytes, std::size_t n_nodes) {
    return sonata_file_bytes(n_frames, n_values, value_bytes, n_nodes);
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
                                       " free (shorten --tfinal, record fewer probes, use --spikes-only or free some space)");
    case Room::tight:
        spdlog::warn("{}: the output needs about {} of the {} free on its filesystem", path, describe_bytes(bytes), describe_bytes(free_bytes));
        break;
    case Room::enough:
        break;
    }
}

}  // namespace arbolito
