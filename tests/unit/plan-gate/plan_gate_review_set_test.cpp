// plan_gate_review_set_test.cpp: the review set of large planner plans (docs/plan-gate.md, step 5):
// the task counter, the `tasks:` range parser, the pairing of verdicts with member dispatches, and
// each refusal with its order and wording.
#define BOOST_TEST_MODULE plan_gate_review_set
#include "plan-gate/reasons.hpp"
#include "plan-gate/review_set.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

using viber::plan_gate::count_tasks;
using viber::plan_gate::review_set_refusal;
using viber::plan_gate::review_set_threshold;
using viber::plan_gate::ReviewSetInput;
using viber::plan_gate::task_range;
using viber::transcript::Dispatch;
using viber::transcript::Verdict;
using viber::transcript::VerdictLine;

using Range = std::optional<std::pair<std::size_t, std::size_t>>;

Range range(std::size_t a, std::size_t b) {
    return std::pair{a, b};
}

std::string tasks_text(std::size_t n, std::string_view eol = "\n") {
    std::string text = "---\nsource: x\n---\n# Plan" + std::string(eol);
    for (std::size_t i = 1; i <= n; ++i) {
        text += "<!-- TASK -->" + std::string(eol) + "## T" + std::to_string(i) + std::string(eol);
    }
    return text;
}

// The dispatches and verdict lines after a plan write, as the transcript scanner reports them.
// Lines advance by one per event, starting after the plan write on line 5.
struct Review {
    std::vector<Dispatch> dispatches;
    std::vector<VerdictLine> verdicts;
    std::size_t line = 5;
    std::size_t tasks = 13;
    std::optional<std::time_t> mtime;

    std::size_t dispatch(std::string agent, std::string id,
                         std::string prompt = "plan.md\nrefs: r") {
        dispatches.push_back({++line, std::move(agent), std::move(id), std::move(prompt)});
        return dispatches.size() - 1;
    }
    std::size_t task_dispatch(std::size_t a, std::size_t b, std::string id) {
        return dispatch("planner-task-review", std::move(id),
                        "/repo/plans/plan.md\nrefs: r\ntasks: T" + std::to_string(a) + "-T" +
                            std::to_string(b));
    }
    std::size_t verdict(Verdict value, std::vector<std::size_t> named = {},
                        std::optional<std::int64_t> timestamp = std::nullopt) {
        verdicts.push_back({++line, value, timestamp, std::move(named)});
        return line;
    }
    std::optional<std::string> refusal() const {
        ReviewSetInput input;
        input.plan_path = "/repo/.claude/plans/big/plan.md";
        input.plan_name = "plan.md";
        input.tasks = tasks;
        input.plan_write_line = 5;
        input.refs_dir = "/plugin/references";
        input.plan_mtime = mtime;
        input.dispatches = &dispatches;
        input.verdicts = &verdicts;
        return review_set_refusal(input);
    }
};

// A full set for `n` tasks, dispatched with ids and all passing.
Review passing_set(std::size_t n) {
    Review review;
    review.tasks = n;
    std::vector<std::size_t> sent{review.dispatch("planner-spec-review", "toolu_spec"),
                                  review.dispatch("planner-graph-review", "toolu_graph")};
    for (std::size_t a = 1; a <= n; a += 8) {
        sent.push_back(review.task_dispatch(a, std::min(n, a + 7), "toolu_t" + std::to_string(a)));
    }
    for (const std::size_t index : sent) review.verdict(Verdict::pass, {index}, 1000);
    return review;
}

bool starts_with(const std::string& text, std::string_view prefix) {
    return text.rfind(prefix, 0) == 0;
}
bool holds(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

bool ends_with(const std::string& text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The text between `from` and the next `to` (empty when `from` is absent).
std::string between(const std::string& text, std::string_view from, std::string_view to) {
    const std::size_t start = text.find(from);
    if (start == std::string::npos) return {};
    const std::size_t end = text.find(to, start + from.size());
    return text.substr(start + from.size(),
                       end == std::string::npos ? std::string::npos : end - start - from.size());
}

std::size_t occurrences(const std::string& text, std::string_view part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++count;
    return count;
}

// Facts every review-set reason carries.
void check_common_facts(const std::string& reason) {
    BOOST_TEST(starts_with(reason, "Next step: "));
    BOOST_TEST(holds(reason, "plan.md"));
    BOOST_TEST(holds(reason, "VERDICT: PASS"));
    BOOST_TEST(holds(reason, "voids"));
    BOOST_TEST(!holds(reason, "scope:"));
    BOOST_TEST(ends_with(reason, viber::plan_gate::planner_gate_trailer));
}

// The dispatch lines every member expects, for the whole set.
void check_whole_set(const std::string& reason) {
    BOOST_TEST(holds(reason, "viber:planner-spec-review"));
    BOOST_TEST(holds(reason, "viber:planner-graph-review"));
    BOOST_TEST(holds(reason, "viber:planner-task-review"));
    BOOST_TEST(holds(reason, "/repo/.claude/plans/big/plan.md"));
    BOOST_TEST(occurrences(reason, "refs: /plugin/references") >= 3u);
    BOOST_TEST(holds(reason, "input: "));
    BOOST_TEST(holds(reason, "memory: "));
}

} // namespace

// ---- the task counter ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(counts_lines_that_are_exactly_the_task_marker) {
    BOOST_TEST(count_tasks(tasks_text(3)) == 3u);
    BOOST_TEST(count_tasks("") == 0u);
    BOOST_TEST(count_tasks("<!-- TASK -->") == 1u); // no final newline
}

BOOST_AUTO_TEST_CASE(a_trailing_cr_is_ignored) {
    BOOST_TEST(count_tasks(tasks_text(13, "\r\n")) == 13u);
    BOOST_TEST(count_tasks("<!-- TASK -->\r") == 1u);
    BOOST_TEST(count_tasks("<!-- TASK -->\r\r\n") == 0u); // only one CR belongs to the line end
}

BOOST_AUTO_TEST_CASE(markers_inside_code_fences_still_count) {
    BOOST_TEST(count_tasks("```\n<!-- TASK -->\n```\n<!-- TASK -->\n") == 2u);
}

BOOST_AUTO_TEST_CASE(indented_or_decorated_markers_do_not_count) {
    BOOST_TEST(count_tasks("  <!-- TASK -->\n") == 0u);
    BOOST_TEST(count_tasks("\t<!-- TASK -->\n") == 0u);
    BOOST_TEST(count_tasks("<!-- TASK --> \n") == 0u);
    BOOST_TEST(count_tasks("<!-- TASK -->x\n") == 0u);
    BOOST_TEST(count_tasks("<!--TASK-->\n") == 0u);
    BOOST_TEST(count_tasks("<!-- task -->\n") == 0u);
}

BOOST_AUTO_TEST_CASE(twelve_tasks_stay_with_planner_review_thirteen_go_to_the_set) {
    BOOST_TEST(review_set_threshold == 12u);
    BOOST_TEST(!(count_tasks(tasks_text(12)) > review_set_threshold));
    BOOST_TEST(count_tasks(tasks_text(13)) > review_set_threshold);
}

// ---- the range parser ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(range_of_a_plain_tasks_line) {
    BOOST_TEST((task_range("tasks: T1-T8") == range(1, 8)));
    BOOST_TEST((task_range("tasks: T9-T9") == range(9, 9)));
    BOOST_TEST((task_range("tasks: T17-T20\n") == range(17, 20)));
}

BOOST_AUTO_TEST_CASE(range_allows_whitespace_where_the_pattern_does) {
    BOOST_TEST((task_range("  tasks:\tT3 - T5  ") == range(3, 5)));
    BOOST_TEST((task_range("tasks:T3-T5") == range(3, 5)));
    BOOST_TEST((task_range("tasks: T1-T8\r") == range(1, 8)));
    BOOST_TEST((task_range("tasks: T007-T010") == range(7, 10)));
}

BOOST_AUTO_TEST_CASE(range_with_first_after_last_is_ignored) {
    BOOST_TEST(!task_range("tasks: T5-T3"));
    BOOST_TEST(!task_range("tasks: T99999999999999999999999-T99999999999999999999998"));
}

BOOST_AUTO_TEST_CASE(range_starting_at_zero_is_ignored) {
    BOOST_TEST(!task_range("tasks: T0-T3"));
    BOOST_TEST(!task_range("tasks: T000-T3"));
}

BOOST_AUTO_TEST_CASE(range_without_the_t_is_ignored) {
    BOOST_TEST(!task_range("tasks: 1-8"));
    BOOST_TEST(!task_range("tasks: T1-8"));
    BOOST_TEST(!task_range("tasks: 1-T8"));
    BOOST_TEST(!task_range("tasks: t1-t8"));
}

BOOST_AUTO_TEST_CASE(range_with_other_text_on_the_line_is_ignored) {
    BOOST_TEST(!task_range("tasks: T1-T8 and T9"));
    BOOST_TEST(!task_range("review tasks: T1-T8"));
    BOOST_TEST(!task_range("Tasks: T1-T8"));
    BOOST_TEST(!task_range("tasks: T1"));
    BOOST_TEST(!task_range("tasks: T1-T"));
    BOOST_TEST(!task_range("plan.md\nrefs: r"));
    BOOST_TEST(!task_range(""));
}

BOOST_AUTO_TEST_CASE(the_first_matching_line_wins) {
    BOOST_TEST((task_range("/repo/plans/p.md\ntasks: T9-T16\ntasks: T1-T8") == range(9, 16)));
    // A line that fails the 1 <= a <= b condition does not match, so a later line can.
    BOOST_TEST((task_range("tasks: T5-T3\ntasks: T0-T2\ntasks: T1-T8") == range(1, 8)));
}

BOOST_AUTO_TEST_CASE(huge_task_numbers_saturate_without_overflow) {
    const auto huge = task_range("tasks: T1-T99999999999999999999999999999");
    BOOST_REQUIRE(huge);
    BOOST_TEST(huge->first == 1u);
    BOOST_TEST(huge->second == std::numeric_limits<std::size_t>::max());
}

// ---- pairing and deciding --------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(allows_when_every_member_and_task_passes) {
    BOOST_TEST(!passing_set(13).refusal());
    BOOST_TEST(!passing_set(20).refusal());
}

BOOST_AUTO_TEST_CASE(ids_pair_in_any_order) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_a");
    const auto graph = review.dispatch("planner-graph-review", "toolu_b");
    const auto first = review.task_dispatch(1, 8, "toolu_c");
    const auto second = review.task_dispatch(9, 13, "toolu_d");
    review.verdict(Verdict::pass, {second});
    review.verdict(Verdict::pass, {first});
    review.verdict(Verdict::pass, {graph});
    review.verdict(Verdict::pass, {spec});
    BOOST_TEST(!review.refusal());
}

BOOST_AUTO_TEST_CASE(an_out_of_order_fail_decides_for_its_own_member) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_a");
    const auto graph = review.dispatch("planner-graph-review", "toolu_b");
    const auto tasks = review.task_dispatch(1, 13, "toolu_c");
    review.verdict(Verdict::pass, {tasks});
    review.verdict(Verdict::pass, {graph});
    const auto spec_line = review.verdict(Verdict::fail, {spec});
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));
    const std::string failed = between(*reason, "'VERDICT: FAIL' for: ", ". ");
    BOOST_TEST(holds(failed, "viber:planner-spec-review"));
    BOOST_TEST(holds(failed, "dispatch line 6"));
    BOOST_TEST(holds(failed, "verdict line " + std::to_string(spec_line)));
    BOOST_TEST(!holds(failed, "graph"));
    BOOST_TEST(!holds(failed, "task"));
}

BOOST_AUTO_TEST_CASE(id_less_verdicts_pair_with_id_less_dispatches_in_order) {
    Review review;
    review.dispatch("planner-spec-review", "");
    review.dispatch("planner-graph-review", "");
    review.task_dispatch(1, 13, "");
    review.verdict(Verdict::pass);
    review.verdict(Verdict::fail);
    review.verdict(Verdict::pass);
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));
    const std::string failed = between(*reason, "'VERDICT: FAIL' for: ", ". ");
    BOOST_TEST(holds(failed, "viber:planner-graph-review (dispatch line 7, verdict line 10)"));
    BOOST_TEST(!holds(failed, "spec"));
    BOOST_TEST(!holds(failed, "task"));
}

BOOST_AUTO_TEST_CASE(an_id_verdict_never_closes_an_id_less_dispatch) {
    Review review;
    review.dispatch("planner-spec-review", "");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    review.task_dispatch(1, 13, "toolu_t");
    review.verdict(Verdict::fail, {graph}); // names graph: the id-less spec dispatch stays open
    review.verdict(Verdict::pass, {2});
    review.verdict(Verdict::pass); // names nothing: closes the spec dispatch
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));
    BOOST_TEST(
        holds(between(*reason, "'VERDICT: FAIL' for: ", ". "), "viber:planner-graph-review"));
}

BOOST_AUTO_TEST_CASE(a_re_dispatch_of_one_member_decides_with_its_latest_verdict) {
    Review review = passing_set(13);
    const auto again = review.dispatch("planner-graph-review", "toolu_graph2");
    review.verdict(Verdict::fail, {again});
    auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));

    const auto third = review.dispatch("planner-graph-review", "toolu_graph3");
    review.verdict(Verdict::pass, {third});
    BOOST_TEST(!review.refusal());
}

BOOST_AUTO_TEST_CASE(a_closed_dispatch_ignores_later_verdicts_naming_it) {
    Review review = passing_set(13);
    review.verdict(Verdict::fail, {0}); // the spec dispatch is already closed by its PASS
    BOOST_TEST(!review.refusal());
}

BOOST_AUTO_TEST_CASE(a_verdict_naming_only_a_closed_dispatch_does_not_fall_back_to_id_less_ones) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    review.task_dispatch(1, 13, "toolu_t");
    review.dispatch("planner-graph-review", "");
    review.verdict(Verdict::pass, {spec});
    review.verdict(Verdict::pass, {1});
    review.verdict(Verdict::pass,
                   {spec}); // a second echo of the spec result: not the graph's verdict
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: let the review finish."));
    BOOST_TEST(holds(*reason, "viber:planner-graph-review"));
}

BOOST_AUTO_TEST_CASE(overlapping_ranges_are_decided_per_task_by_the_latest_verdict) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    const auto wide = review.task_dispatch(1, 13, "toolu_wide");
    review.verdict(Verdict::pass, {spec});
    review.verdict(Verdict::pass, {graph});
    review.verdict(Verdict::fail, {wide});
    const auto tail = review.task_dispatch(9, 13, "toolu_tail");
    review.verdict(Verdict::pass, {tail});
    auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));
    const std::string failed = between(*reason, "'VERDICT: FAIL' for: ", ". ");
    BOOST_TEST(holds(failed, "viber:planner-task-review for T1-T8"));
    BOOST_TEST(!holds(failed, "T9"));

    const auto head = review.task_dispatch(1, 8, "toolu_head");
    review.verdict(Verdict::pass, {head});
    BOOST_TEST(!review.refusal());

    // A later FAIL over part of a passed range decides for that part only.
    const auto middle = review.task_dispatch(5, 10, "toolu_mid");
    review.verdict(Verdict::fail, {middle});
    reason = review.refusal();
    BOOST_REQUIRE(reason);
    const std::string failed_again = between(*reason, "'VERDICT: FAIL' for: ", ". ");
    BOOST_TEST(holds(failed_again, "viber:planner-task-review for T5-T10"));
    BOOST_TEST(!holds(failed_again, "T1-"));
    BOOST_TEST(!holds(failed_again, "T11"));
}

BOOST_AUTO_TEST_CASE(tasks_past_the_plan_are_ignored) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    const auto head = review.task_dispatch(1, 8, "toolu_1");
    const auto tail = review.task_dispatch(9, 40, "toolu_2");
    for (const auto index : {spec, graph, head, tail}) review.verdict(Verdict::pass, {index});
    BOOST_TEST(!review.refusal());
}

BOOST_AUTO_TEST_CASE(a_task_reviewer_without_a_range_is_tracked_but_covers_nothing) {
    Review review;
    review.dispatch("planner-task-review", "", "plan.md\nrefs: r\ntasks: all of them");
    review.dispatch("planner-spec-review", "");
    review.verdict(Verdict::pass); // closes the range-less task reviewer, the earliest id-less one
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    const std::string missing = between(*reason, "from: ", ".");
    BOOST_TEST(holds(missing, "viber:planner-spec-review"));
    BOOST_TEST(holds(missing, "viber:planner-graph-review"));
    BOOST_TEST(holds(missing, "viber:planner-task-review for T1-T13"));
    BOOST_TEST(holds(*reason, "still running")); // the spec dispatch on line 7
}

BOOST_AUTO_TEST_CASE(a_verdict_naming_an_untracked_dispatch_is_not_a_member_verdict) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto old = review.dispatch("planner-review", "toolu_pr");
    review.verdict(Verdict::pass, {old});
    (void)spec;
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    BOOST_TEST(holds(between(*reason, "from: ", "."), "viber:planner-spec-review"));
}

BOOST_AUTO_TEST_CASE(
    a_verdict_naming_only_untracked_ids_pairs_with_the_earliest_open_id_less_dispatch) {
    // docs/plan-gate.md, step 5: "else, if it contains no tracked id, with the earliest open
    // dispatch without an id".
    Review review = passing_set(13);
    review.dispatch("planner-review", "toolu_pr");
    review.dispatch("planner-spec-review", "");
    review.verdict(Verdict::fail, {review.dispatches.size() - 2});
    BOOST_TEST(starts_with(review.refusal().value_or(""), "Next step: fix the findings."));
}

BOOST_AUTO_TEST_CASE(a_verdict_before_its_dispatch_pairs_with_nothing) {
    Review review;
    review.verdict(Verdict::pass, {0});
    review.verdict(Verdict::pass);
    review.dispatch("planner-spec-review", "toolu_s");
    review.dispatch("planner-graph-review", "");
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    BOOST_TEST(holds(between(*reason, "from: ", "."), "viber:planner-spec-review"));
    BOOST_TEST(holds(between(*reason, "from: ", "."), "viber:planner-graph-review"));
}

BOOST_AUTO_TEST_CASE(a_planner_review_pass_counts_for_nothing) {
    Review review;
    const auto single = review.dispatch("planner-review", "toolu_pr");
    review.verdict(Verdict::pass, {single}, 1000);
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    check_common_facts(*reason);
    check_whole_set(*reason);
}

// ---- refusals --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(no_dispatch_at_all_asks_for_the_whole_set) {
    Review review;
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    check_common_facts(*reason);
    check_whole_set(*reason);
    BOOST_TEST(holds(*reason, "viber:planner-task-review for T1-T13"));
    BOOST_TEST(holds(*reason, "tasks: T1-T8"));
    BOOST_TEST(holds(*reason, "tasks: T9-T13"));
    BOOST_TEST(holds(*reason, "line 5")); // the plan write
}

BOOST_AUTO_TEST_CASE(missing_names_only_what_is_missing) {
    Review review = passing_set(13);
    review.dispatches.erase(review.dispatches.begin() + 1); // the graph dispatch
    review.verdicts.erase(review.verdicts.begin() + 1);
    for (auto& verdict : review.verdicts) {
        for (auto& index : verdict.named_dispatches) {
            if (index > 1) --index;
        }
    }
    review.verdicts.erase(review.verdicts.end() - 1); // the T9-T13 verdict
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: let the review finish.") == false);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    check_common_facts(*reason);
    BOOST_TEST(holds(*reason, "viber:planner-graph-review"));
    BOOST_TEST(!holds(*reason, "planner-spec-review"));
    BOOST_TEST(holds(*reason, "viber:planner-task-review for T9-T13"));
    BOOST_TEST(!holds(*reason, "T1-T8"));
    // T9-T13's dispatch is still running: only the graph reviewer is to be sent.
    BOOST_TEST(holds(*reason, "memory: "));
    BOOST_TEST(!holds(*reason, "tasks: T9-T13"));
}

BOOST_AUTO_TEST_CASE(missing_tasks_without_any_dispatch_are_named_as_ranges) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    const auto head = review.task_dispatch(1, 4, "toolu_1");
    const auto mid = review.task_dispatch(7, 8, "toolu_2");
    for (const auto index : {spec, graph, head, mid}) review.verdict(Verdict::pass, {index});
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
    const std::string missing = between(*reason, "from: ", ".");
    BOOST_TEST(missing ==
               "viber:planner-task-review for T5-T6, viber:planner-task-review for T9-T13");
    BOOST_TEST(holds(*reason, "tasks: T5-T6"));
    BOOST_TEST(holds(*reason, "tasks: T9-T13"));
    BOOST_TEST(!holds(*reason, "input: "));
}

BOOST_AUTO_TEST_CASE(missing_ranges_longer_than_a_slice_are_dispatched_in_slices) {
    Review review;
    review.tasks = 20;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    const auto first = review.task_dispatch(1, 2, "toolu_1");
    for (const auto index : {spec, graph, first}) review.verdict(Verdict::pass, {index});
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(holds(*reason, "viber:planner-task-review for T3-T20"));
    BOOST_TEST(holds(*reason, "tasks: T3-T10"));
    BOOST_TEST(holds(*reason, "tasks: T11-T18"));
    BOOST_TEST(holds(*reason, "tasks: T19-T20"));
}

BOOST_AUTO_TEST_CASE(everything_missing_still_running_says_let_the_review_finish) {
    Review review;
    review.dispatch("planner-spec-review", "toolu_s");
    review.dispatch("planner-graph-review", "toolu_g");
    review.task_dispatch(1, 8, "toolu_1");
    review.task_dispatch(9, 11, "toolu_2");
    review.task_dispatch(12, 13, "toolu_3");
    review.verdict(Verdict::pass, {0});
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: let the review finish."));
    check_common_facts(*reason);
    BOOST_TEST(holds(*reason, "viber:planner-graph-review"));
    BOOST_TEST(holds(*reason, "viber:planner-task-review for T1-T13"));
    BOOST_TEST(holds(*reason, "lines 7, 8, 9 and 10"));
    BOOST_TEST(!holds(*reason, "Next step: review the plan."));
}

BOOST_AUTO_TEST_CASE(missing_beats_denied) {
    Review review;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    review.verdict(Verdict::denied, {spec});
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
}

BOOST_AUTO_TEST_CASE(denied_names_who_was_refused_and_the_whole_set) {
    Review review = passing_set(13);
    const auto again = review.dispatch("planner-spec-review", "toolu_s2");
    const auto denied_line = review.verdict(Verdict::denied, {again});
    const auto graph = review.dispatch("planner-graph-review", "toolu_g2");
    review.verdict(Verdict::fail, {graph});
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: grant the permission."));
    check_common_facts(*reason);
    check_whole_set(*reason);
    BOOST_TEST(holds(*reason, "REASON:"));
    const std::string denied = between(*reason, "for: ", ". ");
    BOOST_TEST(holds(denied, "viber:planner-spec-review"));
    BOOST_TEST(holds(denied, "verdict line " + std::to_string(denied_line)));
    BOOST_TEST(!holds(denied, "graph"));
    BOOST_TEST(holds(*reason, "tasks: T1-T8"));
    BOOST_TEST(holds(*reason, "tasks: T9-T13"));
}

BOOST_AUTO_TEST_CASE(fail_beats_a_stale_plan) {
    Review review = passing_set(13);
    const auto again = review.task_dispatch(9, 13, "toolu_t9b");
    review.verdict(Verdict::fail, {again}, 1000);
    review.mtime = 5000;
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));
    check_common_facts(*reason);
    check_whole_set(*reason);
    BOOST_TEST(holds(*reason, "'VERDICT: FAIL'"));
    BOOST_TEST(holds(between(*reason, "'VERDICT: FAIL' for: ", ". "),
                     "viber:planner-task-review for T9-T13"));
}

BOOST_AUTO_TEST_CASE(a_plan_written_after_the_earliest_pass_needs_a_re_review) {
    Review review = passing_set(13);
    review.verdicts[0].timestamp = 100; // the spec PASS, the earliest deciding verdict
    review.verdicts[1].timestamp = 200;
    review.mtime = 150;
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: re-review."));
    check_common_facts(*reason);
    check_whole_set(*reason);
    BOOST_TEST(holds(*reason, "tasks: T1-T8"));
    BOOST_TEST(holds(*reason, "tasks: T9-T13"));
}

BOOST_AUTO_TEST_CASE(two_seconds_of_slack_after_the_earliest_pass) {
    Review review = passing_set(13);
    review.mtime = 1002;
    BOOST_TEST(!review.refusal());
    review.mtime = 1003;
    BOOST_TEST(starts_with(review.refusal().value_or(""), "Next step: re-review."));
}

BOOST_AUTO_TEST_CASE(a_missing_timestamp_or_mtime_skips_the_stale_check) {
    Review review = passing_set(13);
    review.mtime = std::nullopt;
    BOOST_TEST(!review.refusal());
    review.mtime = 99999;
    review.verdicts[0].timestamp = std::nullopt; // the earliest deciding verdict
    BOOST_TEST(!review.refusal());
}

BOOST_AUTO_TEST_CASE(whole_set_is_sliced_by_eight_over_every_task) {
    for (const std::size_t n : {13u, 16u, 20u}) {
        Review review = passing_set(n);
        review.mtime = 5000;
        const auto reason = review.refusal();
        BOOST_REQUIRE(reason);
        BOOST_TEST(starts_with(*reason, "Next step: re-review."));
        BOOST_TEST(holds(*reason, "tasks: T1-T8\n"));
        if (n == 13) {
            BOOST_TEST(holds(*reason, "tasks: T9-T13\n"));
            BOOST_TEST(occurrences(*reason, "tasks: T") == 2u);
        } else if (n == 16) {
            BOOST_TEST(holds(*reason, "tasks: T9-T16\n"));
            BOOST_TEST(occurrences(*reason, "tasks: T") == 2u);
        } else {
            BOOST_TEST(holds(*reason, "tasks: T9-T16\n"));
            BOOST_TEST(holds(*reason, "tasks: T17-T20\n"));
            BOOST_TEST(occurrences(*reason, "tasks: T") == 3u);
        }
    }
}

BOOST_AUTO_TEST_CASE(many_overlapping_reviews_of_a_long_plan_are_decided_per_task) {
    // Every task is decided by the latest of thousands of overlapping pairs; id-less dispatches
    // and verdicts pair in order across the whole run.
    Review review;
    review.tasks = 50000;
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    review.verdict(Verdict::pass, {spec});
    review.verdict(Verdict::pass, {graph});
    for (int i = 0; i < 3000; ++i) review.task_dispatch(1, 50000, "");
    for (int i = 0; i < 2999; ++i) review.verdict(Verdict::pass);
    const auto last = review.verdict(Verdict::fail); // pairs with the last id-less dispatch
    const auto reason = review.refusal();
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: fix the findings."));
    BOOST_TEST(holds(*reason, "viber:planner-task-review for T1-T50000 (dispatch line " +
                                  std::to_string(last - 3000) + ", verdict line " +
                                  std::to_string(last) + ")"));
    // 6,250 slices of 8: the first ones written out (after spec and graph), the rest counted.
    BOOST_TEST(occurrences(*reason, "tasks: T") == 14u);
    BOOST_TEST(holds(*reason, "tasks: T105-T112\n"));
    BOOST_TEST(holds(*reason, "- and 6236 more viber:planner-task-review dispatches"));
    BOOST_TEST(reason->size() <= 10000u);
}

BOOST_AUTO_TEST_CASE(a_plan_of_three_million_tasks_gets_a_bounded_reason) {
    // Every list a reason builds is cut: the parts missing, the slices to dispatch, the pairs
    // that failed, the running dispatches' lines.
    Review review;
    review.tasks = 3000000;
    const auto none_yet = review.refusal();
    BOOST_REQUIRE(none_yet);
    BOOST_TEST(starts_with(*none_yet, "Next step: review the plan."));
    BOOST_TEST(holds(*none_yet, "- and 374986 more viber:planner-task-review dispatches"));
    BOOST_TEST(none_yet->size() <= 10000u);

    // Every other task slice failed, the rest passed, 40 of them still running somewhere.
    const auto spec = review.dispatch("planner-spec-review", "toolu_s");
    const auto graph = review.dispatch("planner-graph-review", "toolu_g");
    review.verdict(Verdict::pass, {spec});
    review.verdict(Verdict::pass, {graph});
    for (std::size_t first = 1; first <= 400; first += 8) {
        const auto slice =
            review.task_dispatch(first, first + 7, "toolu_t" + std::to_string(first));
        review.verdict(first % 16 == 1 ? Verdict::fail : Verdict::pass, {slice});
    }
    for (int i = 0; i < 40; ++i)
        review.task_dispatch(401, 3000000, "toolu_open" + std::to_string(i));
    const auto running = review.refusal();
    BOOST_REQUIRE(running);
    BOOST_TEST(starts_with(*running, "Next step: let the review finish."));
    BOOST_TEST(holds(*running, "more lines"));
    BOOST_TEST(running->size() <= 10000u);

    for (int i = 0; i < 40; ++i) review.verdict(Verdict::pass, {review.dispatches.size() - 40 + i});
    const auto failed = review.refusal();
    BOOST_REQUIRE(failed);
    BOOST_TEST(starts_with(*failed, "Next step: fix the findings."));
    BOOST_TEST(holds(*failed, "more parts"));
    BOOST_TEST(failed->size() <= 10000u);
}

BOOST_AUTO_TEST_CASE(no_transcript_vectors_means_nothing_dispatched) {
    ReviewSetInput input;
    input.plan_path = "/repo/plans/p.md";
    input.plan_name = "p.md";
    input.tasks = 13;
    const auto reason = review_set_refusal(input);
    BOOST_REQUIRE(reason);
    BOOST_TEST(starts_with(*reason, "Next step: review the plan."));
}
