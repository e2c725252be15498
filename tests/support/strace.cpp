// strace.cpp: runs a command under strace, to show a hook does no work once it reads its stdin.
#include "support/strace.hpp"

#include "support/emulator.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace viber::testing {

namespace {

std::string find_strace() {
    for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
        const std::string path = std::string(dir) + "/strace";
        if (::access(path.c_str(), X_OK) == 0) return path;
    }
    return {};
}

} // namespace

boost::test_tools::assertion_result strace_sees_hooks(boost::unit_test::test_unit_id id) {
#ifdef __linux__
    if (test_emulator().empty()) return true;
    const std::string reason =
        "the tests run under " + test_emulator().front() +
        ", where strace would trace the emulator's system calls, not the hook's";
#else
    const std::string reason = "strace exists only on Linux";
#endif
    const boost::unit_test::test_unit& unit =
        boost::unit_test::framework::get(id, boost::unit_test::TUT_ANY);
    const std::string why =
        "SKIPPED " + std::string(unit.p_type == boost::unit_test::TUT_SUITE ? "suite " : "") +
        unit.p_name.get() + ": " + reason;
    std::cerr << why << std::endl; // in the ctest log whatever the Boost.Test log level
    boost::test_tools::assertion_result skip(false);
    skip.message() << why;
    return skip;
}

Trace trace_process(const std::vector<std::string>& command, const std::string& stdin_bytes) {
    // A program that runs under the emulator would show the emulator's calls, not its own: such a
    // case must be skipped, saying so, by its precondition.
    const bool emulated = emulated_command(command.front()).size() > 1;
    BOOST_REQUIRE_MESSAGE(!emulated, "trace_process cannot trace " + command.front() +
                                         " through the emulator: give the test case "
                                         "*precondition(strace_sees_hooks)");
    const std::string strace = find_strace();
    // A check that cannot run must fail, not pass having traced nothing.
    BOOST_REQUIRE_MESSAGE(!strace.empty(),
                          "strace is not installed (looked in /usr/bin, /bin and "
                          "/usr/local/bin): the no-file/no-process check needs it");
    const ScratchDir dir;
    const std::string log = dir / "strace.log";
    RunOptions options;
    options.args = {"-f", "-qq", "-e", "trace=open,openat,execve,read", "-o", log};
    options.args.insert(options.args.end(), command.begin(), command.end());
    options.stdin_bytes = stdin_bytes;
    // Unset, as the other integration tests run the hooks: no plugin tree named from outside.
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    // The leak checker reads /proc at exit under ASan; it is not the hook's work.
    options.env["ASAN_OPTIONS"] = "detect_leaks=0";
    options.timeout = std::chrono::seconds(20); // a hang guard: strace slows a sanitizer build
    const RunResult result = run_process(strace, options);
    BOOST_REQUIRE_MESSAGE(result.exit_code == 0, "strace failed: " + result.err);
    std::ifstream in(log);
    BOOST_REQUIRE_MESSAGE(in.good(), "strace wrote no log at " + log);
    Trace got;
    got.out = result.out;
    for (std::string line; std::getline(in, line);) {
        // With -f every line starts with the pid; the syscall name follows it.
        const std::size_t call = line.find_first_not_of("0123456789 ");
        if (call == std::string::npos) continue;
        const std::string_view syscall = std::string_view(line).substr(call);
        if (syscall.starts_with("execve(")) got.execs.push_back(line);
        if (syscall.starts_with("read(0,")) got.read_stdin = true;
        if (syscall.starts_with("open(") || syscall.starts_with("openat("))
            (got.read_stdin ? got.opens_after_stdin : got.opens_before_stdin).push_back(line);
    }
    return got;
}

std::string joined(const std::vector<std::string>& lines) {
    std::ostringstream out;
    for (const auto& line : lines) out << line << "\n";
    return out.str();
}

bool is_startup_open(const std::string& line) {
    return line.find(".so") != std::string::npos || line.find("/proc/") != std::string::npos ||
           line.find("/sys/") != std::string::npos;
}

std::vector<std::string> hook_opens(const Trace& trace) {
    std::vector<std::string> opens = trace.opens_after_stdin;
    for (const std::string& line : trace.opens_before_stdin)
        if (!is_startup_open(line)) opens.push_back(line);
    return opens;
}

} // namespace viber::testing
