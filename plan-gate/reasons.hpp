// reasons.hpp: wording shared by every plan-gate refusal.
#pragma once

#include <string_view>

namespace viber::plan_gate {

// Every reason ends by saying this is the plan review gate, not an error.
inline constexpr std::string_view planner_gate_trailer =
    "This is the viber planner's plan review gate, not an error.";
inline constexpr std::string_view plain_gate_trailer =
    "This is the plain plan review gate (planning.plain-plan-review in .claude/viber.yml), not an "
    "error.";

} // namespace viber::plan_gate
