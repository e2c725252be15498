// plain_path_test.cpp: plan-gate's plain path (docs/plan-gate.md, step 2): gated only when
// scripts/config.sh, run with bash in cwd, prints exactly one `planning.plain-plan-review: true`
// line; then plain-plan-review decides.
#define BOOST_TEST_MODULE plan_gate_plain_path
#include "gate_fixture.hpp"
#include "support/pids.hpp"
#include "support/platform.hpp"

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <unistd.h>

using namespace plan_gate_test;

namespace {

// A plain plan written in a plain episode, nothing reviewed yet.
struct PlainPlan {
    Gate gate;
    TranscriptBuilder t;
    std::string plan;
    std::size_t write = 0;
    explicit PlainPlan(std::string_view config_body) {
        gate.config(config_body);
        plan = gate.plan(".claude/plans/plain.md", plain_plan);
        plain_episode(t);
        write = t.write_file(plan, plain_plan);
    }
    Answer ask(RunOptions options = {}) const { return gate.ask(t, std::move(options)); }
};

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

constexpr std::string_view plain_trailer =
    "This is the plain plan review gate (planning.plain-plan-review in .claude/viber.yml), not an "
    "error.";

} // namespace

BOOST_AUTO_TEST_CASE(grouped_switch_on_gates_the_plan, *viber::testing::needs_bash()) {
    PlainPlan p(switch_on_script);
    const Answer answer = p.ask();
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
    BOOST_TEST(has(answer.reason, "plain.md"));
    BOOST_TEST(has(answer.reason, p.plan));
    BOOST_TEST(has(answer.reason, "one sentence stating the user's goal"));
    BOOST_TEST(has(answer.reason, "VERDICT: PASS"));
    BOOST_TEST(has(answer.reason, "Minor findings"));
    BOOST_TEST(answer.reason.ends_with(plain_trailer));
}

BOOST_AUTO_TEST_CASE(switch_off_allows, *viber::testing::needs_bash()) {
    PlainPlan p(switch_off_script);
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(switch_absent_allows, *viber::testing::needs_bash()) {
    PlainPlan p("echo 'memory: true'\necho 'planning.other: true'\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(no_config_script_allows, *viber::testing::needs_bash()) {
    PlainPlan p("");
    ::unlink((p.gate.tree() / "scripts/config.sh").c_str());
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(flat_key_does_not_arm, *viber::testing::needs_bash()) {
    PlainPlan p("echo 'plain-plan-review: true'\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(cr_after_true_does_not_arm, *viber::testing::needs_bash()) {
    PlainPlan p("printf 'planning.plain-plan-review: true\\r\\n'\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(trailing_space_does_not_arm, *viber::testing::needs_bash()) {
    PlainPlan p("printf 'planning.plain-plan-review: true \\n'\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(two_switch_lines_do_not_arm, *viber::testing::needs_bash()) {
    PlainPlan p(
        "echo 'planning.plain-plan-review: true'\necho 'planning.plain-plan-review: true'\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(switch_without_final_newline_arms, *viber::testing::needs_bash()) {
    PlainPlan p("printf 'planning.plain-plan-review: true'\n");
    require_deny(p.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(exit_status_is_ignored, *viber::testing::needs_bash()) {
    PlainPlan p("echo 'planning.plain-plan-review: true'\nexit 3\n");
    require_deny(p.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(failing_config_allows, *viber::testing::needs_bash()) {
    PlainPlan p("echo 'config: cannot parse .claude/viber.yml' >&2\nexit 1\n");
    require_allow(p.ask());
    PlainPlan q("this is not a command (\n");
    require_allow(q.ask());
}

BOOST_AUTO_TEST_CASE(config_stderr_is_discarded, *viber::testing::needs_bash()) {
    PlainPlan p("echo 'planning.plain-plan-review: true' >&2\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(config_reads_dev_null_not_the_payload, *viber::testing::needs_bash()) {
    PlainPlan p("if [ -z \"$(cat)\" ]; then echo 'planning.plain-plan-review: true'; fi\n");
    require_deny(p.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(hanging_config_is_killed_and_the_gate_allows, *viber::testing::needs_bash()) {
    PlainPlan p("echo $$ > \"$(dirname \"$0\")/pid\"\n"
                "sleep 60 &\n"
                "echo $! > \"$(dirname \"$0\")/bgpid\"\n"
                "echo 'planning.plain-plan-review: true'\n"
                "wait\n");
    const Answer answer = p.ask();
    require_allow(answer);
    BOOST_TEST(answer.run.seconds < 10.0); // a hang guard: under the hook timeout
    const std::string pid = first_line(p.gate.tree() / "scripts/pid");
    const std::string bgpid = first_line(p.gate.tree() / "scripts/bgpid");
    BOOST_REQUIRE(!pid.empty());
    BOOST_REQUIRE(!bgpid.empty());
    for (int i = 0; i < 100 && viber::testing::process_running(std::stol(bgpid)); ++i)
        ::usleep(20'000);
    BOOST_TEST(!viber::testing::process_running(std::stol(pid)));
    BOOST_TEST(!viber::testing::process_running(std::stol(bgpid)));
}

BOOST_AUTO_TEST_CASE(config_runs_in_cwd_with_spaces_and_quotes_never_interpolated,
                     *viber::testing::needs_bash()) {
    Gate gate;
    gate.config("pwd > \"$(dirname \"$0\")/seen-cwd\"\necho 'planning.plain-plan-review: true'\n");
    const std::string project =
        gate.project().mkdir("a dir; with 'quotes' \"and\" $(touch pwned) `touch pwned2`");
    const std::string plan = gate.project().write(
        "a dir; with 'quotes' \"and\" $(touch pwned) `touch pwned2`/.claude/plans/q.md",
        plain_plan);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(plan, plain_plan);
    json::object payload = gate.payload(t);
    payload["cwd"] = project;
    const Answer answer = gate.ask(payload);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(first_line(gate.tree() / "scripts/seen-cwd") == project);
    BOOST_TEST(::access((project + "/pwned").c_str(), F_OK) != 0);
    BOOST_TEST(::access((project + "/pwned2").c_str(), F_OK) != 0);
    BOOST_TEST(::access((gate.project() / "pwned").c_str(), F_OK) != 0);
}

BOOST_AUTO_TEST_CASE(no_cwd_means_off, *viber::testing::needs_bash()) {
    PlainPlan p(switch_on_script);
    json::object payload = p.gate.payload(p.t);
    payload.erase("cwd");
    require_allow(p.gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(cwd_that_is_not_a_directory_means_off, *viber::testing::needs_bash()) {
    PlainPlan p(switch_on_script);
    json::object payload = p.gate.payload(p.t);
    payload["cwd"] = p.plan;
    require_allow(p.gate.ask(payload));
    payload["cwd"] = p.gate.project() / "missing";
    require_allow(p.gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(config_found_through_claude_plugin_root, *viber::testing::needs_bash()) {
    PlainPlan p(switch_off_script);
    const ScratchDir other;
    other.write("scripts/config.sh", switch_on_script);
    RunOptions options;
    options.env["CLAUDE_PLUGIN_ROOT"] = other.path();
    require_deny(p.ask(options), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(plain_plan_review_pass_allows, *viber::testing::needs_bash()) {
    PlainPlan p(switch_on_script);
    p.t.dispatch("viber:plain-plan-review", "toolu_P");
    p.t.tool_result("toolu_P", "VERDICT: PASS");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(planner_review_pass_does_not_satisfy_the_plain_path,
                     *viber::testing::needs_bash()) {
    PlainPlan p(switch_on_script);
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_R", "VERDICT: PASS");
    const Answer answer = p.ask();
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(plain_plan_review_pass_does_not_satisfy_the_planner_path,
                     *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(switch_on_script);
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:plain-plan-review", "toolu_P");
    t.tool_result("toolu_P", "VERDICT: PASS");
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(plain_outcomes_carry_the_plain_trailer, *viber::testing::needs_bash()) {
    PlainPlan p(switch_on_script);
    const std::size_t d = p.t.dispatch("viber:plain-plan-review", "toolu_P");
    Answer answer = p.ask();
    require_deny(answer, "Next step: let the review finish.");
    BOOST_TEST(has(answer.reason, "line " + std::to_string(d)));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(p.write)));
    BOOST_TEST(answer.reason.ends_with(plain_trailer));

    const std::size_t v = p.t.tool_result("toolu_P", "VERDICT: FAIL");
    answer = p.ask();
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "'VERDICT: FAIL'"));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(v)));
    BOOST_TEST(answer.reason.ends_with(plain_trailer));

    p.t.dispatch("viber:plain-plan-review", "toolu_P2");
    p.t.tool_result("toolu_P2", "VERDICT: DENIED\nREASON: WebFetch refused");
    answer = p.ask();
    require_deny(answer, "Next step: grant the permission.");
    BOOST_TEST(answer.reason.ends_with(plain_trailer));

    p.t.dispatch("viber:plain-plan-review", "toolu_P3");
    p.t.tool_result("toolu_P3", "VERDICT: PASS", verdict_iso);
    viber::testing::set_mtime(p.plan, verdict_epoch + 30);
    answer = p.ask();
    require_deny(answer, "Next step: re-review.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
    BOOST_TEST(answer.reason.ends_with(plain_trailer));
}

BOOST_AUTO_TEST_CASE(plain_plan_runs_config, *viber::testing::needs_bash()) {
    PlainPlan p("touch \"$(dirname \"$0\")/ran\"\n");
    require_allow(p.ask());
    BOOST_TEST(::access((p.gate.tree() / "scripts/ran").c_str(), F_OK) == 0);
}
