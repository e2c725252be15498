// transcript_scan_test.cpp: the shared transcript definitions of docs/transcript.md (episode, Skill
// signals, the planner's entry, typed chain commands, plan writes, dispatches, verdict lines), each
// scanned through several buffer sizes and both prefilter kernels, which must all agree.
#define BOOST_TEST_MODULE transcript_scan
#include "common/transcript/transcript.hpp"
#include "plan-gate/pairing_window.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <vector>

namespace json = boost::json;
using namespace viber::transcript;
using viber::plan_gate::pairing::PairRule;
using viber::plan_gate::pairing::tag_of;
using viber::testing::TranscriptBuilder;

namespace {

bool same(const Scan& a, const Scan& b) {
    if (a.readable != b.readable || a.lines != b.lines || a.episode_start != b.episode_start ||
        a.last_signal != b.last_signal || a.last_signal_entry != b.last_signal_entry ||
        a.last_plan_write.has_value() != b.last_plan_write.has_value() ||
        a.dispatches.size() != b.dispatches.size() || a.verdicts.size() != b.verdicts.size()) {
        return false;
    }
    if (a.last_plan_write && (a.last_plan_write->line != b.last_plan_write->line ||
                              a.last_plan_write->file_path != b.last_plan_write->file_path)) {
        return false;
    }
    for (std::size_t i = 0; i < a.dispatches.size(); ++i) {
        const auto &x = a.dispatches[i], &y = b.dispatches[i];
        if (x.line != y.line || x.agent != y.agent || x.id != y.id ||
            x.prompt_line != y.prompt_line)
            return false;
    }
    for (std::size_t i = 0; i < a.verdicts.size(); ++i) {
        const auto &x = a.verdicts[i], &y = b.verdicts[i];
        if (x.line != y.line || x.value != y.value || x.timestamp != y.timestamp ||
            x.named_dispatches != y.named_dispatches) {
            return false;
        }
    }
    return true;
}

// Scans with the public entry point, then with small buffers (every line crosses a buffer
// boundary) and both kernels; all must agree.
Scan scan(std::string_view text, Request request) {
    if (!request.paired_agents.empty()) request.pairing = viber::plan_gate::pairing_window;
    const Scan reference = scan_bytes(text, request);
    for (const std::size_t size : {64u, 97u, 256u, 4096u}) {
        for (const auto kernel : {detail::Kernel::portable, detail::Kernel::sse2,
                                  detail::Kernel::avx2, detail::Kernel::neon}) {
            const Scan other = detail::scan_bytes_with(text, request, size, kernel);
            BOOST_TEST_REQUIRE(same(reference, other),
                               "buffer " << size << " kernel " << static_cast<int>(kernel));
        }
    }
    return reference;
}

Scan planner(const TranscriptBuilder& t) {
    return scan(t.text(), {Signals::planner, false});
}
Scan chain(const TranscriptBuilder& t) {
    return scan(t.text(), {Signals::planner_chain, false});
}
// The agents these tests pair: the gate's five and an `x`, with a task reviewer keeping only its
// first `tasks:` line.
std::optional<std::string_view> first_tasks_line(std::string_view prompt) {
    for (std::size_t start = 0; start <= prompt.size();) {
        const std::size_t end = std::min(prompt.find('\n', start), prompt.size());
        const std::string_view line = prompt.substr(start, end - start);
        if (line.starts_with("tasks:")) return line;
        start = end + 1;
    }
    return std::nullopt;
}
constexpr PairedAgent test_agents[] = {
    {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)},
    {.name = "plain-plan-review", .tag = tag_of(PairRule::single_reviewer)},
    {.name = "x", .tag = tag_of(PairRule::single_reviewer)},
    {.name = "planner-spec-review", .tag = tag_of(PairRule::review_set)},
    {.name = "planner-graph-review", .tag = tag_of(PairRule::review_set)},
    {.name = "planner-task-review",
     .tag = tag_of(PairRule::review_set),
     .prompt_line = first_tasks_line},
};
Scan gate(const TranscriptBuilder& t) {
    return scan(t.text(), {Signals::planner, true, test_agents});
}

std::size_t typed_command(TranscriptBuilder& t, std::string_view command, bool with_role = false) {
    json::object message{{"content", std::string("<command-message>viber:") + std::string(command) +
                                         "</command-message>\n<command-name>/viber:" +
                                         std::string(command) + "</command-name>"}};
    if (with_role) message["role"] = "user";
    return t.add(json::object{{"type", "user"}, {"message", message}});
}

} // namespace

// ---- lines ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(empty_transcript_has_no_lines) {
    const Scan s = scan("", {});
    BOOST_TEST(s.readable);
    BOOST_TEST(s.lines == 0u);
    BOOST_TEST(s.episode_start == 0u);
    BOOST_TEST(s.last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(lines_are_physical_and_one_based) {
    TranscriptBuilder t;
    t.raw("");
    t.raw("not json at all");
    t.raw("{broken");
    t.raw("[1,2,3]");
    const auto mode = t.permission_mode("default");
    t.raw("");
    const auto skill = t.skill("viber:planner");
    const Scan s = planner(t);
    BOOST_TEST(s.lines == 7u);
    BOOST_TEST(mode == 5u);
    BOOST_TEST(s.episode_start == 5u);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(skill == 7u);
}

BOOST_AUTO_TEST_CASE(missing_final_newline_still_counts_the_last_line) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("planner");
    std::string text = t.text();
    text.pop_back();
    const Scan s = scan(text, {});
    BOOST_TEST(s.lines == 2u);
    BOOST_TEST(s.last_signal == 2u);
}

BOOST_AUTO_TEST_CASE(crlf_lines_parse_as_lf_lines) {
    TranscriptBuilder t;
    t.set_crlf(true);
    t.permission_mode("default");
    t.skill("viber:planner");
    t.enter_plan_mode();
    const auto write = t.write_file("/repo/.claude/plans/p.md");
    t.dispatch("viber:planner-review", "toolu_01C");
    const auto verdict = t.tool_result("toolu_01C", "VERDICT: PASS", "2026-10-01T10:00:00Z");
    const Scan s = gate(t);
    BOOST_TEST(s.lines == 6u);
    BOOST_TEST(s.episode_start == 1u);
    BOOST_TEST(s.last_signal == 2u);
    BOOST_TEST(s.last_signal_entry == 3u);
    BOOST_TEST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->line == write);
    BOOST_TEST(s.last_plan_write->file_path == "/repo/.claude/plans/p.md");
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == verdict);
}

BOOST_AUTO_TEST_CASE(a_lone_cr_at_the_end_of_a_verdict_line_is_allowed) {
    // The CR belongs to no value; a CR inside the string before the newline is also allowed.
    TranscriptBuilder t;
    t.write_file("/r/plans/p.md");
    t.dispatch("viber:planner-review",
               ""); // an open id-less dispatch: the next verdict line closes it
    t.tool_result("", "VERDICT: FAIL\r\nmore");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST((s.verdicts[0].value == Verdict::fail));
}

// ---- episode ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(episode_start_is_the_last_non_plan_permission_mode) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.permission_mode("plan");
    const auto accept = t.permission_mode("acceptEdits");
    t.permission_mode("plan");
    t.typed_prompt("hello");
    const Scan s = planner(t);
    BOOST_TEST(s.episode_start == accept);
}

BOOST_AUTO_TEST_CASE(no_permission_mode_record_means_episode_start_zero) {
    TranscriptBuilder t;
    t.typed_prompt("hello");
    t.permission_mode("plan");
    BOOST_TEST(planner(t).episode_start == 0u);
}

// A permissionMode field on a line that is no typed prompt (an assistant line, array content, an
// isMeta line) starts no episode: transcript_real_client_test.cpp, beside the rev. 3 shapes.

BOOST_AUTO_TEST_CASE(permission_mode_quoted_inside_a_string_is_not_an_episode_start) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.typed_prompt(R"({"type":"permission-mode","permissionMode":"default"})");
    BOOST_TEST(planner(t).episode_start == 1u);
}

// ---- Skill signals ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(planner_skill_bare_and_prefixed_are_signals) {
    for (const std::string_view name : {"planner", "viber:planner"}) {
        TranscriptBuilder t;
        t.permission_mode("default");
        const auto skill = t.skill(name);
        const Scan s = planner(t);
        BOOST_TEST(s.last_signal == skill);
        BOOST_TEST(signal_owns_episode(s));
    }
}

BOOST_AUTO_TEST_CASE(another_plugins_planner_is_not_a_signal) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("xyz:planner");
    t.skill("viber:plannerx");
    t.skill("planner-review");
    BOOST_TEST(planner(t).last_signal == 0u);
    BOOST_TEST(chain(t).last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(intent_and_fixer_are_signals_only_for_the_chain) {
    for (const std::string_view name : {"intent", "viber:intent", "fixer", "viber:fixer"}) {
        TranscriptBuilder t;
        t.permission_mode("default");
        const auto skill = t.skill(name);
        BOOST_TEST(planner(t).last_signal == 0u);
        BOOST_TEST(chain(t).last_signal == skill);
        BOOST_TEST(signal_owns_episode(chain(t)));
    }
}

BOOST_AUTO_TEST_CASE(xyz_intent_is_not_a_chain_signal) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("xyz:intent");
    t.skill("xyz:fixer");
    BOOST_TEST(chain(t).last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(typed_viber_planner_is_not_a_signal) {
    TranscriptBuilder t;
    t.permission_mode("default");
    typed_command(t, "planner");
    t.typed_prompt("/viber:planner");
    BOOST_TEST(planner(t).last_signal == 0u);
    BOOST_TEST(chain(t).last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(a_write_quoting_a_skill_call_is_a_write) {
    TranscriptBuilder t;
    t.permission_mode("default");
    const auto write =
        t.write_file("/repo/.claude/plans/p.md", R"({"name":"Skill","input":{"skill":"planner"}})");
    t.tool_use(
        "Bash",
        json::object{
            {"command",
             R"(echo '{"type":"tool_use","name":"Skill","input":{"skill":"viber:planner"}}')"}});
    const Scan s = gate(t);
    BOOST_TEST(s.last_signal == 0u);
    BOOST_TEST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->line == write);
}

BOOST_AUTO_TEST_CASE(skill_name_on_a_non_tool_use_element_is_not_a_signal) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.content_element("assistant", json::object{{"type", "text"},
                                                {"name", "Skill"},
                                                {"input", json::object{{"skill", "planner"}}}});
    t.add(json::object{
        {"type", "assistant"}, {"name", "Skill"}, {"input", json::object{{"skill", "planner"}}}});
    BOOST_TEST(planner(t).last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(api_request_blob_replaying_a_skill_call_is_skipped) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.content_element("api-request-blob",
                      json::object{{"type", "tool_use"},
                                   {"name", "Skill"},
                                   {"input", json::object{{"skill", "viber:planner"}}}});
    BOOST_TEST(planner(t).last_signal == 0u);
    BOOST_TEST(!signal_owns_episode(planner(t)));
}

// ---- the planner's entry ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(enter_plan_mode_after_the_signal_is_its_entry) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.tool_use("Read", json::object{{"file_path", "/repo/a.cpp"}});
    const auto entry = t.enter_plan_mode();
    t.enter_plan_mode();
    const Scan s = planner(t);
    BOOST_TEST(s.last_signal == 2u);
    BOOST_TEST(s.last_signal_entry == entry);
}

BOOST_AUTO_TEST_CASE(mode_flush_between_skill_and_entry_keeps_the_planner) {
    // Claude Code flushes the old mode mid-turn: the Skill line lies before the episode start,
    // its EnterPlanMode inside it.
    TranscriptBuilder t;
    t.permission_mode("default");
    const auto skill = t.skill("viber:planner");
    const auto flush = t.permission_mode("default");
    const auto entry = t.enter_plan_mode();
    t.permission_mode("plan");
    const Scan s = planner(t);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(s.episode_start == flush);
    BOOST_TEST(s.last_signal_entry == entry);
    BOOST_TEST(signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(a_user_prompt_ends_a_pending_entry) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    const auto episode = t.permission_mode("default");
    t.typed_prompt("plan it yourself");
    t.enter_plan_mode();
    const Scan s = planner(t);
    BOOST_TEST(s.episode_start == episode);
    BOOST_TEST(s.last_signal_entry == 0u);
    BOOST_TEST(!signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(a_user_string_without_role_ends_a_pending_entry) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.task_notification("toolu_x", "done");
    t.enter_plan_mode();
    BOOST_TEST(planner(t).last_signal_entry == 0u);
}

BOOST_AUTO_TEST_CASE(an_assistant_string_content_does_not_end_a_pending_entry) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.add(json::object{{"type", "assistant"},
                       {"message", json::object{{"role", "assistant"}, {"content", "thinking"}}}});
    t.tool_result("toolu_skill", "Launching skill: planner");
    const auto entry = t.enter_plan_mode();
    BOOST_TEST(planner(t).last_signal_entry == entry);
}

BOOST_AUTO_TEST_CASE(a_plan_mode_record_ends_a_pending_entry) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    const auto episode = t.permission_mode("default");
    t.permission_mode("plan");
    t.enter_plan_mode();
    const Scan s = planner(t);
    BOOST_TEST(s.episode_start == episode);
    BOOST_TEST(s.last_signal_entry == 0u);
    BOOST_TEST(!signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(any_record_carrying_permission_mode_plan_ends_a_pending_entry) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.add(json::object{{"type", "system"}, {"permissionMode", "plan"}});
    t.enter_plan_mode();
    BOOST_TEST(planner(t).last_signal_entry == 0u);
}

BOOST_AUTO_TEST_CASE(a_non_plan_mode_record_does_not_end_a_pending_entry) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.add(json::object{{"type", "system"}, {"permissionMode", "default"}});
    const auto entry = t.enter_plan_mode();
    BOOST_TEST(planner(t).last_signal_entry == entry);
}

BOOST_AUTO_TEST_CASE(only_the_last_signal_counts) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    t.enter_plan_mode();
    t.permission_mode("default");
    const auto second = t.skill("planner");
    t.typed_prompt("stop");
    t.enter_plan_mode();
    const Scan s = planner(t);
    BOOST_TEST(s.last_signal == second);
    BOOST_TEST(s.last_signal_entry == 0u);
}

BOOST_AUTO_TEST_CASE(a_planner_from_an_earlier_approved_episode_does_not_own) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.enter_plan_mode();
    t.permission_mode("plan");
    t.write_file("/repo/.claude/plans/old.md");
    const auto approved = t.permission_mode("acceptEdits");
    t.typed_prompt("next thing");
    t.permission_mode("plan");
    const Scan s = planner(t);
    BOOST_TEST(s.episode_start == approved);
    BOOST_TEST(s.last_signal == 2u);
    BOOST_TEST(s.last_signal_entry == 3u);
    BOOST_TEST(!signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(enter_plan_mode_without_a_signal_is_no_entry) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.enter_plan_mode();
    const Scan s = planner(t);
    BOOST_TEST(s.last_signal_entry == 0u);
    BOOST_TEST(!signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(skill_and_enter_plan_mode_in_one_message) {
    TranscriptBuilder t;
    t.permission_mode("default");
    const json::object skill{{"type", "tool_use"},
                             {"id", "toolu_a"},
                             {"name", "Skill"},
                             {"input", json::object{{"skill", "planner"}}}};
    const json::object enter{{"type", "tool_use"},
                             {"id", "toolu_b"},
                             {"name", "EnterPlanMode"},
                             {"input", json::object{}}};
    const auto line = t.add(json::object{
        {"type", "assistant"}, {"message", json::object{{"content", json::array{skill, enter}}}}});
    const Scan s = planner(t);
    BOOST_TEST(s.last_signal == line);
    BOOST_TEST(s.last_signal_entry == line);
}

// ---- typed chain commands ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(typed_intent_and_fixer_are_chain_signals_without_entry) {
    for (const std::string_view command : {"intent", "fixer"}) {
        for (const bool with_role : {false, true}) {
            TranscriptBuilder t;
            t.permission_mode("default");
            const auto line = typed_command(t, command, with_role);
            t.enter_plan_mode();
            const Scan s = chain(t);
            BOOST_TEST(s.last_signal == line);
            BOOST_TEST(s.last_signal_entry == 0u);
            BOOST_TEST(signal_owns_episode(s));
            BOOST_TEST(planner(t).last_signal == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(typed_chain_command_with_another_role_does_not_count) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.add(json::object{
        {"type", "assistant"},
        {"message", json::object{{"role", "assistant"},
                                 {"content", "<command-message>viber:intent</command-message>"}}}});
    BOOST_TEST(chain(t).last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(typed_chain_command_not_at_the_start_does_not_count) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.typed_prompt("see <command-message>viber:intent</command-message>");
    BOOST_TEST(chain(t).last_signal == 0u);
}

BOOST_AUTO_TEST_CASE(typed_chain_command_before_the_episode_does_not_own) {
    TranscriptBuilder t;
    typed_command(t, "fixer");
    t.permission_mode("default");
    const Scan s = chain(t);
    BOOST_TEST(s.last_signal == 1u);
    BOOST_TEST(!signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(a_typed_chain_command_replaces_a_pending_skill) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    const auto typed = typed_command(t, "intent");
    t.enter_plan_mode();
    const Scan s = chain(t);
    BOOST_TEST(s.last_signal == typed);
    BOOST_TEST(s.last_signal_entry == 0u);
}

// ---- plan writes ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(plan_writes_only_when_requested) {
    TranscriptBuilder t;
    t.write_file("/repo/.claude/plans/p.md");
    BOOST_TEST(!planner(t).last_plan_write.has_value());
    BOOST_TEST(gate(t).last_plan_write.has_value());
}

BOOST_AUTO_TEST_CASE(write_and_edit_arm_other_tools_do_not) {
    TranscriptBuilder t;
    const auto edit = t.edit_file("C:\\Users\\me\\repo\\plans\\p.md");
    t.tool_use("Read", json::object{{"file_path", "/repo/plans/q.md"}});
    t.tool_use("MultiEdit", json::object{{"file_path", "/repo/plans/r.md"}});
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->line == edit);
    BOOST_TEST(s.last_plan_write->file_path == "C:\\Users\\me\\repo\\plans\\p.md");
}

BOOST_AUTO_TEST_CASE(non_plan_paths_do_not_arm) {
    TranscriptBuilder t;
    t.write_file("plans/p.md");
    t.write_file("/repo/myplans/p.md");
    t.write_file("/repo/plans/p.MD");
    t.write_file("/repo/plans/p.txt");
    BOOST_TEST(!gate(t).last_plan_write.has_value());
}

BOOST_AUTO_TEST_CASE(the_last_plan_write_wins_and_restarts_the_lists) {
    TranscriptBuilder t;
    t.write_file("/repo/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_1");
    t.tool_result("toolu_1", "VERDICT: PASS");
    const auto second = t.write_file("/repo/plans/b.md");
    const auto dispatch = t.dispatch("planner-review", "toolu_2");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->line == second);
    BOOST_TEST(s.last_plan_write->file_path == "/repo/plans/b.md");
    BOOST_TEST_REQUIRE(s.dispatches.size() == 1u);
    BOOST_TEST(s.dispatches[0].line == dispatch);
    BOOST_TEST(s.verdicts.empty());
}

BOOST_AUTO_TEST_CASE(the_last_matching_file_path_on_a_line_is_the_plan) {
    TranscriptBuilder t;
    const json::object a{{"type", "tool_use"},
                         {"name", "Write"},
                         {"input", json::object{{"file_path", "/r/plans/a.md"}, {"content", "x"}}}};
    const json::object b{{"type", "tool_use"},
                         {"name", "Edit"},
                         {"input", json::object{{"file_path", "/r/plans/b.md"}}}};
    const json::object c{{"type", "tool_use"},
                         {"name", "Write"},
                         {"input", json::object{{"file_path", "/r/src/c.md"}}}};
    t.add(json::object{{"type", "assistant"},
                       {"message", json::object{{"content", json::array{a, b, c}}}}});
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->file_path == "/r/plans/b.md");
}

BOOST_AUTO_TEST_CASE(api_request_blob_replaying_a_plan_write_is_skipped) {
    TranscriptBuilder t;
    const auto real = t.write_file("/r/plans/a.md");
    t.content_element("api-request-blob",
                      json::object{{"type", "tool_use"},
                                   {"name", "Write"},
                                   {"input", json::object{{"file_path", "/r/plans/z.md"}}}});
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->line == real);
}

// ---- dispatches -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(dispatches_after_the_plan_write_with_agent_id_and_prompt) {
    TranscriptBuilder t;
    t.dispatch("viber:planner-review", "toolu_0");
    t.write_file("/r/plans/a.md");
    const auto agent = t.dispatch("viber:planner-review", "toolu_01C", "review /r/plans/a.md");
    const auto task = t.tool_use(
        "Task", json::object{{"subagent_type", "plain-plan-review"}, {"prompt", "p"}}, "call_9");
    const auto other = t.dispatch("my.plug-in_2:x", "");
    t.tool_use("Agent", json::object{{"subagent_type", 7}});
    t.tool_use("Agent", json::object{{"prompt", "no type"}});
    t.dispatch("viber:task-coder", "toolu_coder", "not an agent the caller pairs");
    const auto slice = t.dispatch("viber:planner-task-review", "toolu_T",
                                  "/r/plans/a.md\nrefs: /x\ntasks: T1-T8\nmore text");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.dispatches.size() == 4u);
    BOOST_TEST(s.dispatches[0].line == agent);
    BOOST_TEST(s.dispatches[0].agent == "planner-review");
    BOOST_TEST(s.dispatches[0].id == "toolu_01C");
    BOOST_TEST(s.dispatches[0].prompt_line == ""); // the prompt itself is never copied
    BOOST_TEST(s.dispatches[1].line == task);
    BOOST_TEST(s.dispatches[1].agent == "plain-plan-review");
    BOOST_TEST(s.dispatches[1].id == "");
    BOOST_TEST(s.dispatches[2].line == other);
    BOOST_TEST(s.dispatches[2].agent == "x");
    BOOST_TEST(s.dispatches[3].line == slice);
    BOOST_TEST(s.dispatches[3].prompt_line == "tasks: T1-T8"); // only the line the caller reads
}

BOOST_AUTO_TEST_CASE(no_dispatches_without_a_plan_write) {
    TranscriptBuilder t;
    t.dispatch("viber:planner-review", "toolu_0");
    t.tool_result("toolu_0", "VERDICT: PASS");
    const Scan s = gate(t);
    BOOST_TEST(s.dispatches.empty());
    BOOST_TEST(s.verdicts.empty());
}

// ---- verdict lines ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(verdict_lines_after_the_plan_write_with_timestamp) {
    TranscriptBuilder t;
    t.tool_result("", "VERDICT: PASS");
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_01C");
    const auto pass =
        t.tool_result("toolu_01C", "## Plan Review\nVERDICT: PASS\n", "2026-10-01T10:00:00.000Z");
    t.dispatch("viber:planner-review", "toolu_01D");
    const auto fail = t.task_notification("toolu_01D", "Review done.\nVERDICT: FAIL\n");
    t.dispatch("viber:planner-review", "toolu_01E");
    const auto denied = t.tool_result("toolu_01E", "VERDICT: `DENIED`", "not a time");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 3u);
    BOOST_TEST(s.verdicts[0].line == pass);
    BOOST_TEST((s.verdicts[0].value == Verdict::pass));
    BOOST_TEST_REQUIRE(s.verdicts[0].timestamp.has_value());
    BOOST_TEST(*s.verdicts[0].timestamp == 1790848800);
    BOOST_TEST(s.verdicts[1].line == fail);
    BOOST_TEST((s.verdicts[1].value == Verdict::fail));
    BOOST_TEST(!s.verdicts[1].timestamp.has_value());
    BOOST_TEST(s.verdicts[2].line == denied);
    BOOST_TEST((s.verdicts[2].value == Verdict::denied));
    BOOST_TEST(!s.verdicts[2].timestamp.has_value());
}

BOOST_AUTO_TEST_CASE(named_dispatches_are_the_earlier_ids_in_the_raw_line) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-spec-review", "toolu_A");
    t.dispatch("viber:planner-graph-review", "toolu_B");
    t.dispatch("viber:planner-task-review", "");
    t.dispatch("viber:planner-task-review", "toolu_C");
    t.tool_result("toolu_B", "VERDICT: PASS");
    t.tool_result("", "VERDICT: FAIL\nsee toolu_C and toolu_A");
    t.tool_result("", "VERDICT: PASS");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 3u);
    BOOST_TEST(s.verdicts[0].named_dispatches == std::vector<std::size_t>({1}));
    BOOST_TEST(s.verdicts[1].named_dispatches == std::vector<std::size_t>({0, 3}));
    BOOST_TEST(s.verdicts[2].named_dispatches.empty());
}

BOOST_AUTO_TEST_CASE(a_verdict_names_only_dispatches_before_it) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "");
    const auto early = t.tool_result("toolu_late", "VERDICT: PASS");
    t.dispatch("viber:planner-review", "toolu_late");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == early);
    BOOST_TEST(s.verdicts[0].named_dispatches.empty());
}

BOOST_AUTO_TEST_CASE(async_launched_echo_is_not_a_verdict_line) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_01C", "end with\nVERDICT: PASS\n");
    t.async_launched("toolu_01C", "end with\nVERDICT: PASS\n");
    const Scan s = gate(t);
    BOOST_TEST(s.dispatches.size() == 1u);
    BOOST_TEST(s.verdicts.empty());
}

BOOST_AUTO_TEST_CASE(a_dispatch_line_is_not_a_verdict_line) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_01C", "VERDICT: PASS");
    BOOST_TEST(gate(t).verdicts.empty());
}

BOOST_AUTO_TEST_CASE(the_plan_write_line_is_not_a_verdict_line) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md", "VERDICT: PASS");
    BOOST_TEST(gate(t).verdicts.empty());
}

BOOST_AUTO_TEST_CASE(api_request_blob_replaying_a_pass_is_skipped) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_01C");
    t.content_element("api-request-blob", json::object{{"type", "tool_result"},
                                                       {"tool_use_id", "toolu_01C"},
                                                       {"content", "VERDICT: PASS"}});
    BOOST_TEST(gate(t).verdicts.empty());
}

BOOST_AUTO_TEST_CASE(first_verdict_on_a_line_in_document_order) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review",
               ""); // an open id-less dispatch: the next verdict line closes it
    t.add(json::object{
        {"type", "user"},
        {"message",
         json::object{{"content",
                       json::array{json::object{{"type", "text"},
                                                {"text", "VERDICT: PASS is not warranted"}},
                                   json::object{{"type", "text"}, {"text", "VERDICT: FAIL"}},
                                   json::object{{"type", "text"}, {"text", "VERDICT: PASS"}}}}}}});
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST((s.verdicts[0].value == Verdict::fail));
}

BOOST_AUTO_TEST_CASE(verdict_inside_a_non_content_key_at_string_start_is_not_a_verdict) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review",
               ""); // an open id-less dispatch: the next verdict line closes it
    t.add(json::object{
        {"type", "user"},
        {"summary", "VERDICT: PASS"},
        {"message", json::object{{"content", json::array{json::object{
                                                 {"type", "text"}, {"note", "VERDICT: FAIL"}}}}}}});
    BOOST_TEST(gate(t).verdicts.empty());
}

BOOST_AUTO_TEST_CASE(verdict_at_a_line_start_inside_any_string_is_a_verdict) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review",
               ""); // an open id-less dispatch: the next verdict line closes it
    const auto line =
        t.add(json::object{{"type", "user"}, {"summary", "Review\nVERDICT: DENIED\nREASON: Bash"}});
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == line);
    BOOST_TEST((s.verdicts[0].value == Verdict::denied));
}

BOOST_AUTO_TEST_CASE(verdict_quoted_in_a_key_is_not_a_verdict) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review",
               ""); // an open id-less dispatch: the next verdict line closes it
    t.add(json::object{{"type", "user"}, {"VERDICT: PASS", "x"}, {"content\nVERDICT: PASS", 1}});
    BOOST_TEST(gate(t).verdicts.empty());
}

BOOST_AUTO_TEST_CASE(the_signals_own_line_does_not_end_its_wait) {
    // A record carrying permissionMode "plan" ends a pending entry only when it comes after the
    // signal, never on the signal's own line.
    TranscriptBuilder t;
    t.permission_mode("default");
    const json::object skill{{"type", "tool_use"},
                             {"id", "toolu_a"},
                             {"name", "Skill"},
                             {"input", json::object{{"skill", "planner"}}}};
    const auto line =
        t.add(json::object{{"type", "assistant"},
                           {"permissionMode", "plan"},
                           {"message", json::object{{"content", json::array{skill}}}}});
    const auto entry = t.enter_plan_mode();
    const Scan s = planner(t);
    BOOST_TEST(s.last_signal == line);
    BOOST_TEST(s.last_signal_entry == entry);
}

BOOST_AUTO_TEST_CASE(an_entry_line_that_also_ends_the_wait_is_still_the_entry) {
    TranscriptBuilder t;
    t.skill("viber:planner");
    const json::object enter{{"type", "tool_use"},
                             {"id", "toolu_b"},
                             {"name", "EnterPlanMode"},
                             {"input", json::object{}}};
    const auto entry =
        t.add(json::object{{"type", "assistant"},
                           {"permissionMode", "plan"},
                           {"message", json::object{{"content", json::array{enter}}}}});
    BOOST_TEST(planner(t).last_signal_entry == entry);
}

// ---- what pairing keeps (docs/plan-gate.md, "Pairing") -----------------------------------------

BOOST_AUTO_TEST_CASE(toolu_tokens_are_whole_ids) {
    BOOST_TEST(
        toolu_tokens(
            R"({"tool_use_id":"toolu_01A"} see toolu_01AB, <id>toolu_x-y_2</id> toolu_)") ==
            std::vector<std::string_view>({"toolu_01A", "toolu_01AB", "toolu_x-y_2", "toolu_"}),
        boost::test_tools::per_element());
    BOOST_TEST(toolu_tokens("no ids here").empty());
}

BOOST_AUTO_TEST_CASE(other_agents_dispatches_and_verdicts_are_not_kept) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    for (int i = 0; i < 500; ++i) {
        const std::string id = "toolu_c" + std::to_string(i);
        t.dispatch("viber:task-coder", id, "a long prompt that is never copied");
        t.tool_result(id, "VERDICT: PASS");
        t.tool_result("", "VERDICT: FAIL");
    }
    const Scan s = gate(t);
    BOOST_TEST(s.dispatches.empty());
    BOOST_TEST(s.verdicts.empty());
}

BOOST_AUTO_TEST_CASE(a_closed_dispatch_keeps_no_later_verdict_line) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_R");
    const auto first = t.tool_result("toolu_R", "VERDICT: FAIL");
    for (int i = 0; i < 300; ++i) t.tool_result("toolu_R", "VERDICT: PASS");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == first);
}

BOOST_AUTO_TEST_CASE(a_replaced_single_reviewer_dispatch_is_never_closed) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_old");
    t.dispatch("viber:planner-review", "toolu_new");
    t.tool_result("toolu_old", "VERDICT: PASS");
    const auto closing = t.tool_result("toolu_new", "VERDICT: FAIL");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == closing);
}

BOOST_AUTO_TEST_CASE(a_line_naming_two_open_members_leaves_the_later_for_another_line) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-spec-review", "toolu_S");
    t.dispatch("viber:planner-graph-review", "toolu_G");
    const auto both = t.tool_result("toolu_S", "VERDICT: PASS\nalso toolu_G");
    const auto graph = t.tool_result("toolu_G", "VERDICT: PASS");
    t.tool_result("toolu_S", "VERDICT: FAIL"); // the spec dispatch is closed: nothing to keep
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 2u);
    BOOST_TEST(s.verdicts[0].line == both);
    BOOST_TEST(s.verdicts[0].named_dispatches == std::vector<std::size_t>({0, 1}));
    BOOST_TEST(s.verdicts[1].line == graph);
}

BOOST_AUTO_TEST_CASE(id_less_member_dispatches_keep_one_unnamed_verdict_line_each) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-task-review", "", "tasks: T1-T8");
    t.dispatch("viber:planner-task-review", "", "tasks: T9-T13");
    const auto one = t.tool_result("", "VERDICT: PASS");
    const auto two = t.task_notification("toolu_unknown", "VERDICT: PASS\n");
    t.tool_result("", "VERDICT: FAIL"); // both consumed
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 2u);
    BOOST_TEST(s.verdicts[0].line == one);
    BOOST_TEST(s.verdicts[1].line == two);
}

BOOST_AUTO_TEST_CASE(kept_verdict_lines_never_outnumber_twice_the_kept_dispatches) {
    // Random sessions of reviewers, members and other agents answering in any order.
    std::mt19937 rng(11);
    const std::vector<std::string> agents{"viber:planner-review", "viber:planner-spec-review",
                                          "viber:planner-task-review", "viber:task-coder"};
    for (int round = 0; round < 20; ++round) {
        TranscriptBuilder t;
        t.write_file("/r/plans/a.md");
        std::vector<std::string> ids;
        for (int i = 0; i < 200; ++i) {
            if (rng() % 3 == 0) {
                const std::string id = rng() % 4 == 0 ? "" : "toolu_" + std::to_string(i);
                t.dispatch(agents[rng() % agents.size()], id, "tasks: T1-T8");
                if (!id.empty()) ids.push_back(id);
            } else {
                const std::string named =
                    ids.empty() || rng() % 5 == 0 ? "" : ids[rng() % ids.size()];
                t.tool_result(named, rng() % 2 ? "VERDICT: PASS" : "VERDICT: FAIL");
            }
        }
        const Scan s = gate(t);
        BOOST_TEST(s.verdicts.size() <= 2 * s.dispatches.size(), "round " << round);
    }
}

BOOST_AUTO_TEST_CASE(a_lone_surrogate_in_a_line_reads_as_the_replacement_character) {
    TranscriptBuilder t;
    t.write_file("/r/plans/a.md");
    t.dispatch("viber:planner-review", "toolu_R");
    const auto verdict = t.raw(
        R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_R","content":"cut \ud83d\nVERDICT: FAIL"}]}})");
    const Scan s = gate(t);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == verdict);
    BOOST_TEST((s.verdicts[0].value == Verdict::fail));
}
