// verdict_nudge.hpp: the SubagentStop decision (SPEC §9): send a viber agent's stop back once when
// its final message has no `VERDICT:` or `AUDIT:` line.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace viber::verdict_nudge {

// Two or three lines for --help.
inline constexpr std::string_view contract =
    "Prints {\"decision\":\"block\",\"reason\":<instruction>} when a viber: agent (not scout,\n"
    "mapper or hunter) stops, stop_hook_active is not true, and no line of last_assistant_message\n"
    "opens with VERDICT: or AUDIT:; else nothing. Reads nothing but stdin. Always exits 0.";

// The one fixed instruction the agent reads when its stop is sent back.
extern const std::string_view instruction;

// True when `agent_type` is a viber agent that ends its reply with a verdict line: it starts
// `viber:` and is none of the three that return none (scout, mapper, hunter).
bool owes_verdict_line(std::string_view agent_type);

// True when some line of `message` (split at \n) matches ^[ \t`*-]*(VERDICT|AUDIT): . One linear
// pass, no allocation.
bool has_verdict_line(std::string_view message);

// The decision on a parsed payload: the block answer, or nullopt to print nothing.
std::optional<boost::json::value> decide(const boost::json::object& payload);

// Hook mode: raw stdin (nullopt when the bounded read failed) to the answer. Bytes without
// `viber:` cannot be for a viber agent and are dismissed before any parse.
std::optional<boost::json::value> run(const std::optional<std::string>& stdin_bytes);

} // namespace viber::verdict_nudge
