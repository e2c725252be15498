// kill_guard.hpp: kill-guard's decision: refuse a viber agent's stop-by-name Bash command.
#pragma once

#include "common/shell_lexer.hpp"

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace viber::kill_guard {

// What a refused command does, for the reason text.
struct StopByName {
    std::string
        command; // the command word as the agent wrote it, path stripped ("pkill", "taskkill.exe")
    std::string_view why; // the rule's one-line rationale
};

// The first invocation in `analysis` that stops processes by name, or nullopt. An incomplete
// analysis (a lexer bound passed) finds nothing: the guard fails open.
std::optional<StopByName> find_stop_by_name(const shell::Analysis& analysis);

// The refusal reason for `command`, or nullopt when the command may run.
std::optional<std::string> refusal_reason(std::string_view command);

// The whole decision from the payload's bytes: a deny object, or nullopt to print nothing (the
// guard never answers allow). Acts only for a top-level `agent_type` starting `viber:`.
std::optional<boost::json::value> decide(std::string_view payload);

// hook_main's entry: nullopt stdin (a failed or unbounded read) prints nothing.
std::optional<boost::json::value> run(const std::optional<std::string>& stdin_bytes);

} // namespace viber::kill_guard
