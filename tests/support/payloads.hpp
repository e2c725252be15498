// payloads.hpp: the hook payloads Claude Code sends, built the same way for every test.
#pragma once

#include <string>
#include <string_view>

namespace viber::testing {

// The PreToolUse payload Claude Code sends for a Bash call. An empty `agent_type` leaves the key
// out, as in a call from the main session rather than a subagent.
std::string bash_payload(std::string_view agent_type, std::string_view command,
                         std::string_view description = "run it");

} // namespace viber::testing
