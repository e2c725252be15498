// kill_guard_decision_test.cpp: kill-guard's decision function, payload to answer.
#define BOOST_TEST_MODULE kill_guard_decision
#include "kill-guard/kill_guard.hpp"
#include "support/hook_decision.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

namespace json = boost::json;
using viber::kill_guard::find_stop_by_name;
using viber::kill_guard::refusal_reason;

namespace {

const viber::HookInfo kill_guard{.name = "kill-guard",
                                 .decide = viber::kill_guard::decide,
                                 .prefilter = viber::Prefilter::viber_agent};

// Hook mode's answer on payload bytes: prefilter, one parse, the decision.
std::optional<json::value> decide(std::optional<std::string_view> bytes) {
    return viber::testing::hook_answer(kill_guard, bytes);
}

std::string payload(std::string_view agent, std::string_view command) {
    json::object o;
    o["session_id"] = "s";
    o["hook_event_name"] = "PreToolUse";
    o["tool_name"] = "Bash";
    o["agent_type"] = agent;
    o["tool_input"] = json::object{{"command", command}, {"description", "d"}};
    return json::serialize(o);
}

std::string reason_of(const json::value& answer) {
    const auto& out = answer.at("hookSpecificOutput").as_object();
    return std::string(out.at("permissionDecisionReason").as_string());
}

} // namespace

BOOST_AUTO_TEST_CASE(denies_a_viber_agents_pkill) {
    const auto answer = decide(payload("viber:task-coder", "pkill node"));
    BOOST_TEST_REQUIRE(answer.has_value());
    const auto& out = answer->at("hookSpecificOutput").as_object();
    BOOST_TEST(out.at("hookEventName").as_string() == "PreToolUse");
    BOOST_TEST(out.at("permissionDecision").as_string() == "deny");
    BOOST_TEST(answer->as_object().size() == 1u);
}

BOOST_AUTO_TEST_CASE(reason_opens_with_the_marker_and_gives_the_correction) {
    const std::string reason = reason_of(*decide(payload("viber:scout", "killall node")));
    BOOST_TEST(reason.rfind("viber guard:", 0) == 0u);
    BOOST_TEST(reason.find("`killall`") != std::string::npos);
    BOOST_TEST(reason.find("PIDs you started yourself") != std::string::npos);
    BOOST_TEST(reason.find("`kill <PID>`") != std::string::npos);
    BOOST_TEST(reason.find("`kill -0 <PID>`") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(acts_for_every_viber_agent) {
    for (const char* agent : {"viber:task-coder", "viber:planner", "viber:x", "viber:"})
        BOOST_TEST(decide(payload(agent, "pkill node")).has_value(), agent);
}

BOOST_AUTO_TEST_CASE(silent_for_other_callers) {
    for (const char* agent :
         {"", "general-purpose", "other:viber:x", "Viber:x", "viber", " viber:x", "xviber:x"})
        BOOST_TEST(!decide(payload(agent, "pkill node")).has_value(), agent);
    // No agent_type at all (the main session).
    BOOST_TEST(!decide(R"({"tool_input":{"command":"pkill viber:x"}})").has_value());
}

BOOST_AUTO_TEST_CASE(agent_type_must_be_a_top_level_string) {
    BOOST_TEST(
        !decide(R"({"agent_type":["viber:x"],"tool_input":{"command":"pkill x"}})").has_value());
    BOOST_TEST(
        !decide(R"({"agent_type":{"agent_type":"viber:x"},"tool_input":{"command":"pkill x"}})")
             .has_value());
    BOOST_TEST(
        !decide(R"({"tool_input":{"command":"pkill x","agent_type":"viber:x"}})").has_value());
    BOOST_TEST(
        !decide(payload("general", R"(echo '"agent_type":"viber:x"'; pkill x)")).has_value());
}

BOOST_AUTO_TEST_CASE(command_must_be_a_string_in_tool_input) {
    BOOST_TEST(!decide(R"({"agent_type":"viber:x","command":"pkill x"})").has_value());
    BOOST_TEST(
        !decide(R"({"agent_type":"viber:x","tool_input":{"command":["pkill x"]}})").has_value());
    BOOST_TEST(!decide(R"({"agent_type":"viber:x","tool_input":"pkill x"})").has_value());
    BOOST_TEST(!decide(R"({"agent_type":"viber:x","tool_input":{"cmd":"pkill x"}})").has_value());
}

BOOST_AUTO_TEST_CASE(never_answers_allow) {
    BOOST_TEST(!decide(payload("viber:task-coder", "kill 1234")).has_value());
    BOOST_TEST(!decide(payload("viber:task-coder", "ls -la")).has_value());
    BOOST_TEST(!decide(payload("viber:task-coder", "")).has_value());
}

BOOST_AUTO_TEST_CASE(malformed_payloads_print_nothing) {
    for (const char* bytes :
         {"", "viber:", "not json viber:", "[\"viber:x\"]", "{\"agent_type\":\"viber:x\"",
          "{\"agent_type\":\"viber:x\",\"tool_input\":{\"command\":\"pkill x\"}} trailing"})
        BOOST_TEST(!decide(bytes).has_value(), bytes);
    BOOST_TEST(!decide(std::nullopt).has_value());
}

BOOST_AUTO_TEST_CASE(run_decides_on_stdin_bytes) {
    BOOST_TEST(decide(payload("viber:a", "pkill x")).has_value());
}

BOOST_AUTO_TEST_CASE(escaped_json_command_is_unescaped_before_lexing) {
    // "pkill\u0020x" and a newline escape are still pkill.
    BOOST_TEST(decide(R"({"agent_type":"viber:a","tool_input":{"command":"ls\npkill\u0020x"}})")
                   .has_value());
}

BOOST_AUTO_TEST_CASE(rule_killall_and_pkill_always) {
    BOOST_TEST(refusal_reason("killall x").has_value());
    BOOST_TEST(refusal_reason("pkill x").has_value());
    BOOST_TEST(refusal_reason("pkill").has_value());
}

BOOST_AUTO_TEST_CASE(rule_taskkill_needs_image_name_option) {
    BOOST_TEST(refusal_reason("taskkill /IM a.exe").has_value());
    BOOST_TEST(refusal_reason("taskkill //im a.exe").has_value());
    BOOST_TEST(refusal_reason("taskkill.exe /iM a.exe").has_value());
    BOOST_TEST(refusal_reason("taskkill ///IM a.exe").has_value()); // any number of slashes
    BOOST_TEST(refusal_reason("taskkill -IM a.exe").has_value());
    BOOST_TEST(refusal_reason("taskkill /FI \"PID gt 0\"").has_value());
    BOOST_TEST(!refusal_reason("taskkill IM a.exe").has_value());
    BOOST_TEST(!refusal_reason("taskkill //PID 1234 //T //F").has_value());
    BOOST_TEST(!refusal_reason("echo taskkill /IM a.exe").has_value());
}

BOOST_AUTO_TEST_CASE(rule_kill_by_xargs) {
    BOOST_TEST(refusal_reason("pgrep x | xargs kill").has_value());
    BOOST_TEST(refusal_reason("xargs -a pids kill").has_value());
    BOOST_TEST(!refusal_reason("xargs echo kill").has_value());
}

BOOST_AUTO_TEST_CASE(rule_kill_with_substitution) {
    BOOST_TEST(refusal_reason("kill $(pgrep x)").has_value());
    BOOST_TEST(refusal_reason("kill -9 \"`pidof x`\"").has_value());
    BOOST_TEST(!refusal_reason("kill '$(pgrep x)'").has_value());
    BOOST_TEST(!refusal_reason("kill $! %1 1234").has_value());
    // The substitution must be kill's own argument.
    BOOST_TEST(!refusal_reason("echo $(date); kill 1").has_value());
}

BOOST_AUTO_TEST_CASE(the_nesting_cap_refuses_with_its_own_text) {
    std::string deep = "echo ";
    for (int i = 0; i < 40; ++i) deep += "$(";
    BOOST_TEST(refusal_reason(deep).value_or("") ==
               "viber guard: this command nests deeper than 32 levels; split it into simpler "
               "commands");
    // What was found beside the deep part still decides.
    const auto found = find_stop_by_name("pkill x; " + deep);
    BOOST_TEST_REQUIRE(found.has_value());
    BOOST_TEST(found->command == "pkill");
}

BOOST_AUTO_TEST_CASE(names_the_command_normalised_with_its_words_and_path) {
    const auto found = find_stop_by_name("sudo bash -c '/usr/bin/PKILL x'");
    BOOST_TEST_REQUIRE(found.has_value());
    BOOST_TEST(found->command == "pkill");
    BOOST_TEST(found->words == "/usr/bin/PKILL x");
    BOOST_TEST(found->path == "sudo > bash -c");
}
