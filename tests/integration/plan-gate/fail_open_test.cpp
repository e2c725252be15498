// fail_open_test.cpp: plan-gate's fail-open matrix (docs/contract.md, docs/plan-gate.md): every odd
// input allows, exit 0, and tool mode answers --help, --version and a bad argument. Each broken
// payload here carries an armed transcript (denied when intact), which the suite's matrix over
// all six binaries (tests/integration/suite/fail_open_test.cpp) does not.
#define BOOST_TEST_MODULE plan_gate_fail_open
#include "gate_fixture.hpp"
#include "support/platform.hpp"

#include <boost/test/unit_test.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace plan_gate_test;

namespace {

// A transcript that would deny (a planner plan, no review) when the gate can read it.
TranscriptBuilder armed(const Gate& gate) {
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    return t;
}

json::object payload_with_transcript(const Gate& gate, const TranscriptBuilder& t,
                                     std::string path) {
    json::object payload = gate.payload(t);
    payload["transcript_path"] = std::move(path);
    return payload;
}

} // namespace

BOOST_AUTO_TEST_CASE(control_the_armed_transcript_denies) {
    Gate gate;
    require_deny(gate.ask(armed(gate)), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(no_transcript_path_allows) {
    Gate gate;
    json::object payload = gate.payload(armed(gate));
    payload.erase("transcript_path");
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(transcript_path_not_a_string_allows) {
    Gate gate;
    json::object payload = gate.payload(armed(gate));
    payload["transcript_path"] = 42;
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(missing_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask(payload_with_transcript(gate, t, gate.scratch() / "nope.jsonl")));
}

BOOST_AUTO_TEST_CASE(fifo_transcript_allows_without_blocking,
                     *viber::testing::posix_only("a FIFO")) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    const std::string fifo = gate.scratch() / "fifo.jsonl";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Answer answer = gate.ask(payload_with_transcript(gate, t, fifo));
    require_allow(answer);
}

BOOST_AUTO_TEST_CASE(directory_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask(payload_with_transcript(gate, t, gate.scratch().mkdir("dir.jsonl"))));
}

BOOST_AUTO_TEST_CASE(dev_zero_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask(payload_with_transcript(gate, t, "/dev/zero")));
}

BOOST_AUTO_TEST_CASE(dangling_link_transcript_allows,
                     *viber::testing::posix_only("a symlink made by a test")) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    const std::string link = gate.scratch() / "dangling.jsonl";
    BOOST_REQUIRE(::symlink((gate.scratch() / "nothing-here").c_str(), link.c_str()) == 0);
    require_allow(gate.ask(payload_with_transcript(gate, t, link)));
}

BOOST_AUTO_TEST_CASE(garbage_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    std::string garbage;
    for (int i = 0; i < 1000; ++i)
        garbage += "\x01\xff{\"type\":\"assistant\", broken \\\" VERDICT: PASS plans/x.md\n";
    garbage += std::string(100000, '\0');
    const std::string path = gate.scratch().write("garbage.jsonl", garbage);
    require_allow(gate.ask(payload_with_transcript(gate, t, path)));
}

BOOST_AUTO_TEST_CASE(array_payload_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask_raw("[" + json::serialize(gate.payload(t)) + "]"));
}

BOOST_AUTO_TEST_CASE(payloads_that_are_not_objects_allow) {
    Gate gate;
    for (const std::string& raw : std::vector<std::string>{
             "null", "42", "\"plan\"", "true", std::string(100000, '[') + std::string(100000, ']')})
        require_allow(gate.ask_raw(raw));
}

BOOST_AUTO_TEST_CASE(truncated_payload_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    const std::string whole = json::serialize(gate.payload(t));
    require_allow(gate.ask_raw(whole.substr(0, whole.size() - 3)));
}

BOOST_AUTO_TEST_CASE(payload_with_trailing_garbage_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask_raw(json::serialize(gate.payload(t)) + " {}"));
}

BOOST_AUTO_TEST_CASE(large_payload_is_read_whole) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    json::object payload = gate.payload(t);
    payload["tool_input"] = json::object{{"plan", std::string(20u << 20, 'x')}};
    const Answer answer = gate.ask(payload);
    // 20 MB is inside the 64 MiB bound: read, parsed and decided like any payload.
    require_deny(answer, "Next step: review the plan.");
    payload.erase("transcript_path");
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(payload_over_the_stdin_cap_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    json::object payload = gate.payload(t);
    payload["tool_input"] = json::object{{"plan", std::string(65u << 20, 'x')}};
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(bom_payload_is_read_after_the_bom) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_deny(gate.ask_raw("\xEF\xBB\xBF" + json::serialize(gate.payload(t))),
                 "Next step: review the plan.");
    json::object payload = gate.payload(t);
    payload.erase("transcript_path");
    require_allow(gate.ask_raw("\xEF\xBB\xBF" + json::serialize(payload)));
}

BOOST_AUTO_TEST_CASE(held_open_stdin_allows_within_the_bound) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    RunOptions options;
    options.stdin_mode = viber::testing::StdinMode::held_open;
    const Answer answer = gate.ask(gate.payload(t), options);
    require_allow(answer);
    BOOST_TEST(answer.run.seconds < 10.0); // a hang guard: the idle bound ends the read
}

BOOST_AUTO_TEST_CASE(empty_cwd_is_no_cwd, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(switch_on_script);
    const std::string plan = gate.plan(".claude/plans/p.md", plain_plan);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(plan, plain_plan);
    json::object payload = gate.payload(t);
    payload["cwd"] = "";
    require_allow(gate.ask(payload));
    payload["cwd"] = 7;
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(help_and_version_exit_zero) {
    Gate gate;
    RunOptions help;
    help.args = {"--help"};
    const auto h = viber::testing::run_process(gate.tree().binary(), help);
    BOOST_TEST(h.exit_code == 0);
    BOOST_TEST(has(h.out, "plan-gate"));
    BOOST_TEST(has(h.out, "ExitPlanMode"));
    RunOptions version;
    version.args = {"--version"};
    const auto v = viber::testing::run_process(gate.tree().binary(), version);
    BOOST_TEST(v.exit_code == 0);
    BOOST_TEST(has(v.out, "plan-gate"));
}

BOOST_AUTO_TEST_CASE(bad_argument_exits_one) {
    Gate gate;
    RunOptions bad;
    bad.args = {"--no-such-flag"};
    const auto r = viber::testing::run_process(gate.tree().binary(), bad);
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(r.out.empty());
    BOOST_TEST(has(r.err, "usage"));
}
