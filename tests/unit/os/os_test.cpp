// os_test.cpp: the operating-system layer on the platform it runs on (POSIX here, Windows under
// wine): the start clock, captured child runs (output, working directory, deadline, output cap,
// a program or directory that is not there, the CPUs it may use, a run finished after the
// caller's own work or dropped unfinished) and what a path names.
#define BOOST_TEST_MODULE os
#include "common/os/os.hpp"
#include "support/scratch.hpp"

#include <algorithm>
#include <boost/filesystem/operations.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef _WIN32
#include <cerrno>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#ifdef __linux__
#include <signal.h>
#include <sys/mman.h>
#endif

namespace os = viber::os;
using viber::testing::ScratchDir;

namespace {

// A command line for the platform's own shell: sh on POSIX, cmd on Windows.
std::vector<std::string> shell(const std::string& script) {
#ifdef _WIN32
    return {"cmd", "/c", script};
#else
    return {"sh", "-c", script};
#endif
}

#ifdef _WIN32
const std::string print_cwd = "cd";
const std::string run_forever = "ping -n 120 127.0.0.1 >NUL";
const std::string endless_output = "for /l %i in (1,1,20000) do @echo planning-plain-plan-review";
const std::string tick_forever =
    "for /l %i in (0,0,1) do @(echo x>>ticks & ping -n 1 127.0.0.1 >NUL)";
#else
const std::string print_cwd = "pwd";
const std::string run_forever = "sleep 120";
const std::string endless_output = "yes planning-plain-plan-review";
const std::string tick_forever = "while :; do echo x >> ticks; sleep 0.05; done";
#endif

// The first line with its line end cut and backslashes read as slashes.
std::string first_line(std::string text) {
    text = text.substr(0, text.find_first_of("\r\n"));
    std::replace(text.begin(), text.end(), '\\', '/');
    return text;
}

os::Clock::time_point in(std::chrono::milliseconds span) {
    return os::Clock::now() + span;
}

double seconds_since(os::Clock::time_point start) {
    return std::chrono::duration<double>(os::Clock::now() - start).count();
}

} // namespace

BOOST_AUTO_TEST_CASE(the_start_clock_runs_from_before_main) {
    BOOST_TEST((os::process_start() <= os::Clock::now()));
    const auto left = os::left_of(std::chrono::hours(1));
    BOOST_TEST(left.count() > 0);
    BOOST_TEST((left <= std::chrono::hours(1)));
    BOOST_TEST(os::left_of(std::chrono::milliseconds(0)).count() == 0);
}

BOOST_AUTO_TEST_CASE(the_clock_reads_the_monotonic_time_steady_clock_reads) {
    // os::Clock reads CLOCK_MONOTONIC through the system call on Linux: the same time, in the same
    // unit, as std::chrono::steady_clock, which every other platform's reads go through.
    const auto steady_before = std::chrono::steady_clock::now().time_since_epoch();
    const auto ours = os::Clock::now().time_since_epoch();
    const auto steady_after = std::chrono::steady_clock::now().time_since_epoch();
    BOOST_TEST((steady_before <= ours));
    BOOST_TEST((ours <= steady_after));
    const auto first = os::Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    BOOST_TEST(seconds_since(first) >= 0.019);
    BOOST_TEST(seconds_since(first) < 5.0);
}

BOOST_AUTO_TEST_CASE(a_child_that_exits_gives_its_output) {
    const ScratchDir dir;
    const os::RunResult run = os::start_captured(shell("echo planning"), dir.path())
                                  .finish(in(std::chrono::seconds(20)), 1024);
    BOOST_TEST((run.end == os::RunEnd::exited));
    BOOST_TEST(first_line(run.output) == "planning");
}

BOOST_AUTO_TEST_CASE(the_child_runs_in_the_directory_given) {
    const ScratchDir dir;
    const std::string project = dir.mkdir("a project dir");
    const os::RunResult run =
        os::start_captured(shell(print_cwd), project).finish(in(std::chrono::seconds(20)), 4096);
    BOOST_TEST((run.end == os::RunEnd::exited));
    BOOST_TEST(first_line(run.output) == project);
}

#ifdef __linux__
// The child starts as an ordinary process whatever the caller did to start it (signals blocked
// meanwhile, SIGPIPE ignored in a hook): it may use every CPU the caller may, blocks no signal and
// leaves SIGPIPE at its default, and the caller's own signal mask is as it was. Read from the
// kernel's own account of the program started.
BOOST_AUTO_TEST_CASE(a_child_starts_with_every_cpu_no_blocked_signal_and_sigpipe_default) {
    const ScratchDir dir;
    const auto field = [](const std::string& status, const std::string& key) {
        const auto at = status.find("\n" + key + ":");
        BOOST_REQUIRE(at != std::string::npos);
        const auto start = at + key.size() + 2;
        std::string value = status.substr(start, status.find('\n', start) - start);
        value.erase(std::remove_if(value.begin(), value.end(),
                                   [](char c) { return c == ' ' || c == '\t'; }),
                    value.end());
        return value;
    };
    std::ifstream own("/proc/self/status");
    std::stringstream mine;
    mine << own.rdbuf();
    const auto ignored_before = std::signal(SIGPIPE, SIG_IGN); // as a hook runs
    sigset_t mask_before;
    sigset_t mask_after;
    ::sigprocmask(SIG_SETMASK, nullptr, &mask_before);
    // cat itself, not a shell: a shell may set its own mask as it starts.
    const os::RunResult child = os::start_captured({"cat", "/proc/self/status"}, dir.path())
                                    .finish(in(std::chrono::seconds(20)), 1 << 16);
    ::sigprocmask(SIG_SETMASK, nullptr, &mask_after);
    std::signal(SIGPIPE, ignored_before);
    BOOST_REQUIRE((child.end == os::RunEnd::exited));
    BOOST_TEST(field(child.output, "Cpus_allowed_list") == field(mine.str(), "Cpus_allowed_list"));
    BOOST_TEST(field(child.output, "SigBlk") == std::string(16, '0'));
    const unsigned long long ignored = std::stoull(field(child.output, "SigIgn"), nullptr, 16);
    BOOST_TEST((ignored & (1ull << (SIGPIPE - 1))) == 0u);
    for (int signal = 1; signal < 32; ++signal)
        BOOST_TEST(::sigismember(&mask_after, signal) == ::sigismember(&mask_before, signal),
                   "signal " << signal);
}
#endif

BOOST_AUTO_TEST_CASE(a_child_past_its_deadline_is_ended) {
    const ScratchDir dir;
    const auto started = os::Clock::now();
    const os::RunResult run = os::start_captured(shell(run_forever), dir.path())
                                  .finish(in(std::chrono::milliseconds(500)), 1024);
    BOOST_TEST((run.end == os::RunEnd::timed_out));
    BOOST_TEST(seconds_since(started) < 60.0); // a hang guard, not a speed assertion
}

BOOST_AUTO_TEST_CASE(a_started_child_that_exited_while_the_caller_worked_counts_as_exited) {
    const ScratchDir dir;
    const std::string marker = dir / "done";
    os::CapturedRun run = os::start_captured(shell("echo planning> done"), dir.path());
    // The caller's work outlasts the child and the deadline: the child was on time.
    for (int i = 0; i < 2000 && !boost::filesystem::exists(marker); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_REQUIRE(boost::filesystem::exists(marker));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const os::RunResult result = run.finish(os::Clock::now() - std::chrono::seconds(1), 1024);
    BOOST_TEST((result.end == os::RunEnd::exited));
    BOOST_TEST(first_line(viber::testing::read_file(marker)) == "planning");
    // Once only: a second finish has nothing to report.
    BOOST_TEST((run.finish(in(std::chrono::seconds(1)), 1024).end == os::RunEnd::not_started));
}

BOOST_AUTO_TEST_CASE(a_started_child_dropped_unfinished_is_ended) {
    const ScratchDir dir;
    const std::string ticks = dir / "ticks";
    {
        os::CapturedRun run = os::start_captured(shell(tick_forever), dir.path());
        for (int i = 0; i < 2000 && !boost::filesystem::exists(ticks); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        BOOST_REQUIRE(boost::filesystem::exists(ticks)); // it was running
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto before = boost::filesystem::file_size(ticks);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    BOOST_TEST(boost::filesystem::file_size(ticks) == before); // nothing ticks any more
}

BOOST_AUTO_TEST_CASE(nothing_started_finishes_as_not_started) {
    os::CapturedRun run;
    BOOST_TEST((run.finish(in(std::chrono::seconds(1)), 1024).end == os::RunEnd::not_started));
    BOOST_TEST((os::start_captured({}, ".").finish(in(std::chrono::seconds(1)), 1024).end ==
                os::RunEnd::not_started));
}

BOOST_AUTO_TEST_CASE(output_past_the_cap_ends_the_run) {
    const ScratchDir dir;
    const os::RunResult run = os::start_captured(shell(endless_output), dir.path())
                                  .finish(in(std::chrono::seconds(60)), 1024);
    BOOST_TEST((run.end == os::RunEnd::output_capped));
    BOOST_TEST(run.output.size() <= 1024u);
}

#ifndef _WIN32
// A child the system refuses to start (here its user's process limit is reached) finishes as
// not_started with no output, and the pipe made for it is closed again: the descriptor the next
// open gets is the one it got before. Run in a forked copy of the test, where the limit can be
// set without touching the test itself; root is not held by the limit, so that copy becomes
// nobody first.
BOOST_AUTO_TEST_CASE(a_child_the_system_refuses_finishes_as_not_started) {
    const ScratchDir dir;
    const pid_t tester = ::fork();
    BOOST_REQUIRE(tester >= 0);
    if (tester == 0) {
        if (::geteuid() == 0 && ::setuid(65534) != 0) ::_exit(3);
        const rlimit none{0, 0};
        if (::setrlimit(RLIMIT_NPROC, &none) != 0) ::_exit(4);
        const int before = ::open("/dev/null", O_RDONLY);
        ::close(before);
        const os::RunResult run = os::start_captured(shell("echo planning"), dir.path())
                                      .finish(in(std::chrono::seconds(20)), 1024);
        const int after = ::open("/dev/null", O_RDONLY);
        if (run.end != os::RunEnd::not_started) ::_exit(5);
        if (!run.output.empty()) ::_exit(6);
        ::_exit(after == before ? 0 : 7);
    }
    int status = 0;
    while (::waitpid(tester, &status, 0) < 0 && errno == EINTR) {
    }
    BOOST_TEST_REQUIRE(WIFEXITED(status));
    // 3: could not become nobody; 4: could not set the limit; 5: started anyway; 6: output;
    // 7: a descriptor left open.
    BOOST_TEST(WEXITSTATUS(status) == 0);
}
#endif

BOOST_AUTO_TEST_CASE(a_missing_program_or_directory_gives_no_output) {
    const ScratchDir dir;
    const os::RunResult no_program = os::start_captured({"viber-no-such-program"}, dir.path())
                                         .finish(in(std::chrono::seconds(20)), 1024);
    const os::RunResult no_dir = os::start_captured(shell("echo planning"), dir / "no-such-dir")
                                     .finish(in(std::chrono::seconds(20)), 1024);
    BOOST_TEST(no_program.output.empty());
    BOOST_TEST(no_dir.output.empty());
#ifdef _WIN32
    // CreateProcessW refuses both.
    BOOST_TEST((no_program.end == os::RunEnd::not_started));
    BOOST_TEST((no_dir.end == os::RunEnd::not_started));
#else
    // The child cannot exec or chdir and exits 127 at once.
    BOOST_TEST((no_program.end == os::RunEnd::exited));
    BOOST_TEST((no_dir.end == os::RunEnd::exited));
#endif
}

BOOST_AUTO_TEST_CASE(a_file_is_read_16_kib_at_a_time_up_to_2_mib_else_64) {
    BOOST_TEST(os::read_size_for(0) == 16u * 1024);
    BOOST_TEST(os::read_size_for(std::uint64_t{2} << 20) == 16u * 1024);
    BOOST_TEST(os::read_size_for((std::uint64_t{2} << 20) + 1) == 64u * 1024);
    BOOST_TEST(os::read_size_for(std::uint64_t{1} << 40) == 64u * 1024);
    BOOST_TEST(os::read_size_for(std::nullopt) == 64u * 1024); // size unknown
}

BOOST_AUTO_TEST_CASE(what_a_path_names) {
    const ScratchDir dir;
    const std::string file = dir.write("f.md", "x");
    BOOST_TEST((os::file_kind(file) == os::FileKind::regular));
    BOOST_TEST((os::file_kind(dir.path()) == os::FileKind::directory));
    BOOST_TEST((os::file_kind(dir / "missing") == os::FileKind::missing));
    BOOST_TEST((os::file_kind("") == os::FileKind::missing));
    BOOST_TEST(os::is_directory_or_file_entry(file));
    BOOST_TEST(!os::is_directory_or_file_entry(dir / "missing"));
    BOOST_TEST(os::mtime_seconds(file).has_value());
    BOOST_TEST(!os::mtime_seconds(dir.path()).has_value());
}

BOOST_AUTO_TEST_CASE(a_directory_lists_its_entry_names) {
    const ScratchDir dir;
    dir.write("a.md", "x");
    dir.write("sub/inner.md", "x"); // one entry, `sub`: the listing does not descend
    dir.write(".hidden", "x");
    dir.write("b c.md", "x");
    auto names = os::directory_names(dir.path(), 10);
    BOOST_REQUIRE(names.has_value());
    std::sort(names->begin(), names->end());
    const std::vector<std::string> expected{".hidden", "a.md", "b c.md", "sub"};
    BOOST_TEST(*names == expected, boost::test_tools::per_element());
    // As many entries as the limit list; one more does not.
    BOOST_TEST(os::directory_names(dir.path(), 4).has_value());
    BOOST_TEST(!os::directory_names(dir.path(), 3).has_value());
    const ScratchDir empty;
    const auto none = os::directory_names(empty.path(), 0);
    BOOST_REQUIRE(none.has_value());
    BOOST_TEST(none->empty());
    BOOST_TEST(!os::directory_names(dir / "missing", 10).has_value());
    BOOST_TEST(!os::directory_names(dir / "a.md", 10).has_value()); // a file is no directory
}

BOOST_AUTO_TEST_CASE(the_current_directory_is_the_process_one) {
    const auto here = os::current_directory();
    BOOST_REQUIRE(here.has_value());
    BOOST_TEST(boost::filesystem::equivalent(*here, boost::filesystem::current_path()));
}

BOOST_AUTO_TEST_CASE(the_executable_path_is_this_test) {
    const std::string exe = os::executable_path(nullptr);
    BOOST_TEST(exe.find("unit_os_test") != std::string::npos, exe);
    BOOST_TEST((os::file_kind(exe) == os::FileKind::regular));
}

BOOST_AUTO_TEST_CASE(utc_calendar_and_byte_search) {
    const auto tm = os::utc_calendar(1790848800); // 2026-10-01T10:00:00Z
    BOOST_REQUIRE(tm.has_value());
    BOOST_TEST(tm->tm_year == 126);
    BOOST_TEST(tm->tm_mon == 9);
    BOOST_TEST(tm->tm_mday == 1);
    BOOST_TEST(tm->tm_hour == 10);
    BOOST_TEST(os::contains_bytes("a viber:x b", "viber:"));
    BOOST_TEST(!os::contains_bytes("a viber b", "viber:"));
    BOOST_TEST(os::contains_bytes("abc", ""));
}

BOOST_AUTO_TEST_CASE(huge_page_capacity_rounds_megabyte_buffers_to_whole_huge_pages) {
    constexpr std::size_t mib = std::size_t{1} << 20;
    for (const std::size_t small : {std::size_t{0}, std::size_t{1}, std::size_t{64} << 10, mib - 1})
        BOOST_TEST(os::huge_page_capacity(small) == small);
    for (const std::size_t bytes :
         {mib, 2 * mib - 33, 2 * mib - 32, 2 * mib - 31, 2 * mib, 5 * mib + 7, 64 * mib}) {
        const std::size_t capacity = os::huge_page_capacity(bytes);
#if defined(__linux__) && defined(__GLIBC__)
        // k * 2 MiB - 32: glibc's mmap of the request is exactly k huge pages.
        BOOST_TEST(capacity >= bytes);
        BOOST_TEST(capacity < bytes + 2 * mib);
        BOOST_TEST((capacity + 32) % (2 * mib) == 0, bytes << " -> " << capacity);
#else
        BOOST_TEST(capacity == bytes);
#endif
    }
}

#ifdef __linux__
namespace {

// VmFlags of the mapping of this process that holds `at`, "" when none is found.
std::string vm_flags_at(const void* at) {
    std::ifstream smaps("/proc/self/smaps");
    const auto address = reinterpret_cast<std::uintptr_t>(at);
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t from = 0, to = 0;
        char dash = 0;
        std::istringstream range(line);
        if (range >> std::hex >> from >> dash >> to && dash == '-') {
            inside = from <= address && address < to;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line;
        }
    }
    return "";
}

bool advised_huge(const void* at) {
    const std::string flags = vm_flags_at(at);
    return flags.find(" hg") != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_megabyte_buffer_is_advised_onto_huge_pages) {
    constexpr std::size_t mib = std::size_t{1} << 20;
    // Whether this kernel (and not an emulator in between) shows the advice at all: a mapping
    // advised directly.
    void* control =
        ::mmap(nullptr, 4 * mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    BOOST_REQUIRE(control != MAP_FAILED);
    const bool observable =
        ::madvise(control, 4 * mib, MADV_HUGEPAGE) == 0 && advised_huge(control);
    ::munmap(control, 4 * mib);
    if (!observable) {
        BOOST_TEST_MESSAGE("huge page advice is not observable here (no THP, or an emulator): "
                           "only the sizes are checked");
        BOOST_TEST(os::huge_page_capacity(5 * mib) >= 5 * mib);
        return;
    }
    std::string buffer;
    buffer.reserve(os::huge_page_capacity(5 * mib));
    os::expect_writes(buffer.data(), 5 * mib, buffer.capacity());
    // Inside the buffer, whatever its alignment.
    BOOST_TEST(advised_huge(buffer.data() + 3 * mib), vm_flags_at(buffer.data() + 3 * mib));
    // A buffer whose mapping starts on a huge page boundary (glibc's 16-byte chunk header before
    // it) is advised from its first byte.
    const auto begin = reinterpret_cast<std::uintptr_t>(buffer.data());
    if ((begin - 16) % (2 * mib) == 0)
        BOOST_TEST(advised_huge(buffer.data()), vm_flags_at(buffer.data()));
    else
        BOOST_TEST_MESSAGE("this buffer's mapping is not on a huge page boundary");
}
#endif
