// transcript_verdict_test.cpp: the verdict grammar of docs/plan-gate.md, step 4 on single string
// values, and the small shared definitions beside it (plan paths, agent names, timestamps).
#define BOOST_TEST_MODULE transcript_verdict
#include "common/transcript/transcript.hpp"

#include <boost/test/unit_test.hpp>
#include <optional>

using namespace viber::transcript;

namespace {
std::optional<Verdict> content(std::string_view text) {
    return verdict_in_string(text, true);
}
std::optional<Verdict> other(std::string_view text) {
    return verdict_in_string(text, false);
}
bool is(std::optional<Verdict> got, Verdict want) {
    return got.has_value() && *got == want;
}
} // namespace

// ---- verdict grammar --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(each_value_at_the_start_of_a_content_string) {
    BOOST_TEST(is(content("VERDICT: PASS"), Verdict::pass));
    BOOST_TEST(is(content("VERDICT: FAIL"), Verdict::fail));
    BOOST_TEST(is(content("VERDICT: DENIED"), Verdict::denied));
}

BOOST_AUTO_TEST_CASE(string_start_counts_only_for_content_and_text_values) {
    BOOST_TEST(!other("VERDICT: PASS").has_value());
    BOOST_TEST(is(other("x\nVERDICT: PASS"), Verdict::pass));
}

BOOST_AUTO_TEST_CASE(after_a_newline_inside_any_string) {
    BOOST_TEST(is(content("## Plan Review\nVERDICT: PASS\n..."), Verdict::pass));
    BOOST_TEST(is(other("## Plan Review\nVERDICT: FAIL\n..."), Verdict::fail));
}

BOOST_AUTO_TEST_CASE(right_after_result_tag) {
    BOOST_TEST(is(other("<task-notification><result>VERDICT: PASS</result>"), Verdict::pass));
    BOOST_TEST(is(other("x <result>VERDICT: DENIED\n</result>"), Verdict::denied));
}

BOOST_AUTO_TEST_CASE(prose_verdict_is_not_a_verdict) {
    BOOST_TEST(!content("The reviewer said VERDICT: PASS").has_value());
    BOOST_TEST(!content("x VERDICT: PASS").has_value());
    BOOST_TEST(!content("x\nsaid VERDICT: PASS").has_value());
    BOOST_TEST(!content("<result>x VERDICT: PASS").has_value());
    BOOST_TEST(!other(" VERDICT: PASS").has_value()); // a string start anchors only content/text
}

// Spaces or tabs before the marker, in every anchored place (the original read spaces only).
BOOST_AUTO_TEST_CASE(an_indented_verdict_is_a_verdict) {
    BOOST_TEST(is(content("   VERDICT: PASS"), Verdict::pass));
    BOOST_TEST(is(content("\t VERDICT: FAIL"), Verdict::fail));
    BOOST_TEST(is(other("x\n   VERDICT: PASS"), Verdict::pass));
    BOOST_TEST(is(other("x\n\t\tVERDICT: DENIED\n"), Verdict::denied));
    BOOST_TEST(is(other("<result> \tVERDICT: PASS</result>"), Verdict::pass));
    BOOST_TEST(is(content("x VERDICT: PASS\n  VERDICT: FAIL"), Verdict::fail));
    BOOST_TEST(!content("  VERDICT: PASS is not warranted").has_value());
}

BOOST_AUTO_TEST_CASE(backticked_values) {
    BOOST_TEST(is(content("VERDICT: `PASS`"), Verdict::pass));
    BOOST_TEST(is(content("VERDICT: `FAIL`\nmore"), Verdict::fail));
    BOOST_TEST(is(content("VERDICT: `DENIED"), Verdict::denied));
    BOOST_TEST(is(content("VERDICT: PASS`"), Verdict::pass));
    BOOST_TEST(!content("VERDICT: ``PASS").has_value());
    BOOST_TEST(!content("VERDICT: PASS``").has_value());
}

BOOST_AUTO_TEST_CASE(spaces_tabs_and_cr) {
    BOOST_TEST(is(content("VERDICT:\tPASS"), Verdict::pass));
    BOOST_TEST(is(content("VERDICT:  \t FAIL \t"), Verdict::fail));
    BOOST_TEST(is(content("VERDICT: PASS\r"), Verdict::pass));
    BOOST_TEST(is(content("VERDICT: PASS \r\nnext"), Verdict::pass));
    BOOST_TEST(!content("VERDICT:PASS").has_value());
    BOOST_TEST(!content("VERDICT:\nPASS").has_value());
    BOOST_TEST(!content("VERDICT: PASS\rx").has_value());
}

BOOST_AUTO_TEST_CASE(value_must_end_the_line_the_string_or_meet_a_tag) {
    BOOST_TEST(is(content("VERDICT: FAIL</result>"), Verdict::fail));
    BOOST_TEST(is(content("VERDICT: PASS <br>"), Verdict::pass));
    BOOST_TEST(!content("VERDICT: PASS is not warranted").has_value());
    BOOST_TEST(!content("VERDICT: PASSED").has_value());
    BOOST_TEST(!content("VERDICT: PASS.").has_value());
    BOOST_TEST(!content("VERDICT: pass").has_value());
    BOOST_TEST(!content("VERDICT: PASS/FAIL").has_value());
    BOOST_TEST(!content("VERDICT: ").has_value());
}

BOOST_AUTO_TEST_CASE(not_warranted_before_a_real_fail_reads_fail) {
    BOOST_TEST(is(content("VERDICT: PASS is not warranted\nVERDICT: FAIL\n"), Verdict::fail));
    BOOST_TEST(is(other("quote:\nVERDICT: PASS is not warranted\nVERDICT: FAIL"), Verdict::fail));
}

BOOST_AUTO_TEST_CASE(the_first_well_formed_verdict_in_a_string_wins) {
    BOOST_TEST(is(content("VERDICT: FAIL\nVERDICT: PASS"), Verdict::fail));
    BOOST_TEST(is(content("said VERDICT: PASS\nVERDICT: DENIED"), Verdict::denied));
}

// ---- plan paths -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(plan_paths_that_arm) {
    BOOST_TEST(is_plan_path("/repo/.claude/plans/x/p.md"));
    BOOST_TEST(is_plan_path("C:\\Users\\me\\repo\\plans\\p.md"));
    BOOST_TEST(is_plan_path("/repo//plans//p.md"));
    BOOST_TEST(is_plan_path("C:/repo/plans\\p.md"));
    BOOST_TEST(is_plan_path("/plans/p.md"));
    BOOST_TEST(is_plan_path("/a/plansx/b/plans/c.md"));
}

BOOST_AUTO_TEST_CASE(plan_paths_that_do_not_arm) {
    BOOST_TEST(!is_plan_path("plans/p.md"));
    BOOST_TEST(!is_plan_path("/repo/myplans/p.md"));
    BOOST_TEST(!is_plan_path("/repo/plansx/p.md"));
    BOOST_TEST(!is_plan_path("/repo/plans.md"));
    BOOST_TEST(!is_plan_path("/repo/plans/p.MD"));
    BOOST_TEST(!is_plan_path("/repo/plans/p.md.bak"));
    BOOST_TEST(!is_plan_path("/repo/plans/p.txt"));
    BOOST_TEST(!is_plan_path("/repo/plan/p.md"));
    BOOST_TEST(!is_plan_path(""));
}

// ---- agent names ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(agent_prefix_is_removed_once) {
    BOOST_TEST(agent_of("viber:planner-review") == "planner-review");
    BOOST_TEST(agent_of("planner-review") == "planner-review");
    BOOST_TEST(agent_of("my.plug_in-2:plain-plan-review") == "plain-plan-review");
    BOOST_TEST(agent_of("a:b:c") == "b:c");
    BOOST_TEST(agent_of(":x") == ":x");
    BOOST_TEST(agent_of("a b:x") == "a b:x");
}

// ---- timestamps -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(timestamp_zulu_and_fraction) {
    BOOST_TEST(
        (parse_timestamp("2026-10-01T10:00:00Z") == std::optional<std::int64_t>(1790848800)));
    BOOST_TEST(
        (parse_timestamp("2026-10-01T10:00:00.999Z") == std::optional<std::int64_t>(1790848800)));
    BOOST_TEST((parse_timestamp("2026-10-01T10:00:00.1234567Z") ==
                std::optional<std::int64_t>(1790848800)));
    BOOST_TEST((parse_timestamp("1970-01-01T00:00:00Z") == std::optional<std::int64_t>(0)));
}

BOOST_AUTO_TEST_CASE(timestamp_without_zone_is_utc) {
    BOOST_TEST((parse_timestamp("2026-10-01T10:00:00") == std::optional<std::int64_t>(1790848800)));
    BOOST_TEST(
        (parse_timestamp("2000-02-29T23:59:59.5") == std::optional<std::int64_t>(951868799)));
}

BOOST_AUTO_TEST_CASE(timestamp_numeric_offsets) {
    BOOST_TEST(
        (parse_timestamp("2026-10-01T12:00:00+02:00") == std::optional<std::int64_t>(1790848800)));
    BOOST_TEST(
        (parse_timestamp("2026-10-01T12:00:00+0200") == std::optional<std::int64_t>(1790848800)));
    BOOST_TEST((parse_timestamp("2026-10-01T05:30:00.5-04:30") ==
                std::optional<std::int64_t>(1790848800)));
    BOOST_TEST(
        (parse_timestamp("2025-01-01T00:00:00+00:30") == std::optional<std::int64_t>(1735687800)));
}

BOOST_AUTO_TEST_CASE(timestamp_anything_else_is_nullopt) {
    for (const std::string_view bad :
         {"", "2026-10-01", "2026-10-01 10:00:00Z", "2026-10-01t10:00:00Z", "2026-13-01T10:00:00Z",
          "2026-02-30T10:00:00Z", "2026-10-01T24:00:00Z", "2026-10-01T10:60:00Z",
          "2026-10-01T10:00:00.Z", "2026-10-01T10:00:00+2", "2026-10-01T10:00:00+02:0",
          "2026-10-01T10:00:00+0200x", "2026-10-01T10:00:00Zx", "2026-10-01T10:00:00 ",
          "26-10-01T10:00:00Z", "2026-1O-01T10:00:00Z", "2026-10-01T10:00:00+25:00", "1710000000",
          "2025-02-29T00:00:00Z"}) {
        BOOST_TEST(!parse_timestamp(bad).has_value(), bad);
    }
}
