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
    // A cap of the command model that left part of the command unread (then `why` alone says
    // what): it nests deeper than the nesting cap, the expansion budget left a value the command
    // gives unread, or the reading ended at the command cap (10,000 commands).
    enum class Cap { none, nesting, expansion, commands };
    Cap cap = Cap::none;
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
