// plan_hints_test.cpp: the plan-hints decision as a pure function (docs/plan-hints.md).
#define BOOST_TEST_MODULE plan_hints
#include "plan-hints/plan_hints.hpp"
#include "support/hook_decision.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdlib>

using namespace viber::plan_hints;

namespace {
// Hook mode's answer on stdin bytes (nullopt: the bounded read failed).
std::optional<boost::json::value> run(const std::optional<std::string>& bytes) {
    const viber::HookInfo plan_hints{.name = "plan-hints", .decide = viber::plan_hints::decide};
    return viber::testing::hook_answer(plan_hints, bytes);
}
} // namespace

BOOST_AUTO_TEST_CASE(prints_in_plan_mode_without_a_signal) {
    HintsInput input{true, false, std::string("rules\n")};
    BOOST_TEST((hint_context(input) == std::optional<std::string>("rules")));
}

BOOST_AUTO_TEST_CASE(silent_outside_plan_mode) {
    HintsInput input{false, false, std::string("rules\n")};
    BOOST_TEST(!hint_context(input).has_value());
}

BOOST_AUTO_TEST_CASE(silent_when_the_chain_owns_the_episode) {
    HintsInput input{true, true, std::string("rules\n")};
    BOOST_TEST(!hint_context(input).has_value());
}

BOOST_AUTO_TEST_CASE(silent_without_or_with_an_empty_hints_file) {
    BOOST_TEST(!hint_context(HintsInput{true, false, std::nullopt}).has_value());
    BOOST_TEST(!hint_context(HintsInput{true, false, std::string()}).has_value());
    BOOST_TEST(!hint_context(HintsInput{true, false, std::string("\r\n\n")}).has_value());
}

BOOST_AUTO_TEST_CASE(run_fails_open_on_bad_payloads) {
    // A hints file the finding-files rule (docs/contract.md) finds, so that silence below comes
    // from the payload alone.
    viber::testing::ScratchDir plugin;
    plugin.write("hooks/content/plan-hints.md", "rules\n");
    ::setenv("CLAUDE_PLUGIN_ROOT", plugin.path().c_str(), 1);
    // The control: a good plan-mode payload prints the hints.
    BOOST_TEST(run(std::string(R"({"permission_mode":"plan"})")).has_value());
    BOOST_TEST(!run(std::nullopt).has_value());
    BOOST_TEST(!run(std::string()).has_value());
    BOOST_TEST(!run(std::string("not json")).has_value());
    BOOST_TEST(!run(std::string(R"({"permission_mode":"plan")")).has_value());
    BOOST_TEST(!run(std::string(R"([{"permission_mode":"plan"}])")).has_value());
    BOOST_TEST(!run(std::string(R"({"x":{"permission_mode":"plan"}})")).has_value());
    BOOST_TEST(!run(std::string(R"({"permission_mode":"default"})")).has_value());
    ::unsetenv("CLAUDE_PLUGIN_ROOT");
}
