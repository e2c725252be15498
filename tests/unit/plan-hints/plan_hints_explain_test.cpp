// plan_hints_explain_test.cpp: the steps plan-hints records for --explain: the permission mode and
// the signals it found, with their line numbers.
#define BOOST_TEST_MODULE plan_hints_explain
#include "plan-hints/plan_hints.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

namespace {

namespace json = boost::json;

bool any_step(const viber::Trace& trace, std::string_view part) {
    for (const std::string& step : trace.steps())
        if (step.find(part) != std::string::npos) return true;
    return false;
}

// A plugin tree with a hints file, as CLAUDE_PLUGIN_ROOT, for the test's duration.
struct Plugin {
    viber::testing::ScratchDir root;
    Plugin() {
        root.write("hooks/content/plan-hints.md", "# Plain plan rules\n");
        ::setenv("CLAUDE_PLUGIN_ROOT", root.path().c_str(), 1);
    }
    ~Plugin() { ::unsetenv("CLAUDE_PLUGIN_ROOT"); }
};

viber::Trace explain(const json::object& payload) {
    viber::Trace trace = viber::Trace::explaining();
    viber::plan_hints::decide(viber::HookInput{&payload, {}}, trace);
    return trace;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_signal_and_its_entry_are_named_by_line) {
    Plugin plugin;
    viber::testing::TranscriptBuilder t;
    const auto episode = t.permission_mode("default");
    const auto skill = t.skill("viber:intent");
    const auto entry = t.enter_plan_mode();
    const json::object payload{{"permission_mode", "plan"},
                               {"transcript_path", plugin.root.write("t.jsonl", t.text())}};
    const viber::Trace trace = explain(payload);
    BOOST_TEST(any_step(trace, "permission_mode: `plan`"));
    BOOST_TEST(any_step(trace, "episode: the lines after line " + std::to_string(episode)));
    BOOST_TEST(any_step(trace, "signal on line " + std::to_string(skill) +
                                   ", its EnterPlanMode on line " + std::to_string(entry) +
                                   ": inside the episode, so silent"));
}

BOOST_AUTO_TEST_CASE(outside_plan_mode_only_the_mode_is_recorded) {
    Plugin plugin;
    const viber::Trace trace = explain(json::object{{"permission_mode", "default"}});
    BOOST_TEST(any_step(trace, "permission_mode: `default` (not plan: nothing to add)"));
    BOOST_TEST(trace.reads().empty());
}

BOOST_AUTO_TEST_CASE(no_signal_is_said) {
    Plugin plugin;
    viber::testing::TranscriptBuilder t;
    t.permission_mode("default");
    t.typed_prompt("plan it");
    const json::object payload{{"permission_mode", "plan"},
                               {"transcript_path", plugin.root.write("t.jsonl", t.text())}};
    BOOST_TEST(any_step(explain(payload), "no planner, intent or fixer signal"));
}
