// plan_gate_explain_test.cpp: the steps plan-gate records for --explain: the episode, the arming
// plan write, the owner and route, each pair it makes, and nothing recorded in hook mode.
#define BOOST_TEST_MODULE plan_gate_explain
#include "plan-gate/plan_gate.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/object.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

namespace {

namespace json = boost::json;
using viber::testing::ScratchDir;
using viber::testing::TranscriptBuilder;

bool any_step(const viber::Trace& trace, std::string_view part) {
    for (const std::string& step : trace.steps())
        if (step.find(part) != std::string::npos) return true;
    return false;
}

struct Session {
    ScratchDir dir;
    TranscriptBuilder t;
    std::size_t episode = 0, write = 0, dispatch = 0, verdict = 0;
    json::object payload;
    Session() {
        const std::string plan =
            dir.write(".claude/plans/p.md", "---\nsource: interview\n---\n# Plan\n");
        episode = t.permission_mode("default");
        t.skill("viber:planner");
        t.enter_plan_mode();
        write = t.write_file(plan);
        dispatch = t.dispatch("viber:planner-review", "toolu_R");
        verdict = t.tool_result("toolu_R", "VERDICT: FAIL");
        payload =
            json::object{{"transcript_path", dir.write("t.jsonl", t.text())}, {"cwd", dir.path()}};
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(explaining_records_each_step_with_its_line) {
    Session s;
    viber::Trace trace = viber::Trace::explaining();
    const viber::Decision decision =
        viber::plan_gate::decide(viber::HookInput{&s.payload, {}}, trace);
    BOOST_TEST((decision.kind == viber::DecisionKind::deny));
    BOOST_TEST(any_step(trace, "episode: the lines after line " + std::to_string(s.episode)));
    BOOST_TEST(any_step(trace, "last plan write on line " + std::to_string(s.write)));
    BOOST_TEST(any_step(trace, "the planner owns the episode"));
    BOOST_TEST(any_step(trace, "route: viber:planner-review"));
    BOOST_TEST(any_step(trace, "dispatch on line " + std::to_string(s.dispatch) +
                                   " paired with the verdict line " + std::to_string(s.verdict) +
                                   " (FAIL)"));
    BOOST_TEST(trace.reads().size() == 2u); // the transcript and the plan
}

BOOST_AUTO_TEST_CASE(hook_mode_records_nothing) {
    Session s;
    viber::Trace off;
    const viber::Decision decision =
        viber::plan_gate::decide(viber::HookInput{&s.payload, {}}, off);
    BOOST_TEST((decision.kind == viber::DecisionKind::deny));
    BOOST_TEST(off.steps().empty());
    BOOST_TEST(off.reads().empty());
}
