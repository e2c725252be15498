// hook_main.hpp: the one entry point every hook binary goes through: tool mode (--help,
// --version) or hook mode (bounded stdin, prefilter, one parse, decide, at most one line out,
// exit 0, fail open).
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace viber {

struct ReplaySpec; // tools/replay.hpp

// Where a payload's bytes came from: hook mode reads stdin; --explain may read a file or a
// logged call instead.
enum class PayloadSource { standard_input, file, log };

// The hook's decision on one payload. `in.payload` is null when the bytes are not a JSON
// object (or stdin could not be read): each hook decides what that means, usually nothing.
using Decide = Decision (*)(const HookInput& in, Trace& trace);

// The answer when `decide` throws; may throw too, and then nothing is printed.
using FailOpen = Decision (*)();

// A cheap byte test that dismisses a payload before it is parsed.
enum class Prefilter {
    none,
    // Only a viber agent's call matters: bytes without `viber:` cannot carry a top-level
    // `agent_type` starting `viber:` (Claude Code writes it unescaped).
    viber_agent,
};

// One more tool-mode option a hook offers (kill-guard and shell-guard: --commands-json): `--NAME`
// alone, or `--NAME=VALUE`. `run` gets the value ("" when none was given) and returns the exit
// status; it reads stdin itself.
struct ExtraToolOption {
    std::string_view name = {}; // without the dashes; empty: none
    std::string_view help = {};
    int (*run)(std::string_view value) = nullptr;
};

struct HookInfo {
    std::string_view name = {}; // the binary's name, e.g. "kill-guard"
    std::string_view help = {}; // for --help: the payload keys and files it reads, its contract
    Decide decide = nullptr;
    Prefilter prefilter = Prefilter::none;
    FailOpen fail_open = nullptr;       // null: print nothing when `decide` throws
    const ReplaySpec* replay = nullptr; // the calls --replay judges; null: no --replay
    // What runs --replay (tools/replay.hpp's `replay`), given by the hook's main so that this
    // driver never includes the tools that call it; null: no --replay.
    int (*run_replay)(const HookInfo& info, const std::string& path) = nullptr;
    ExtraToolOption extra = {}; // a tool-mode option of the hook's own (the guards')
};

// With no arguments: hook mode, always returning 0. With arguments: tool mode, returning 0 for
// --help/--version and 2 for a usage error (one line on stderr naming it, never the help).
int hook_main(int argc, char** argv, const HookInfo& info);

// True where run_hook ends hook mode with std::_Exit: every build but the sanitizer ones, which
// leave through exit() so LeakSanitizer still checks every hook-mode run.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool hook_mode_leaves_at_once = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool hook_mode_leaves_at_once = false;
#else
inline constexpr bool hook_mode_leaves_at_once = true;
#endif
#else
inline constexpr bool hook_mode_leaves_at_once = true;
#endif

// What a hook binary's main returns: hook_main, after which hook mode leaves the process at once
// (std::_Exit: no static destructors, no stdio flush; its answer is already written) where
// hook_mode_leaves_at_once. Tool mode returns its status.
int run_hook(int argc, char** argv, const HookInfo& info);

// Hook mode's decision on the bytes read from stdin (nullopt: the bounded read failed): the
// prefilter, the one parse (parse_object), then
// `info.decide`. Exceptions propagate to the caller.
// `source` is where --explain took the bytes from: only stdin's size is traced here, a file or a
// logged call being named (with its size) by the caller.
Decision decide_stdin(const HookInfo& info, std::optional<std::string> stdin_bytes, Trace& trace,
                      PayloadSource source = PayloadSource::standard_input);

// The suite version, the same from every binary.
std::string_view suite_version();

} // namespace viber
