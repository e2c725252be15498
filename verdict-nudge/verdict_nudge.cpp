// verdict_nudge.cpp: the SubagentStop decision (SPEC §9).
#include "verdict-nudge/verdict_nudge.hpp"

#include "common/payload.hpp"

#include <array>
#include <cstring>

namespace viber::verdict_nudge {

// Forms differ per agent (`VERDICT: PASS`, `VERDICT: ARCHIVED`, an auditor's `AUDIT:` line), so
// the instruction points at the agent's own instructions instead of naming a value.
const std::string_view instruction =
    "Your reply has no verdict line. End it with your `VERDICT:` line (or your `AUDIT:` line), "
    "on a line of its own, in the exact form your instructions give: the caller reads that line "
    "and nothing else.";

namespace {

// scout, mapper and hunter return JSON lines, a map path or report paths, never a verdict.
constexpr std::array<std::string_view, 3> agents_without_verdict = {"viber:scout", "viber:mapper",
                                                                    "viber:hunter"};

bool is_line_lead(char c) {
    return c == ' ' || c == '\t' || c == '`' || c == '*' || c == '-';
}

} // namespace

bool owes_verdict_line(std::string_view agent_type) {
    if (!agent_type.starts_with("viber:")) return false;
    for (const std::string_view agent : agents_without_verdict)
        if (agent_type == agent) return false;
    return true;
}

bool has_verdict_line(std::string_view message) {
    const char* at = message.data();
    const char* const end = at + message.size();
    while (at < end) {
        // Each byte is looked at once: the lead, the marker, then memchr to the next line.
        while (at < end && is_line_lead(*at)) ++at;
        const std::string_view rest(at, static_cast<std::size_t>(end - at));
        if (rest.starts_with("VERDICT:") || rest.starts_with("AUDIT:")) return true;
        const void* newline = std::memchr(at, '\n', static_cast<std::size_t>(end - at));
        if (newline == nullptr) break;
        at = static_cast<const char*>(newline) + 1;
    }
    return false;
}

Decision decide(const HookInput& in, Trace&) {
    if (in.payload == nullptr) return Decision::nothing();
    const boost::json::object& payload = *in.payload;
    const auto agent_type = string_field(payload, "agent_type");
    if (!agent_type || !owes_verdict_line(*agent_type)) return Decision::nothing();
    // A stop already sent back once goes through: the skill handles a second reply without it.
    if (is_true(payload, "stop_hook_active")) return Decision::nothing();
    const auto message = string_field(payload, "last_assistant_message");
    if (!message || message->empty() || has_verdict_line(*message)) return Decision::nothing();
    return Decision::block(std::string(instruction));
}

} // namespace viber::verdict_nudge
