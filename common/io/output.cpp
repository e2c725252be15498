// output.cpp: the hook answers and the one writer every hook prints through.
#include "common/io/output.hpp"

#include "common/text/utf8.hpp"

#include <boost/json/serialize.hpp>

namespace viber {

namespace json = boost::json;

json::value pretool_deny(std::string_view reason) {
    return {{"hookSpecificOutput",
             {{"hookEventName", "PreToolUse"},
              {"permissionDecision", "deny"},
              {"permissionDecisionReason", reason}}}};
}

json::value additional_context(std::string_view event, std::string_view context) {
    return {{"hookSpecificOutput", {{"hookEventName", event}, {"additionalContext", context}}}};
}

json::value session_start(std::optional<std::string_view> context,
                          std::string_view system_message) {
    json::object inner{{"hookEventName", "SessionStart"}};
    if (context) inner["additionalContext"] = *context;
    return {{"hookSpecificOutput", std::move(inner)}, {"systemMessage", system_message}};
}

json::value block_stop(std::string_view reason) {
    return {{"decision", "block"}, {"reason", reason}};
}

std::string capped(std::string_view text, std::size_t cap) {
    const std::size_t total = utf8::code_points(text);
    if (total <= cap) return std::string(text);
    // Room for the closing line ("\n[... <up to 20 digits> more characters left out]").
    constexpr std::size_t note_room = 64;
    const std::size_t budget = cap > note_room ? cap - note_room : 0;
    const std::size_t end = utf8::offset_of(text, budget);
    std::string_view kept = text.substr(0, end);
    // A whole last line reads better than half a sentence, unless that throws away most of it.
    if (const std::size_t line_end = kept.rfind('\n');
        line_end != std::string_view::npos && line_end >= end / 2)
        kept = kept.substr(0, line_end);
    std::string out(kept);
    out += "\n[... ";
    out += std::to_string(total - utf8::code_points(kept));
    out += " more characters left out]";
    return out;
}

std::string output_text(std::string_view text) {
    if (utf8::is_valid(text)) return capped(text);
    return capped(utf8::repaired(text));
}

namespace {
// Every string of `value`, keys excepted (the writer's keys are fixed ASCII), through output_text.
void make_printable(json::value& value) {
    if (value.is_string()) {
        const json::string& text = value.get_string();
        value = output_text(std::string_view(text.data(), text.size()));
    } else if (value.is_object()) {
        for (auto& member : value.get_object()) make_printable(member.value());
    } else if (value.is_array()) {
        for (auto& element : value.get_array()) make_printable(element);
    }
}
} // namespace

std::string to_line(const json::value& answer) {
    json::value printable = answer;
    make_printable(printable);
    std::string line = json::serialize(printable);
    line.push_back('\n');
    return line;
}

} // namespace viber
