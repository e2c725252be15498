// odd_commands_test.cpp: the kill-guard binary on odd commands: a megabyte of them, invalid
// UTF-8, nesting past the depth cap. It always exits 0 and returns within its bounds. Broken
// stdin, for all six binaries: tests/integration/suite/fail_open_test.cpp.
#define BOOST_TEST_MODULE integration_kill_guard_odd_commands
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

BOOST_AUTO_TEST_CASE(a_megabyte_command_still_decides) {
    std::string command(1u << 20, 'x');
    command += " ; pkill node";
    const RunResult r = run_guard(bash_payload(coder, "echo " + command));
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
