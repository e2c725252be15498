// kill_guard.hpp: kill-guard's decision: refuse a viber agent's stop-by-name Bash command.
#pragma once

#include "common/decision.hpp"
#include "common/shell_lexer.hpp"
#include "common/trace.hpp"

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

// The whole decision on one payload (hook_main has already dismissed bytes without `viber:`):
// a deny, or nothing (the guard never answers allow). Acts only for a top-level `agent_type`
// starting `viber:`.
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::kill_guard
