// fail_open_test.cpp: the kill-guard binary on bad, huge, slow and odd stdin.
// It always exits 0, prints nothing unless it can decide, and returns within its bounds.
#define BOOST_TEST_MODULE integration_kill_guard_fail_open
#include "support/payloads.hpp"
#include "support/process.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

namespace json = boost::json;
using namespace viber::testing;

namespace {

const std::string coder = "viber:task-coder";

RunResult run_guard(const std::string& stdin_bytes, StdinMode mode = StdinMode::bytes) {
    RunOptions options;
    options.stdin_bytes = stdin_bytes;
    options.stdin_mode = mode;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.timeout = std::chrono::seconds(10);
    return run_process(hook_binary("kill-guard"), options);
}

bool denied(const RunResult& r) {
    if (r.out.empty()) return false;
    const json::value answer = json::parse(r.out);
    return answer.at("hookSpecificOutput").at("permissionDecision").as_string() == "deny";
}

void check_silent(const std::string& stdin_bytes, std::string_view label,
                  StdinMode mode = StdinMode::bytes) {
    const RunResult r = run_guard(stdin_bytes, mode);
    BOOST_TEST_CONTEXT(label) {
        BOOST_TEST(r.exit_code == 0);
        BOOST_TEST(r.signal == 0);
        BOOST_TEST(!r.timed_out);
        BOOST_TEST(r.out.empty());
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(the_deciding_payload_is_denied) {
    // The control for every case below: the same payload, intact, is refused.
    const RunResult r = run_guard(bash_payload(coder, "pkill node"));
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(denied(r));
}

BOOST_AUTO_TEST_CASE(truncated_json) {
    const std::string whole = bash_payload(coder, "pkill node");
    for (std::size_t cut : {whole.size() - 1, whole.size() / 2, std::size_t{40}})
        check_silent(whole.substr(0, cut), "cut at " + std::to_string(cut));
}

BOOST_AUTO_TEST_CASE(twenty_megabyte_payload_still_decides) {
    const std::string big = bash_payload(coder, "pkill node", std::string(20u << 20, 'a'));
    BOOST_TEST(big.size() > (20u << 20));
    const RunResult r = run_guard(big);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(!r.timed_out);
    BOOST_TEST(denied(r));
}

BOOST_AUTO_TEST_CASE(twenty_megabytes_of_junk) {
    check_silent(std::string(20u << 20, '{') + "viber:", "unbalanced braces");
}

BOOST_AUTO_TEST_CASE(a_megabyte_command_still_decides) {
    std::string command(1u << 20, 'x');
    command += " ; pkill node";
    const RunResult r = run_guard(bash_payload(coder, "echo " + command));
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(denied(r));
}

BOOST_AUTO_TEST_CASE(bom_prefixed_payload_still_decides) {
    const RunResult r = run_guard("\xEF\xBB\xBF" + bash_payload(coder, "pkill node"));
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(denied(r));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_still_decides) {
    const std::string bytes = R"({"agent_type":"viber:task-coder","tool_input":{"command":"pkill )"
                              "\xff\xfe\xc3"
                              R"( node"},"description":")"
                              "\xed\xa0\x80"
                              R"("})";
    const RunResult r = run_guard(bytes);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(denied(r));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_without_a_stop_is_silent) {
    check_silent(R"({"agent_type":"viber:task-coder","tool_input":{"command":"echo )"
                 "\xff\xfe"
                 R"("}})",
                 "invalid bytes in an allowed command");
}

BOOST_AUTO_TEST_CASE(command_past_the_depth_cap_is_refused_not_hung) {
    // Revision 2: the deep part is skipped, reading goes on, and the command is refused.
    std::string command = "echo ";
    for (int i = 0; i < 10000; ++i) command += "$(";
    const RunResult r = run_guard(bash_payload(coder, command));
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(!r.timed_out);
    BOOST_TEST(denied(r));
    BOOST_TEST(r.out.find("nests deeper than 32 levels") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(odd_field_types_are_silent) {
    check_silent(R"({"agent_type":"viber:x","tool_input":{"command":42}})", "number command");
    check_silent(R"({"agent_type":"viber:x","tool_input":null})", "null tool_input");
    check_silent(R"({"agent_type":"viber:x"})", "no tool_input");
    check_silent(R"({"agent_type":7,"tool_input":{"command":"pkill x"},"x":"viber:"})",
                 "number agent_type");
}
