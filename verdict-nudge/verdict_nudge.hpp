// verdict_nudge.hpp: the SubagentStop decision (docs/verdict-nudge.md): send a viber agent's stop
// back once when its final message has no `VERDICT:` or `AUDIT:` line.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace viber::verdict_nudge {

// The one fixed instruction the agent reads when its stop is sent back.
extern const std::string_view instruction;

// True when `agent_type` is a viber agent that ends its reply with a verdict line: it starts
// `viber:` and is none of the three that return none (scout, mapper, hunter).
bool owes_verdict_line(std::string_view agent_type);

// True when some line of `message` (split at \n) matches ^[ \t`*-]*(VERDICT|AUDIT): . The lines
// of the last 4 KiB first (where a reply's verdict line is), then one linear pass; no allocation.
bool has_verdict_line(std::string_view message);

// hook_main's entry, after it dismissed bytes holding no `viber:` and parsed the rest once: the
// block, or nothing.
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::verdict_nudge
