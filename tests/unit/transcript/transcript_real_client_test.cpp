// transcript_real_client_test.cpp: the transcript shapes Claude Code 2.1 really writes (SPEC §3
// rev. 3, docs/transcript.md): a session opened in plan mode has no permission-mode record, the
// mode rides on typed prompt lines, an approved ExitPlanMode writes a plan_mode_exit attachment,
// and the planner's Skill call in a session already in plan mode has no EnterPlanMode after it.
// The planner's entry wait decides who owns the episode and nothing else: no line is hidden by it.
// Every scan runs through several buffer sizes, every kernel and both pairing modes.
#define BOOST_TEST_MODULE transcript_real_client
#include "common/transcript/transcript.hpp"
#include "plan-gate/pairing_window.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>

namespace json = boost::json;
using namespace viber::transcript;
using viber::plan_gate::pairing::PairRule;
using viber::plan_gate::pairing::tag_of;
using viber::testing::TranscriptBuilder;

namespace {

constexpr PairedAgent agents[] = {
    {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)},
    {.name = "plain-plan-review", .tag = tag_of(PairRule::single_reviewer)},
};

// What a test compares: the episode, the signal and what pairing kept.
struct Seen {
    std::size_t episode_start = 0;
    std::size_t last_signal = 0;
    std::size_t last_signal_entry = 0;
    std::size_t plan_write = 0;
    std::string dispatches; // "line:agent:id" joined by spaces
    std::string verdicts;   // "line:P|F|D" joined by spaces
    bool owns = false;
    bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Seen& s) {
    return out << "episode " << s.episode_start << " signal " << s.last_signal << " entry "
               << s.last_signal_entry << " write " << s.plan_write << " dispatches ["
               << s.dispatches << "] verdicts [" << s.verdicts << "] owns " << s.owns;
}

Seen seen(const Scan& scan) {
    Seen s;
    s.episode_start = scan.episode_start;
    s.last_signal = scan.last_signal;
    s.last_signal_entry = scan.last_signal_entry;
    s.plan_write = scan.last_plan_write ? scan.last_plan_write->line : 0;
    for (const Dispatch& d : scan.dispatches)
        s.dispatches += std::to_string(d.line) + ":" + d.agent + ":" + d.id + " ";
    for (const VerdictLine& v : scan.verdicts)
        s.verdicts += std::to_string(v.line) + ":" +
                      (v.value == Verdict::pass   ? "P"
                       : v.value == Verdict::fail ? "F"
                                                  : "D") +
                      " ";
    s.owns = signal_owns_episode(scan);
    return s;
}

// The gate's scan, through the public entry point, small buffers with every kernel, and a
// settle_later scan settled for both reviewers: all must agree.
Seen gate(const TranscriptBuilder& t) {
    const Request request{.signals = Signals::planner,
                          .plan_writes = true,
                          .paired_agents = agents,
                          .pairing = viber::plan_gate::pairing_window};
    const Seen reference = seen(scan_bytes(t.text(), request));
    for (const std::size_t size : {64u, 97u, 4096u}) {
        for (const auto kernel : {detail::Kernel::portable, detail::Kernel::sse2,
                                  detail::Kernel::avx2, detail::Kernel::neon}) {
            BOOST_TEST_REQUIRE(seen(detail::scan_bytes_with(t.text(), request, size, kernel)) ==
                                   reference,
                               "buffer " << size << " kernel " << static_cast<int>(kernel));
        }
    }
    Request later = request;
    later.settle_later = true;
    Scan settled = scan_bytes(t.text(), later);
    BOOST_TEST_REQUIRE(settle_pairing(settled, agents));
    BOOST_TEST_REQUIRE(seen(settled) == reference,
                       "settled later: " << seen(settled) << " vs " << reference);
    return reference;
}

Seen hints(const TranscriptBuilder& t) {
    return seen(scan_bytes(t.text(), {.signals = Signals::planner_chain}));
}

constexpr std::string_view plan = "/home/u/.claude/plans/p.md";

} // namespace

// ---- the entry wait hides no line --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_four_line_planner_session_keeps_its_dispatch_and_pass) {
    TranscriptBuilder t;
    const auto skill = t.skill("viber:planner");
    const auto write = t.write_file(plan);
    const auto dispatch = t.dispatch("viber:planner-review", "toolu_01R");
    const auto pass = t.tool_result("toolu_01R", "## Plan Review\nVERDICT: PASS\n");
    const Seen s = gate(t);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(s.last_signal_entry == 0u);
    BOOST_TEST(s.owns);
    BOOST_TEST(s.plan_write == write);
    BOOST_TEST(s.dispatches == std::to_string(dispatch) + ":planner-review:toolu_01R ");
    BOOST_TEST(s.verdicts == std::to_string(pass) + ":P ");
}

BOOST_AUTO_TEST_CASE(the_four_line_session_with_an_id_less_dispatch_keeps_its_pair) {
    TranscriptBuilder t;
    t.skill("planner");
    t.write_file(plan);
    const auto dispatch = t.dispatch("planner-review", "");
    const auto fail = t.tool_result("", "VERDICT: FAIL");
    const Seen s = gate(t);
    BOOST_TEST(s.dispatches == std::to_string(dispatch) + ":planner-review: ");
    BOOST_TEST(s.verdicts == std::to_string(fail) + ":F ");
}

BOOST_AUTO_TEST_CASE(a_verdict_in_the_unended_wait_keeps_an_earlier_pair) {
    // Write, dispatch, PASS, then the Skill call, then another verdict line inside the wait.
    TranscriptBuilder t;
    const auto write = t.write_file(plan);
    const auto dispatch = t.dispatch("viber:planner-review", "toolu_01R");
    const auto pass = t.tool_result("toolu_01R", "VERDICT: PASS");
    t.skill("viber:planner");
    const auto other = t.tool_result("toolu_01Z", "VERDICT: FAIL");
    const Seen s = gate(t);
    BOOST_TEST(s.plan_write == write);
    BOOST_TEST(s.dispatches == std::to_string(dispatch) + ":planner-review:toolu_01R ");
    // The later FAIL names no kept dispatch: the single reviewer keeps only its pair.
    BOOST_TEST(s.verdicts == std::to_string(pass) + ":P ");
    BOOST_TEST(other == 5u);
}

BOOST_AUTO_TEST_CASE(a_task_notification_verdict_that_ends_the_wait_is_read) {
    TranscriptBuilder t;
    const auto skill = t.skill("viber:planner");
    t.write_file(plan);
    const auto dispatch = t.dispatch("viber:planner-review", "toolu_01R");
    t.async_launched("toolu_01R", "review; answer VERDICT: PASS or FAIL");
    const auto note = t.task_notification("toolu_01R", "Review done.\nVERDICT: PASS\n");
    const auto entry = t.enter_plan_mode(); // after the wait ended: not the signal's entry
    const Seen s = gate(t);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(s.last_signal_entry == 0u);
    BOOST_TEST(entry == 6u);
    BOOST_TEST(s.dispatches == std::to_string(dispatch) + ":planner-review:toolu_01R ");
    BOOST_TEST(s.verdicts == std::to_string(note) + ":P ");
}

BOOST_AUTO_TEST_CASE(a_plan_write_in_the_wait_then_enter_plan_mode_keeps_both) {
    TranscriptBuilder t;
    t.permission_mode("default");
    const auto skill = t.skill("viber:planner");
    const auto write = t.write_file(plan);
    const auto entry = t.enter_plan_mode();
    const auto dispatch = t.dispatch("viber:planner-review", "toolu_01R");
    const auto pass = t.tool_result("toolu_01R", "VERDICT: PASS");
    const Seen s = gate(t);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(s.last_signal_entry == entry);
    BOOST_TEST(s.plan_write == write);
    BOOST_TEST(s.dispatches == std::to_string(dispatch) + ":planner-review:toolu_01R ");
    BOOST_TEST(s.verdicts == std::to_string(pass) + ":P ");
}

// ---- the session opened in plan mode, as the real client writes it -----------------------------

BOOST_AUTO_TEST_CASE(a_session_opened_in_plan_mode_keeps_the_planners_review) {
    TranscriptBuilder t;
    t.attachment("plan_mode");
    t.typed_prompt_in_mode("plan", "add a CSV export");
    const auto skill = t.skill("viber:planner", "toolu_01S");
    t.tool_result("toolu_01S", "Launching skill: viber:planner");
    t.meta_line();
    t.attachment("plan_mode");
    const auto write = t.write_file(plan);
    t.tool_result("toolu_write", "File created successfully");
    const auto dispatch = t.dispatch("viber:planner-review", "toolu_01R");
    const auto pass =
        t.reviewer_answer("toolu_01R", "## Plan Review\nVERDICT: PASS", "2026-12-01T10:00:00.000Z");
    const Seen s = gate(t);
    BOOST_TEST(s.episode_start == 0u);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(s.owns);
    BOOST_TEST(s.plan_write == write);
    BOOST_TEST(s.dispatches == std::to_string(dispatch) + ":planner-review:toolu_01R ");
    BOOST_TEST(s.verdicts == std::to_string(pass) + ":P ");
}

// ---- where the episode starts (rev. 3) --------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_typed_prompt_out_of_plan_mode_starts_the_episode) {
    TranscriptBuilder t;
    t.typed_prompt_in_mode("plan", "plan it");
    const auto out = t.typed_prompt_in_mode("default", "build it");
    t.typed_prompt_in_mode("plan", "plan the next one");
    BOOST_TEST(gate(t).episode_start == out);
    BOOST_TEST(hints(t).episode_start == out);
}

BOOST_AUTO_TEST_CASE(a_typed_prompt_in_any_other_mode_starts_the_episode) {
    for (const std::string_view mode : {"default", "acceptEdits", "bypassPermissions", "x"}) {
        TranscriptBuilder t;
        t.permission_mode("default");
        const auto out = t.typed_prompt_in_mode(mode, "go");
        BOOST_TEST(gate(t).episode_start == out, mode);
    }
}

BOOST_AUTO_TEST_CASE(a_plan_mode_exit_attachment_starts_the_episode) {
    TranscriptBuilder t;
    t.typed_prompt_in_mode("plan", "plan it");
    const auto exit = t.attachment("plan_mode_exit");
    t.attachment("plan_mode");
    BOOST_TEST(gate(t).episode_start == exit);
    BOOST_TEST(hints(t).episode_start == exit);
}

BOOST_AUTO_TEST_CASE(lines_that_show_no_mode_change_do_not_start_the_episode) {
    TranscriptBuilder t;
    const auto start = t.permission_mode("default");
    t.typed_prompt_in_mode("plan", "typed in plan mode");
    t.attachment("plan_mode");
    t.typed_prompt("a typed prompt without the field");
    // isMeta lines, array content and other record types carry no user's mode.
    t.add(json::object{{"type", "user"},
                       {"isMeta", true},
                       {"permissionMode", "default"},
                       {"message", json::object{{"role", "user"}, {"content", "meta"}}}});
    t.add(json::object{
        {"type", "user"},
        {"permissionMode", "default"},
        {"message",
         json::object{{"role", "user"},
                      {"content", json::array{json::object{{"type", "text"}, {"text", "x"}}}}}}});
    t.add(json::object{
        {"type", "assistant"},
        {"permissionMode", "default"},
        {"message", json::object{{"role", "assistant"}, {"content", "a string reply"}}}});
    t.add(json::object{{"type", "attachment"},
                       {"permissionMode", "default"},
                       {"attachment", json::object{{"type", "plan_mode_exit_not"}}}});
    t.add(
        json::object{{"type", "system"}, {"attachment", json::object{{"type", "plan_mode_exit"}}}});
    // Quoted inside a string, never a record.
    t.typed_prompt(R"({"type":"attachment","attachment":{"type":"plan_mode_exit"}})");
    BOOST_TEST(gate(t).episode_start == start);
    BOOST_TEST(hints(t).episode_start == start);
}

BOOST_AUTO_TEST_CASE(an_approved_plan_does_not_arm_the_next_episode) {
    TranscriptBuilder t;
    t.typed_prompt_in_mode("plan", "plan it");
    t.skill("viber:planner");
    t.write_file(plan);
    t.dispatch("viber:planner-review", "toolu_01R");
    t.tool_result("toolu_01R", "VERDICT: PASS");
    t.tool_use("ExitPlanMode", json::object{{"plan", "x"}}, "toolu_exit");
    const auto exit = t.attachment("plan_mode_exit");
    t.typed_prompt_in_mode("acceptEdits", "build it");
    const auto next = t.typed_prompt_in_mode("default", "now something else");
    t.attachment("plan_mode");
    t.typed_prompt_in_mode("plan", "plan another thing");
    const Seen s = gate(t);
    BOOST_TEST(exit == 7u);
    BOOST_TEST(s.episode_start == next);
    BOOST_TEST(s.plan_write < s.episode_start); // the old write lies before: it does not arm
    BOOST_TEST(!s.owns);
}

BOOST_AUTO_TEST_CASE(plan_hints_sees_the_planner_in_a_session_opened_in_plan_mode) {
    TranscriptBuilder t;
    t.typed_prompt_in_mode("plan", "plan it");
    const auto skill = t.skill("viber:planner", "toolu_01S");
    t.tool_result("toolu_01S", "Launching skill: viber:planner");
    t.meta_line();
    t.attachment("plan_mode");
    const Seen s = hints(t);
    BOOST_TEST(s.last_signal == skill);
    BOOST_TEST(s.owns);
}
