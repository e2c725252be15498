// plan_gate_pairing_test.cpp: pairing settled late (docs/plan-gate.md, "Pairing" and "Review
// set"): the gate's decision on a scan whose dispatch and verdict candidates waited unparsed and
// were settled for the route's reviewer (a single reviewer from the end) is the decision of
// pairing every line in order, through windows small enough to overflow.
#define BOOST_TEST_MODULE plan_gate_pairing
#include "common/transcript/transcript.hpp"
#include "plan-gate/pairing_window.hpp"
#include "plan-gate/plan_gate.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace json = boost::json;
using namespace viber::plan_gate;
using viber::testing::TranscriptBuilder;
namespace transcript = viber::transcript;

namespace {

const std::string plan_path = "/repo/.claude/plans/x/plan.md";
const std::string planner_text = "---\nsource: interview\n---\n# Plan\n";
const std::string plain_text = "# Plan\nSome steps.\n";

std::string tasks(std::size_t n) {
    std::string text = planner_text;
    for (std::size_t i = 0; i < n; ++i) text += "<!-- TASK -->\n## Task\n";
    return text;
}

// Windows that overflow at every size a test transcript reaches, and the hook's own.
const std::vector<std::size_t> windows{2, 3, 4, 5, 8, transcript::detail::default_pairing_window};

transcript::Request gate_request(bool settle_later) {
    return transcript::Request{.signals = transcript::Signals::planner,
                               .plan_writes = true,
                               .paired_agents = paired_agents,
                               .settle_later = settle_later,
                               .pairing = pairing_window};
}

// The decision on a scan, as gather() builds its input (the plan's text given, no disk).
std::optional<std::string> decision(const transcript::Scan& scan, const std::string& text,
                                    bool plain_switch) {
    GateInput input;
    input.scan = scan;
    input.refs_dir = "/plugin/references";
    if (const transcript::PlanWrite* write = armed_plan_write(scan)) {
        input.plan = Plan{write->file_path, std::string(plan_name(write->file_path)), write->line,
                          text, 1000};
        if (route(scan, *input.plan) == Route::plain) input.plain_review_on = plain_switch;
    }
    return decide(input);
}

// The decision when every candidate is paired in line order as it is read: the rule itself.
std::optional<std::string> in_order(const TranscriptBuilder& t, const std::string& text,
                                    bool plain_switch = true) {
    const transcript::Scan scan = transcript::scan_bytes(t.text(), gate_request(false));
    BOOST_TEST_REQUIRE(!scan.pending);
    return decision(scan, text, plain_switch);
}

// The decision when the candidates wait in a window of `window` entries and are settled for the
// route's reviewer only.
std::optional<std::string> settled(const TranscriptBuilder& t, const std::string& text,
                                   std::size_t window, bool plain_switch = true) {
    transcript::Scan scan =
        transcript::detail::scan_bytes_with_window(t.text(), gate_request(true), window);
    BOOST_TEST_REQUIRE(scan.readable);
    if (const transcript::PlanWrite* write = armed_plan_write(scan)) {
        const Plan plan{write->file_path, "plan.md", write->line, text, 1000};
        BOOST_TEST_REQUIRE(transcript::settle_pairing(scan, reviewers_of(route(scan, plan))));
    }
    BOOST_TEST(!scan.pending);
    return decision(scan, text, plain_switch);
}

std::string shown(const std::optional<std::string>& reason) {
    return reason ? *reason : std::string("(allow)");
}

// The rule's decision, the same through every window; returned for the case's own checks.
std::optional<std::string> agreed(const TranscriptBuilder& t, const std::string& text,
                                  bool plain_switch = true) {
    const std::optional<std::string> expected = in_order(t, text, plain_switch);
    for (const std::size_t window : windows) {
        BOOST_TEST(shown(settled(t, text, window, plain_switch)) == shown(expected),
                   "window " << window);
    }
    return expected;
}

bool holds(const std::optional<std::string>& reason, std::string_view part) {
    return reason && reason->find(part) != std::string::npos;
}

std::string pair_text(std::size_t dispatch, std::size_t verdict) {
    return "(dispatch on line " + std::to_string(dispatch) + ", verdict on line " +
           std::to_string(verdict) + ")";
}

// A refusal `step` that names the pair of lines `dispatch` and `verdict`.
bool refuses_on_pair(const std::optional<std::string>& reason, std::string_view step,
                     std::size_t dispatch, std::size_t verdict) {
    return holds(reason, step) && holds(reason, pair_text(dispatch, verdict));
}

// A planner session up to its plan write; returns the write's line.
std::size_t planner_session(TranscriptBuilder& t) {
    t.permission_mode("default");
    t.skill("viber:planner");
    t.enter_plan_mode();
    return t.write_file(plan_path);
}

// A first review of the plan that passed: a pair later lines must outrank.
void passed_once(TranscriptBuilder& t) {
    t.dispatch("viber:planner-review", "toolu_A");
    t.tool_result("toolu_A", "VERDICT: PASS");
}

} // namespace

BOOST_AUTO_TEST_CASE(no_dispatch_asks_for_the_review) {
    TranscriptBuilder t;
    planner_session(t);
    t.tool_result("toolu_X", "VERDICT: PASS");
    t.dispatch("viber:task-coder", "toolu_C");
    t.tool_result("toolu_C", "VERDICT: FAIL");
    const auto reason = agreed(t, planner_text);
    BOOST_TEST(holds(reason, "Next step: review the plan."));
}

BOOST_AUTO_TEST_CASE(dispatches_and_no_pair_wait_for_the_last_dispatch) {
    TranscriptBuilder t;
    const std::size_t write = planner_session(t);
    t.dispatch("viber:planner-review", "toolu_A");
    t.tool_result("toolu_B", "VERDICT: PASS");
    const std::size_t last = t.dispatch("planner-review", "toolu_C");
    t.tool_result("toolu_A", "VERDICT: FAIL"); // A was replaced: it can no longer close
    const auto reason = agreed(t, planner_text);
    BOOST_TEST(holds(reason, "Next step: let the review finish."));
    BOOST_TEST(holds(reason, "dispatched on line " + std::to_string(last) +
                                 ", after plan plan.md was written on line " +
                                 std::to_string(write)));
}

BOOST_AUTO_TEST_CASE(an_earlier_pair_decides_while_a_newer_dispatch_runs) {
    for (const bool pass : {true, false}) {
        TranscriptBuilder t;
        planner_session(t);
        const std::size_t dispatch = t.dispatch("viber:planner-review", "toolu_A");
        const std::size_t verdict =
            t.tool_result("toolu_A", pass ? "VERDICT: PASS" : "Review.\nVERDICT: FAIL");
        t.dispatch("viber:planner-review", "toolu_B");
        t.tool_result("toolu_Other", "VERDICT: FAIL");
        t.dispatch("viber:task-coder", "toolu_C");
        const auto reason = agreed(t, planner_text);
        if (pass) {
            BOOST_TEST(!reason.has_value());
        } else {
            BOOST_TEST(refuses_on_pair(reason, "Next step: fix the findings.", dispatch, verdict));
        }
    }
}

// SPEC §4 rev. 4: a dispatch whose own tool_result is an error is no dispatch. Alone, it leaves
// nothing to wait for: the refusal asks for the review again and names the failed call and the
// first line of its error, where it used to wait for a review that never started.
BOOST_AUTO_TEST_CASE(a_failed_dispatch_is_no_dispatch) {
    for (const std::string& text : {planner_text, plain_text}) {
        const std::string agent =
            text == planner_text ? "viber:planner-review" : "viber:plain-plan-review";
        TranscriptBuilder t;
        if (text == planner_text) {
            planner_session(t);
        } else {
            t.permission_mode("default");
            t.write_file(plan_path);
        }
        const std::size_t dispatch = t.dispatch(agent, "toolu_01F");
        const std::size_t error =
            t.tool_error("toolu_01F", "Auto mode is unavailable: no check, so Agent was not run.\n"
                                      "Retrying won't help.");
        const auto reason = agreed(t, text);
        BOOST_TEST(holds(reason, "Next step: review the plan."), shown(reason));
        BOOST_TEST(holds(reason, "The " + agent + " dispatch on line " + std::to_string(dispatch) +
                                     " did not run: its result on line " + std::to_string(error) +
                                     " is an error (\"Auto mode is unavailable: no check, so "
                                     "Agent was not run.\"), so no review is running."),
                   shown(reason));
        BOOST_TEST(!holds(reason, "Retrying"));
        // Dispatched again, it waits for that review, and then its verdict decides.
        const std::size_t again = t.dispatch(agent, "toolu_01G");
        BOOST_TEST(holds(agreed(t, text), "Next step: let the review finish. " + agent +
                                              " was dispatched on line " + std::to_string(again)));
        t.task_notification("toolu_01G", "Review.\nVERDICT: PASS\n");
        BOOST_TEST(!agreed(t, text).has_value());
    }
}

// A failed dispatch undoes nothing else: the dispatch it replaced is still the one running, and
// its verdict pairs; a verdict naming the failed call counts for nothing; an error answering
// another call, or a call that ran, changes nothing.
BOOST_AUTO_TEST_CASE(a_failed_dispatch_leaves_the_one_before_it_open) {
    TranscriptBuilder t;
    planner_session(t);
    const std::size_t first = t.dispatch("viber:planner-review", "toolu_01A");
    t.async_launched("toolu_01A", "review it");
    t.dispatch("viber:planner-review", "toolu_01B");
    t.tool_error("toolu_01B", "The user doesn't want to proceed with this tool use.");
    t.tool_error("toolu_01Z", "Exit code 1");
    BOOST_TEST(holds(agreed(t, planner_text), "Next step: let the review finish. "
                                              "viber:planner-review was dispatched on line " +
                                                  std::to_string(first)));
    t.tool_result("toolu_01B", "VERDICT: PASS"); // names the failed call only
    BOOST_TEST(holds(agreed(t, planner_text), "Next step: let the review finish."));
    const std::size_t verdict = t.task_notification("toolu_01A", "Review.\nVERDICT: FAIL\n");
    BOOST_TEST(
        refuses_on_pair(agreed(t, planner_text), "Next step: fix the findings.", first, verdict));
}

// The failed call's error can stand far from it and past the window: every window agrees.
BOOST_AUTO_TEST_CASE(a_failure_past_the_window_undoes_its_dispatch) {
    for (const bool earlier_open : {false, true}) {
        TranscriptBuilder t;
        planner_session(t);
        const std::size_t first = t.dispatch("viber:planner-review", "toolu_01A");
        if (!earlier_open) t.task_notification("toolu_01A", "VERDICT: FAIL\n");
        t.dispatch("viber:planner-review", "toolu_01B");
        for (int i = 0; i < 9; ++i) t.tool_result("toolu_01Other", "VERDICT: PASS");
        t.tool_error("toolu_01B", "could not start");
        const auto reason = agreed(t, planner_text);
        if (earlier_open) {
            BOOST_TEST(holds(reason, "Next step: let the review finish. viber:planner-review was "
                                     "dispatched on line " +
                                         std::to_string(first)),
                       shown(reason));
        } else {
            BOOST_TEST(holds(reason, "Next step: fix the findings."), shown(reason));
        }
    }
}

// The review set: a member whose only dispatch failed is missing and not running.
BOOST_AUTO_TEST_CASE(a_failed_member_dispatch_is_asked_for_again) {
    TranscriptBuilder t;
    planner_session(t);
    t.dispatch("viber:planner-spec-review", "toolu_01S", "plan\nrefs: /r");
    const std::size_t graph = t.dispatch("viber:planner-graph-review", "toolu_01G", "plan");
    t.tool_error("toolu_01G", "Auto mode is unavailable.");
    t.dispatch("viber:planner-task-review", "toolu_01T", "plan\ntasks: T1-T13");
    t.task_notification("toolu_01S", "VERDICT: PASS\n");
    t.task_notification("toolu_01T", "VERDICT: PASS\n");
    const auto reason = agreed(t, tasks(13));
    BOOST_TEST(holds(reason, "Next step: review the plan."), shown(reason));
    BOOST_TEST(holds(reason, "viber:planner-graph-review dispatch on line " +
                                 std::to_string(graph) + " did not run"),
               shown(reason));
}

// Claude Code 2.1.3xx's bookkeeping records are no events: a queued task notification holding the
// reviewer's verdict pairs with nothing; the delivered notification does.
BOOST_AUTO_TEST_CASE(bookkeeping_records_are_skipped) {
    TranscriptBuilder t;
    planner_session(t);
    const std::size_t dispatch = t.dispatch("viber:planner-review", "toolu_01A");
    t.async_launched("toolu_01A", "review it");
    const std::string note = "<task-notification>\n<tool-use-id>toolu_01A</tool-use-id>\n"
                             "<status>completed</status>\n<result>VERDICT: PASS\n</result>\n"
                             "</task-notification>";
    for (const char* type : {"queue-operation", "api-request", "api-request-shape", "tools-used",
                             "atis-latch", "last-prompt", "cost-state", "api-request-blob"})
        t.bookkeeping(type, note);
    BOOST_TEST(holds(agreed(t, planner_text), "Next step: let the review finish."));
    const std::size_t verdict = t.task_notification("toolu_01A", "Review.\nVERDICT: FAIL\n");
    BOOST_TEST(refuses_on_pair(agreed(t, planner_text), "Next step: fix the findings.", dispatch,
                               verdict));
}

BOOST_AUTO_TEST_CASE(an_id_less_dispatch_is_closed_by_the_next_verdict_line) {
    TranscriptBuilder t;
    planner_session(t);
    passed_once(t);
    const std::size_t dispatch = t.dispatch("viber:planner-review", "");
    t.async_launched("toolu_Z", "end with\nVERDICT: PASS\n"); // an echo, no verdict line
    const std::size_t verdict = t.task_notification("toolu_Z", "Done.\nVERDICT: DENIED\n");
    t.tool_result("", "VERDICT: PASS"); // nothing open any more: ignored
    const auto reason = agreed(t, planner_text);
    BOOST_TEST(refuses_on_pair(reason, "Next step: grant the permission.", dispatch, verdict));
}

BOOST_AUTO_TEST_CASE(verdict_lines_naming_another_id_are_skipped) {
    // Lines naming a longer id that starts with the dispatch's, or another id, close nothing; the
    // first line naming it closes it, in a tool_result or a task notification alike.
    for (const bool notification : {false, true}) {
        TranscriptBuilder t;
        planner_session(t);
        const std::size_t dispatch = t.dispatch("viber:planner-review", "toolu_01A");
        t.tool_result("toolu_01AB", "VERDICT: PASS");
        t.tool_result("", "VERDICT: PASS\nsee toolu_01B");
        const std::size_t verdict =
            notification ? t.task_notification("toolu_01A", "Review.\nVERDICT: FAIL\n")
                         : t.tool_result("", "VERDICT: FAIL\nfor toolu_01A, see above");
        t.tool_result("toolu_01A", "VERDICT: PASS"); // A is closed: ignored
        BOOST_TEST(refuses_on_pair(agreed(t, planner_text), "Next step: fix the findings.",
                                   dispatch, verdict));
    }
}

BOOST_AUTO_TEST_CASE(an_overflowing_window_keeps_the_open_dispatch_and_the_pair_before_it) {
    // The pair and the open dispatch fall in the oldest half of a small window, paired in order;
    // the verdict lines after them, in the window still, name nothing open.
    TranscriptBuilder t;
    planner_session(t);
    const std::size_t dispatch = t.dispatch("viber:planner-review", "toolu_A");
    const std::size_t verdict = t.tool_result("toolu_A", "VERDICT: FAIL");
    t.dispatch("viber:planner-review", "toolu_B"); // open across the window's boundary
    for (int i = 0; i < 9; ++i) {
        t.tool_result("toolu_X" + std::to_string(i), "VERDICT: PASS");
        t.dispatch("viber:task-coder", "toolu_Y" + std::to_string(i));
    }
    const auto reason = agreed(t, planner_text);
    BOOST_TEST(refuses_on_pair(reason, "Next step: fix the findings.", dispatch, verdict));

    // The open dispatch, paired before the window, is closed by a line still in it.
    t.tool_result("toolu_B", "VERDICT: PASS");
    t.tool_result("toolu_B", "VERDICT: FAIL"); // B is closed: ignored
    BOOST_TEST(!agreed(t, planner_text).has_value());

    // An id-less open dispatch before the window is closed by the window's first verdict line.
    TranscriptBuilder u;
    planner_session(u);
    const std::size_t id_less = u.dispatch("viber:planner-review", "");
    for (int i = 0; i < 9; ++i) u.dispatch("viber:task-coder", "toolu_Y" + std::to_string(i));
    const std::size_t first = u.tool_result("toolu_Y3", "VERDICT: FAIL");
    u.tool_result("", "VERDICT: PASS");
    const auto id_less_reason = agreed(u, planner_text);
    BOOST_TEST(holds(id_less_reason, pair_text(id_less, first)));
}

BOOST_AUTO_TEST_CASE(a_plan_write_in_the_middle_restarts_everything) {
    TranscriptBuilder t;
    planner_session(t);
    passed_once(t);
    for (int i = 0; i < 6; ++i) t.tool_result("toolu_X", "VERDICT: FAIL");
    // The rewrite quotes a dispatch: a line parsed now that pairing also reads.
    const std::size_t rewrite =
        t.write_file(plan_path, R"({"name":"Agent","input":{"subagent_type":"planner-review"}})");
    const std::size_t running = t.dispatch("viber:planner-review", "toolu_B");
    t.tool_result("toolu_A", "VERDICT: PASS"); // A belongs to the old plan
    const auto reason = agreed(t, planner_text);
    BOOST_TEST(holds(reason, "Next step: let the review finish."));
    BOOST_TEST(holds(reason, "dispatched on line " + std::to_string(running) +
                                 ", after plan plan.md was written on line " +
                                 std::to_string(rewrite)));

    const std::size_t verdict = t.tool_result("toolu_B", "VERDICT: FAIL");
    BOOST_TEST(holds(agreed(t, planner_text), pair_text(running, verdict)));
}

BOOST_AUTO_TEST_CASE(a_write_quoting_a_dispatch_is_no_dispatch) {
    TranscriptBuilder t;
    planner_session(t);
    const std::size_t dispatch = t.dispatch("viber:planner-review", "");
    // A candidate by its raw bytes; a Write by its structure (and no plan write).
    t.tool_use("Write",
               json::object{{"file_path", "/repo/notes.md"},
                            {"content", R"({"name":"Agent","input":{"subagent_type":)"
                                        R"("viber:planner-review"}})"}},
               "toolu_W");
    const std::size_t verdict = t.tool_result("toolu_R", "VERDICT: FAIL");
    const auto reason = agreed(t, planner_text);
    BOOST_TEST(refuses_on_pair(reason, "Next step: fix the findings.", dispatch, verdict));
}

BOOST_AUTO_TEST_CASE(plain_plan_review_settles_the_same_way) {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.write_file(plan_path);
    t.dispatch("viber:planner-review", "toolu_P"); // another reviewer: not this route's
    t.tool_result("toolu_P", "VERDICT: PASS");
    const std::size_t dispatch = t.dispatch("plain-plan-review", "toolu_A");
    const std::size_t verdict = t.tool_result("toolu_A", "VERDICT: FAIL");
    const auto reason = agreed(t, plain_text);
    BOOST_TEST(holds(reason, "viber:plain-plan-review answered 'VERDICT: FAIL'"));
    BOOST_TEST(holds(reason, pair_text(dispatch, verdict)));
    BOOST_TEST(!agreed(t, plain_text, false).has_value()); // switch off: no review asked for
}

BOOST_AUTO_TEST_CASE(the_review_set_with_ids_and_without) {
    const std::string text = tasks(13);
    for (const bool fail : {false, true}) {
        TranscriptBuilder t;
        planner_session(t);
        t.dispatch("viber:planner-spec-review", "toolu_S");
        t.dispatch("viber:planner-graph-review", "");
        t.dispatch("viber:planner-task-review", "toolu_T", "plan\ntasks: T1-T8");
        t.dispatch("viber:planner-task-review", "", "plan\ntasks: T9-T13");
        t.dispatch("viber:planner-review", "toolu_R");
        t.tool_result("toolu_R", "VERDICT: PASS"); // counts for nothing here
        t.tool_result("toolu_T", "VERDICT: PASS");
        t.tool_result("", "VERDICT: PASS"); // the graph reviewer, the earliest id-less
        t.tool_result("toolu_S", fail ? "VERDICT: FAIL" : "VERDICT: PASS");
        t.tool_result("", "VERDICT: PASS"); // T9-T13
        const auto reason = agreed(t, text);
        if (fail) {
            BOOST_TEST(holds(reason, "Next step: fix the findings."));
        } else {
            BOOST_TEST(!reason.has_value());
        }
    }
    TranscriptBuilder running;
    planner_session(running);
    running.dispatch("viber:planner-spec-review", "toolu_S");
    running.tool_result("toolu_S", "VERDICT: PASS");
    BOOST_TEST(holds(agreed(running, text), "planner-graph-review"));
}

BOOST_AUTO_TEST_CASE(a_settled_scan_keeps_only_what_decides) {
    // 200 rounds: the single reviewer settles on its last dispatch and latest pair, parsed from
    // the end, instead of every line.
    TranscriptBuilder t;
    planner_session(t);
    for (int i = 0; i < 200; ++i) {
        const std::string id = "toolu_R" + std::to_string(i);
        t.dispatch("viber:planner-review", id);
        t.tool_result(id, "VERDICT: FAIL");
    }
    const std::size_t last = t.dispatch("viber:planner-review", "toolu_last");
    transcript::Scan scan = transcript::scan_bytes(t.text(), gate_request(true));
    BOOST_TEST_REQUIRE(scan.pending != nullptr);
    BOOST_TEST(scan.dispatches.empty());
    BOOST_TEST_REQUIRE(transcript::settle_pairing(scan, reviewers_of(Route::planner_review)));
    BOOST_TEST_REQUIRE(scan.dispatches.size() == 2u); // the last pair's dispatch and the last
    BOOST_TEST(scan.dispatches.back().line == last);
    BOOST_TEST_REQUIRE(scan.verdicts.size() == 1u);
    BOOST_TEST(scan.verdicts[0].line == last - 1);
    BOOST_TEST(scan.verdicts[0].named_dispatches == std::vector<std::size_t>({0}));
    BOOST_TEST(transcript::settle_pairing(scan, reviewers_of(Route::planner_review))); // no-op
    BOOST_TEST(scan.dispatches.size() == 2u);
}

BOOST_AUTO_TEST_CASE(random_sessions_decide_alike_in_order_and_settled) {
    // Reviewers that answer late, out of order, for other ids or not at all, among other agents,
    // echoes, quoted dispatches and rewrites of the plan: every route, every window.
    std::mt19937 random(20261201);
    const std::vector<std::string> agents{"viber:planner-review", "planner-review",
                                          "plain-plan-review",    "viber:planner-spec-review",
                                          "planner-graph-review", "viber:planner-task-review",
                                          "viber:task-coder"};
    const std::vector<std::string> ids{"", "toolu_A", "toolu_B", "toolu_C", "toolu_D"};
    const std::vector<std::string> verdicts{"VERDICT: PASS", "VERDICT: FAIL", "VERDICT: DENIED",
                                            "VERDICT: PASS is not warranted"};
    const std::vector<std::string> ranges{"tasks: T1-T8", "tasks: T9-T13", "tasks: T1-T13", ""};
    const auto pick = [&](const auto& list) { return list[random() % list.size()]; };
    for (int round = 0; round < 300; ++round) {
        TranscriptBuilder t;
        if (round % 3 != 2) {
            planner_session(t);
        } else {
            t.permission_mode("default");
            t.write_file(plan_path);
        }
        const int length = 1 + static_cast<int>(random() % 30);
        for (int i = 0; i < length; ++i) {
            switch (random() % 9) {
            case 0:
            case 1:
            case 2:
                if (random() % 6 != 0) {
                    t.dispatch(pick(agents), pick(ids), "plan\n" + pick(ranges));
                } else {
                    // Refused, or it could not start: its error comes right after it (SPEC §4
                    // rev. 4), under an id of its own, as Claude Code's ids are.
                    const std::string id = "toolu_F" + std::to_string(i);
                    t.dispatch(pick(agents), id, "plan\n" + pick(ranges));
                    if (random() % 3 != 0) t.raw(pick(verdicts));
                    t.tool_error(id, "Auto mode is unavailable.\n" + pick(verdicts));
                    if (random() % 3 == 0) t.tool_result(id, pick(verdicts));
                }
                break;
            case 3:
            case 4:
                t.tool_result(pick(ids), pick(verdicts) + "\n" + pick(ids));
                break;
            case 5:
                t.task_notification(pick(ids), "Done.\n" + pick(verdicts) + "\n");
                break;
            case 6:
                t.async_launched(pick(ids), "end with\n" + pick(verdicts) + "\n");
                break;
            case 7:
                t.tool_use("Write",
                           json::object{{"file_path", "/repo/notes.md"},
                                        {"content", "\"subagent_type\":\"" + pick(agents) + "\"\n" +
                                                        pick(verdicts)}},
                           pick(ids));
                break;
            default:
                if (random() % 4 == 0) {
                    t.write_file(plan_path);
                } else {
                    t.typed_prompt("go on");
                }
            }
        }
        // Settled for every paired agent at once, one scan answers every route.
        transcript::Scan all = transcript::detail::scan_bytes_with_window(
            t.text(), gate_request(true), windows[round % windows.size()]);
        BOOST_TEST_REQUIRE(transcript::settle_pairing(all, paired_agents));
        for (const std::string& text : {planner_text, tasks(13), plain_text}) {
            const std::optional<std::string> expected = in_order(t, text);
            for (const std::size_t window : windows) {
                BOOST_TEST(shown(settled(t, text, window)) == shown(expected),
                           "round " << round << " window " << window << "\n"
                                    << t.text());
            }
            BOOST_TEST(shown(decision(all, text, true)) == shown(expected), "round " << round);
        }
    }
}

// Window lines of every length the window holds: a verdict line of 100 KB closing a dispatch whose
// prompt is 70 KB (each longer than the read buffer's half, so read again when paired), behind
// 20 KB lines that take a walk back several blocks, each larger than the one before, to read.
BOOST_AUTO_TEST_CASE(long_window_lines_settle_as_they_were_written) {
    TranscriptBuilder t;
    planner_session(t);
    const std::size_t dispatch =
        t.dispatch("viber:planner-review", "toolu_A", std::string(70 * 1024, 'p'));
    const std::size_t verdict =
        t.tool_result("toolu_A", std::string(100 * 1024, 'x') + "\nVERDICT: FAIL");
    for (int i = 0; i < 40; ++i) {
        const std::string id = "toolu_C" + std::to_string(i);
        t.dispatch("viber:task-coder", id, std::string(20 * 1024, 'q'));
        t.tool_result(id, std::string(20 * 1024, 'r') + "\nVERDICT: PASS");
    }
    BOOST_TEST(refuses_on_pair(agreed(t, planner_text), "Next step: fix the findings.", dispatch,
                               verdict));
}

BOOST_AUTO_TEST_CASE(a_file_of_dispatches_past_the_window_settles_from_the_file) {
    // More candidates than the hook's window holds, read back from the file in blocks: the pair
    // and the open dispatch before the first overflow, running dispatches after it, and the
    // decision the hook makes is the rule's.
    viber::testing::ScratchDir dir;
    const std::string plan = dir.write(".claude/plans/p.md", planner_text);
    for (const bool closed_late : {false, true}) {
        TranscriptBuilder t;
        t.permission_mode("default");
        t.skill("viber:planner");
        t.enter_plan_mode();
        t.write_file(plan);
        const std::size_t dispatch = t.dispatch("viber:planner-review", "toolu_first");
        const std::size_t verdict = t.tool_result("toolu_first", "VERDICT: FAIL");
        const std::size_t open = t.dispatch("viber:planner-review", "");
        std::size_t closing = 0;
        for (std::size_t i = 0; i < transcript::detail::default_pairing_window + 5000; ++i) {
            t.dispatch("viber:task-coder", "toolu_" + std::to_string(i));
            if (closed_late && i == transcript::detail::default_pairing_window)
                closing = t.tool_result("toolu_x", "VERDICT: DENIED");
        }
        const json::object payload{{"transcript_path", dir.write("t.jsonl", t.text())},
                                   {"cwd", dir.path()}};
        viber::Trace off;
        const viber::Decision hook = decide(viber::HookInput{&payload, {}}, off);
        const std::optional<std::string> expected = in_order(t, planner_text);
        BOOST_TEST_REQUIRE(expected.has_value());
        // The same up to the dispatch text, which names the installed references directory.
        const auto decided = [](const std::string& reason) {
            return reason.substr(0, reason.find(", then dispatch"));
        };
        BOOST_TEST(decided(hook.reason) == decided(*expected));
        if (closed_late) {
            BOOST_TEST(
                refuses_on_pair(expected, "Next step: grant the permission.", open, closing));
        } else {
            BOOST_TEST(
                refuses_on_pair(expected, "Next step: fix the findings.", dispatch, verdict));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_window_line_that_cannot_be_read_again_fails_open) {
    // The transcript is cut short between the scan and the settling (Claude Code rewrote it): the
    // waiting lines are gone, so settling says it could not finish and the gate stays silent
    // rather than deciding on part of the pairing.
    viber::testing::ScratchDir dir;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.enter_plan_mode();
    const std::size_t write = t.write_file(dir / ".claude/plans/p.md");
    const std::string before_pairing = t.text();
    t.dispatch("viber:planner-review", "toolu_a");
    t.tool_result("toolu_a", "VERDICT: FAIL");
    const std::string path = dir.write("t.jsonl", t.text());
    transcript::Scan scan = transcript::scan_file(path, gate_request(true));
    BOOST_TEST_REQUIRE(scan.readable);
    BOOST_TEST_REQUIRE(scan.last_plan_write.has_value());
    BOOST_TEST(scan.last_plan_write->line == write);
    dir.write("t.jsonl", before_pairing);
    BOOST_TEST(!transcript::settle_pairing(scan, paired_agents));
    // The same file whole settles, and the pair it holds is found.
    dir.write("t.jsonl", t.text());
    transcript::Scan whole = transcript::scan_file(path, gate_request(true));
    BOOST_TEST_REQUIRE(transcript::settle_pairing(whole, paired_agents));
    BOOST_TEST(whole.verdicts.size() == 1u);
}
