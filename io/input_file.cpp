#include "io/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "io/input_error.hpp"

namespace arbolito {

namespace {

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

void check_input_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
    if (path.empty()) throw InputError("\"\"", "", "empty path for the " + what);
    if (path.find('\0') != std::string::npos) throw InputError(path, "", "the path of the " + what + " holds a NUL byte");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw InputError(path, "", "cannot open the " + what + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw InputError(path, "", "the " + what + " is " + kind_of(st.st_mode) + ", not a regular file");
    if (static_cast<unsigned long long>(st.st_size) > max_bytes)
        throw InputError(path, "", "the " + what + " has " + std::to_string(st.st_size) + " bytes, more than the " +
                                       std::to_string(max_bytes >> 20) + " MiB arbolito reads");
}

std::string read_input_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
    check_input_file(path, what, max_bytes);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open the " + what + ": " + std::strerror(errno));
    // Straight into a string of the file's size (through a stringstream it was held twice).
    std::string text;
    char buf[1 << 16];
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) text.reserve(std::min<std::uintmax_t>(size, max_bytes) + 1);
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes) break;
    }
    if (in.bad()) throw InputError(path, "", "cannot read the " + what + ": " + std::strerror(errno));
    // The file may have grown since stat: the bound holds for what was read.
    if (text.size() > max_bytes) throw InputError(path, "", "the " + what + " grew beyond " + std::to_string(max_bytes >> 20) + " MiB while read");
    return text;
}

}  // namespace arbolito
