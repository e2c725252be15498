// long_session_test.cpp: plan-gate on sessions that dispatched tens of thousands of agents after
// the plan write (docs/plan-gate.md, "Pairing"): the decision is the one pairing gives, reached
// by the real binary well inside the hook's deadline (asserted as a decision, never a time).
#define BOOST_TEST_MODULE plan_gate_long_session
#include "gate_fixture.hpp"

#include <boost/test/unit_test.hpp>

using namespace plan_gate_test;

namespace {

constexpr std::size_t many = 20000;

std::string id(std::string_view kind, std::size_t i) {
    return "toolu_" + std::string(kind) + std::to_string(i);
}

// A planner-owned plan and its write, then `many` rounds of: a planner-review dispatch answered
// FAIL by id, and an unrelated agent's dispatch answered by its own verdict line.
struct LongSession {
    Gate gate;
    TranscriptBuilder t;
    std::string plan;
    std::size_t last_dispatch = 0;
    std::size_t last_verdict = 0;
    LongSession() {
        plan = gate.plan(".claude/plans/feature.md", planner_plan);
        planner_episode(t);
        t.write_file(plan, planner_plan);
        for (std::size_t i = 0; i < many; ++i) {
            last_dispatch = t.dispatch("viber:planner-review", id("r", i));
            t.dispatch("viber:task-coder", id("c", i), "code it; end with VERDICT: PASS");
            t.tool_result(id("c", i), "done\nVERDICT: PASS");
            last_verdict = t.tool_result(id("r", i), "## Plan Review\nVERDICT: FAIL");
        }
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(twenty_thousand_pairs_decide_by_the_latest_pair) {
    LongSession s;
    const Answer answer = s.gate.ask(s.t);
    require_deny(answer, "Next step: fix the findings.");
    BOOST_TEST(has(answer.reason, "dispatch on line " + std::to_string(s.last_dispatch)));
    BOOST_TEST(has(answer.reason, "verdict on line " + std::to_string(s.last_verdict)));
}

BOOST_AUTO_TEST_CASE(a_final_pass_after_twenty_thousand_pairs_allows_silently) {
    LongSession s;
    s.t.dispatch("viber:planner-review", "toolu_final");
    s.t.tool_result("toolu_final", "VERDICT: PASS");
    require_allow(s.gate.ask(s.t));
}

BOOST_AUTO_TEST_CASE(twenty_thousand_replaced_dispatches_wait_for_the_last) {
    // Every dispatch replaces the open one, and a verdict naming a replaced one closes nothing:
    // 20,000 verdict lines that each name an earlier dispatch leave the last one running.
    Gate gate;
    TranscriptBuilder t;
    const std::string plan = gate.plan(".claude/plans/feature.md", planner_plan);
    planner_episode(t);
    t.write_file(plan, planner_plan);
    for (std::size_t i = 0; i < many; ++i) t.dispatch("viber:planner-review", id("r", i));
    const std::size_t last = t.dispatch("viber:planner-review", "toolu_last");
    for (std::size_t i = 0; i < many; ++i) t.tool_result(id("r", i), "VERDICT: PASS");
    const Answer answer = gate.ask(t);
    require_deny(answer, "Next step: let the review finish.");
    BOOST_TEST(has(answer.reason, "dispatched on line " + std::to_string(last)));
}
