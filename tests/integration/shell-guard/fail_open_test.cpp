// fail_open_test.cpp: shell-guard on the fail-open matrix of docs/contract.md (exit 0, nothing
// printed).
#define BOOST_TEST_MODULE integration_shell_guard_fail_open
#include "guard_run.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using namespace shell_guard_test;
using viber::testing::RunResult;
using viber::testing::StdinMode;

BOOST_GLOBAL_FIXTURE(IgnoreSigpipe);

namespace {

const std::string coder = "viber:task-coder";
const std::string refused = bash_payload(coder, "rm -rf build");

// A payload of about `size` bytes: the refused coder call with a long padding key first.
std::string padded(std::string_view agent, std::size_t size) {
    std::string payload = bash_payload(agent, "rm -rf build");
    const std::string padding = R"({"padding":")" + std::string(size, 'a') + R"(",)";
    payload.replace(0, 1, padding);
    return payload;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_refused_payload_is_refused) {
    // The baseline every case below breaks in one way.
    BOOST_TEST(deny_reason(run_guard(refused)).rfind("viber guard: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(truncated_json) {
    expect_nothing(run_guard(refused.substr(0, refused.size() - 1)));
    expect_nothing(run_guard(refused.substr(0, refused.size() / 2)));
}

BOOST_AUTO_TEST_CASE(missing_or_mistyped_keys) {
    expect_nothing(run_guard(R"({"agent_type":"viber:task-coder"})"));
    expect_nothing(run_guard(R"({"agent_type":"viber:task-coder","tool_input":{}})"));
    expect_nothing(run_guard(R"({"agent_type":"viber:task-coder","tool_input":"rm x"})"));
    expect_nothing(run_guard(R"({"agent_type":"viber:task-coder","tool_input":{"command":42}})"));
    expect_nothing(
        run_guard(R"({"agent_type":["viber:task-coder"],"tool_input":{"command":"rm x"}})"));
}

BOOST_AUTO_TEST_CASE(a_20_mb_payload_is_read_and_decided) {
    BOOST_TEST(deny_reason(run_guard(padded(coder, 20u << 20), StdinMode::bytes, 30s))
                   .rfind("viber guard: ", 0) == 0u);
    expect_nothing(run_guard(padded("general-purpose", 20u << 20), StdinMode::bytes, 30s));
}

BOOST_AUTO_TEST_CASE(a_payload_past_the_64_mib_cap) {
    expect_nothing(run_guard(padded(coder, (64u << 20) + 16), StdinMode::bytes, 30s));
}

BOOST_AUTO_TEST_CASE(a_byte_order_mark_is_stripped) {
    BOOST_TEST(deny_reason(run_guard("\xEF\xBB\xBF" + refused)).rfind("viber guard: ", 0) == 0u);
    expect_nothing(run_guard("\xEF\xBB\xBF" + bash_payload("general-purpose", "rm x")));
}

BOOST_AUTO_TEST_CASE(invalid_utf8) {
    const std::string bad_command = bash_payload(coder, "rm \xFF\xFE build");
    expect_exit_0(run_guard(bad_command));
    // The raw bytes, not the escaped form Boost.JSON would write.
    std::string raw = R"({"agent_type":"viber:task-coder","tool_input":{"command":"rm )";
    raw += "\xC3\x28\xFF";
    raw += R"("}})";
    const RunResult result = run_guard(raw);
    expect_exit_0(result);
    BOOST_TEST(deny_reason(result).rfind("viber guard: ", 0) == 0u);
    expect_nothing(run_guard("\xFF\xFE\xFD viber: \x80"));
}

BOOST_AUTO_TEST_CASE(deeply_nested_json) {
    expect_nothing(
        run_guard(std::string(100000, '[') + "\"viber:task-coder\"" + std::string(100000, ']')));
}

BOOST_AUTO_TEST_CASE(an_analysis_past_the_depth_cap_prints_nothing) {
    // `$(` nested ten thousand deep, unclosed, with an rm at the bottom: the lexer stops at its
    // cap and the guard fails open, in bounded time.
    std::string command;
    for (int i = 0; i < 10000; ++i) command += "$(";
    command += "rm x";
    expect_nothing(run_guard(bash_payload(coder, command)));
    std::string closed;
    for (int i = 0; i < 40; ++i) closed += "echo $(";
    closed += "rm x";
    for (int i = 0; i < 40; ++i) closed += ")";
    expect_nothing(run_guard(bash_payload(coder, closed)));
}
