// arming_test.cpp: plan-gate step 1 (docs/plan-gate.md): which plan write arms the gate, inside the
// episode, and how the plan path resolves.
#define BOOST_TEST_MODULE plan_gate_arming
#include "gate_fixture.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

BOOST_AUTO_TEST_CASE(no_plan_write_allows) {
    Gate gate;
    TranscriptBuilder t;
    planner_episode(t);
    t.dispatch("viber:planner-review", "toolu_R");
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(plan_write_before_the_episode_allows) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.permission_mode("acceptEdits"); // the plan was approved; a new episode starts
    t.typed_prompt("now build it");
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(plan_write_inside_the_episode_arms) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "p.md"));
}

BOOST_AUTO_TEST_CASE(an_edit_arms_too) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.edit_file(plan);
    require_deny(gate.ask(t), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(relative_plans_path_does_not_arm) {
    Gate gate;
    gate.plan("plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file("plans/p.md", planner_plan);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(myplans_segment_does_not_arm) {
    Gate gate;
    const std::string plan = gate.plan("myplans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(uppercase_md_does_not_arm) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.MD", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(windows_path_arms_and_names_the_plan) {
    Gate gate;
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file("C:\\Users\\me\\repo\\plans\\win.md", planner_plan);
    // The file does not exist here: under the planner signal a missing plan keeps planner-review.
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "win.md"));
}

BOOST_AUTO_TEST_CASE(windows_path_with_separator_runs_arms) {
    Gate gate;
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file("C:\\\\repo\\\\plans\\\\run.md", planner_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "run.md"));
}

// A relative plan path that is a file only under cwd: found there, it is a plain plan (no
// frontmatter) and the switch is off, so the gate allows; unresolved, the planner keeps it.
BOOST_AUTO_TEST_CASE(relative_plan_path_resolves_against_cwd) {
    Gate gate;
    gate.config(switch_off_script);
    gate.plan(".claude/plans/rel.md", plain_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(".claude/plans/rel.md", plain_plan);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(relative_plan_path_without_cwd_stays_unresolved) {
    Gate gate;
    gate.config(switch_off_script);
    gate.plan(".claude/plans/rel.md", plain_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(".claude/plans/rel.md", plain_plan);
    json::object payload = gate.payload(t);
    payload.erase("cwd");
    const Answer answer = gate.ask(payload);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "rel.md"));
}

// The resolved path is the one the tamper check reads.
BOOST_AUTO_TEST_CASE(relative_plan_path_resolved_for_the_tamper_check) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/rel.md", planner_plan);
    viber::testing::set_mtime(plan, verdict_epoch + 60);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(".claude/plans/rel.md", planner_plan);
    t.dispatch("viber:planner-review", "toolu_R");
    t.tool_result("toolu_R", "## Plan Review\nVERDICT: PASS\n", verdict_iso);
    const Answer with_cwd = gate.ask(t);
    require_deny(with_cwd, "Next step: re-review.");
    BOOST_TEST(has(with_cwd.reason, plan));

    json::object payload = gate.payload(t);
    payload.erase("cwd");
    require_allow(gate.ask(payload)); // no plan file found: the check is skipped
}

BOOST_AUTO_TEST_CASE(only_the_last_of_several_plan_writes_counts) {
    Gate gate;
    const std::string first = gate.plan(".claude/plans/first.md", planner_plan);
    const std::string second = gate.plan(".claude/plans/second.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(first, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R1");
    t.tool_result("toolu_R1", "VERDICT: PASS");
    const std::size_t last_write = t.write_file(second, planner_plan);
    const std::size_t d = t.dispatch("viber:planner-review", "toolu_R2");
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: let the review finish.");
    BOOST_TEST(has(answer.reason, "second.md"));
    BOOST_TEST(!has(answer.reason, "first.md"));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(d)));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(last_write)));
}

BOOST_AUTO_TEST_CASE(rewrite_after_a_pass_rearms) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R1");
    t.tool_result("toolu_R1", "VERDICT: PASS");
    require_allow(gate.ask(t));
    t.edit_file(plan);
    require_deny(gate.ask(t), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(noise_lines_keep_line_numbers) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    for (int i = 0; i < 2000; ++i) {
        t.add(json::object{
            {"type", "assistant"},
            {"message",
             json::object{
                 {"content", json::array{json::object{
                                 {"type", "text"}, {"text", "thinking " + std::to_string(i)}}}}}}});
        t.raw(i % 2 == 0 ? "" : "not json at all {");
    }
    const std::size_t w = t.write_file(plan, planner_plan);
    for (int i = 0; i < 10; ++i) t.typed_prompt("more noise");
    const std::size_t d = t.dispatch("viber:planner-review", "toolu_R");
    BOOST_TEST(w > 4000u);
    Answer answer = gate.ask(t);
    require_deny(answer, "Next step: let the review finish.");
    BOOST_TEST(has(answer.reason, "line " + std::to_string(d)));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(w)));
    t.tool_result("toolu_R", "VERDICT: PASS");
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(crlf_transcript_is_read_like_lf) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.set_crlf(true);
    planner_episode(t);
    const std::size_t w = t.write_file(plan, planner_plan);
    const std::size_t d = t.dispatch("viber:planner-review", "toolu_R");
    Answer answer = gate.ask(t);
    require_deny(answer, "Next step: let the review finish.");
    BOOST_TEST(has(answer.reason, "line " + std::to_string(d)));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(w)));
    const std::size_t v = t.tool_result("toolu_R", "VERDICT: FAIL\r\n");
    answer = gate.ask(t);
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "line " + std::to_string(v)));
    const std::size_t d2 = t.dispatch("viber:planner-review", "toolu_R2");
    t.tool_result("toolu_R2", "VERDICT: PASS");
    BOOST_TEST(d2 > v);
    require_allow(gate.ask(t));
}
