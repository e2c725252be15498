// process.hpp: runs a built hook binary as a real process, for the integration tests.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::testing {

enum class StdinMode {
    bytes,     // write `stdin_bytes` then close the pipe
    held_open, // write `stdin_bytes` and keep the pipe open until the child exits
};

struct RunOptions {
    std::vector<std::string> args; // argv[1..]
    std::string stdin_bytes;
    StdinMode stdin_mode = StdinMode::bytes;
    std::map<std::string, std::optional<std::string>> env; // set (value) or unset (nullopt)
    std::optional<std::string> cwd;
    std::chrono::milliseconds timeout{20000}; // the child is killed past it
};

struct RunResult {
    std::string out;
    std::string err;
    int exit_code = -1; // -1 when killed by a signal
    int signal = 0;
    bool timed_out = false;
    double seconds = 0;
};

RunResult run_process(const std::string& exe, const RunOptions& options);

// Path of a built hook binary (from the build tree).
std::string hook_binary(std::string_view name);
// Path of a file in the source tree.
std::string source_path(std::string_view rel);

} // namespace viber::testing
