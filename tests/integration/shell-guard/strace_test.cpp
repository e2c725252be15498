// strace_test.cpp: under strace, shell-guard opens no file and starts no process after stdin.
#define BOOST_TEST_MODULE integration_shell_guard_strace
#include <boost/test/unit_test.hpp>

#include "guard_run.hpp"
#include "support/scratch.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace shell_guard_test;
using viber::testing::RunOptions;
using viber::testing::RunResult;
using viber::testing::ScratchDir;

namespace {

// What a traced process did once it had started reading its stdin: every file it opened and every
// program it started from then on. The loader's opens of shared libraries come before that point
// and are the build's, not the hook's.
struct Trace {
    std::vector<std::string> opens_after_stdin;
    std::vector<std::string> execs; // every execve, the traced program's own first
    bool read_stdin = false;
    std::string out;
};

Trace trace(const std::vector<std::string>& command, const std::string& stdin_bytes) {
    ScratchDir dir;
    const std::string log = dir / "strace.log";
    RunOptions options;
    options.args = {"-f", "-qq", "-e", "trace=open,openat,execve,read", "-o", log};
    options.args.insert(options.args.end(), command.begin(), command.end());
    options.stdin_bytes = stdin_bytes;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    // The leak checker reads /proc at exit under ASan; it is not the hook's work.
    options.env["ASAN_OPTIONS"] = "detect_leaks=0";
    options.timeout = 10s;
    const RunResult result = viber::testing::run_process("/usr/bin/strace", options);
    BOOST_REQUIRE_MESSAGE(result.exit_code == 0, "strace failed: " + result.err);
    std::ifstream in(log);
    Trace got;
    got.out = result.out;
    for (std::string line; std::getline(in, line);) {
        const std::size_t call = line.find_first_not_of("0123456789 ");
        if (call == std::string::npos) continue;
        const std::string_view syscall = std::string_view(line).substr(call);
        if (syscall.starts_with("execve(")) got.execs.push_back(line);
        if (syscall.starts_with("read(0,")) got.read_stdin = true;
        if (got.read_stdin && (syscall.starts_with("open(") || syscall.starts_with("openat(")))
            got.opens_after_stdin.push_back(line);
    }
    return got;
}

std::string joined(const std::vector<std::string>& lines) {
    std::ostringstream out;
    for (const auto& line : lines) out << line << "\n";
    return out.str();
}

const std::string everything = "rm x; git stash; echo y > z; python3 -c 1";

} // namespace

BOOST_AUTO_TEST_CASE(the_trace_sees_opens_and_execs_after_stdin) {
    // The harness check: a program that reads stdin, then opens a file and starts a process.
    const Trace got = trace({"/bin/sh", "-c", "read line; : < /dev/null; /bin/true"}, "x\n");
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(!got.opens_after_stdin.empty(), joined(got.opens_after_stdin));
    BOOST_TEST(got.execs.size() == 2u, joined(got.execs));
}

BOOST_AUTO_TEST_CASE(a_non_viber_call_opens_no_file_and_starts_no_process) {
    const Trace got = trace({viber::testing::hook_binary("shell-guard")},
                            bash_payload("general-purpose", everything));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(got.opens_after_stdin.empty(), joined(got.opens_after_stdin));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(a_scout_call_opens_no_file_and_starts_no_process) {
    const Trace got = trace({viber::testing::hook_binary("shell-guard")},
                            bash_payload("viber:scout", everything));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(got.opens_after_stdin.empty(), joined(got.opens_after_stdin));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(a_refused_coder_call_opens_no_file_and_starts_no_process_either) {
    const Trace got = trace({viber::testing::hook_binary("shell-guard")},
                            bash_payload("viber:task-coder", everything));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(got.opens_after_stdin.empty(), joined(got.opens_after_stdin));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
    BOOST_TEST(got.out.rfind("{\"hookSpecificOutput\"", 0) == 0u, got.out);
}
