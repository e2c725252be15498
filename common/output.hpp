// output.hpp: the hook answers of SPEC §2, serialized by Boost.JSON as one compact line.
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace viber {

// PreToolUse: a deny with its reason. There is no allow: a hook with no objection prints nothing.
boost::json::value pretool_deny(std::string_view reason);

// UserPromptSubmit (or any event) injecting model context.
boost::json::value additional_context(std::string_view event, std::string_view context);

// SessionStart: the banner goes top-level (Claude Code ignores it inside hookSpecificOutput);
// without context, hookSpecificOutput holds hookEventName alone.
boost::json::value session_start(std::optional<std::string_view> context,
                                 std::string_view system_message);

// SubagentStop: block the stop once, with a reason the agent reads.
boost::json::value block_stop(std::string_view reason);

// The one line a hook prints: compact JSON and "\n".
std::string to_line(const boost::json::value& answer);

// Writes `line` to stdout in full (retrying short writes); errors are ignored, because a hook
// whose reader went away has nobody left to tell.
void write_stdout(std::string_view line);

} // namespace viber
