// file_limit_test.cpp: plan-gate step 3 (docs/plan-gate.md, step 3) through the real binary: with
// planning.plain-plan-review on, a plain plan naming more than 8 distinct repository files is
// refused before any review check, a plain-plan-review PASS included.
#define BOOST_TEST_MODULE plan_gate_file_limit
#include "common/os/git.hpp"
#include "gate_fixture.hpp"
#include "support/platform.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

namespace {

constexpr std::string_view config_on = "#!/bin/bash\necho 'planning.plain-plan-review: true'\n";
constexpr std::string_view config_off = "#!/bin/bash\necho 'planning.plain-plan-review: false'\n";

// A plain plan (no frontmatter) naming src/f1.ts … src/f<n>.ts, plus `extra` text.
std::string plain_plan_naming(std::size_t n, std::string_view extra = "") {
    std::string text = "# Plan\n\n| file | change |\n|---|---|\n";
    for (std::size_t i = 1; i <= n; ++i) text += "- Change `src/f" + std::to_string(i) + ".ts`.\n";
    return text + std::string(extra);
}

// A plain episode whose plan at <project>/.claude/plans/p.md holds `text`.
struct PlainPlan {
    Gate gate;
    TranscriptBuilder t;
    std::string path;

    explicit PlainPlan(std::string_view text, std::string_view config = config_on) {
        gate.config(config);
        path = gate.plan(".claude/plans/p.md", text);
        viber::testing::set_mtime(path, verdict_epoch - 60);
        plain_episode(t);
        t.write_file(path, text);
    }

    void pass_review() {
        t.dispatch("viber:plain-plan-review", "toolu_P", path + "\nThe user wants the feature.");
        t.tool_result("toolu_P", "## Review\nVERDICT: PASS\n", verdict_iso);
    }

    Answer ask() { return gate.ask(t); }
};

void require_narrow(const Answer& answer, std::size_t count) {
    require_deny(answer, "Next step: narrow the plan.");
    BOOST_TEST(has(answer.reason, "p.md"));
    BOOST_TEST(has(answer.reason, " " + std::to_string(count) + " "));
    BOOST_TEST(has(answer.reason, "8"));
    BOOST_TEST(has(answer.reason, "at most 8 files"));
    BOOST_TEST(has(answer.reason, "viber planner"));
    BOOST_TEST(
        answer.reason.ends_with("This is the plain plan review gate (planning.plain-plan-review in "
                                ".claude/viber.yml), not an error."));
}

} // namespace

BOOST_AUTO_TEST_CASE(eight_files_go_on_to_the_review_check, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(8));
    const Answer answer = plan.ask();
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(eight_files_with_a_pass_are_allowed, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(8));
    plan.pass_review();
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(nine_files_are_refused_and_listed, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(9));
    const Answer answer = plan.ask();
    require_narrow(answer, 9);
    for (int i = 1; i <= 9; ++i) {
        BOOST_TEST(has(answer.reason, plan.gate.project() / ("src/f" + std::to_string(i) + ".ts")));
    }
}

BOOST_AUTO_TEST_CASE(nine_files_with_a_pass_are_still_refused, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(9));
    plan.pass_review();
    require_narrow(plan.ask(), 9);
}

BOOST_AUTO_TEST_CASE(the_switch_off_sets_no_limit, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(30), config_off);
    require_allow(plan.ask());
}

BOOST_AUTO_TEST_CASE(no_config_script_sets_no_limit, *viber::testing::needs_bash()) {
    Gate gate;
    const std::string text = plain_plan_naming(30);
    const std::string path = gate.plan(".claude/plans/p.md", text);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(path, text);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(a_planner_plan_has_no_file_limit, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(config_on);
    const std::string text = "---\nsource: x\n---\n" + plain_plan_naming(30);
    const std::string path = gate.plan(".claude/plans/p.md", text);
    viber::testing::set_mtime(path, verdict_epoch - 60);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(path, text);
    t.dispatch("viber:planner-review", "toolu_R", path);
    t.tool_result("toolu_R", "VERDICT: PASS\n", verdict_iso);
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(spellings_of_one_file_count_once, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(config_on);
    std::string text = plain_plan_naming(8);
    text += "Also `./src/f1.ts`, " + (gate.project() / "src/f2.ts") +
            ", (src//f3.ts), \"src/lib/../f4.ts\", " + "src\\f5.ts, " +
            (gate.project() / "src/./f6.ts") + " and '" + (gate.project() / "src/f7.ts") + "'.\n";
    const std::string path = gate.plan(".claude/plans/p.md", text);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(path, text);
    require_deny(gate.ask(t), "Next step: review the plan.");

    // One more distinct file crosses the limit, so the eight above were each counted once.
    const std::string more = text + "And src/f9.ts.\n";
    gate.plan(".claude/plans/p.md", more);
    require_narrow(gate.ask(t), 9);
}

BOOST_AUTO_TEST_CASE(a_table_cell_counts_apart_from_its_path, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(8, "|src/f1.ts|\n"));
    require_narrow(plan.ask(), 9);
}

BOOST_AUTO_TEST_CASE(urls_temp_paths_outside_paths_and_the_plan_itself_count_nothing,
                     *viber::testing::needs_bash()) {
    PlainPlan plan(
        plain_plan_naming(8, "See https://example.com/guide/setup.html and .temp/notes.md,\n"
                             "/etc/ssl/openssl.cnf, ../other/x.ts and .claude/plans/p.md.\n"));
    require_deny(plan.ask(), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(an_existing_file_without_a_path_shape_counts, *viber::testing::needs_bash()) {
    PlainPlan plan(plain_plan_naming(8, "Then update Makefile and the docs.\n"));
    require_deny(plan.ask(), "Next step: review the plan."); // no Makefile yet: a word
    plan.gate.project().write("Makefile", "all:\n");
    const Answer answer = plan.ask();
    require_narrow(answer, 9);
    BOOST_TEST(has(answer.reason, plan.gate.project() / "Makefile"));
}

BOOST_AUTO_TEST_CASE(the_root_is_the_git_top_level_of_cwd, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(config_on);
    gate.project().mkdir(".git");
    const std::string sub = gate.project().mkdir("sub");
    // Files at the top level, outside cwd: they count only because the root is the git top level.
    std::string text = "# Plan\n";
    for (int i = 1; i <= 9; ++i)
        text += gate.project() / ("top" + std::to_string(i) + ".ts") + "\n";
    const std::string path = gate.plan(".claude/plans/p.md", text);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(path, text);
    json::object payload = gate.payload(t);
    payload["cwd"] = sub;
    require_narrow(gate.ask(payload), 9);
}

BOOST_AUTO_TEST_CASE(without_git_the_root_is_cwd, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(config_on);
    BOOST_REQUIRE(
        !viber::git_top_level(gate.project().path())); // the scratch tree is outside any repository
    const std::string sub = gate.project().mkdir("sub");
    std::string text = "# Plan\n";
    for (int i = 1; i <= 9; ++i)
        text += gate.project() / ("top" + std::to_string(i) + ".ts") + "\n";
    const std::string path = gate.plan(".claude/plans/p.md", text);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(path, text);
    json::object payload = gate.payload(t);
    payload["cwd"] = sub;
    require_deny(gate.ask(payload), "Next step: review the plan."); // all nine lie outside cwd

    // Relative tokens are taken against cwd then.
    std::string relative = "# Plan\n";
    for (int i = 1; i <= 9; ++i) relative += "src/r" + std::to_string(i) + ".ts\n";
    gate.plan(".claude/plans/p.md", relative);
    require_narrow(gate.ask(payload), 9);
}

BOOST_AUTO_TEST_CASE(an_unreadable_plan_counts_nothing, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(config_on);
    const std::string dir = gate.project().mkdir(".claude/plans/d.md");
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(dir, plain_plan_naming(30));
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "viber:plain-plan-review"));
}

BOOST_AUTO_TEST_CASE(a_fifo_or_device_plan_counts_nothing_and_never_blocks,
                     *viber::testing::posix_only("a FIFO") * viber::testing::needs_bash()) {
    // Outside a planner episode the plan is plain whatever it holds, and only the count opens it:
    // a FIFO nobody writes must not hold the gate, and /dev/zero must not be read without end.
    Gate gate;
    gate.config(config_on);
    for (const std::string& plan : fifo_and_device_plans(gate)) {
        TranscriptBuilder t;
        plain_episode(t);
        t.write_file(plan, plain_plan_naming(30));
        const Answer answer = gate.ask(t);
        BOOST_TEST(!answer.run.timed_out, plan);
        require_deny(answer, "Next step: review the plan.");
        BOOST_TEST(has(answer.reason, "viber:plain-plan-review"), plan);
    }
}
