// model_test.cpp: the plain model (tests/model/) on the examples SPEC §3-§4 spells out, so a
// difference the differential tests find is settled against a model that holds to them.
#define BOOST_TEST_MODULE model
#include "model/model.hpp"

#include <boost/test/unit_test.hpp>
#include <set>
#include <string>

using namespace viber::model;

BOOST_AUTO_TEST_CASE(a_plan_path_arms_as_the_spec_spells_it) {
    BOOST_TEST(arms_plan_path("/repo/.claude/plans/x/p.md"));
    BOOST_TEST(arms_plan_path("C:\\Users\\me\\repo\\plans\\p.md"));
    BOOST_TEST(arms_plan_path("/repo//plans//p.md"));
    BOOST_TEST(!arms_plan_path("plans/p.md"));
    BOOST_TEST(!arms_plan_path("/repo/myplans/p.md"));
    BOOST_TEST(!arms_plan_path("/repo/plans/p.MD"));
    BOOST_TEST(!arms_plan_path("/repo/plans/p.txt"));
}

BOOST_AUTO_TEST_CASE(a_verdict_stands_where_the_spec_anchors_it) {
    BOOST_TEST(verdict_in_string("   VERDICT: PASS", true).value_or("") == "PASS");
    BOOST_TEST(!verdict_in_string("VERDICT: PASS is not warranted", true));
    BOOST_TEST(
        verdict_in_string("VERDICT: PASS is not warranted\nVERDICT: FAIL", true).value_or("") ==
        "FAIL");
    BOOST_TEST(verdict_in_string("review\n\tVERDICT: `DENIED` \r\nREASON: x", false).value_or("") ==
               "DENIED");
    BOOST_TEST(verdict_in_string("<result>VERDICT: FAIL</result>", false).value_or("") == "FAIL");
    BOOST_TEST(verdict_in_string("VERDICT: PASS<br>", true).value_or("") == "PASS");
    BOOST_TEST(!verdict_in_string("VERDICT: PASS", false)); // not a content or text string
    BOOST_TEST(!verdict_in_string("VERDICT:PASS", true));
    BOOST_TEST(!verdict_in_string("Summary VERDICT: PASS", true));
    BOOST_TEST(!verdict_in_string("VERDICT: PASSED", true));
}

BOOST_AUTO_TEST_CASE(a_timestamp_reads_in_whole_utc_seconds) {
    const long long at = 1790848800; // 2026-10-01T10:00:00Z
    BOOST_TEST(parse_timestamp("2026-10-01T10:00:00.999Z").value_or(0) == at);
    BOOST_TEST(parse_timestamp("2026-10-01T12:00:00+02:00").value_or(0) == at);
    BOOST_TEST(parse_timestamp("2026-10-01T04:30:00-05:30").value_or(0) == at);
    BOOST_TEST(parse_timestamp("2026-10-01T10:00:00").value_or(0) == at);
    BOOST_TEST(!parse_timestamp("yesterday"));
}

BOOST_AUTO_TEST_CASE(the_frontmatter_and_the_tasks_read_by_line) {
    BOOST_TEST(planner_frontmatter("---\nsource: interview\n---\n# Plan\n"));
    BOOST_TEST(planner_frontmatter("---\r\ntitle: x\r\nsource: bug\r\n---\r\n"));
    BOOST_TEST(planner_frontmatter("---\nsource: x")); // no closing line: the end of the file
    BOOST_TEST(!planner_frontmatter("\xEF\xBB\xBF---\nsource: x\n---\n"));
    BOOST_TEST(!planner_frontmatter("---\n source: x\n---\n"));
    BOOST_TEST(!planner_frontmatter("---\ntitle: x\n---\nsource: x\n"));
    std::string plan;
    for (int i = 0; i < 13; ++i) plan += i % 2 ? "<!-- TASK -->\r\n" : "<!-- TASK -->\n";
    plan += " <!-- TASK -->\n<!-- TASK --> x\n";
    BOOST_TEST(task_count(plan) == 13u);
}

BOOST_AUTO_TEST_CASE(the_file_count_reads_every_spelling_once) {
    const std::string root = "/c/r";
    // The drive, Git Bash and relative spellings of one file count once.
    BOOST_TEST(plan_files("C:/r/x.ts C:\\r\\x.ts /c/r/x.ts x/../x.ts", root, "/c/r/plans/p.md") ==
               (std::set<std::string>{"/c/r/x.ts"}));
    // A markdown cell is one token, apart from the bare path; wrapping goes, pipes stay.
    BOOST_TEST(plan_files("|src/a.ts| `src/a.ts`, (src/b.ts).", root, "/c/r/plans/p.md") ==
               (std::set<std::string>{"/c/r/|src/a.ts|", "/c/r/src/a.ts", "/c/r/src/b.ts"}));
    // URLs, paths outside the root, .temp paths and the plan itself count nothing.
    BOOST_TEST(plan_files("https://x.org/a.ts ../o/a.ts /d/a.ts .temp/a.ts src/.temp/b.ts "
                          "plans/p.md /c/r/plans/p.md src/noext src/x.abcdefghijk",
                          root, "/c/r/plans/p.md")
                   .empty());
    BOOST_TEST(plan_files("src/x.abcdefghij", root, "/c/r/plans/p.md").size() == 1u);
}
