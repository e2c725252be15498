// kill_guard.hpp: kill-guard's decision: refuse a viber agent's stop-by-name Bash command.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"

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
    // The command nests deeper than the lexer's cap.
    bool nesting_cap = false;
    // The lexer's expansion budget left a value the command gives unread.
    bool expansion_cap = false;
    // The reading ended at the lexer's command cap (10,000 commands).
    bool command_cap = false;
};

// The first command in `command` that stops processes by name (or the nesting-cap,
// expansion-cap or command-cap finding), or nullopt.
std::optional<StopByName> find_stop_by_name(std::string_view command);

// The refusal reason for `command`, or nullopt when the command may run.
std::optional<std::string> refusal_reason(std::string_view command);

// The whole decision on one payload (hook_main has already dismissed bytes without `viber:`):
// a deny, or nothing (the guard never answers allow). Acts only for a top-level `agent_type`
// starting `viber:`.
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::kill_guard
