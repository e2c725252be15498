// payload.hpp: the bounded stdin reader and top-level key access on the hook payload.
#pragma once

#include "common/os/os.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace viber {

using os::StdinLimits;

// Reads `stream` (stdin: os::standard_input()) to its end within `limits`. Returns the bytes with
// a leading UTF-8 BOM removed, or nullopt when the cap or a time bound was hit or the read
// failed: the caller fails open on nullopt.
std::optional<std::string> read_bounded(os::Stream stream, const StdinLimits& limits = {});

// Removes one leading UTF-8 byte-order mark.
std::string_view strip_bom(std::string_view bytes);

// Rewrites, in place, every `\uXXXX` escape that is a lone UTF-16 surrogate (a high one not
// followed by a low one, or a low one not preceded by a high one) to `\uFFFD`, the same length:
// Boost.JSON 1.81 rejects lone surrogates, and one stray escape must not switch a hook off. A
// valid pair, an escaped backslash before `u` (`\\ud800`) and invalid UTF-8 are left as they are.
// One pass; returns the number of escapes rewritten.
std::size_t replace_lone_surrogates(char* bytes, std::size_t size);

// Parses `bytes` as one JSON value and returns it when it is an object; nullopt for anything
// else (empty, not JSON, an array, trailing garbage, nesting deeper than the cap). A lone
// surrogate escape reads as U+FFFD and invalid UTF-8 is kept (docs/contract.md, "Payload strings").
std::optional<boost::json::object> parse_object(std::string_view bytes);

// The text of a string value; nullopt when `value` is not a string.
std::optional<std::string_view> string_text(const boost::json::value& value);

// Top-level key access. A key that only appears inside some string value never counts, because
// only the parsed object's own members are looked at.
// The one JSON accessor of the suite (payloads and transcript lines alike).
std::optional<std::string_view> string_field(const boost::json::object& obj, std::string_view key);
// The member `key` of `obj` when it is an object; nullptr otherwise.
const boost::json::object* object_field(const boost::json::object& obj, std::string_view key);
bool is_true(const boost::json::object& obj, std::string_view key);

// The `tool_input.command` string of a PreToolUse Bash payload; nullopt when either is missing
// or not of that type. Both Bash guards read the command through this one accessor.
std::optional<std::string_view> bash_command(const boost::json::object& payload);

} // namespace viber
