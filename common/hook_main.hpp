// hook_main.hpp: the one entry point every hook binary goes through: tool mode (--help,
// --version) or hook mode (bounded stdin, decide, at most one line out, exit 0, fail open).
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace viber {

// The decision of a hook from its raw stdin: nullopt stdin means the read failed or passed a
// bound. Returns the answer to print, or nullopt to print nothing.
using HookRun = std::optional<boost::json::value> (*)(const std::optional<std::string>& stdin_bytes);

struct HookInfo {
    std::string_view name;     // the binary's name, e.g. "kill-guard"
    std::string_view contract; // two or three lines for --help
    HookRun run;               // hook mode
    HookRun fail_open;         // the answer when `run` throws (called with nullopt); may be null
};

// With no arguments: hook mode, always returning 0. With arguments: tool mode, returning 0 for
// --help/--version and 1 (usage on stderr) for anything else, never 2.
int hook_main(int argc, char** argv, const HookInfo& info);

// The suite version, the same from every binary.
std::string_view suite_version();

} // namespace viber
