// strace.hpp: runs a command under strace, to show a hook does no work once it reads its stdin.
#pragma once

#include <boost/test/tools/assertion_result.hpp>
#include <boost/test/tree/test_unit.hpp>
#include <string>
#include <vector>

namespace viber::testing {

// What a traced process did once it had started reading its stdin: every file it opened and every
// program it started from then on. The loader's opens of shared libraries come before that point
// and are the build's, not the hook's, so they are kept apart.
struct Trace {
    std::vector<std::string> opens_after_stdin;
    std::vector<std::string> execs; // every execve, the traced program's own first
    bool read_stdin = false;
    std::string out; // the traced program's stdout
    // The opens before the first read(0, ...): only for tests that check they are all start-up.
    std::vector<std::string> opens_before_stdin;
};

// A precondition for a test case or suite that traces a hook (`* precondition(strace_sees_hooks)`):
// false, with the reason, off Linux (macOS and Windows have no strace) and when the tests run under
// an emulator (qemu-user, wine), where strace would trace the emulator's system calls rather than
// the hook's. The skip is printed, never silent.
boost::test_tools::assertion_result strace_sees_hooks(boost::unit_test::test_unit_id);

// Runs `command` (argv, the program first) under `strace -f` with `stdin_bytes` on its stdin,
// CLAUDE_PLUGIN_ROOT unset. Fails the test, saying so, when strace is missing or fails.
Trace trace_process(const std::vector<std::string>& command, const std::string& stdin_bytes);

// True for an open the loader or a sanitizer does before main (a shared library, /proc, /sys):
// the build's, not the hook's. A hook reads stdin first thing in main.
bool is_startup_open(const std::string& line);

// Every open that is the hook's own work: all opens after the first stdin read, and any open
// before it that is not start-up. A hook that does no work has none.
std::vector<std::string> hook_opens(const Trace& trace);

// The lines one per line, for a failure message that shows what the trace saw.
std::string joined(const std::vector<std::string>& lines);

} // namespace viber::testing
