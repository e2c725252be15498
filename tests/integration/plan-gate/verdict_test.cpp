// verdict_test.cpp: plan-gate step 4 (docs/plan-gate.md): dispatches, verdict lines, pairing by id
// or by order, and the five outcomes with the facts each reason carries.
#define BOOST_TEST_MODULE plan_gate_verdict
#include "gate_fixture.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

namespace {

// A planner-owned plan written in the episode; returns the plan write's line.
struct Planned {
    Gate gate;
    TranscriptBuilder t;
    std::string plan;
    std::size_t write = 0;
    Planned() {
        plan = gate.plan(".claude/plans/feature.md", planner_plan);
        planner_episode(t);
        write = t.write_file(plan, planner_plan);
    }
    Answer ask() const { return gate.ask(t); }
};

std::string at(std::size_t line) {
    return "line " + std::to_string(line);
}

} // namespace

BOOST_AUTO_TEST_CASE(no_dispatch_says_what_to_dispatch) {
    Planned p;
    const Answer answer = p.ask();
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "feature.md"));
    BOOST_TEST(has(answer.reason, p.plan));
    BOOST_TEST(has(answer.reason, "refs: " + p.gate.tree().path() + "/references"));
    BOOST_TEST(has(answer.reason, "memory:"));
    BOOST_TEST(has(answer.reason, "input:"));
    BOOST_TEST(has(answer.reason, "VERDICT: PASS"));
    BOOST_TEST(has(answer.reason, "Minor findings"));
    BOOST_TEST(
        answer.reason.ends_with("This is the viber planner's plan review gate, not an error."));
}

BOOST_AUTO_TEST_CASE(refs_follow_claude_plugin_root) {
    Planned p;
    const ScratchDir other;
    RunOptions options;
    options.env["CLAUDE_PLUGIN_ROOT"] = other.path() + "/"; // a trailing slash is dropped
    const Answer answer = p.gate.ask(p.t, options);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "refs: " + other.path() + "/references`"));
}

BOOST_AUTO_TEST_CASE(dispatch_without_verdict_lets_the_review_finish) {
    Planned p;
    const std::size_t d = p.t.dispatch("viber:planner-review", "toolu_R");
    const Answer answer = p.ask();
    require_deny(answer, "Next step: let the review finish.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "feature.md"));
    BOOST_TEST(has(answer.reason, at(d)));
    BOOST_TEST(has(answer.reason, at(p.write)));
}

BOOST_AUTO_TEST_CASE(pass_allows) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_R", "## Plan Review\nVERDICT: PASS\nMinor: none.");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(fail_asks_to_fix_the_findings) {
    Planned p;
    const std::size_t d = p.t.dispatch("viber:planner-review", "toolu_R");
    const std::size_t v = p.t.tool_result("toolu_R", "## Plan Review\nVERDICT: FAIL\n1. Major: x");
    const Answer answer = p.ask();
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "'VERDICT: FAIL'"));
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "feature.md"));
    BOOST_TEST(has(answer.reason, at(d)));
    BOOST_TEST(has(answer.reason, at(v)));
    BOOST_TEST(
        answer.reason.ends_with("This is the viber planner's plan review gate, not an error."));
}

BOOST_AUTO_TEST_CASE(denied_asks_to_grant_the_permission) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_R", "VERDICT: DENIED\nREASON: Read of /etc/x was refused");
    const Answer answer = p.ask();
    require_deny(answer, "Next step: grant the permission.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "feature.md"));
    BOOST_TEST(has(answer.reason, "REASON:"));
}

BOOST_AUTO_TEST_CASE(verdict_before_the_last_plan_write_does_not_count) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/feature.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R");
    t.tool_result("toolu_R", "VERDICT: PASS");
    t.edit_file(plan);
    require_deny(gate.ask(t), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(fail_then_pass_allows) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R1");
    p.t.tool_result("toolu_R1", "VERDICT: FAIL");
    p.t.dispatch("viber:planner-review", "toolu_R2");
    p.t.tool_result("toolu_R2", "VERDICT: PASS");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(pass_then_fail_denies) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R1");
    p.t.tool_result("toolu_R1", "VERDICT: PASS");
    const std::size_t d = p.t.dispatch("viber:planner-review", "toolu_R2");
    const std::size_t v = p.t.tool_result("toolu_R2", "VERDICT: FAIL");
    const Answer answer = p.ask();
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, at(d)));
    BOOST_TEST(has(answer.reason, at(v)));
}

BOOST_AUTO_TEST_CASE(earlier_pass_decides_while_a_newer_dispatch_runs) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R1");
    p.t.tool_result("toolu_R1", "VERDICT: PASS");
    p.t.dispatch("viber:planner-review", "toolu_R2");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(prose_verdict_is_no_verdict) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_R", "I would write VERDICT: PASS here if it held.");
    require_deny(p.ask(), "Next step: let the review finish.");
}

BOOST_AUTO_TEST_CASE(pass_is_not_warranted_above_a_real_fail) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_R", "Notes\nVERDICT: PASS is not warranted\nVERDICT: FAIL\n");
    require_deny(p.ask(), "Next step: fix the findings.");
}

BOOST_AUTO_TEST_CASE(backticked_pass_allows) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_R", "## Plan Review\nVERDICT: `PASS`\n");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(result_element_of_a_task_notification_is_a_verdict) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.async_launched("toolu_R", "review the plan");
    Answer answer = p.ask();
    require_deny(answer, "Next step: let the review finish.");
    p.t.task_notification("toolu_R", "VERDICT: FAIL\n");
    require_deny(p.ask(), "Next step: fix the findings.");
    p.t.dispatch("viber:planner-review", "toolu_R2");
    p.t.async_launched("toolu_R2", "review the plan");
    p.t.task_notification("toolu_R2", "VERDICT: PASS");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(async_launched_echo_is_no_verdict) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R",
                 "End with VERDICT: PASS or FAIL.\nVERDICT: PASS");
    p.t.async_launched("toolu_R", "End with:\nVERDICT: PASS");
    require_deny(p.ask(), "Next step: let the review finish.");
}

BOOST_AUTO_TEST_CASE(foreign_verdict_does_not_answer_an_id_dispatch) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_other", "VERDICT: PASS");
    require_deny(p.ask(), "Next step: let the review finish.");
    p.t.tool_result("toolu_R", "VERDICT: PASS");
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(sibling_verdict_does_not_answer_an_id_dispatch) {
    Planned p;
    p.t.dispatch("viber:code-reviewer", "toolu_S");
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.tool_result("toolu_S", "VERDICT: PASS");
    require_deny(p.ask(), "Next step: let the review finish.");
    p.t.tool_result("toolu_R", "VERDICT: FAIL");
    require_deny(p.ask(), "Next step: fix the findings.");
}

BOOST_AUTO_TEST_CASE(id_less_dispatch_pairs_with_the_next_verdict) {
    Planned p;
    p.t.tool_use("Agent",
                 json::object{{"subagent_type", "viber:planner-review"}, {"prompt", "review"}});
    p.t.tool_result("", "VERDICT: PASS");
    p.t.tool_result("", "VERDICT: FAIL"); // nothing open any more: ignored
    require_allow(p.ask());
}

BOOST_AUTO_TEST_CASE(dispatch_id_not_starting_toolu_pairs_by_order) {
    Planned p;
    p.t.dispatch("viber:planner-review", "call_123");
    p.t.tool_result("call_999", "VERDICT: FAIL");
    require_deny(p.ask(), "Next step: fix the findings.");
}

BOOST_AUTO_TEST_CASE(bare_and_prefixed_agents_are_dispatches) {
    {
        Planned p;
        p.t.dispatch("planner-review", "toolu_R");
        p.t.tool_result("toolu_R", "VERDICT: PASS");
        require_allow(p.ask());
    }
    {
        Planned p;
        p.t.dispatch("my.fork_2-x:planner-review", "toolu_R");
        p.t.tool_result("toolu_R", "VERDICT: PASS");
        require_allow(p.ask());
    }
    {
        Planned p;
        p.t.tool_use("Task",
                     json::object{{"subagent_type", "viber:planner-review"}, {"prompt", "review"}},
                     "toolu_T");
        p.t.tool_result("toolu_T", "VERDICT: PASS");
        require_allow(p.ask());
    }
}

BOOST_AUTO_TEST_CASE(other_agents_are_no_dispatch) {
    Planned p;
    p.t.dispatch("viber:planner-review-lite", "toolu_A");
    p.t.tool_result("toolu_A", "VERDICT: PASS");
    p.t.dispatch("viber:plain-plan-review", "toolu_B");
    p.t.tool_result("toolu_B", "VERDICT: PASS");
    require_deny(p.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(api_request_blob_replaying_a_pass_is_skipped) {
    Planned p;
    p.t.dispatch("viber:planner-review", "toolu_R");
    p.t.add(json::object{
        {"type", "api-request-blob"},
        {"message",
         json::object{{"content", json::array{json::object{{"type", "tool_result"},
                                                           {"tool_use_id", "toolu_R"},
                                                           {"content", "VERDICT: PASS"}}}}}}});
    require_deny(p.ask(), "Next step: let the review finish.");
}
