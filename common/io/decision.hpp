// decision.hpp: what a hook decided for one payload: the answer to print (or none), its kind
// and the reason text behind it.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace viber {

// The kinds the troubleshooting log records (docs/contract.md, "The troubleshooting log").
enum class DecisionKind { none, deny, block, context };

std::string_view to_string(DecisionKind kind);

struct Decision {
    DecisionKind kind = DecisionKind::none;
    // The deny or block reason, or the injected context (the log keeps its first characters).
    std::string reason;
    // The one JSON object hook mode prints; nullopt prints nothing.
    std::optional<boost::json::value> answer;

    // No objection and nothing to add: hook mode prints nothing.
    static Decision nothing() { return {}; }
    // PreToolUse: refuse the tool call with `reason`.
    static Decision deny(std::string reason);
    // SubagentStop: send the stop back once with `reason`.
    static Decision block(std::string reason);
    // Add `context` to the model's context for `event` (UserPromptSubmit, SessionStart).
    static Decision context(std::string_view event, std::string context);
};

// One payload as hook_main read it: the raw bytes (BOM stripped; empty when the bounded read
// failed) and, when they parse to a JSON object, that top-level object.
struct HookInput {
    const boost::json::object* payload = nullptr;
    std::string_view bytes;
};

} // namespace viber
