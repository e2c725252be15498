// output.cpp: the hook answers of SPEC §2, serialized by Boost.JSON as one compact line.
#include "common/output.hpp"

#include "common/os.hpp"

#include <boost/json/serialize.hpp>

namespace viber {

namespace json = boost::json;

namespace {
json::value pretool(std::string_view decision, std::optional<std::string_view> reason) {
    json::object inner;
    inner["hookEventName"] = "PreToolUse";
    inner["permissionDecision"] = decision;
    if (reason) inner["permissionDecisionReason"] = *reason;
    json::object outer;
    outer["hookSpecificOutput"] = std::move(inner);
    return outer;
}
} // namespace

json::value pretool_deny(std::string_view reason) {
    return pretool("deny", reason);
}

json::value additional_context(std::string_view event, std::string_view context) {
    json::object inner;
    inner["hookEventName"] = event;
    inner["additionalContext"] = context;
    json::object outer;
    outer["hookSpecificOutput"] = std::move(inner);
    return outer;
}

json::value session_start(std::optional<std::string_view> context,
                          std::string_view system_message) {
    json::object inner;
    inner["hookEventName"] = "SessionStart";
    if (context) inner["additionalContext"] = *context;
    json::object outer;
    outer["hookSpecificOutput"] = std::move(inner);
    outer["systemMessage"] = system_message;
    return outer;
}

json::value block_stop(std::string_view reason) {
    json::object outer;
    outer["decision"] = "block";
    outer["reason"] = reason;
    return outer;
}

std::string to_line(const json::value& answer) {
    std::string line = json::serialize(answer);
    line.push_back('\n');
    return line;
}

void write_stdout(std::string_view line) {
    os::write_stdout(line);
}

} // namespace viber
