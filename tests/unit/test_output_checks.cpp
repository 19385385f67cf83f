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

// -o must not be an input of the model: compared by file (device and inode), so that
// sub/../m.json, a symbolic link and a hard link are caught as the plain name is.
TEST(OutputChecks, OutputIsNotAnInput) {
    const fs::path dir = fs::temp_directory_path() / ("arbolito_inputs_" + std::to_string(::getpid()));
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "m.json") << "{}";
    std::ofstream(dir / "c.swc") << "1 1 0 0 0 1 -1\n";
    fs::create_symlink(dir / "m.json", dir / "link.json");
    fs::create_hard_link(dir / "c.swc", dir / "hard.swc");
    const std::vector<arbolito::InputFile> inputs{{(dir / "m.json").string(), "the model file"},
                                                  {(dir / "c.swc").string(), "the SWC file of cells[0].morphology.swc"}};
    auto refused = [&](const fs::path& p) {
        try {
            arbolito::check_not_an_input(p.string(), "-o", inputs);
            return std::string();
        } catch (const InputError& e) {
            return std::string(e.what());
        }
    };
    EXPECT_NE(refused(dir / "m.json").find("is the model file"), std::string::npos);
    EXPECT_NE(refused(dir / "sub" / ".." / "m.json").find("-o must name another file"), std::string::npos);
    EXPECT_NE(refused(dir / "link.json").find("is the model file"), std::string::npos);
    EXPECT_NE(refused(dir / "hard.swc").find("is the SWC file of cells[0].morphology.swc"), std::string::npos);
    EXPECT_EQ(refused(dir / "out.h5"), "");  // does not exist yet
    EXPECT_EQ(refused(dir / "sub"), "");
    fs::remove_all(dir);
}

TEST(OutputChecks, RoomForTheOutput) {
    // Frames in whole chunks and HDF5's own structures: more than the values alone, also
    // for spikes only (the file was not counted at all, and a run into 8 kB failed at the end).
    EXPECT_GT(output_bytes(11, 3, 4, 2), 11 * 3 * 4 + 24 * 3 + 16384);
    EXPECT_GT(output_bytes(0, 0, 4, 0), 24576);
    EXPECT_EQ(room_for(100, 1000), Room::enough);
    EXPECT_EQ(room_for(800, 1000), Room::enough);
    EXPECT_EQ(room_for(801, 1000), Room::tight);
    EXPECT_EQ(room_for(1000, 1000), Room::tight);
    EXPECT_EQ(room_for(1001, 1000), Room::too_little);
    EXPECT_THROW(check_output_room("out.h5", 1e30), InputError);  // no filesystem has 1e30 bytes
    EXPECT_NO_THROW(check_output_room("out.h5", 1.0));
}
