// guard_run.hpp: what the shell-guard integration tests share: payloads and one run of the binary.
#pragma once

#include "support/environment.hpp"
#include "support/payloads.hpp"
#include "support/process.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <string>
#include <string_view>

namespace shell_guard_test {

using namespace std::chrono_literals;
namespace json = boost::json;

using viber::testing::IgnoreSigpipe;

// Shared with the kill-guard tests, which send the same Bash calls.
using viber::testing::bash_payload;

// `hang_guard` only stops a hung child; the tests assert no speed (a shared, noisy machine, and
// sanitizer builds reading tens of megabytes).
inline viber::testing::RunResult
run_guard(const std::string& stdin_bytes,
          viber::testing::StdinMode mode = viber::testing::StdinMode::bytes,
          std::chrono::milliseconds hang_guard = 10s) {
    viber::testing::RunOptions options;
    options.stdin_bytes = stdin_bytes;
    options.stdin_mode = mode;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.timeout = hang_guard;
    return viber::testing::run_process(viber::testing::hook_binary("shell-guard"), options);
}

inline void expect_exit_0(const viber::testing::RunResult& result) {
    BOOST_TEST(!result.timed_out);
    BOOST_TEST(result.signal == 0);
    BOOST_TEST(result.exit_code == 0);
}

inline void expect_nothing(const viber::testing::RunResult& result) {
    expect_exit_0(result);
    BOOST_TEST(result.out.empty(), result.out);
}

// The deny line's reason; fails the test unless stdout is exactly one PreToolUse deny line.
inline std::string deny_reason(const viber::testing::RunResult& result) {
    expect_exit_0(result);
    BOOST_REQUIRE_MESSAGE(!result.out.empty() && result.out.back() == '\n',
                          "no line on stdout: " << result.out);
    BOOST_REQUIRE_MESSAGE(result.out.find('\n') == result.out.size() - 1,
                          "more than one line: " << result.out);
    const json::value answer = json::parse(result.out);
    const json::object& top = answer.as_object();
    BOOST_TEST(top.size() == 1u);
    const json::object& inner = top.at("hookSpecificOutput").as_object();
    BOOST_TEST(inner.size() == 3u);
    BOOST_TEST(inner.at("hookEventName").as_string() == "PreToolUse");
    BOOST_TEST(inner.at("permissionDecision").as_string() == "deny");
    return std::string(inner.at("permissionDecisionReason").as_string());
}

} // namespace shell_guard_test
