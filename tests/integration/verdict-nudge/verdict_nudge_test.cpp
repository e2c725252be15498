// verdict_nudge_test.cpp: the verdict-nudge binary run as Claude Code runs it
// (docs/verdict-nudge.md and the fail-open matrix of docs/contract.md), and a trace showing a call
// for no viber agent opens no file and starts no process.
#define BOOST_TEST_MODULE integration_verdict_nudge
#include "support/environment.hpp"
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/strace.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <string>

namespace json = boost::json;
using viber::testing::hook_binary;
using viber::testing::hook_opens;
using viber::testing::joined;
using viber::testing::RunOptions;
using viber::testing::RunResult;
using viber::testing::StdinMode;
using viber::testing::Trace;
using viber::testing::trace_process;
using namespace std::chrono_literals;

namespace {

RunResult run(const std::string& stdin_bytes, StdinMode mode = StdinMode::bytes) {
    RunOptions options;
    options.stdin_bytes = stdin_bytes;
    options.stdin_mode = mode;
    options.timeout = 10s; // a hang guard, not a speed assertion
    return viber::testing::run_process(hook_binary("verdict-nudge"), options);
}

std::string stop(std::string_view agent_type, const json::value& message,
                 const json::value& active = false) {
    json::object payload{{"session_id", "s"},        {"transcript_path", "/nonexistent/t.jsonl"},
                         {"cwd", "/repo"},           {"hook_event_name", "SubagentStop"},
                         {"agent_type", agent_type}, {"stop_hook_active", active}};
    if (!message.is_null()) payload["last_assistant_message"] = message;
    return json::serialize(payload);
}

void expect_exit_0(const RunResult& result) {
    BOOST_TEST(!result.timed_out);
    BOOST_TEST(result.signal == 0);
    BOOST_TEST(result.exit_code == 0);
}

// A block: one line, the fixed instruction naming both markers.
void expect_block(const RunResult& result) {
    expect_exit_0(result);
    BOOST_REQUIRE(!result.out.empty());
    BOOST_TEST(result.out.find('\n') == result.out.size() - 1);
    const json::value answer = json::parse(result.out);
    BOOST_REQUIRE(answer.is_object());
    BOOST_TEST(answer.as_object().size() == 2u);
    BOOST_TEST(answer.at("decision").as_string() == "block");
    const std::string reason(answer.at("reason").as_string());
    BOOST_TEST(reason.find("`VERDICT:`") != std::string::npos);
    BOOST_TEST(reason.find("`AUDIT:`") != std::string::npos);
}

void expect_nothing(const RunResult& result) {
    expect_exit_0(result);
    BOOST_TEST(result.out.empty());
}

std::string report_of(std::size_t bytes) {
    std::string text;
    for (int i = 0; text.size() < bytes; ++i)
        text += "- finding " + std::to_string(i) +
                ": `src/a.ts` VERDICT-like text, not a verdict line\n";
    return text;
}

} // namespace

using viber::testing::IgnoreSigpipe;
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

BOOST_AUTO_TEST_SUITE(rules)

BOOST_AUTO_TEST_CASE(a_viber_stop_without_a_verdict_line_is_blocked) {
    expect_block(run(stop("viber:task-coder", "Implemented the parser.")));
}

BOOST_AUTO_TEST_CASE(the_instruction_is_fixed) {
    const RunResult a = run(stop("viber:task-coder", "x"));
    const RunResult b = run(stop("viber:planner-review", "a different message\nwith lines"));
    expect_block(a);
    BOOST_TEST(a.out == b.out);
}

BOOST_AUTO_TEST_CASE(a_verdict_line_in_any_dressing_passes) {
    for (const auto* message :
         {"Done.\nVERDICT: PASS", "Done.\n- **VERDICT: PASS**\n", "`VERDICT: FAIL`",
          "notes\r\n  \t* VERDICT: DENIED\r\n", "AUDIT: 2 findings", "x\n-`AUDIT: clean`"})
        expect_nothing(run(stop("viber:task-reviewer", message)));
}

BOOST_AUTO_TEST_CASE(a_verdict_not_opening_a_line_is_blocked) {
    expect_block(run(stop("viber:task-reviewer", "The VERDICT: PASS is below.\n> VERDICT: PASS")));
}

BOOST_AUTO_TEST_CASE(scout_mapper_and_hunter_pass) {
    for (const auto* agent : {"viber:scout", "viber:mapper", "viber:hunter"})
        expect_nothing(run(stop(agent, "map written: .temp/viber/map.md")));
}

BOOST_AUTO_TEST_CASE(agents_outside_viber_pass) {
    expect_nothing(run(stop("general-purpose", "no verdict here")));
    expect_nothing(run(stop("acme:task-coder", "mentions viber: but is not one")));
}

BOOST_AUTO_TEST_CASE(stop_hook_active_true_passes) {
    expect_nothing(run(stop("viber:task-coder", "no verdict", true)));
}

BOOST_AUTO_TEST_CASE(stop_hook_active_not_json_true_blocks) {
    expect_block(run(stop("viber:task-coder", "no verdict", "true")));
}

BOOST_AUTO_TEST_CASE(no_final_message_passes) {
    expect_nothing(run(stop("viber:task-coder", "")));
    expect_nothing(run(stop("viber:task-coder", nullptr)));
    expect_nothing(run(stop("viber:task-coder", json::array{"VERDICT"})));
}

BOOST_AUTO_TEST_CASE(a_key_quoted_in_a_string_never_counts) {
    expect_nothing(run(stop("general-purpose", R"(quoted: {"agent_type":"viber:task-coder"})")));
    // No top-level key at all: the only `agent_type` in the bytes is nested or quoted.
    expect_nothing(run(
        R"({"tool_input":{"agent_type":"viber:task-coder"},"last_assistant_message":"no verdict"})"));
    expect_nothing(
        run(R"({"last_assistant_message":"{\"agent_type\":\"viber:task-coder\"} no verdict"})"));
}

BOOST_AUTO_TEST_CASE(a_5_mb_message_without_a_verdict_line_is_blocked) {
    expect_block(run(stop("viber:final-reviewer", json::string(report_of(5u << 20)))));
}

BOOST_AUTO_TEST_CASE(a_5_mb_message_ending_in_a_verdict_line_passes) {
    expect_nothing(
        run(stop("viber:final-reviewer", json::string(report_of(5u << 20) + "VERDICT: PASS\n"))));
}

BOOST_AUTO_TEST_SUITE_END()

// The fail-open cases every binary shares are in tests/integration/suite/fail_open_test.cpp;
// these are the odd inputs on which verdict-nudge still decides.
BOOST_AUTO_TEST_SUITE(still_decides)

BOOST_AUTO_TEST_CASE(a_20_mb_payload_still_decides) {
    expect_block(run(stop("viber:task-coder", json::string(std::string(20u << 20, 'x')))));
}

BOOST_AUTO_TEST_CASE(a_bom_payload_still_decides) {
    expect_block(run("\xEF\xBB\xBF" + stop("viber:task-coder", "x")));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_still_decides) {
    expect_block(
        run("{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":\"done \xFF\xFE\"}"));
    expect_nothing(run("{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":"
                       "\"\xFF\\nVERDICT: PASS\"}"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(no_work_for_other_agents,
                      *boost::unit_test::precondition(viber::testing::strace_sees_hooks))

// trace_process's own check that it sees opens and execs is in
// tests/integration/shell-guard/strace_test.cpp.

BOOST_AUTO_TEST_CASE(a_non_viber_stop_opens_no_file_and_starts_no_process,
                     *viber::testing::posix_only("strace")) {
    const Trace got =
        trace_process({hook_binary("verdict-nudge")}, stop("general-purpose", "no verdict here"));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(hook_opens(got).empty(), joined(hook_opens(got)));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
}

BOOST_AUTO_TEST_CASE(an_excluded_viber_agent_opens_no_file_and_starts_no_process,
                     *viber::testing::posix_only("strace")) {
    const Trace got =
        trace_process({hook_binary("verdict-nudge")}, stop("viber:scout", "map written: x"));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(hook_opens(got).empty(), joined(hook_opens(got)));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
}

BOOST_AUTO_TEST_SUITE_END()
