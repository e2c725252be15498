// output.hpp: the hook answers (docs/contract.md, "Output"), written by one writer as one compact
// JSON line of valid UTF-8 whose every text fits what Claude Code keeps.
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
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

// Claude Code keeps at most this many characters of a reason, a context or a message.
inline constexpr std::size_t text_cap = 10000;

// `text` when it holds at most `cap` characters (code points); else cut at the last line end
// that keeps at least half of the room (at a character boundary when there is none), followed
// by a last line saying how many characters were left out, the whole at most `cap` characters.
std::string capped(std::string_view text, std::size_t cap = text_cap);

// A text as the writer prints it: invalid UTF-8 bytes replaced by U+FFFD, then capped.
std::string output_text(std::string_view text);

// The one line a hook prints: compact JSON and "\n", every string in it through output_text,
// so bytes from files, paths and payloads never reach stdout as they are.
std::string to_line(const boost::json::value& answer);

} // namespace viber
