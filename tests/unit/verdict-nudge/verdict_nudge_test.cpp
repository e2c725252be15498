// verdict_nudge_test.cpp: the SubagentStop decision of docs/verdict-nudge.md, one case per rule.
#define BOOST_TEST_MODULE verdict_nudge
#include "common/io/payload.hpp"
#include "support/hook_decision.hpp"
#include "support/text.hpp"
#include "verdict-nudge/verdict_nudge.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

namespace nudge = viber::verdict_nudge;
namespace json = boost::json;

namespace {

// The decision's answer on a parsed payload.
std::optional<json::value> decide(const json::object& payload) {
    viber::Trace off;
    return nudge::decide(viber::HookInput{&payload, {}}, off).answer;
}

// Hook mode's answer on stdin bytes (nullopt: the bounded read failed): prefilter, parse, decide.
std::optional<json::value> run(const std::optional<std::string>& bytes) {
    const viber::HookInfo verdict_nudge{.name = "verdict-nudge",
                                        .decide = nudge::decide,
                                        .prefilter = viber::Prefilter::viber_agent};
    return viber::testing::hook_answer(verdict_nudge, bytes);
}

json::object stop(std::string_view agent_type, std::string_view message) {
    return json::object{{"hook_event_name", "SubagentStop"},
                        {"agent_type", agent_type},
                        {"stop_hook_active", false},
                        {"last_assistant_message", message}};
}

bool blocks(const json::object& payload) {
    return decide(payload).has_value();
}

std::string expected_block() {
    return json::serialize(json::object{{"decision", "block"}, {"reason", nudge::instruction}});
}

} // namespace

BOOST_AUTO_TEST_SUITE(agents)

BOOST_AUTO_TEST_CASE(viber_agents_owe_a_verdict_line) {
    for (const auto* agent : {"viber:task-coder", "viber:task-reviewer", "viber:planner-review",
                              "viber:critic", "viber:closeout", "viber:scout-helper"})
        BOOST_TEST(nudge::owes_verdict_line(agent), agent);
}

BOOST_AUTO_TEST_CASE(scout_mapper_and_hunter_return_none) {
    for (const auto* agent : {"viber:scout", "viber:mapper", "viber:hunter"})
        BOOST_TEST(!nudge::owes_verdict_line(agent), agent);
}

BOOST_AUTO_TEST_CASE(other_agents_are_left_alone) {
    for (const auto* agent : {"general-purpose", "Explore", "xyz:viber:task-coder",
                              "Viber:task-coder", " viber:task-coder", "viber", ""})
        BOOST_TEST(!nudge::owes_verdict_line(agent), agent);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(verdict_lines)

BOOST_AUTO_TEST_CASE(a_bare_marker_line) {
    BOOST_TEST(nudge::has_verdict_line("VERDICT: PASS"));
    BOOST_TEST(nudge::has_verdict_line("AUDIT: 3 findings"));
    BOOST_TEST(nudge::has_verdict_line("VERDICT:")); // the marker is what counts, not the value
}

BOOST_AUTO_TEST_CASE(any_line_counts_not_only_the_last) {
    BOOST_TEST(nudge::has_verdict_line("Done.\nVERDICT: FAIL\nNotes follow."));
    BOOST_TEST(nudge::has_verdict_line("Summary\n\nAUDIT: clean"));
}

BOOST_AUTO_TEST_CASE(whitespace_backticks_asterisks_and_dashes_may_lead) {
    BOOST_TEST(nudge::has_verdict_line("- **VERDICT: PASS**"));
    BOOST_TEST(nudge::has_verdict_line("`VERDICT: FAIL`"));
    BOOST_TEST(nudge::has_verdict_line("   \t* VERDICT: PASS"));
    BOOST_TEST(nudge::has_verdict_line("x\n-*`- \t`AUDIT: done"));
}

BOOST_AUTO_TEST_CASE(crlf_lines) {
    BOOST_TEST(nudge::has_verdict_line("Done.\r\nVERDICT: PASS\r\n"));
    BOOST_TEST(
        !nudge::has_verdict_line("Done.\r\n\rVERDICT: PASS")); // only a trailing CR is ignored
}

BOOST_AUTO_TEST_CASE(other_leads_are_not_a_verdict_line) {
    BOOST_TEST(!nudge::has_verdict_line("The VERDICT: PASS"));
    BOOST_TEST(!nudge::has_verdict_line("> VERDICT: PASS"));
    BOOST_TEST(!nudge::has_verdict_line("## VERDICT: PASS"));
    BOOST_TEST(!nudge::has_verdict_line("_VERDICT: PASS_"));
    BOOST_TEST(!nudge::has_verdict_line("\xC2\xA0VERDICT: PASS")); // a no-break space
}

BOOST_AUTO_TEST_CASE(the_marker_must_be_exact) {
    BOOST_TEST(!nudge::has_verdict_line("verdict: pass"));
    BOOST_TEST(!nudge::has_verdict_line("VERDICT PASS"));
    BOOST_TEST(!nudge::has_verdict_line("VERDICTS: PASS"));
    BOOST_TEST(!nudge::has_verdict_line("VERDICT : PASS"));
    BOOST_TEST(!nudge::has_verdict_line("AUDITS: x"));
    BOOST_TEST(!nudge::has_verdict_line("VERDICT"));
}

BOOST_AUTO_TEST_CASE(no_text_no_verdict_line) {
    BOOST_TEST(!nudge::has_verdict_line(""));
    BOOST_TEST(!nudge::has_verdict_line("\n\n\n"));
    BOOST_TEST(!nudge::has_verdict_line(" - * `"));
}

BOOST_AUTO_TEST_CASE(megabyte_messages) {
    std::string message;
    for (int i = 0; message.size() < (5u << 20); ++i)
        message += "line " + std::to_string(i) + " of the report\n";
    BOOST_TEST(!nudge::has_verdict_line(message));
    BOOST_TEST(nudge::has_verdict_line(message + "VERDICT: PASS\n"));
    BOOST_TEST(nudge::has_verdict_line("AUDIT: x\n" + message));
    const std::string one_long_line(5u << 20, '-'); // all lead characters, no marker
    BOOST_TEST(!nudge::has_verdict_line(one_long_line));
    BOOST_TEST(nudge::has_verdict_line(one_long_line + "VERDICT: PASS"));
}

BOOST_AUTO_TEST_CASE(a_long_message_is_read_whole_wherever_its_verdict_line_is) {
    // The last 4 KiB are read first; a verdict line anywhere else, or one that starts before
    // them and ends inside them, is found by the pass over the whole message.
    const std::string filler = viber::testing::repeat("some words of the report\n", 400); // 10 KB
    BOOST_TEST(nudge::has_verdict_line(filler + "VERDICT: PASS"));
    BOOST_TEST(nudge::has_verdict_line(filler + "VERDICT: PASS\n\n\n"));
    BOOST_TEST(nudge::has_verdict_line("VERDICT: PASS\n" + filler));
    BOOST_TEST(nudge::has_verdict_line(filler + "  - AUDIT: done\n" + filler));
    for (const std::size_t from_end : {4094u, 4095u, 4096u, 4097u, 4100u}) {
        // A line starting `from_end` bytes before the end of the message.
        std::string message = filler + "\n";
        message += "VERDICT: PASS";
        message += std::string(from_end - std::string("VERDICT: PASS").size(), 'x');
        BOOST_TEST(nudge::has_verdict_line(message), from_end);
        BOOST_TEST(
            !nudge::has_verdict_line(filler + "\nVERDICT PASS" + std::string(from_end - 12, 'x')),
            from_end);
    }
    BOOST_TEST(!nudge::has_verdict_line(filler + "verdict: pass\n"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(decision)

BOOST_AUTO_TEST_CASE(a_viber_stop_without_a_verdict_line_is_blocked_once) {
    const auto answer = decide(stop("viber:task-coder", "Implemented the task."));
    BOOST_REQUIRE(answer);
    BOOST_TEST(json::serialize(*answer) == expected_block());
}

BOOST_AUTO_TEST_CASE(the_instruction_names_both_markers) {
    BOOST_TEST(nudge::instruction.find("`VERDICT:`") != std::string_view::npos);
    BOOST_TEST(nudge::instruction.find("`AUDIT:`") != std::string_view::npos);
    BOOST_TEST(nudge::instruction.find("your instructions") != std::string_view::npos);
}

BOOST_AUTO_TEST_CASE(a_stop_with_a_verdict_line_passes) {
    BOOST_TEST(!blocks(stop("viber:task-coder", "Done.\n- **VERDICT: PASS**")));
    BOOST_TEST(!blocks(stop("viber:critic", "AUDIT: confirmed")));
}

BOOST_AUTO_TEST_CASE(scout_mapper_hunter_pass) {
    for (const auto* agent : {"viber:scout", "viber:mapper", "viber:hunter"})
        BOOST_TEST(!blocks(stop(agent, "map written: .temp/map.md")), agent);
}

BOOST_AUTO_TEST_CASE(non_viber_agents_pass) {
    BOOST_TEST(!blocks(stop("general-purpose", "no verdict here")));
    BOOST_TEST(!blocks(stop("other:task-coder", "no verdict here")));
}

BOOST_AUTO_TEST_CASE(a_missing_or_non_string_agent_type_passes) {
    json::object payload = stop("viber:task-coder", "no verdict");
    payload.erase("agent_type");
    BOOST_TEST(!blocks(payload));
    payload["agent_type"] = json::array{"viber:task-coder"};
    BOOST_TEST(!blocks(payload));
}

BOOST_AUTO_TEST_CASE(an_agent_type_only_nested_does_not_count) {
    json::object payload = stop("viber:task-coder", "no verdict");
    payload.erase("agent_type");
    payload["tool_input"] = json::object{{"agent_type", "viber:task-coder"}};
    BOOST_TEST(!blocks(payload));
}

BOOST_AUTO_TEST_CASE(stop_hook_active_true_passes) {
    json::object payload = stop("viber:task-coder", "no verdict");
    payload["stop_hook_active"] = true;
    BOOST_TEST(!blocks(payload));
}

BOOST_AUTO_TEST_CASE(stop_hook_active_other_than_json_true_still_blocks) {
    json::object payload = stop("viber:task-coder", "no verdict");
    for (const json::value& active :
         {json::value(false), json::value("true"), json::value(1), json::value(nullptr)}) {
        payload["stop_hook_active"] = active;
        BOOST_TEST(blocks(payload), json::serialize(active));
    }
    payload.erase("stop_hook_active");
    BOOST_TEST(blocks(payload));
}

BOOST_AUTO_TEST_CASE(no_final_message_passes) {
    json::object payload = stop("viber:task-coder", "");
    BOOST_TEST(!blocks(payload)); // empty
    payload.erase("last_assistant_message");
    BOOST_TEST(!blocks(payload)); // missing
    for (const json::value& message :
         {json::value(nullptr), json::value(3), json::value(json::array{"x"}),
          json::value(json::object{{"text", "x"}})}) {
        payload["last_assistant_message"] = message;
        BOOST_TEST(!blocks(payload), json::serialize(message));
    }
}

BOOST_AUTO_TEST_CASE(a_whitespace_message_without_a_marker_is_blocked) {
    BOOST_TEST(blocks(stop("viber:task-coder", " \n")));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(raw_payload)

BOOST_AUTO_TEST_CASE(a_failed_read_prints_nothing) {
    BOOST_TEST(!run(std::nullopt));
}

BOOST_AUTO_TEST_CASE(bytes_without_viber_are_dismissed) {
    BOOST_TEST(
        !run(std::string(R"({"agent_type":"general-purpose","last_assistant_message":"x"})")));
    // An escaped colon cannot reach a viber agent's payload as Claude Code writes it, and is
    // dismissed unparsed.
    BOOST_TEST(!run(
        std::string(R"({"agent_type":"viber\u003atask-coder","last_assistant_message":"x"})")));
}

BOOST_AUTO_TEST_CASE(a_viber_payload_decides) {
    const auto answer =
        run(std::string(R"({"agent_type":"viber:task-coder","last_assistant_message":"x"})"));
    BOOST_REQUIRE(answer);
    BOOST_TEST(json::serialize(*answer) == expected_block());
}

BOOST_AUTO_TEST_CASE(a_bom_payload_decides) {
    // hook_main's reader strips the BOM; run sees the stripped bytes.
    const auto bytes = viber::strip_bom(
        "\xEF\xBB\xBF{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":\"x\"}");
    BOOST_TEST(run(std::string(bytes)).has_value());
}

BOOST_AUTO_TEST_CASE(broken_payloads_print_nothing) {
    for (const auto* bytes :
         {"", "viber:", "[{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":\"x\"}]",
          "{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":\"x\"",
          "{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":\"x\"} trailing"})
        BOOST_TEST(!run(std::string(bytes)), bytes);
}

BOOST_AUTO_TEST_CASE(a_key_quoted_inside_a_string_never_counts) {
    BOOST_TEST(!run(std::string(
        R"({"agent_type":"general-purpose","last_assistant_message":"{\"agent_type\":\"viber:task-coder\"}"})")));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_in_the_message_still_decides) {
    BOOST_TEST(
        run(std::string(
                "{\"agent_type\":\"viber:task-coder\",\"last_assistant_message\":\"x\xFF\"}"))
            .has_value());
    BOOST_TEST(!run(std::string("{\"agent_type\":\"viber:task-coder\",\"last_assistant_"
                                "message\":\"\xFF\\nVERDICT: PASS\"}")));
}

BOOST_AUTO_TEST_SUITE_END()
