// plan_hints_test.cpp: the plan-hints decision as a pure function (SPEC §5).
#define BOOST_TEST_MODULE plan_hints
#include <boost/test/unit_test.hpp>

#include "plan-hints/plan_hints.hpp"

using namespace viber::plan_hints;

BOOST_AUTO_TEST_CASE(cuts_lf_and_crlf_trailing_newlines_only) {
    BOOST_TEST(cut_trailing_newlines("rules\n") == "rules");
    BOOST_TEST(cut_trailing_newlines("rules\n\n\n") == "rules");
    BOOST_TEST(cut_trailing_newlines("rules\r\n\r\n") == "rules");
    BOOST_TEST(cut_trailing_newlines("a\nb\r\n") == "a\nb");
    BOOST_TEST(cut_trailing_newlines("rules  ") == "rules  ");
    BOOST_TEST(cut_trailing_newlines("\n\r\n") == "");
    BOOST_TEST(cut_trailing_newlines("") == "");
}

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
    BOOST_TEST(!run(std::nullopt).has_value());
    BOOST_TEST(!run(std::string()).has_value());
    BOOST_TEST(!run(std::string("not json")).has_value());
    BOOST_TEST(!run(std::string("[\"permission_mode\",\"plan\"]")).has_value());
    BOOST_TEST(!run(std::string(R"({"permission_mode":"default"})")).has_value());
}
