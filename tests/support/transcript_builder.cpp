// transcript_builder.cpp: writes transcripts as Claude Code does.
#include "support/transcript_builder.hpp"

#include <boost/json/serialize.hpp>

namespace viber::testing {

namespace json = boost::json;

std::size_t TranscriptBuilder::add(const json::value& record) {
    return raw(json::serialize(record));
}

std::size_t TranscriptBuilder::raw(std::string_view line) {
    text_.append(line);
    text_.append(crlf_ ? "\r\n" : "\n");
    return ++lines_;
}

std::size_t TranscriptBuilder::permission_mode(std::string_view mode) {
    return add(
        json::object{{"type", "permission-mode"}, {"permissionMode", mode}, {"sessionId", "s"}});
}

std::size_t TranscriptBuilder::tool_use(std::string_view name, const json::object& input,
                                        std::string_view id) {
    json::object use{{"type", "tool_use"}, {"name", name}, {"input", input}};
    if (!id.empty()) use["id"] = id;
    return add(json::object{
        {"type", "assistant"},
        {"message", json::object{{"role", "assistant"}, {"content", json::array{use}}}}});
}

std::size_t TranscriptBuilder::content_element(std::string_view type, const json::object& element) {
    return add(
        json::object{{"type", type}, {"message", json::object{{"content", json::array{element}}}}});
}

std::size_t TranscriptBuilder::skill(std::string_view skill, std::string_view id) {
    return tool_use("Skill", json::object{{"skill", skill}}, id);
}

std::size_t TranscriptBuilder::enter_plan_mode() {
    return tool_use("EnterPlanMode", json::object{}, "toolu_enter");
}

std::size_t TranscriptBuilder::typed_prompt(std::string_view text) {
    return add(json::object{{"type", "user"},
                            {"message", json::object{{"role", "user"}, {"content", text}}}});
}

std::size_t TranscriptBuilder::typed_prompt_in_mode(std::string_view mode, std::string_view text) {
    return add(json::object{{"type", "user"},
                            {"permissionMode", mode},
                            {"message", json::object{{"role", "user"}, {"content", text}}}});
}

std::size_t TranscriptBuilder::attachment(std::string_view type, std::string_view plan_file_path) {
    json::object inner{{"type", type}};
    if (!plan_file_path.empty()) inner["planFilePath"] = plan_file_path;
    return add(json::object{{"type", "attachment"}, {"attachment", inner}});
}

std::size_t TranscriptBuilder::meta_line() {
    return add(json::object{
        {"type", "user"},
        {"isMeta", true},
        {"message",
         json::object{{"role", "user"},
                      {"content", json::array{json::object{
                                      {"type", "text"},
                                      {"text", "Base directory for this skill: /p/skills"}}}}}}});
}

std::size_t TranscriptBuilder::write_file(std::string_view file_path, std::string_view content) {
    return tool_use("Write", json::object{{"file_path", file_path}, {"content", content}},
                    "toolu_write");
}

std::size_t TranscriptBuilder::edit_file(std::string_view file_path) {
    return tool_use(
        "Edit", json::object{{"file_path", file_path}, {"old_string", "a"}, {"new_string", "b"}},
        "toolu_edit");
}

std::size_t TranscriptBuilder::dispatch(std::string_view agent, std::string_view id,
                                        std::string_view prompt) {
    return tool_use(
        "Agent",
        json::object{{"subagent_type", agent}, {"description", "review"}, {"prompt", prompt}}, id);
}

std::size_t TranscriptBuilder::tool_result(std::string_view id, std::string_view text,
                                           std::string_view timestamp) {
    json::object result{{"type", "tool_result"}, {"content", text}};
    if (!id.empty()) result["tool_use_id"] = id;
    json::object record{{"type", "user"}};
    if (!timestamp.empty()) record["timestamp"] = timestamp;
    record["message"] = json::object{{"role", "user"}, {"content", json::array{result}}};
    return add(record);
}

std::size_t TranscriptBuilder::reviewer_answer(std::string_view id, std::string_view text,
                                               std::string_view timestamp) {
    const json::array blocks{json::object{{"type", "text"}, {"text", text}},
                             json::object{{"type", "text"}, {"text", "agentId: a1 <usage>"}}};
    json::object record{{"type", "user"}};
    if (!timestamp.empty()) record["timestamp"] = timestamp;
    record["message"] = json::object{
        {"role", "user"},
        {"content", json::array{json::object{
                        {"type", "tool_result"}, {"tool_use_id", id}, {"content", blocks}}}}};
    record["toolUseResult"] = json::object{
        {"status", "completed"}, {"agentType", "viber:planner-review"}, {"content", blocks}};
    return add(record);
}

std::size_t TranscriptBuilder::async_launched(std::string_view id, std::string_view prompt) {
    json::object result{
        {"tool_use_id", id},
        {"type", "tool_result"},
        {"content", json::array{json::object{{"type", "text"},
                                             {"text", "Async agent launched successfully."}}}}};
    return add(
        json::object{{"type", "user"},
                     {"message", json::object{{"role", "user"}, {"content", json::array{result}}}},
                     {"toolUseResult", json::object{{"isAsync", true},
                                                    {"status", "async_launched"},
                                                    {"agentId", "a1"},
                                                    {"prompt", prompt}}}});
}

std::size_t TranscriptBuilder::tool_error(std::string_view id, std::string_view text) {
    json::object result{{"type", "tool_result"}, {"content", text}, {"is_error", true}};
    if (!id.empty()) result["tool_use_id"] = id;
    return add(
        json::object{{"type", "user"},
                     {"message", json::object{{"role", "user"}, {"content", json::array{result}}}},
                     {"toolUseResult", "Error: " + std::string(text)}});
}

std::size_t TranscriptBuilder::bookkeeping(std::string_view type, std::string_view content) {
    json::object record{{"type", type}, {"sessionId", "s"}};
    if (type == "queue-operation") record["operation"] = "enqueue";
    record["content"] = content;
    return add(record);
}

std::size_t TranscriptBuilder::task_notification(std::string_view id, std::string_view result,
                                                 std::string_view timestamp) {
    std::string text = "<task-notification>\n<tool-use-id>" + std::string(id) +
                       "</tool-use-id>\n<status>completed</status>\n<result>" +
                       std::string(result) + "</result>\n</task-notification>";
    json::object record{{"type", "user"}};
    if (!timestamp.empty()) record["timestamp"] = timestamp;
    record["message"] = json::object{{"role", "user"}, {"content", text}};
    return add(record);
}

} // namespace viber::testing
