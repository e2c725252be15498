// reasons.hpp: wording shared by every plan-gate refusal.
#pragma once

#include "common/transcript/transcript.hpp"

#include <string>
#include <string_view>

namespace viber::plan_gate {

// Every reason ends by saying this is the plan review gate, not an error.
inline constexpr std::string_view planner_gate_trailer =
    "This is the viber planner's plan review gate, not an error.";
inline constexpr std::string_view plain_gate_trailer =
    "This is the plain plan review gate (planning.plain-plan-review in .claude/viber.yml), not an "
    "error.";

// A dispatch whose own tool_result is an error (SPEC §4, rev. 4): the call was refused or could
// not start, so no review runs, and the agent must dispatch again rather than wait.
inline std::string failed_dispatch_text(const transcript::FailedDispatch& failure) {
    return "The viber:" + failure.agent + " dispatch on line " + std::to_string(failure.line) +
           " did not run: its result on line " + std::to_string(failure.error_line) +
           " is an error (\"" + failure.error + "\"), so no review is running.";
}

} // namespace viber::plan_gate
