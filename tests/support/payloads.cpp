// payloads.cpp: the hook payloads Claude Code sends, built the same way for every test.
#include "support/payloads.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace viber::testing {

namespace json = boost::json;

std::string bash_payload(std::string_view agent_type, std::string_view command,
                         std::string_view description) {
    // Every key a real call carries, not only the ones the hooks read.
    json::object payload{
        {"session_id", "s"},
        {"transcript_path", "/nonexistent/t.jsonl"},
        {"cwd", "/repo"},
        {"permission_mode", "default"},
        {"hook_event_name", "PreToolUse"},
        {"tool_name", "Bash"},
        {"tool_input", json::object{{"command", command}, {"description", description}}}};
    if (!agent_type.empty()) payload["agent_type"] = agent_type;
    return json::serialize(payload);
}

} // namespace viber::testing
