// files_test.cpp: reading files a hook does not control: only regular files, never blocking.
#define BOOST_TEST_MODULE files
#include "common/io/files.hpp"
#include "common/os/os.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using viber::is_directory;
using viber::is_regular_file;
using viber::read_regular_file;
using viber::os::mtime_seconds;
using viber::testing::ScratchDir;

namespace {

// A test that would block forever on a FIFO is killed by SIGALRM instead of hanging the suite.
struct HangGuard {
    HangGuard() { ::alarm(10); }
    ~HangGuard() { ::alarm(0); }
};

} // namespace

BOOST_AUTO_TEST_CASE(a_regular_file_is_read_whole) {
    ScratchDir dir;
    const std::string path = dir.write("a.md", "line 1\nline 2\n");
    BOOST_TEST(is_regular_file(path));
    BOOST_TEST(!is_directory(path));
    const auto got = read_regular_file(path);
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "line 1\nline 2\n");
}

BOOST_AUTO_TEST_CASE(an_empty_file_is_empty_bytes) {
    ScratchDir dir;
    const auto got = read_regular_file(dir.write("empty", ""));
    BOOST_REQUIRE(got);
    BOOST_TEST(got->empty());
}

BOOST_AUTO_TEST_CASE(a_file_larger_than_the_read_buffer_is_read_whole) {
    ScratchDir dir;
    std::string text;
    for (int i = 0; i < 100000; ++i) text += std::to_string(i) + "\n";
    const auto got = read_regular_file(dir.write("big", text));
    BOOST_REQUIRE(got);
    BOOST_TEST((*got == text));
}

BOOST_AUTO_TEST_CASE(a_fifo_is_refused_without_blocking, *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    const std::string path = dir / "fifo";
    BOOST_REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    HangGuard guard;
    const auto start = std::chrono::steady_clock::now();
    BOOST_TEST(!is_regular_file(path));
    BOOST_TEST(!read_regular_file(path));
    BOOST_TEST(!viber::os::File::open_regular(path));
    BOOST_TEST(!mtime_seconds(path));
    BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
               5.0);
}

BOOST_AUTO_TEST_CASE(a_fifo_with_a_writer_is_refused_too, *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    const std::string path = dir / "fifo";
    BOOST_REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    HangGuard guard;
    const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    BOOST_REQUIRE(reader >= 0);
    const int writer = ::open(path.c_str(), O_WRONLY);
    BOOST_REQUIRE(writer >= 0);
    BOOST_TEST(::write(writer, "data", 4) == 4);
    BOOST_TEST(!read_regular_file(path));
    ::close(writer);
    ::close(reader);
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused) {
    ScratchDir dir;
    const std::string path = dir.mkdir("sub");
    BOOST_TEST(is_directory(path));
    BOOST_TEST(!is_regular_file(path));
    BOOST_TEST(!read_regular_file(path));
    BOOST_TEST(!viber::os::File::open_regular(path));
    BOOST_TEST(!mtime_seconds(path));
}

BOOST_AUTO_TEST_CASE(a_dangling_link_is_refused,
                     *viber::testing::posix_only("a symlink made by a test")) {
    ScratchDir dir;
    const std::string path = dir / "dangling";
    BOOST_REQUIRE(::symlink((dir / "missing").c_str(), path.c_str()) == 0);
    BOOST_TEST(!is_regular_file(path));
    BOOST_TEST(!is_directory(path));
    BOOST_TEST(!read_regular_file(path));
    BOOST_TEST(!mtime_seconds(path));
}

BOOST_AUTO_TEST_CASE(a_link_to_a_regular_file_is_followed,
                     *viber::testing::posix_only("a symlink made by a test")) {
    ScratchDir dir;
    const std::string target = dir.write("target", "text");
    const std::string path = dir / "link";
    BOOST_REQUIRE(::symlink(target.c_str(), path.c_str()) == 0);
    BOOST_TEST(is_regular_file(path));
    const auto got = read_regular_file(path);
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "text");
}

BOOST_AUTO_TEST_CASE(a_missing_file_and_an_empty_path_are_refused) {
    ScratchDir dir;
    BOOST_TEST(!read_regular_file(dir / "missing"));
    BOOST_TEST(!is_regular_file(dir / "missing"));
    BOOST_TEST(!read_regular_file(""));
    BOOST_TEST(!is_regular_file(""));
    BOOST_TEST(!is_directory(""));
    BOOST_TEST(!viber::os::File::open_regular(""));
    BOOST_TEST(!mtime_seconds(""));
}

BOOST_AUTO_TEST_CASE(a_path_through_a_file_is_refused) {
    ScratchDir dir;
    const std::string file = dir.write("plain", "x");
    BOOST_TEST(!read_regular_file(file + "/child"));
}

BOOST_AUTO_TEST_CASE(dev_zero_is_refused_at_once) {
    HangGuard guard;
    BOOST_TEST(!is_regular_file("/dev/zero"));
    BOOST_TEST(!read_regular_file("/dev/zero"));
    BOOST_TEST(!viber::os::File::open_regular("/dev/zero"));
    BOOST_TEST(!read_regular_file("/dev/null"));
}

BOOST_AUTO_TEST_CASE(the_size_cap_is_inclusive) {
    ScratchDir dir;
    const std::string path = dir.write("hundred", std::string(100, 'x'));
    BOOST_TEST(read_regular_file(path, 100).has_value());
    BOOST_TEST(!read_regular_file(path, 99));
    BOOST_TEST(!read_regular_file(path, 0));
}

BOOST_AUTO_TEST_CASE(the_size_is_what_the_file_holds) {
    ScratchDir dir;
    viber::os::File file =
        viber::os::File::open_regular(dir.write("sized", std::string(70000, 'y')));
    BOOST_REQUIRE(file);
    BOOST_TEST((file.size() == std::optional<std::uint64_t>(70000)));
}

BOOST_AUTO_TEST_CASE(a_file_that_reports_no_size_is_read_whole,
                     *viber::testing::posix_only("/proc")) {
    // /proc/self/status is a regular file whose size reads as 0: the buffer sized from the size
    // hint must grow to take what the read finds.
    viber::os::File file = viber::os::File::open_regular("/proc/self/status");
    BOOST_REQUIRE(file);
    BOOST_REQUIRE((file.size() == std::optional<std::uint64_t>(0)));
    const auto got = read_regular_file("/proc/self/status");
    BOOST_REQUIRE(got);
    BOOST_TEST(got->starts_with("Name:"));
    BOOST_TEST(got->find("\nPid:") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_file_whose_read_fails_is_refused, *viber::testing::posix_only("/proc")) {
    // /proc/self/mem is a regular file whose read at offset 0 fails (EIO): the read error path,
    // testable even as root.
    BOOST_REQUIRE(is_regular_file("/proc/self/mem"));
    BOOST_TEST(!read_regular_file("/proc/self/mem"));
}

BOOST_AUTO_TEST_CASE(a_file_without_read_permission) {
    ScratchDir dir;
    const std::string path = dir.write("secret", "text");
    BOOST_REQUIRE(::chmod(path.c_str(), 0) == 0);
    // Root reads a mode-000 file anyway; the reader must agree with what the system allows.
    if (::access(path.c_str(), R_OK) != 0) {
        BOOST_TEST(!read_regular_file(path));
        BOOST_TEST(!viber::os::File::open_regular(path));
    } else {
        BOOST_TEST_MESSAGE(
            "running with read access past mode 000 (root): checking the read succeeds");
        const auto got = read_regular_file(path);
        BOOST_REQUIRE(got);
        BOOST_TEST(*got == "text");
    }
    BOOST_TEST(is_regular_file(path)); // stat needs no read permission
}

BOOST_AUTO_TEST_CASE(an_open_regular_file_reads_plainly_and_at_an_offset) {
    ScratchDir dir;
    viber::os::File file = viber::os::File::open_regular(dir.write("f", "abcdef"));
    BOOST_REQUIRE(static_cast<bool>(file));
    char buffer[8];
    BOOST_TEST(file.read_some(buffer, sizeof buffer) == 6);
    BOOST_TEST(file.read_some(buffer, sizeof buffer) == 0);
    BOOST_TEST(file.read_exact_at(buffer, 3, 2));
    BOOST_TEST(std::string(buffer, 3) == "cde");
    BOOST_TEST(!file.read_exact_at(buffer, 3, 4)); // past the end
}

BOOST_AUTO_TEST_CASE(mtime_is_whole_seconds) {
    ScratchDir dir;
    const std::string path = dir.write("plan.md", "x");
    viber::testing::set_mtime(path, 1790000000);
    const auto got = mtime_seconds(path);
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == 1790000000);
    BOOST_TEST(!mtime_seconds(dir / "missing"));
}

BOOST_AUTO_TEST_CASE(cuts_lf_and_crlf_trailing_newlines_only) {
    BOOST_TEST(viber::cut_trailing_newlines("rules\n") == "rules");
    BOOST_TEST(viber::cut_trailing_newlines("rules\n\n\n") == "rules");
    BOOST_TEST(viber::cut_trailing_newlines("rules\r\n\r\n") == "rules");
    BOOST_TEST(viber::cut_trailing_newlines("a\nb\r\n") == "a\nb");
    BOOST_TEST(viber::cut_trailing_newlines("rules  ") == "rules  ");
    BOOST_TEST(viber::cut_trailing_newlines("x\r") == "x\r"); // a lone CR is not a newline
    BOOST_TEST(viber::cut_trailing_newlines("\n\r\n") == "");
    BOOST_TEST(viber::cut_trailing_newlines("") == "");
}
