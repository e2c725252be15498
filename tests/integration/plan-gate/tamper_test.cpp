// tamper_test.cpp: plan-gate step 4's tamper check (docs/plan-gate.md): a PASS stands only while
// the plan's mtime is no later than the verdict line's timestamp plus 2 s.
#define BOOST_TEST_MODULE plan_gate_tamper
#include "gate_fixture.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;
using viber::testing::set_mtime;

namespace {

// A planner plan reviewed with one PASS stamped `timestamp` (empty: no timestamp key), the plan
// file's mtime set to `mtime`.
Answer passed(std::string_view timestamp, long long mtime) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    set_mtime(plan, mtime);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R");
    t.tool_result("toolu_R", "VERDICT: PASS", timestamp);
    return gate.ask(t);
}

} // namespace

BOOST_AUTO_TEST_CASE(plan_older_than_the_verdict_allows) {
    require_allow(passed(verdict_iso, verdict_epoch - 600));
}

BOOST_AUTO_TEST_CASE(plan_within_two_seconds_allows) {
    require_allow(passed(verdict_iso, verdict_epoch + 2));
}

BOOST_AUTO_TEST_CASE(stale_pass_needs_a_re_review) {
    const Answer answer = passed(verdict_iso, verdict_epoch + 3);
    require_deny(answer, "Next step: re-review.");
    BOOST_TEST(has(answer.reason, "viber:planner-review"));
    BOOST_TEST(has(answer.reason, "p.md"));
    BOOST_TEST(
        answer.reason.ends_with("This is the viber planner's plan review gate, not an error."));
}

BOOST_AUTO_TEST_CASE(missing_timestamp_skips_the_check) {
    require_allow(passed("", verdict_epoch + 100000));
}

BOOST_AUTO_TEST_CASE(unparseable_timestamp_skips_the_check) {
    require_allow(passed("yesterday at noon", verdict_epoch + 100000));
}

BOOST_AUTO_TEST_CASE(fractional_seconds_are_dropped) {
    require_allow(passed("2026-10-01T10:00:00.999Z", verdict_epoch + 2));
    require_deny(passed("2026-10-01T10:00:00.999Z", verdict_epoch + 3), "Next step: re-review.");
}

BOOST_AUTO_TEST_CASE(numeric_offsets_are_honoured) {
    // 12:00 at +02:00 is 10:00 UTC.
    require_allow(passed("2026-10-01T12:00:00+02:00", verdict_epoch + 2));
    require_deny(passed("2026-10-01T12:00:00+02:00", verdict_epoch + 3), "Next step: re-review.");
    // 05:30 at -04:30 is 10:00 UTC.
    require_allow(passed("2026-10-01T05:30:00.250-04:30", verdict_epoch + 2));
    require_deny(passed("2026-10-01T05:30:00.250-04:30", verdict_epoch + 3),
                 "Next step: re-review.");
}

BOOST_AUTO_TEST_CASE(no_zone_reads_as_utc) {
    require_allow(passed("2026-10-01T10:00:00", verdict_epoch + 2));
    require_deny(passed("2026-10-01T10:00:00", verdict_epoch + 3), "Next step: re-review.");
}

BOOST_AUTO_TEST_CASE(file_touched_after_a_pass_then_reviewed_again) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    set_mtime(plan, verdict_epoch - 60);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R1");
    t.tool_result("toolu_R1", "VERDICT: PASS", verdict_iso);
    require_allow(gate.ask(t));

    // A Minor finding applied through sed -i: no plan write in the transcript, only the mtime.
    set_mtime(plan, verdict_epoch + 300);
    require_deny(gate.ask(t), "Next step: re-review.");

    t.dispatch("viber:planner-review", "toolu_R2");
    t.tool_result("toolu_R2", "VERDICT: PASS", iso_utc(verdict_epoch + 400));
    require_allow(gate.ask(t));
}

BOOST_AUTO_TEST_CASE(timestamp_of_the_task_notification_counts) {
    Gate gate;
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    set_mtime(plan, verdict_epoch + 10);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    t.dispatch("viber:planner-review", "toolu_R");
    t.async_launched("toolu_R", "review");
    t.task_notification("toolu_R", "VERDICT: PASS", verdict_iso);
    require_deny(gate.ask(t), "Next step: re-review.");
}
