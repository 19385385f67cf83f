// The output checks made before a run (app/output_checks): -o and the filesystem's room.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "app/output_checks.hpp"
#include "io/input_error.hpp"

namespace fs = std::filesystem;
using namespace arbolito;

namespace {

std::string error_of(const std::string& output, bool given) {
    try {
        checked_output_path(output, given, "model");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(OutputChecks, RefusesWhatIsNoFile) {
    const fs::path dir = fs::temp_directory_path() / ("arbolito_output_checks_" + std::to_string(::getpid()));
    fs::create_directories(dir / "sub");
    EXPECT_EQ(error_of("", true), "-o: empty file name");
    EXPECT_EQ(error_of((dir / "sub").string(), true), (dir / "sub").string() + ": is a directory: the output (-o) must be a file name");
    EXPECT_NE(error_of("/dev/null", true).find("is a device"), std::string::npos);
    EXPECT_NE(error_of((dir / "none" / "x.h5").string(), true).find("does not exist"), std::string::npos);
    EXPECT_NE(error_of((dir / "x.h5/").string(), true).find("names a folder"), std::string::npos);
    fs::create_directories(dir / "y.h5.partial");  // the file written while the run lasts
    EXPECT_NE(error_of((dir / "y.h5").string(), true).find("y.h5.partial: is a directory"), std::string::npos);
    std::ofstream(dir / "old.h5") << "an older output";
    EXPECT_EQ(checked_output_path((dir / "old.h5").string(), true, "model"), (dir / "old.h5").string());  // replaced at the end
    EXPECT_EQ(checked_output_path("", false, "model"), "model.h5");
    fs::remove_all(dir);
}

TEST(OutputChecks, RoomForTheOutput) {
    EXPECT_EQ(output_bytes(11, 3, 4), 11 * 3 * 4 + 24 * 3);
    EXPECT_EQ(room_for(100, 1000), Room::enough);
    EXPECT_EQ(room_for(800, 1000), Room::enough);
    EXPECT_EQ(room_for(801, 1000), Room::tight);
    EXPECT_EQ(room_for(1000, 1000), Room::tight);
    EXPECT_EQ(room_for(1001, 1000), Room::too_little);
    EXPECT_THROW(check_output_room("out.h5", 1e30), InputError);  // no filesystem has 1e30 bytes
    EXPECT_NO_THROW(check_output_room("out.h5", 1.0));
}
