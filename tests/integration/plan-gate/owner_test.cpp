// owner_test.cpp: plan-gate step 2 (docs/plan-gate.md): the planner owns a plan only with its
// signal in the episode AND its frontmatter in the plan; a plan it cannot read stays the planner's.
#define BOOST_TEST_MODULE plan_gate_owner
#include "gate_fixture.hpp"
#include "support/platform.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

namespace {

// Plan written by the planner (or not), switch on, no review yet: the reason names the reviewer.
Answer unreviewed(const Gate& gate, std::string_view plan_text, bool planner) {
    gate.config(switch_on_script);
    const std::string plan = gate.plan(".claude/plans/p.md", plan_text);
    TranscriptBuilder t;
    if (planner)
        planner_episode(t);
    else
        plain_episode(t);
    t.write_file(plan, plan_text);
    return gate.ask(t);
}

} // namespace

BOOST_AUTO_TEST_CASE(planner_frontmatter_with_lf_goes_to_planner_review) {
    Gate gate;
    const Answer answer = unreviewed(gate, "---\nsource: interview\n---\n# Plan\n", true);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(!has(answer.reason, "plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(planner_frontmatter_with_crlf_goes_to_planner_review) {
    Gate gate;
    const Answer answer =
        unreviewed(gate, "---\r\ntitle: x\r\nsource: bug\r\n---\r\n# Plan\r\n", true);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(bom_before_the_frontmatter_makes_a_plain_plan, *viber::testing::needs_bash()) {
    Gate gate;
    const Answer answer =
        unreviewed(gate, "\xEF\xBB\xBF---\nsource: interview\n---\n# Plan\n", true);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(source_after_the_frontmatter_makes_a_plain_plan,
                     *viber::testing::needs_bash()) {
    Gate gate;
    const Answer answer = unreviewed(gate, "---\ntitle: x\n---\nsource: interview\n", true);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(frontmatter_without_planner_signal_is_plain, *viber::testing::needs_bash()) {
    Gate gate;
    const Answer answer = unreviewed(gate, planner_plan, false);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(another_plugins_planner_is_no_signal) {
    Gate gate;
    gate.config(switch_off_script);
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("xyz:planner", "toolu_skill");
    t.enter_plan_mode();
    t.write_file(plan, planner_plan);
    require_allow(gate.ask(t)); // plain, switch off
}

BOOST_AUTO_TEST_CASE(planner_of_an_earlier_episode_is_no_signal) {
    Gate gate;
    gate.config(switch_off_script);
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.permission_mode("acceptEdits");
    t.typed_prompt("next feature");
    t.enter_plan_mode();
    t.write_file(plan, planner_plan);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(mode_flush_between_skill_and_enter_plan_mode_keeps_the_planner) {
    Gate gate;
    gate.config(switch_off_script);
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner", "toolu_skill");
    t.permission_mode("default"); // flushed mid-turn: the Skill line now lies before the episode
    t.enter_plan_mode();
    t.write_file(plan, planner_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(missing_plan_keeps_the_planner) {
    Gate gate;
    gate.config(switch_off_script);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(gate.project() / ".claude/plans/gone.md", planner_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "gone.md"));
}

BOOST_AUTO_TEST_CASE(plan_path_that_is_a_directory_keeps_the_planner) {
    Gate gate;
    gate.config(switch_off_script);
    const std::string dir = gate.project().mkdir(".claude/plans/dir.md");
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(dir, planner_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(plan_path_that_is_a_fifo_or_a_device_keeps_the_planner,
                     *viber::testing::posix_only("a FIFO")) {
    // Never blocks on a FIFO nobody writes, never reads /dev/zero: not a regular file.
    Gate gate;
    gate.config(switch_off_script);
    for (const std::string& plan : fifo_and_device_plans(gate)) {
        TranscriptBuilder t;
        planner_episode(t);
        t.write_file(plan, planner_plan);
        const Answer answer = gate.ask(t);
        BOOST_TEST(!answer.run.timed_out, plan);
        require_deny(answer, "Next step: review the plan.");
        BOOST_TEST(has(answer.reason, "viber:planner-review"), plan);
    }
}

BOOST_AUTO_TEST_CASE(unreadable_plan_keeps_the_planner,
                     *viber::testing::posix_only("a mode-000 unreadable file")) {
    Gate gate;
    gate.config(switch_off_script);
    // A regular file the gate cannot read: past the read bound when running as root (permissions
    // do not stop root), mode 000 otherwise.
    const std::string plan = gate.plan(".claude/plans/big.md", plain_plan);
    if (::geteuid() == 0) {
        BOOST_REQUIRE(::truncate(plan.c_str(), (std::int64_t{65} << 20)) == 0);
    } else {
        BOOST_REQUIRE(::chmod(plan.c_str(), 0) == 0);
    }
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, plain_plan);
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(unreadable_plan_without_signal_is_plain) {
    Gate gate;
    gate.config(switch_off_script);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(gate.project() / ".claude/plans/gone.md", planner_plan);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(large_planner_plan_goes_to_the_review_set) {
    Gate gate;
    std::string text(planner_plan);
    for (int i = 0; i < 13; ++i) text += "<!-- TASK -->\n### T" + std::to_string(i + 1) + "\n";
    const std::string plan = gate.plan(".claude/plans/big.md", text);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, text);
    t.dispatch("viber:planner-review", "toolu_R");
    t.tool_result("toolu_R", "VERDICT: PASS");
    const Answer answer = gate.ask(t);
    // A planner-review PASS counts for nothing there.
    require_deny(answer, "Next step:");
    BOOST_TEST(has(answer.reason, "planner-spec-review"));
}

BOOST_AUTO_TEST_CASE(twelve_tasks_stay_with_planner_review) {
    Gate gate;
    std::string text(planner_plan);
    for (int i = 0; i < 12; ++i) text += "<!-- TASK -->\n### T" + std::to_string(i + 1) + "\n";
    const std::string plan = gate.plan(".claude/plans/twelve.md", text);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, text);
    t.dispatch("viber:planner-review", "toolu_R");
    t.tool_result("toolu_R", "VERDICT: PASS");
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(planner_plan_never_runs_config) {
    Gate gate;
    gate.config("touch \"$(dirname \"$0\")/ran\"\necho 'planning.plain-plan-review: true'\n");
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R");
    t.tool_result("toolu_R", "VERDICT: PASS");
    require_allow(gate.ask(t));
    BOOST_TEST(::access((gate.tree() / "scripts/ran").c_str(), F_OK) != 0);
}

BOOST_AUTO_TEST_CASE(unarmed_gate_never_runs_config) {
    Gate gate;
    gate.config("touch \"$(dirname \"$0\")/ran\"\necho 'planning.plain-plan-review: true'\n");
    TranscriptBuilder t;
    plain_episode(t);
    require_allow(gate.ask(t));
    BOOST_TEST(::access((gate.tree() / "scripts/ran").c_str(), F_OK) != 0);
}
