// review_set_test.cpp: plan-gate step 5 (docs/plan-gate.md, step 5) through the real binary:
// planner plans of more than 12 tasks need a PASS from planner-spec-review, planner-graph-review
// and task reviewers covering every task; each refusal, its order and the facts its reason gives.
#define BOOST_TEST_MODULE plan_gate_review_set
#include "gate_fixture.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

namespace {

// A planner plan (frontmatter with `source:`) holding `tasks` task markers.
std::string planner_plan_with(std::size_t tasks, std::string_view eol = "\n") {
    std::string text = "---" + std::string(eol) + "source: x" + std::string(eol) + "---" +
                       std::string(eol) + "# Plan" + std::string(eol);
    for (std::size_t i = 1; i <= tasks; ++i) {
        text += "<!-- TASK -->" + std::string(eol) + "## T" + std::to_string(i) + " Change src/f" +
                std::to_string(i) + ".ts" + std::string(eol);
    }
    return text;
}

std::string task_prompt(const std::string& plan, std::size_t a, std::size_t b) {
    return plan + "\nrefs: /p/references\ntasks: T" + std::to_string(a) + "-T" + std::to_string(b);
}

std::string pass_text() {
    return "## Review\nVERDICT: PASS\n";
}
std::string fail_text() {
    return "## Review\n- Blocking: a finding\nVERDICT: FAIL\n";
}
std::string denied_text() {
    return "VERDICT: DENIED\nREASON: Bash: ls /etc\n";
}

// The episode, the plan written inside it, and the plan's mtime set before every verdict.
struct BigPlan {
    Gate gate;
    TranscriptBuilder t;
    std::string path;
    std::size_t write_line = 0;

    explicit BigPlan(std::size_t tasks, std::string_view eol = "\n") {
        path = gate.plan(".claude/plans/big.md", planner_plan_with(tasks, eol));
        viber::testing::set_mtime(path, verdict_epoch - 60);
        planner_episode(t);
        write_line = t.write_file(path, planner_plan_with(tasks, eol));
    }

    // Dispatches the whole set with ids, task reviewers in slices of 8, and returns the ids in
    // dispatch order (spec, graph, then the slices).
    std::vector<std::string> dispatch_set(std::size_t tasks) {
        std::vector<std::string> ids{"toolu_spec", "toolu_graph"};
        t.dispatch("viber:planner-spec-review", ids[0],
                   path + "\nrefs: /p/references\ninput: the summary");
        t.dispatch("viber:planner-graph-review", ids[1],
                   path + "\nrefs: /p/references\nmemory: true");
        for (std::size_t a = 1; a <= tasks; a += 8) {
            ids.push_back("toolu_task" + std::to_string(a));
            t.dispatch("viber:planner-task-review", ids.back(),
                       task_prompt(path, a, std::min(tasks, a + 7)));
        }
        return ids;
    }

    void pass_all(const std::vector<std::string>& ids) {
        for (const std::string& id : ids) t.tool_result(id, pass_text(), verdict_iso);
    }

    Answer ask() { return gate.ask(t); }
};

// Facts every review-set reason gives.
void require_set_facts(const Answer& answer) {
    BOOST_TEST(has(answer.reason, "big.md"));
    BOOST_TEST(has(answer.reason, "VERDICT: PASS"));
    BOOST_TEST(has(answer.reason, "voids"));
    BOOST_TEST(!has(answer.reason, "scope:"));
    BOOST_TEST(
        answer.reason.ends_with("This is the viber planner's plan review gate, not an error."));
}

// The whole set named for dispatch, each member with the input it expects.
void require_whole_set(const Answer& answer, const std::string& plan) {
    BOOST_TEST(has(answer.reason, "viber:planner-spec-review"));
    BOOST_TEST(has(answer.reason, "viber:planner-graph-review"));
    BOOST_TEST(has(answer.reason, "viber:planner-task-review"));
    BOOST_TEST(has(answer.reason, plan));
    BOOST_TEST(has(answer.reason, "refs: "));
    BOOST_TEST(has(answer.reason, "input: "));
    BOOST_TEST(has(answer.reason, "memory: "));
}

std::size_t count(const std::string& text, std::string_view part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

} // namespace

BOOST_AUTO_TEST_CASE(allows_when_the_whole_set_passes) {
    BigPlan plan(13);
    plan.pass_all(plan.dispatch_set(13));
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(bare_agent_names_are_members_too) {
    BigPlan plan(13);
    plan.t.dispatch("planner-spec-review", "toolu_a", plan.path);
    plan.t.dispatch("planner-graph-review", "toolu_b", plan.path);
    plan.t.dispatch("planner-task-review", "toolu_c", task_prompt(plan.path, 1, 13));
    for (const char* id : {"toolu_a", "toolu_b", "toolu_c"})
        plan.t.tool_result(id, pass_text(), verdict_iso);
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(twelve_tasks_stay_with_planner_review) {
    BigPlan plan(12);
    plan.pass_all(plan.dispatch_set(12));
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(!has(answer.reason, "planner-spec-review"));

    BigPlan single(12);
    single.t.dispatch("viber:planner-review", "toolu_R", single.path);
    single.t.tool_result("toolu_R", pass_text(), verdict_iso);
    require_allow(single.ask());
}

BOOST_AUTO_TEST_CASE(thirteen_tasks_go_to_the_review_set) {
    BigPlan plan(13);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: review the plan.");
    require_set_facts(answer);
    require_whole_set(answer, plan.path);
    BOOST_TEST(has(answer.reason, "tasks: T1-T8"));
    BOOST_TEST(has(answer.reason, "tasks: T9-T13"));
}

BOOST_AUTO_TEST_CASE(crlf_task_markers_count) {
    BigPlan plan(13, "\r\n");
    plan.t.dispatch("viber:planner-review", "toolu_R", plan.path);
    plan.t.tool_result("toolu_R", pass_text(), verdict_iso);
    require_deny(plan.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(a_planner_review_pass_counts_for_nothing_past_twelve_tasks) {
    BigPlan plan(13);
    plan.t.dispatch("viber:planner-review", "toolu_R", plan.path);
    plan.t.tool_result("toolu_R", pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: review the plan.");
    require_set_facts(answer);
    require_whole_set(answer, plan.path);
}

BOOST_AUTO_TEST_CASE(a_missing_member_is_named_alone) {
    BigPlan plan(13);
    plan.t.dispatch("viber:planner-spec-review", "toolu_spec", plan.path);
    plan.t.dispatch("viber:planner-task-review", "toolu_t1", task_prompt(plan.path, 1, 8));
    plan.t.dispatch("viber:planner-task-review", "toolu_t9", task_prompt(plan.path, 9, 13));
    for (const char* id : {"toolu_spec", "toolu_t1", "toolu_t9"})
        plan.t.tool_result(id, pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: review the plan.");
    require_set_facts(answer);
    BOOST_TEST(has(answer.reason, "viber:planner-graph-review"));
    BOOST_TEST(has(answer.reason, "memory: "));
    BOOST_TEST(!has(answer.reason, "planner-spec-review"));
    BOOST_TEST(!has(answer.reason, "planner-task-review"));
}

BOOST_AUTO_TEST_CASE(a_missing_member_still_running_means_let_the_review_finish) {
    BigPlan plan(13);
    std::vector<std::string> ids = plan.dispatch_set(13);
    const std::size_t graph_line = plan.write_line + 2;
    ids.erase(ids.begin() + 1); // the graph reviewer has not answered yet
    plan.pass_all(ids);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: let the review finish.");
    require_set_facts(answer);
    BOOST_TEST(has(answer.reason, "viber:planner-graph-review"));
    BOOST_TEST(has(answer.reason, "line " + std::to_string(graph_line)));
    BOOST_TEST(!has(answer.reason, "planner-spec-review"));
    BOOST_TEST(!has(answer.reason, "planner-task-review"));
}

BOOST_AUTO_TEST_CASE(uncovered_tasks_are_named_as_ranges) {
    BigPlan plan(13);
    plan.t.dispatch("viber:planner-spec-review", "toolu_spec", plan.path);
    plan.t.dispatch("viber:planner-graph-review", "toolu_graph", plan.path);
    plan.t.dispatch("viber:planner-task-review", "toolu_t1", task_prompt(plan.path, 1, 8));
    for (const char* id : {"toolu_spec", "toolu_graph", "toolu_t1"})
        plan.t.tool_result(id, pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: review the plan.");
    require_set_facts(answer);
    BOOST_TEST(has(answer.reason, "viber:planner-task-review for T9-T13"));
    BOOST_TEST(has(answer.reason, "tasks: T9-T13"));
    BOOST_TEST(!has(answer.reason, "T1-T8"));
    BOOST_TEST(!has(answer.reason, "planner-spec-review"));
    BOOST_TEST(!has(answer.reason, "planner-graph-review"));
}

BOOST_AUTO_TEST_CASE(every_missing_part_running_means_let_the_review_finish) {
    BigPlan plan(13);
    const std::size_t before = plan.t.lines();
    const std::vector<std::string> ids = plan.dispatch_set(13);
    plan.t.tool_result(ids[0], pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: let the review finish.");
    require_set_facts(answer);
    BOOST_TEST(has(answer.reason, "viber:planner-graph-review"));
    BOOST_TEST(has(answer.reason, "viber:planner-task-review for T1-T13"));
    // The running dispatches, by line: graph, T1-T8, T9-T13.
    BOOST_TEST(has(answer.reason, std::to_string(before + 2) + ", " + std::to_string(before + 3) +
                                      " and " + std::to_string(before + 4)));
}

BOOST_AUTO_TEST_CASE(async_results_pair_by_id_in_any_order) {
    BigPlan plan(13);
    const std::vector<std::string> ids = plan.dispatch_set(13);
    for (const std::string& id : ids) plan.t.async_launched(id, "VERDICT: FAIL\n");
    plan.t.task_notification(ids[3], "Done.\nVERDICT: PASS\n", verdict_iso);
    plan.t.task_notification(ids[1], "Done.\nVERDICT: PASS\n", verdict_iso);
    plan.t.task_notification(ids[2], "Done.\nVERDICT: PASS\n", verdict_iso);
    plan.t.task_notification(ids[0], "Done.\nVERDICT: PASS\n", verdict_iso);
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(id_less_results_pair_in_dispatch_order) {
    BigPlan plan(13);
    const std::size_t graph_line = plan.t.lines() + 2;
    plan.t.dispatch("viber:planner-spec-review", "", plan.path);
    plan.t.dispatch("viber:planner-graph-review", "", plan.path);
    plan.t.dispatch("viber:planner-task-review", "", task_prompt(plan.path, 1, 13));
    plan.t.tool_result("", pass_text(), verdict_iso);
    const std::size_t fail_line = plan.t.tool_result("", fail_text(), verdict_iso);
    plan.t.tool_result("", pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "viber:planner-graph-review (dispatch line " +
                                      std::to_string(graph_line) + ", verdict line " +
                                      std::to_string(fail_line) + ")"));
}

BOOST_AUTO_TEST_CASE(a_re_dispatched_member_is_decided_by_its_latest_verdict) {
    BigPlan plan(13);
    const std::vector<std::string> ids = plan.dispatch_set(13);
    plan.pass_all(ids);
    plan.t.dispatch("viber:planner-spec-review", "toolu_spec2", plan.path);
    plan.t.tool_result("toolu_spec2", fail_text(), verdict_iso);
    require_deny(plan.ask(), "Next step: fix the findings.");
    plan.t.dispatch("viber:planner-spec-review", "toolu_spec3", plan.path);
    plan.t.tool_result("toolu_spec3", pass_text(), verdict_iso);
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(overlapping_task_ranges_are_decided_per_task) {
    BigPlan plan(13);
    plan.t.dispatch("viber:planner-spec-review", "toolu_spec", plan.path);
    plan.t.dispatch("viber:planner-graph-review", "toolu_graph", plan.path);
    plan.t.dispatch("viber:planner-task-review", "toolu_all", task_prompt(plan.path, 1, 13));
    for (const char* id : {"toolu_spec", "toolu_graph"})
        plan.t.tool_result(id, pass_text(), verdict_iso);
    plan.t.tool_result("toolu_all", fail_text(), verdict_iso);
    plan.t.dispatch("viber:planner-task-review", "toolu_tail", task_prompt(plan.path, 9, 13));
    plan.t.tool_result("toolu_tail", pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "viber:planner-task-review for T1-T8 ("));
    plan.t.dispatch("viber:planner-task-review", "toolu_head", task_prompt(plan.path, 1, 8));
    plan.t.tool_result("toolu_head", pass_text(), verdict_iso);
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(missing_comes_before_denied) {
    BigPlan plan(13);
    plan.t.dispatch("viber:planner-spec-review", "toolu_spec", plan.path);
    plan.t.tool_result("toolu_spec", denied_text(), verdict_iso);
    require_deny(plan.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(denied_asks_to_grant_the_permission_and_names_the_whole_set) {
    BigPlan plan(13);
    const std::vector<std::string> ids = plan.dispatch_set(13);
    plan.t.tool_result(ids[0], pass_text(), verdict_iso);
    plan.t.tool_result(ids[1], fail_text(), verdict_iso);
    const std::size_t denied_line = plan.t.tool_result(ids[2], denied_text(), verdict_iso);
    plan.t.tool_result(ids[3], pass_text(), verdict_iso);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: grant the permission.");
    require_set_facts(answer);
    require_whole_set(answer, plan.path);
    BOOST_TEST(has(answer.reason, "REASON:"));
    BOOST_TEST(has(answer.reason, "verdict line " + std::to_string(denied_line)));
    BOOST_TEST(has(answer.reason, "tasks: T1-T8"));
    BOOST_TEST(has(answer.reason, "tasks: T9-T13"));
}

BOOST_AUTO_TEST_CASE(fail_asks_to_fix_the_findings_and_names_who_failed) {
    BigPlan plan(13);
    const std::vector<std::string> ids = plan.dispatch_set(13);
    plan.t.tool_result(ids[0], pass_text(), verdict_iso);
    plan.t.tool_result(ids[1], pass_text(), verdict_iso);
    plan.t.tool_result(ids[2], pass_text(), verdict_iso);
    const std::size_t fail_line = plan.t.tool_result(ids[3], fail_text(), verdict_iso);
    viber::testing::set_mtime(plan.path, verdict_epoch + 600); // stale too: FAIL comes first
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: fix the findings.");
    require_set_facts(answer);
    require_whole_set(answer, plan.path);
    BOOST_TEST(has(answer.reason, "'VERDICT: FAIL'"));
    BOOST_TEST(has(answer.reason, "viber:planner-task-review for T9-T13 (dispatch line " +
                                      std::to_string(fail_line - 4) + ", verdict line " +
                                      std::to_string(fail_line) + ")"));
}

BOOST_AUTO_TEST_CASE(a_plan_written_after_the_earliest_pass_needs_a_re_review) {
    BigPlan plan(13);
    const std::vector<std::string> ids = plan.dispatch_set(13);
    plan.t.tool_result(ids[0], pass_text(), iso_utc(verdict_epoch));
    for (std::size_t i = 1; i < ids.size(); ++i)
        plan.t.tool_result(ids[i], pass_text(), iso_utc(verdict_epoch + 100));

    viber::testing::set_mtime(plan.path, verdict_epoch + 2);
    require_allow(plan.ask());

    viber::testing::set_mtime(plan.path, verdict_epoch + 3);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: re-review.");
    require_set_facts(answer);
    require_whole_set(answer, plan.path);
    BOOST_TEST(has(answer.reason, "tasks: T1-T8"));
    BOOST_TEST(has(answer.reason, "tasks: T9-T13"));
}

BOOST_AUTO_TEST_CASE(twenty_tasks_are_sliced_by_eight) {
    BigPlan plan(20);
    const std::vector<std::string> ids = plan.dispatch_set(20);
    BOOST_TEST(ids.size() == 5u);
    plan.pass_all(ids);
    require_allow(plan.ask());

    viber::testing::set_mtime(plan.path, verdict_epoch + 600);
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: re-review.");
    BOOST_TEST(has(answer.reason, "tasks: T1-T8\n"));
    BOOST_TEST(has(answer.reason, "tasks: T9-T16\n"));
    BOOST_TEST(has(answer.reason, "tasks: T17-T20\n"));
    BOOST_TEST(count(answer.reason, "tasks: T") == 3u);
}

BOOST_AUTO_TEST_CASE(a_plan_the_gate_cannot_read_stays_with_planner_review) {
    Gate gate;
    const std::string dir = gate.project().mkdir(".claude/plans/dir.md");
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(dir, planner_plan_with(20));
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(!has(answer.reason, "planner-spec-review"));
}
