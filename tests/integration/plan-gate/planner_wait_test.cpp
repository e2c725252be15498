// planner_wait_test.cpp: plan-gate on the shapes Claude Code 2.1 writes (SPEC §3 rev. 3): the
// planner's Skill call in a session already in plan mode has no EnterPlanMode after it, and the
// wait for one never hides the plan write, the dispatch or the verdict; the episode ends at a
// typed prompt out of plan mode and at a plan_mode_exit attachment.
#define BOOST_TEST_MODULE plan_gate_planner_wait
#include "gate_fixture.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

namespace {

// A verdict timestamp after the plan's mtime: the PASS stands.
std::string after_the_plan() {
    return iso_utc(static_cast<long long>(std::time(nullptr)) + 60);
}

} // namespace

namespace {

// The four lines a session already in plan mode writes for the planner (no EnterPlanMode after
// its Skill call): the Skill call, the plan write, the reviewer's dispatch and its `verdict`.
Answer four_line_session(const Gate& gate, std::string_view verdict) {
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_01R");
    t.tool_result("toolu_01R", "## Plan Review\nVERDICT: " + std::string(verdict) + "\n",
                  after_the_plan());
    return gate.ask(t);
}

} // namespace

BOOST_AUTO_TEST_CASE(the_four_line_planner_session_with_a_pass_is_allowed) {
    require_allow(four_line_session(Gate(), "PASS"));
}

BOOST_AUTO_TEST_CASE(the_four_line_planner_session_with_a_fail_is_told_to_fix) {
    const Answer answer = four_line_session(Gate(), "FAIL");
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(a_session_opened_in_plan_mode_as_the_real_client_writes_it_is_allowed) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.attachment("plan_mode");
    t.typed_prompt_in_mode("plan", "add a CSV export");
    t.skill("viber:planner", "toolu_01S");
    t.tool_result("toolu_01S", "Launching skill: viber:planner");
    t.meta_line();
    t.attachment("plan_mode");
    t.write_file(plan, planner_plan);
    t.tool_result("toolu_write", "File created successfully");
    t.dispatch("viber:planner-review", "toolu_01R", "review " + plan);
    t.reviewer_answer("toolu_01R", "## Plan Review\nVERDICT: PASS", after_the_plan());
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(a_verdict_in_the_unended_wait_keeps_the_pair_before_the_skill) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_01R");
    t.tool_result("toolu_01R", "VERDICT: PASS", after_the_plan());
    t.skill("viber:planner");
    t.tool_result("toolu_01Z", "VERDICT: FAIL", after_the_plan());
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(a_task_notification_verdict_that_ends_the_wait_decides) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_01R");
    t.async_launched("toolu_01R", "review it; answer VERDICT: PASS or FAIL");
    t.task_notification("toolu_01R", "Review done.\nVERDICT: FAIL\n", after_the_plan());
    require_deny(gate.ask(t), "Next step: fix the findings.");
}

BOOST_AUTO_TEST_CASE(an_approved_plan_does_not_arm_the_next_episode) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.typed_prompt_in_mode("plan", "plan it");
    t.skill("viber:planner");
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_01R");
    t.tool_result("toolu_01R", "VERDICT: PASS", after_the_plan());
    t.tool_use("ExitPlanMode", json::object{{"plan", "x"}}, "toolu_exit");
    t.attachment("plan_mode_exit", plan);
    t.typed_prompt_in_mode("acceptEdits", "build it");
    // The plan is touched while it is built; the next plan-mode episode has written no plan.
    gate.plan(".claude/plans/p.md", std::string(planner_plan) + "\nBuilt.\n");
    t.attachment("plan_mode");
    t.typed_prompt_in_mode("plan", "plan the next thing");
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(a_typed_prompt_out_of_plan_mode_ends_the_episode) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.typed_prompt_in_mode("plan", "plan it");
    t.skill("viber:planner");
    t.write_file(plan, planner_plan);
    t.typed_prompt_in_mode("default", "never mind, do something else");
    t.typed_prompt_in_mode("plan", "plan again");
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(a_plan_written_in_the_new_episode_still_arms) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.attachment("plan_mode_exit", plan);
    t.typed_prompt_in_mode("plan", "plan again");
    t.skill("viber:planner");
    t.write_file(plan, planner_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}
