// transcript_builder.hpp: writes transcripts as Claude Code does (compact JSON, one object a
// line), so tests state events rather than hand-typed JSON.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace viber::testing {

class TranscriptBuilder {
public:
    // Appends one record; returns its 1-based line number.
    std::size_t add(const boost::json::value& record);
    // Appends raw text as one line (not JSON, blank, …).
    std::size_t raw(std::string_view line);

    std::size_t permission_mode(std::string_view mode);
    // A record of top-level `type` whose message content is the one `element` (a look-alike of a
    // tool_use line: another record type, another element type).
    std::size_t content_element(std::string_view type, const boost::json::object& element);
    std::size_t tool_use(std::string_view name, const boost::json::object& input,
                         std::string_view id = {});
    std::size_t skill(std::string_view skill, std::string_view id = "toolu_skill");
    std::size_t enter_plan_mode();
    std::size_t typed_prompt(std::string_view text); // user, string content, role user
    // A typed prompt as Claude Code 2.1 writes it: the permission mode as a top-level field.
    std::size_t typed_prompt_in_mode(std::string_view mode, std::string_view text);
    // An `attachment` line of `type` (plan_mode, plan_mode_exit with its planFilePath, …).
    std::size_t attachment(std::string_view type, std::string_view plan_file_path = {});
    // The isMeta user line Claude Code writes after a Skill call: array content.
    std::size_t meta_line();
    std::size_t write_file(std::string_view file_path, std::string_view content = "plan");
    std::size_t edit_file(std::string_view file_path);
    std::size_t dispatch(std::string_view agent, std::string_view id,
                         std::string_view prompt = "review");
    // A tool_result for `id` whose content is `text`, with an optional top-level timestamp.
    std::size_t tool_result(std::string_view id, std::string_view text,
                            std::string_view timestamp = {});
    // A reviewer's answer as Claude Code 2.1 writes it: a tool_result whose content is an array of
    // text blocks, repeated under toolUseResult, with an optional top-level timestamp.
    std::size_t reviewer_answer(std::string_view id, std::string_view text,
                                std::string_view timestamp = {});
    // An async launch echo (holds "status":"async_launched").
    std::size_t async_launched(std::string_view id, std::string_view prompt);
    // A tool_result for `id` that is an error (`"is_error":true`), as Claude Code writes a refused
    // call or one that could not start.
    std::size_t tool_error(std::string_view id, std::string_view text);
    // A record Claude Code 2.1.3xx keeps for itself: a queue-operation enqueueing `content` (a
    // prompt, or a task notification before it is delivered), or another bookkeeping `type`.
    std::size_t bookkeeping(std::string_view type, std::string_view content);
    // A task notification (user string content) carrying <result>text</result>.
    std::size_t task_notification(std::string_view id, std::string_view result,
                                  std::string_view timestamp = {});

    std::size_t lines() const { return lines_; }
    const std::string& text() const { return text_; }
    // Line endings: "\n" (default) or "\r\n".
    void set_crlf(bool crlf) { crlf_ = crlf; }

private:
    std::string text_;
    std::size_t lines_ = 0;
    bool crlf_ = false;
};

} // namespace viber::testing
