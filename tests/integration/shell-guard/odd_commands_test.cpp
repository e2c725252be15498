// odd_commands_test.cpp: shell-guard on odd commands: invalid UTF-8, an analysis past the depth
// cap (exit 0, nothing printed). Broken stdin, for all six binaries:
// tests/integration/suite/fail_open_test.cpp.
#define BOOST_TEST_MODULE integration_shell_guard_odd_commands
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

} // namespace

BOOST_AUTO_TEST_CASE(the_refused_payload_is_refused) {
    // The baseline every case below breaks in one way.
    BOOST_TEST(deny_reason(run_guard(refused)).rfind("viber guard: ", 0) == 0u);
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
