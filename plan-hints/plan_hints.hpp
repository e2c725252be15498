// plan_hints.hpp: the plan-hints decision (docs/plan-hints.md): whether a plain plan-mode prompt
// gets the plain-plan rules as context, and the text it gets.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace viber::plan_hints {

// What the decision looks at, once read from the payload and the disk.
struct HintsInput {
    bool plan_mode = false;                // the payload's top-level permission_mode is "plan"
    bool chain_owns_episode = false;       // a planner/intent/fixer signal shows in the episode
    std::optional<std::string> hints_text; // hooks/content/plan-hints.md; nullopt when unreadable
};

// The additionalContext to inject, or nullopt for silence.
std::optional<std::string> hint_context(const HintsInput& input);

// The decision on the transcript as it stood before a prompt: its first `transcript_bytes` bytes
// (0: an empty transcript). `why` says what decided (tools/replay.cpp reads recorded prompts so).
Decision decide_before(const boost::json::object& payload, std::uint64_t transcript_bytes,
                       std::string& why);

// hook_main's entry: the UserPromptSubmit context, or nothing. Fails open to nothing.
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::plan_hints
