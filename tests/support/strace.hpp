// strace.hpp: runs a command under strace, to show a hook does no work once it reads its stdin.
#pragma once

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

// Runs `command` (argv, the program first) under `strace -f` with `stdin_bytes` on its stdin,
// CLAUDE_PLUGIN_ROOT unset. Fails the test, saying so, when strace is missing or fails.
Trace trace_process(const std::vector<std::string>& command, const std::string& stdin_bytes);

// The lines one per line, for a failure message that shows what the trace saw.
std::string joined(const std::vector<std::string>& lines);

} // namespace viber::testing
