// transcript_lines.hpp: the line kinds of a transcript, on parsed lines (docs/transcript.md): a
// Skill signal, a typed prompt and its mode, the end of plan mode, a typed chain command, a
// verdict, a `toolu_` id, and the readers of dispatch and verdict lines. What the scanner and its
// pairing window apply to a line once its needles say it may matter. The public ones are in
// common/transcript/transcript.hpp; these are the scanner's own. Included by the transcript's
// sources only.
#pragma once

#include "common/io/payload.hpp"
#include "common/transcript/transcript.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <optional>
#include <string_view>

namespace viber::transcript::internal {

// True for a record Claude Code keeps for itself (SPEC §3): every scan skips it.
bool is_bookkeeping(std::string_view type);

// True when a Skill tool_use of `skill` is a signal under `signals` (planner; with the planner
// chain also intent and fixer), with or without the `viber:` prefix.
bool is_skill_signal(std::string_view skill, Signals signals);

// A line whose message.content is a string and whose message.role, if present, is "user": a typed
// prompt, a task notification or a command message.
std::optional<std::string_view> user_string_content(const boost::json::object& record);

// A line that shows Claude Code out of plan mode, where the episode starts (docs/transcript.md):
// a permission-mode record whose mode is not plan (what older versions write); a typed prompt
// (user, string content, not isMeta) whose top-level permissionMode is present and not plan, and
// a plan_mode_exit attachment (what Claude Code 2.1 writes instead).
bool shows_plan_mode_ended(const boost::json::object& record);

// A typed chain command: a command message naming a viber skill.
bool is_typed_chain_command(std::string_view content);

// The first verdict in document order over every string value of `root`. The walk keeps its own
// stack, so a line nested thousands deep costs heap, not call stack.
std::optional<Verdict> first_verdict(const boost::json::value& root);

inline bool is_token_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// Calls visit(token) for each `toolu_` token of `line` (see toolu_tokens), in one pass.
template <class Visit> void for_each_toolu_token(std::string_view line, Visit visit) {
    constexpr std::string_view prefix = "toolu_";
    std::size_t at = line.find(prefix);
    while (at != std::string_view::npos) {
        std::size_t end = at + prefix.size();
        while (end < line.size() && is_token_byte(line[end])) ++end;
        visit(line.substr(at, end - at));
        // A token holds no other `toolu_` start worth a lookup of its own: a longer token
        // containing one is another id.
        at = line.find(prefix, end);
    }
}

// ---------------------------------------------------------------------------------------------
// Dispatch and verdict lines, as the scan and its pairing window read them

// Parses one line into `arena` and `parsed` (which uses the same storage, so the result is
// moved, not copied); nullptr when it is not a live JSON object.
const boost::json::object* parse_record(std::string_view bytes,
                                        boost::json::monotonic_resource& arena,
                                        boost::json::value& parsed);

// The subagent_type of a tool_use named Agent or Task, when it has one.
std::optional<std::string_view> dispatch_type(const boost::json::object& use);

// Calls visit(element) for each object in the line's message.content array, in order.
template <class Visit>
void for_each_content_object(const boost::json::object& record, Visit visit) {
    const boost::json::object* message = object_field(record, "message");
    if (message == nullptr) return;
    const auto* content = message->if_contains("content");
    if (content == nullptr || !content->is_array()) return;
    for (const auto& element : content->get_array())
        if (element.is_object()) visit(element.get_object());
}

// Calls visit(use, input, subagent_type) for each dispatch on the line (any agent's) in order.
template <class Visit> void for_each_dispatch(const boost::json::object& record, Visit visit) {
    for_each_content_object(record, [&](const boost::json::object& use) {
        if (string_field(use, "type") != "tool_use") return;
        if (const auto type = dispatch_type(use)) visit(use, *object_field(use, "input"), *type);
    });
}

// True when `element` is a tool_result that is an error (`"is_error":true`).
bool is_error_result(const boost::json::object& element);

// True when the line holds a tool_result that is an error.
bool holds_tool_error(const boost::json::object& record);

// The first line of a tool_result's content (a string, or the text of its first text block),
// at most 300 bytes of it (cut at a UTF-8 character boundary).
std::string first_line_of(const boost::json::value& content);

// Calls visit(id, content) for each tool_result on the line that is an error and answers a
// `toolu_` id, in order.
template <class Visit> void for_each_tool_error(const boost::json::object& record, Visit visit) {
    for_each_content_object(record, [&](const boost::json::object& result) {
        if (!is_error_result(result)) return;
        const auto id = string_field(result, "tool_use_id");
        if (!id || !id->starts_with("toolu_")) return;
        static const boost::json::value no_content;
        const auto* text = result.if_contains("content");
        visit(*id, text != nullptr ? *text : no_content);
    });
}

// A dispatch of `agent` on line `line`, with its `toolu_` id when it has one.
Dispatch new_dispatch(std::size_t line, const PairedAgent& agent, const boost::json::object& use);

// A verdict line with its value and timestamp.
VerdictLine new_verdict(std::size_t line, Verdict value, const boost::json::object& record);

// The verdict of a line that is no dispatch: none on an async launch, which echoes the prompt
// (and the prompt may well quote the verdict format), nor on a tool_result that is an error.
std::optional<Verdict> verdict_value(std::string_view bytes, const boost::json::value& parsed);

} // namespace viber::transcript::internal
