// plan_replay_test.cpp: `--replay PATH` for plan-gate and plan-hints (docs/guide.md, "Replay"):
// every ExitPlanMode of a main transcript is judged on the transcript up to its line (SPEC §4),
// every typed plan-mode prompt on the lines before it (SPEC §5), each printed with its decision
// and step, then a summary count. Run on the sessions the real CLI wrote (tests/fixtures/real/,
// placeholders filled in with scratch paths) and on a small transcript of our own.
#define BOOST_TEST_MODULE integration_plan_replay
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace viber::testing;
using namespace std::chrono_literals;
namespace json = boost::json;
namespace sfs = std::filesystem;

namespace {

// Earlier than any verdict written: the plans were not changed after their review.
constexpr long long reviewed_plan_mtime = 1000000000;

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

std::string json_escaped(std::string_view path) {
    std::string out;
    for (const char c : path) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out;
}

// A plugin tree with plan-hints.md and a config.sh that would leave a marker if it ran.
std::string plugin_tree(const ScratchDir& dir) {
    dir.write("plugin/hooks/content/plan-hints.md",
              read_file(source_path("content/plan-hints.md")));
    dir.write("plugin/scripts/config.sh",
              "echo 'planning.plain-plan-review: true'\ntouch \"" + dir / "config-ran" + "\"\n");
    return dir / "plugin";
}

// The captured session `scenario` laid out under `dir`: its transcript, its plans (old mtime).
std::string real_session(const ScratchDir& dir, std::string_view scenario) {
    const std::string from = source_path("tests/fixtures/real/2.1.197/" + std::string(scenario));
    const std::string home = dir.mkdir("home");
    const std::string project = dir.mkdir("project");
    if (sfs::is_directory(from + "/plans"))
        for (const auto& entry : sfs::directory_iterator(from + "/plans")) {
            const std::string plan =
                dir.write("home/.claude/plans/" + entry.path().filename().string(),
                          read_file(entry.path().generic_string()));
            set_mtime(plan, reviewed_plan_mtime);
        }
    std::string main; // the one <session id>.jsonl beside its <session id>/ directory
    for (const auto& entry : sfs::directory_iterator(from))
        if (entry.path().extension() == ".jsonl") main = entry.path().generic_string();
    std::string text = read_file(main);
    text = replace_all(std::move(text), "@PLUGIN@", json_escaped(dir / "plugin"));
    text = replace_all(std::move(text), "@HOME@", json_escaped(home));
    text = replace_all(std::move(text), "@PROJECT@", json_escaped(project));
    text = replace_all(std::move(text), "@PROJECT_KEY@", "project-key");
    text = replace_all(std::move(text), "@ROOT@", json_escaped(dir.path()));
    return dir.write("projects/project-key/session.jsonl", text);
}

RunResult replay(const std::string& binary, const std::string& path, const std::string& plugin) {
    RunOptions options;
    options.args = {"--replay", path};
    options.env["CLAUDE_PLUGIN_ROOT"] = plugin;
    options.env["VIBER_HOOKS_LOG"] = std::nullopt;
    options.timeout = 30s;
    return run_process(hook_binary(binary), options);
}

std::string squeezed(const std::string& text) {
    std::string out;
    for (char c : text)
        if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
    return out;
}

// The row for `line` and the line under it (the step), spaces squeezed.
std::string row(const std::string& out, std::size_t line) {
    std::istringstream in(out);
    const std::string opening = "line " + std::to_string(line) + " ";
    for (std::string text; std::getline(in, text);) {
        const std::string first = squeezed(text);
        if (!first.starts_with(opening)) continue;
        std::string next;
        if (std::getline(in, next) && next.starts_with("      "))
            return first + " | " + squeezed(next);
        return first;
    }
    return "<no row for line " + std::to_string(line) + ">";
}

bool has(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

json::object plan_prompt(std::string_view text) {
    return {{"type", "user"},
            {"permissionMode", "plan"},
            {"message", {{"role", "user"}, {"content", text}}}};
}

} // namespace

// Opened in plan mode: planner-review FAIL, ExitPlanMode denied; the fixed plan, PASS, approved;
// a second episode's ExitPlanMode with no plan written in it (as the end-to-end test saw).
BOOST_AUTO_TEST_CASE(plan_gate_on_the_real_planner_session_in_plan_mode) {
    ScratchDir dir;
    const std::string plugin = plugin_tree(dir);
    const std::string session = real_session(dir, "planner-plan-mode");
    const RunResult result = replay("plan-gate", session, plugin);
    BOOST_TEST(result.exit_code == 0, result.err);
    const std::string& out = result.out;
    BOOST_TEST(has(row(out, 19), "line 19 deny planner-review ExitPlanMode | Next step: fix the "
                                 "findings. viber:planner-review answered 'VERDICT: FAIL'"),
               out);
    BOOST_TEST(row(out, 26) == "line 26 allow planner-review ExitPlanMode", out);
    BOOST_TEST(row(out, 37) == "line 37 allow no plan ExitPlanMode", out);
    BOOST_TEST(has(out, "on the plan file as it\nis now"), out);
    BOOST_TEST(has(out, "Summary: 1 session, 3 calls judged: allow 2, deny 1; by rule or step: "
                        "no plan 1, planner-review 2"),
               out);
}

// A plain plan with the switch on in the captured run: replay never runs config.sh; it shows the
// switch-off decision and what the switch on would have said.
BOOST_AUTO_TEST_CASE(plan_gate_on_the_real_plain_plan_session_runs_no_config_sh) {
    ScratchDir dir;
    const std::string plugin = plugin_tree(dir);
    const std::string session = real_session(dir, "plain-plan");
    const RunResult result = replay("plan-gate", dir / "projects", plugin);
    BOOST_TEST(result.exit_code == 0, result.err);
    const std::string& out = result.out;
    BOOST_TEST(has(row(out, 13), "line 13 allow plain plan ExitPlanMode | config.sh not run: "
                                 "switch taken as off; with planning.plain-plan-review on: deny, "
                                 "Next step: review the plan."),
               out);
    BOOST_TEST(has(row(out, 17), "with planning.plain-plan-review on: allow"), out);
    BOOST_TEST(
        has(out, "Summary: 1 session, 2 calls judged: allow 2; by rule or step: plain plan 2"),
        out);
    BOOST_TEST(!sfs::exists(dir / "config-ran"), "replay ran config.sh");
}

// plan-hints: each typed plan-mode prompt; the planner's episode is silent, a new episode is not.
BOOST_AUTO_TEST_CASE(plan_hints_on_the_real_sessions) {
    ScratchDir dir;
    const std::string plugin = plugin_tree(dir);
    const RunResult plan_mode =
        replay("plan-hints", real_session(dir, "planner-plan-mode"), plugin);
    BOOST_TEST(plan_mode.exit_code == 0, plan_mode.err);
    BOOST_TEST(row(plan_mode.out, 6) == "line 6 context plain plan mode Plan a greeting for the "
                                        "README. | no planner, intent or fixer signal in the "
                                        "plan-mode episode",
               plan_mode.out);
    BOOST_TEST(has(row(plan_mode.out, 33), "line 33 context plain plan mode Plan the next change."),
               plan_mode.out);
    BOOST_TEST(has(plan_mode.out, "2 calls judged: context 2"), plan_mode.out);

    ScratchDir other;
    const RunResult enter =
        replay("plan-hints", real_session(other, "planner-enter"), plugin_tree(other));
    BOOST_TEST(enter.exit_code == 0, enter.err);
    BOOST_TEST(row(enter.out, 24) == "line 24 silent planner chain Yes. | the episode shows the "
                                     "viber planner, intent or fixer (line 9)",
               enter.out);
    BOOST_TEST(has(enter.out, "1 call judged: silent 1; by rule or step: planner chain 1"),
               enter.out);
}

// Our own transcript: each call sees only the lines written when its hook ran, so a later PASS
// or a later planner Skill does not reach back.
BOOST_AUTO_TEST_CASE(each_call_is_judged_on_the_transcript_as_it_stood) {
    ScratchDir dir;
    const std::string plugin = plugin_tree(dir);
    const std::string plan = dir.write("home/.claude/plans/p.md", "---\nsource: x\n---\n# Plan\n");
    set_mtime(plan, reviewed_plan_mtime);
    TranscriptBuilder t;
    t.permission_mode("plan");                                            // 1
    t.add(plan_prompt("first"));                                          // 2: context
    t.tool_use("ExitPlanMode", {}, "toolu_exit1");                        // 3: no plan
    t.skill("viber:planner");                                             // 4
    t.write_file(plan);                                                   // 5
    t.dispatch("viber:planner-review", "toolu_rev1");                     // 6
    t.tool_result("toolu_rev1", "VERDICT: FAIL", "2026-01-01T00:00:00Z"); // 7
    t.tool_use("ExitPlanMode", {}, "toolu_exit2");                        // 8: deny
    t.add(plan_prompt("second"));                                         // 9: silent
    t.dispatch("viber:planner-review", "toolu_rev2");                     // 10
    t.tool_result("toolu_rev2", "VERDICT: PASS", "2026-01-01T00:01:00Z"); // 11
    t.tool_use("ExitPlanMode", {}, "toolu_exit3");                        // 12: allow
    const std::string session = dir.write("s.jsonl", t.text());

    const RunResult gate = replay("plan-gate", session, plugin);
    BOOST_TEST(gate.exit_code == 0, gate.err);
    BOOST_TEST(row(gate.out, 3) == "line 3 allow no plan ExitPlanMode", gate.out);
    BOOST_TEST(has(row(gate.out, 8), "line 8 deny planner-review ExitPlanMode | Next step: fix "
                                     "the findings."),
               gate.out);
    BOOST_TEST(row(gate.out, 12) == "line 12 allow planner-review ExitPlanMode", gate.out);
    BOOST_TEST(has(gate.out, "3 calls judged: allow 2, deny 1"), gate.out);

    const RunResult hints = replay("plan-hints", session, plugin);
    BOOST_TEST(hints.exit_code == 0, hints.err);
    BOOST_TEST(has(row(hints.out, 2), "line 2 context plain plan mode first"), hints.out);
    BOOST_TEST(has(row(hints.out, 9), "line 9 silent planner chain second"), hints.out);
    BOOST_TEST(has(hints.out, "2 calls judged: context 1, silent 1"), hints.out);
}

// A session of many calls: each is judged on the transcript read again up to it, so only the
// last 64 are (a bounded number of reads of the session); the earlier ones are counted.
BOOST_AUTO_TEST_CASE(only_a_sessions_last_64_calls_are_judged) {
    ScratchDir dir;
    const std::string plugin = plugin_tree(dir);
    TranscriptBuilder t;
    t.permission_mode("plan");
    for (int call = 0; call < 200; ++call) {
        t.add(plan_prompt("prompt " + std::to_string(call)));
        t.tool_use("ExitPlanMode", {}, "toolu_exit" + std::to_string(call));
    }
    const std::string session = dir.write("s.jsonl", t.text());

    const RunResult gate = replay("plan-gate", session, plugin);
    BOOST_TEST(gate.exit_code == 0, gate.err);
    // Line 2k+3 is call k's ExitPlanMode: calls 136..199 are the last 64.
    BOOST_TEST(row(gate.out, 2 * 135 + 3) == "<no row for line 273>", gate.out);
    BOOST_TEST(row(gate.out, 2 * 136 + 3) == "line 275 allow no plan ExitPlanMode", gate.out);
    BOOST_TEST(row(gate.out, 2 * 199 + 3) == "line 401 allow no plan ExitPlanMode", gate.out);
    BOOST_TEST(has(gate.out, "64 calls judged: allow 64"), gate.out);
    BOOST_TEST(has(gate.out, "136 earlier calls not judged (the last 64 of a session are)"),
               gate.out);

    const RunResult hints = replay("plan-hints", session, plugin);
    BOOST_TEST(hints.exit_code == 0, hints.err);
    BOOST_TEST(has(hints.out, "64 calls judged: context 64"), hints.out);
    BOOST_TEST(has(hints.out, "136 earlier calls not judged"), hints.out);
}
