// plan_gate_test.cpp: the plan-gate decision (docs/plan-gate.md, steps 1, 2, 4 and the wiring of 3
// and 5) over hand-built inputs, one clause a case.
#define BOOST_TEST_MODULE plan_gate
#include "plan-gate/file_limit.hpp"
#include "plan-gate/plan_gate.hpp"
#include "plan-gate/reasons.hpp"
#include "plan-gate/review_set.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using namespace viber::plan_gate;
using viber::transcript::Dispatch;
using viber::transcript::PlanWrite;
using viber::transcript::Scan;
using viber::transcript::Verdict;
using viber::transcript::VerdictLine;

namespace {

constexpr std::size_t write_line = 10;
const std::string plan_path = "/repo/.claude/plans/x/plan.md";
const std::string refs = "/plugin/references";
const std::string planner_text = "---\nsource: interview\n---\n# Plan\n";
const std::string plain_text = "# Plan\nSome steps.\n";

bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}
bool ends_with(const std::string& text, std::string_view tail) {
    return text.ends_with(tail);
}

// A scan armed by a plan write on line 10 inside an episode starting on line 2.
Scan armed_scan(bool planner_signal) {
    Scan scan;
    scan.readable = true;
    scan.lines = 100;
    scan.episode_start = 2;
    if (planner_signal) scan.last_signal = 4;
    scan.last_plan_write = PlanWrite{write_line, plan_path};
    return scan;
}

GateInput planner_input(std::string text = planner_text) {
    GateInput input;
    input.scan = armed_scan(true);
    input.plan = Plan{plan_path, "plan.md", write_line, std::move(text), 1000};
    input.refs_dir = refs;
    return input;
}

GateInput plain_input(std::optional<bool> switch_on = true) {
    GateInput input;
    input.scan = armed_scan(false);
    input.plan = Plan{plan_path, "plan.md", write_line, plain_text, 1000};
    input.plain_review_on = switch_on;
    input.refs_dir = refs;
    return input;
}

std::size_t dispatch(GateInput& input, std::size_t line, std::string agent, std::string id = {}) {
    input.scan.dispatches.push_back(Dispatch{line, std::move(agent), std::move(id), "review"});
    return input.scan.dispatches.size() - 1;
}

void verdict(GateInput& input, std::size_t line, Verdict value, std::vector<std::size_t> named = {},
             std::optional<std::int64_t> timestamp = std::nullopt) {
    input.scan.verdicts.push_back(VerdictLine{line, value, timestamp, std::move(named)});
}

std::string tasks(std::size_t n) {
    std::string text = planner_text;
    for (std::size_t i = 0; i < n; ++i) text += "<!-- TASK -->\n## Task\n";
    return text;
}

} // namespace

// ---- step 1: arming ----

BOOST_AUTO_TEST_CASE(no_plan_write_allows) {
    GateInput input = planner_input();
    input.scan.last_plan_write.reset();
    BOOST_TEST(armed_plan_write(input.scan) == nullptr);
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(plan_write_before_the_episode_allows) {
    GateInput input = planner_input();
    input.scan.episode_start = 20;
    input.scan.last_signal = 21;
    BOOST_TEST(armed_plan_write(input.scan) == nullptr);
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(plan_write_on_the_episode_start_line_is_not_inside) {
    GateInput input = planner_input();
    input.scan.episode_start = write_line;
    BOOST_TEST(armed_plan_write(input.scan) == nullptr);
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(plan_write_inside_the_episode_arms) {
    GateInput input = planner_input();
    BOOST_TEST(armed_plan_write(input.scan) == &*input.scan.last_plan_write);
    BOOST_TEST(decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(plan_name_is_the_part_after_the_last_separator) {
    BOOST_TEST(plan_name("/repo/.claude/plans/x/plan.md") == "plan.md");
    BOOST_TEST(plan_name("C:\\Users\\me\\repo\\plans\\p.md") == "p.md");
    BOOST_TEST(plan_name("C:\\repo/plans\\mixed.md") == "mixed.md");
    BOOST_TEST(plan_name("bare.md") == "bare.md");
}

// ---- step 2: owner ----

BOOST_AUTO_TEST_CASE(frontmatter_with_lf) {
    BOOST_TEST(opens_with_planner_frontmatter("---\nsource: interview\n---\n# Plan\n"));
    BOOST_TEST(opens_with_planner_frontmatter("---\ntitle: x\nsource: bug\n---\n"));
}

BOOST_AUTO_TEST_CASE(frontmatter_with_crlf) {
    BOOST_TEST(opens_with_planner_frontmatter("---\r\ntitle: x\r\nsource: interview\r\n---\r\n"));
}

BOOST_AUTO_TEST_CASE(frontmatter_without_closing_line_reaches_end_of_file) {
    BOOST_TEST(opens_with_planner_frontmatter("---\ntitle: x\nsource: y"));
}

BOOST_AUTO_TEST_CASE(frontmatter_refusals) {
    BOOST_TEST(!opens_with_planner_frontmatter("\xEF\xBB\xBF---\nsource: x\n---\n")); // BOM
    BOOST_TEST(
        !opens_with_planner_frontmatter("---\ntitle: x\n---\nsource: x\n")); // after the block
    BOOST_TEST(!opens_with_planner_frontmatter("---\r\n---\r\nsource: x\r\n"));
    BOOST_TEST(!opens_with_planner_frontmatter("---\n source: x\n---\n")); // not column 0
    BOOST_TEST(!opens_with_planner_frontmatter("--- \nsource: x\n---\n")); // line 1 not exactly ---
    BOOST_TEST(!opens_with_planner_frontmatter("----\nsource: x\n---\n"));
    BOOST_TEST(!opens_with_planner_frontmatter("\n---\nsource: x\n---\n"));
    BOOST_TEST(!opens_with_planner_frontmatter("# Plan\nsource: x\n"));
    BOOST_TEST(!opens_with_planner_frontmatter("---\ntitle: x\n"));
    BOOST_TEST(!opens_with_planner_frontmatter(""));
}

BOOST_AUTO_TEST_CASE(planner_owns_with_signal_and_frontmatter) {
    const GateInput input = planner_input();
    BOOST_TEST(planner_owns_plan(input.scan, *input.plan));
    BOOST_TEST((route(input.scan, *input.plan) == Route::planner_review));
}

BOOST_AUTO_TEST_CASE(signal_through_its_entry_inside_the_episode_owns) {
    GateInput input = planner_input();
    input.scan.last_signal = 1; // before the episode start (a mid-turn mode flush)
    input.scan.last_signal_entry = 3;
    BOOST_TEST(planner_owns_plan(input.scan, *input.plan));
}

BOOST_AUTO_TEST_CASE(signal_without_frontmatter_is_plain) {
    const GateInput input = planner_input(plain_text);
    BOOST_TEST(!planner_owns_plan(input.scan, *input.plan));
    BOOST_TEST((route(input.scan, *input.plan) == Route::plain));
}

BOOST_AUTO_TEST_CASE(frontmatter_without_signal_is_plain) {
    GateInput input = planner_input();
    input.scan.last_signal = 0;
    BOOST_TEST(!planner_owns_plan(input.scan, *input.plan));
    BOOST_TEST((route(input.scan, *input.plan) == Route::plain));
}

BOOST_AUTO_TEST_CASE(signal_before_the_episode_is_plain) {
    GateInput input = planner_input();
    input.scan.last_signal = 1;
    BOOST_TEST(!planner_owns_plan(input.scan, *input.plan));
}

BOOST_AUTO_TEST_CASE(unreadable_plan_keeps_the_planner) {
    GateInput input = planner_input();
    input.plan->text.reset();
    input.plan->mtime.reset();
    BOOST_TEST(planner_owns_plan(input.scan, *input.plan));
    BOOST_TEST((route(input.scan, *input.plan) == Route::planner_review));
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
    BOOST_TEST(contains(*reason, "viber:planner-review"));
}

BOOST_AUTO_TEST_CASE(unreadable_plan_without_signal_is_plain) {
    GateInput input = plain_input(false);
    input.plan->text.reset();
    BOOST_TEST((route(input.scan, *input.plan) == Route::plain));
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(more_than_twelve_tasks_goes_to_the_review_set) {
    const GateInput input = planner_input(tasks(13));
    BOOST_TEST((route(input.scan, *input.plan) == Route::review_set));
}

BOOST_AUTO_TEST_CASE(twelve_tasks_stay_with_planner_review) {
    const GateInput input = planner_input(tasks(12));
    BOOST_TEST((route(input.scan, *input.plan) == Route::planner_review));
}

BOOST_AUTO_TEST_CASE(plain_plan_with_the_switch_off_allows) {
    BOOST_TEST(!decide(plain_input(false)).has_value());
}

BOOST_AUTO_TEST_CASE(plain_plan_with_the_switch_not_consulted_allows) {
    BOOST_TEST(!decide(plain_input(std::nullopt)).has_value());
}

BOOST_AUTO_TEST_CASE(plain_plan_with_the_switch_on_is_gated) {
    const auto reason = decide(plain_input(true));
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
    BOOST_TEST(contains(*reason, "viber:plain-plan-review"));
}

// ---- step 3 and step 5 wiring ----

namespace {
// A tally of `n` files src/f1.ts, src/f2.ts, ...
viber::plan_gate::FileTally numbered_files(int n) {
    std::vector<std::string> files;
    for (int i = 1; i <= n; ++i) files.push_back("src/f" + std::to_string(i) + ".ts");
    return viber::plan_gate::FileTally{files.size(), files};
}
} // namespace

BOOST_AUTO_TEST_CASE(plain_file_limit_comes_before_a_pass) {
    GateInput input = plain_input(true);
    input.counted_files = numbered_files(9);
    const std::size_t d = dispatch(input, 12, "plain-plan-review", "toolu_P");
    verdict(input, 13, Verdict::pass, {d});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST((reason == file_limit_refusal(input.counted_files, "plan.md")));
    BOOST_TEST(reason->starts_with("Next step: narrow the plan."));
}

BOOST_AUTO_TEST_CASE(plain_plan_at_the_file_limit_goes_on_to_the_review) {
    GateInput input = plain_input(true);
    input.counted_files = numbered_files(8);
    const std::size_t d = dispatch(input, 12, "plain-plan-review", "toolu_P");
    verdict(input, 13, Verdict::pass, {d});
    BOOST_TEST(!decide(input).has_value());
    input.scan.verdicts.clear();
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
}

BOOST_AUTO_TEST_CASE(file_limit_does_not_apply_with_the_switch_off) {
    GateInput input = plain_input(false);
    input.counted_files = numbered_files(9);
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(review_set_decides_a_large_planner_plan) {
    GateInput input = planner_input(tasks(13));
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_R");
    verdict(input, 13, Verdict::pass, {d}, 1000);
    ReviewSetInput set;
    set.plan_path = plan_path;
    set.plan_name = "plan.md";
    set.tasks = 13;
    set.plan_write_line = write_line;
    set.refs_dir = refs;
    set.plan_mtime = 1000;
    set.dispatches = &input.scan.dispatches;
    set.verdicts = &input.scan.verdicts;
    const auto expected = review_set_refusal(set);
    BOOST_REQUIRE(expected.has_value()); // a planner-review PASS counts for nothing there
    BOOST_TEST((decide(input) == expected));
}

// ---- step 4: the single reviewer ----

BOOST_AUTO_TEST_CASE(no_dispatch_says_what_to_dispatch_planner_review_with) {
    const auto reason = decide(planner_input());
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
    BOOST_TEST(contains(*reason, "viber:planner-review"));
    BOOST_TEST(contains(*reason, "plan.md"));
    BOOST_TEST(contains(*reason, plan_path));
    BOOST_TEST(contains(*reason, "refs: " + refs));
    BOOST_TEST(contains(*reason, "memory:"));
    BOOST_TEST(contains(*reason, "planner's resolved config value"));
    BOOST_TEST(contains(*reason, "input:"));
    BOOST_TEST(contains(*reason, "confirmed interview summary or bug diagnosis, verbatim"));
    BOOST_TEST(contains(*reason, "VERDICT: PASS"));
    BOOST_TEST(contains(*reason, "write to the plan after the PASS voids it"));
    BOOST_TEST(contains(*reason, "Minor findings unapplied"));
    BOOST_TEST(ends_with(*reason, planner_gate_trailer));
}

BOOST_AUTO_TEST_CASE(no_dispatch_says_what_to_dispatch_plain_plan_review_with) {
    const auto reason = decide(plain_input(true));
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
    BOOST_TEST(contains(*reason, "viber:plain-plan-review"));
    BOOST_TEST(contains(*reason, "plan.md"));
    BOOST_TEST(contains(*reason, plan_path));
    BOOST_TEST(contains(*reason, "one sentence stating the user's goal"));
    BOOST_TEST(!contains(*reason, "refs:"));
    BOOST_TEST(contains(*reason, "VERDICT: PASS"));
    BOOST_TEST(contains(*reason, "Minor findings unapplied"));
    BOOST_TEST(ends_with(*reason, plain_gate_trailer));
    BOOST_TEST(contains(*reason, "planning.plain-plan-review in .claude/viber.yml"));
}

BOOST_AUTO_TEST_CASE(dispatch_of_another_agent_is_no_dispatch) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "plain-plan-review", "toolu_X");
    verdict(input, 13, Verdict::pass, {d});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
}

BOOST_AUTO_TEST_CASE(plain_path_answers_only_to_plain_plan_review) {
    GateInput input = plain_input(true);
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_X");
    verdict(input, 13, Verdict::pass, {d});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
    BOOST_TEST(contains(*reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(dispatch_before_the_plan_write_is_no_dispatch) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 5, "planner-review", "toolu_old");
    verdict(input, 6, Verdict::pass, {d});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
}

BOOST_AUTO_TEST_CASE(dispatch_without_verdict_lets_the_review_finish) {
    GateInput input = planner_input();
    dispatch(input, 14, "planner-review", "toolu_A");
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
    BOOST_TEST(contains(*reason, "viber:planner-review"));
    BOOST_TEST(contains(*reason, "plan.md"));
    BOOST_TEST(contains(*reason, "line 14"));
    BOOST_TEST(contains(*reason, "line 10"));
    BOOST_TEST(ends_with(*reason, planner_gate_trailer));
}

BOOST_AUTO_TEST_CASE(no_pair_names_the_last_dispatch) {
    GateInput input = planner_input();
    dispatch(input, 14, "planner-review", "toolu_A");
    dispatch(input, 27, "planner-review", "toolu_B");
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(contains(*reason, "line 27"));
    BOOST_TEST(!contains(*reason, "line 14"));
}

BOOST_AUTO_TEST_CASE(verdict_while_nothing_is_open_is_ignored) {
    GateInput input = planner_input();
    verdict(input, 12, Verdict::pass);
    dispatch(input, 14, "planner-review");
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
}

BOOST_AUTO_TEST_CASE(verdict_before_the_plan_write_is_ignored) {
    GateInput input = planner_input();
    dispatch(input, 14, "planner-review");
    verdict(input, 8, Verdict::pass);
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
}

BOOST_AUTO_TEST_CASE(id_dispatch_pairs_only_with_a_verdict_naming_it) {
    GateInput input = planner_input();
    const std::size_t mine = dispatch(input, 12, "planner-review", "toolu_mine");
    verdict(input, 13, Verdict::pass); // foreign: names no id
    auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
    verdict(input, 15, Verdict::fail, {mine});
    reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: fix the findings."));
}

BOOST_AUTO_TEST_CASE(sibling_verdict_does_not_answer_for_an_id_dispatch) {
    GateInput input = planner_input();
    const std::size_t sibling = dispatch(input, 11, "plain-plan-review", "toolu_sib");
    dispatch(input, 12, "planner-review", "toolu_mine");
    verdict(input, 13, Verdict::pass, {sibling});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
}

BOOST_AUTO_TEST_CASE(id_less_dispatch_pairs_with_the_next_verdict) {
    GateInput input = planner_input();
    dispatch(input, 12, "planner-review");
    verdict(input, 13, Verdict::pass);
    verdict(input, 14, Verdict::fail); // after the pair closed: ignored
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(a_new_dispatch_replaces_the_open_one) {
    GateInput input = planner_input();
    const std::size_t first = dispatch(input, 12, "planner-review", "toolu_one");
    dispatch(input, 13, "planner-review", "toolu_two");
    verdict(input, 14, Verdict::pass, {first});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
    BOOST_TEST(contains(*reason, "line 13"));
}

BOOST_AUTO_TEST_CASE(denied_asks_to_grant_the_permission) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::denied, {d});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: grant the permission."));
    BOOST_TEST(contains(*reason, "viber:planner-review"));
    BOOST_TEST(contains(*reason, "plan.md"));
    BOOST_TEST(contains(*reason, "REASON:"));
    BOOST_TEST(contains(*reason, "allow"));
    BOOST_TEST(contains(*reason, "again"));
    BOOST_TEST(ends_with(*reason, planner_gate_trailer));
}

BOOST_AUTO_TEST_CASE(fail_asks_to_fix_the_findings) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::fail, {d});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: fix the findings."));
    BOOST_TEST(contains(*reason, "'VERDICT: FAIL'"));
    BOOST_TEST(contains(*reason, "viber:planner-review"));
    BOOST_TEST(contains(*reason, "plan.md"));
    BOOST_TEST(contains(*reason, "line 12"));
    BOOST_TEST(contains(*reason, "line 15"));
    BOOST_TEST(ends_with(*reason, planner_gate_trailer));
}

BOOST_AUTO_TEST_CASE(pass_allows) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::pass, {d}, 1000);
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(fail_then_pass_allows) {
    GateInput input = planner_input();
    const std::size_t a = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 13, Verdict::fail, {a});
    const std::size_t b = dispatch(input, 14, "planner-review", "toolu_B");
    verdict(input, 15, Verdict::pass, {b});
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(pass_then_fail_denies) {
    GateInput input = planner_input();
    const std::size_t a = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 13, Verdict::pass, {a});
    const std::size_t b = dispatch(input, 14, "planner-review", "toolu_B");
    verdict(input, 15, Verdict::fail, {b});
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: fix the findings."));
    BOOST_TEST(contains(*reason, "line 14"));
    BOOST_TEST(contains(*reason, "line 15"));
}

BOOST_AUTO_TEST_CASE(earlier_pass_decides_while_a_newer_dispatch_runs) {
    GateInput input = planner_input();
    const std::size_t a = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 13, Verdict::pass, {a});
    dispatch(input, 14, "planner-review", "toolu_B");
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(plain_pass_allows_and_planner_path_ignores_it) {
    GateInput plain = plain_input(true);
    const std::size_t d = dispatch(plain, 12, "plain-plan-review", "toolu_P");
    verdict(plain, 13, Verdict::pass, {d});
    BOOST_TEST(!decide(plain).has_value());

    GateInput planner = planner_input();
    planner.scan.dispatches = plain.scan.dispatches;
    planner.scan.verdicts = plain.scan.verdicts;
    const auto reason = decide(planner);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: review the plan."));
}

// ---- step 4: the tamper check ----

BOOST_AUTO_TEST_CASE(plan_touched_after_the_pass_needs_a_re_review) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::pass, {d}, 1000);
    input.plan->mtime = 1003;
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: re-review."));
    BOOST_TEST(contains(*reason, "viber:planner-review"));
    BOOST_TEST(contains(*reason, "plan.md"));
    BOOST_TEST(ends_with(*reason, planner_gate_trailer));
}

BOOST_AUTO_TEST_CASE(plan_within_two_seconds_of_the_pass_allows) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::pass, {d}, 1000);
    input.plan->mtime = 1002;
    BOOST_TEST(!decide(input).has_value());
    input.plan->mtime = 900;
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(missing_timestamp_skips_the_tamper_check) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::pass, {d});
    input.plan->mtime = 999999;
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(missing_plan_file_skips_the_tamper_check) {
    GateInput input = planner_input();
    const std::size_t d = dispatch(input, 12, "planner-review", "toolu_A");
    verdict(input, 15, Verdict::pass, {d}, 1000);
    input.plan->mtime.reset();
    input.plan->text.reset();
    BOOST_TEST(!decide(input).has_value());
}

BOOST_AUTO_TEST_CASE(plain_re_review_ends_with_the_plain_trailer) {
    GateInput input = plain_input(true);
    const std::size_t d = dispatch(input, 12, "plain-plan-review", "toolu_P");
    verdict(input, 13, Verdict::pass, {d}, 1000);
    input.plan->mtime = 2000;
    const auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: re-review."));
    BOOST_TEST(contains(*reason, "viber:plain-plan-review"));
    BOOST_TEST(ends_with(*reason, plain_gate_trailer));
}

BOOST_AUTO_TEST_CASE(plain_refusals_end_with_the_plain_trailer) {
    GateInput input = plain_input(true);
    const std::size_t d = dispatch(input, 12, "plain-plan-review", "toolu_P");
    verdict(input, 13, Verdict::denied, {d});
    auto reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: grant the permission."));
    BOOST_TEST(ends_with(*reason, plain_gate_trailer));
    input.scan.verdicts.back().value = Verdict::fail;
    reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: fix the findings."));
    BOOST_TEST(ends_with(*reason, plain_gate_trailer));
    input.scan.verdicts.clear();
    reason = decide(input);
    BOOST_REQUIRE(reason.has_value());
    BOOST_TEST(reason->starts_with("Next step: let the review finish."));
    BOOST_TEST(ends_with(*reason, plain_gate_trailer));
}
