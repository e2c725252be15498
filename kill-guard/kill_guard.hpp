// kill_guard.hpp: kill-guard's decision: refuse a viber agent's stop-by-name Bash command.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace viber::kill_guard {

// What a refused command does, for the reason text and --explain.
struct StopByName {
    std::string command;  // the normalised name ("pkill", "taskkill", "kill")
    std::string words;    // the command's words, joined by spaces
    std::string path;     // the wrapper path through which it was found ("sudo > bash -c")
    std::string_view why; // the rule's one-line rationale
    bool nesting_cap = false; // the command nests deeper than the lexer's cap
};

// The first command in `command` that stops processes by name (or the nesting-cap finding),
// or nullopt.
std::optional<StopByName> find_stop_by_name(std::string_view command);

// The refusal reason for `command`, or nullopt when the command may run.
std::optional<std::string> refusal_reason(std::string_view command);

// The whole decision from the payload's bytes: a deny object, or nullopt to print nothing (the
// guard never answers allow). Acts only for a top-level `agent_type` starting `viber:`.
std::optional<boost::json::value> decide(std::string_view payload);

// hook_main's entry: nullopt stdin (a failed or unbounded read) prints nothing.
std::optional<boost::json::value> run(const std::optional<std::string>& stdin_bytes);

} // namespace viber::kill_guard
