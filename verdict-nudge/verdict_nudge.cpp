// verdict_nudge.cpp: the SubagentStop decision (docs/verdict-nudge.md).
#include "verdict-nudge/verdict_nudge.hpp"

#include "common/io/payload.hpp"
#include "common/text/lines.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

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

namespace {

bool any_verdict_line(std::string_view message) {
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

} // namespace

bool has_verdict_line(std::string_view message) {
    // A reply ends with its verdict line (the agents' instructions say so), so the lines of the
    // last 4 KiB are read first: a long message that has one is decided without a pass over all
    // of it. Any line found there is a line of the message, so the answer is the same.
    constexpr std::size_t tail = 4096;
    if (message.size() > tail) {
        const std::size_t newline = message.find('\n', message.size() - tail);
        if (newline != std::string_view::npos && any_verdict_line(message.substr(newline + 1)))
            return true;
    }
    return any_verdict_line(message);
}

namespace {

// --explain's account of the message: its size, and the first verdict line or that there is none.
// One pass, line by line, run only when explaining.
std::string describe_message(std::string_view message) {
    std::size_t number = 0;
    std::optional<std::string_view> found;
    text::for_each_line(message, [&](std::string_view line) {
        ++number;
        if (has_verdict_line(line)) found = line;
        return !found;
    });
    if (found)
        return "last_assistant_message line " + std::to_string(number) + " is a verdict line: \"" +
               std::string(found->substr(0, 120)) + "\"";
    return "last_assistant_message: " + std::to_string(number) +
           (number == 1 ? " line, " : " lines, ") + std::to_string(message.size()) +
           " bytes; none matches ^[ \\t`*-]*(VERDICT|AUDIT):";
}

} // namespace

Decision decide(const HookInput& in, Trace& trace) {
    if (in.payload == nullptr) {
        if (trace.on()) trace.step("no JSON object to read: nothing to do");
        return Decision::nothing();
    }
    const boost::json::object& payload = *in.payload;
    const auto agent_type = string_field(payload, "agent_type");
    if (!agent_type || !owes_verdict_line(*agent_type)) {
        if (trace.on())
            trace.step(!agent_type ? "no top-level string agent_type: not a viber agent"
                       : !agent_type->starts_with("viber:")
                           ? "agent_type is not a viber agent"
                           : "agent_type " + std::string(*agent_type) +
                                 " returns no verdict line (scout, mapper, hunter)");
        return Decision::nothing();
    }
    if (trace.on())
        trace.step("agent_type " + std::string(*agent_type) +
                   " is an agent meant to end its reply with a verdict line: its reply is "
                   "checked for one");
    // A stop already sent back once goes through: the skill handles a second reply without it.
    if (is_true(payload, "stop_hook_active")) {
        if (trace.on())
            trace.step("stop_hook_active is true: sent back once already, it goes through");
        return Decision::nothing();
    }
    if (trace.on()) trace.step("stop_hook_active is not true: not sent back yet");
    const auto message = string_field(payload, "last_assistant_message");
    if (!message || message->empty()) {
        if (trace.on()) trace.step("last_assistant_message is missing, not a string or empty");
        return Decision::nothing();
    }
    if (has_verdict_line(*message)) {
        if (trace.on()) trace.step(describe_message(*message));
        return Decision::nothing();
    }
    if (trace.on()) {
        trace.step(describe_message(*message));
        trace.step("so the stop is sent back once with the fixed instruction");
    }
    return Decision::block(std::string(instruction));
}

} // namespace viber::verdict_nudge
