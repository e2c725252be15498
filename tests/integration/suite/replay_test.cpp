// replay_test.cpp: `--replay PATH` (docs/guide.md, "Replay"): the guards list every Bash call of a
// viber agent found in a session's subagents/agent-*.jsonl files (the agent named by the
// agent-*.meta.json beside each), verdict-nudge each viber agent's stop, each with its decision
// and rule or step, and a summary count; other agents' calls and the main session's are not
// listed; nothing read is run. The fixture (tests/fixtures/replay/project/) has SPEC §3's shapes.
#define BOOST_TEST_MODULE integration_replay
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace viber::testing;
using namespace std::chrono_literals;
namespace sfs = std::filesystem;

namespace {

const std::string project = source_path("tests/fixtures/replay/project");
const std::string session = project + "/8d2f6c1a.jsonl";
const std::string coder_file = project + "/8d2f6c1a/subagents/agent-a3f81c9e2b.jsonl";

RunResult replay(const std::string& binary, const std::string& path,
                 const std::optional<std::string>& cwd = std::nullopt) {
    RunOptions options;
    options.args = {"--replay", path};
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.env["VIBER_HOOKS_LOG"] = std::nullopt;
    options.cwd = cwd;
    options.timeout = 30s;
    return run_process(hook_binary(binary), options);
}

// The row for `line` of an agent file: "  line N  <decision>  <label>  <command>", spaces
// squeezed.
std::string row(const std::string& out, std::size_t line) {
    std::istringstream in(out);
    const std::string opening = "line " + std::to_string(line) + " ";
    for (std::string text; std::getline(in, text);) {
        std::string squeezed;
        for (char c : text)
            if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
        if (squeezed.starts_with(opening)) return squeezed;
    }
    return "<no row for line " + std::to_string(line) + ">";
}

// The output with runs of spaces squeezed to one.
std::string squeezed(const std::string& text) {
    std::string out;
    for (char c : text)
        if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
    return out;
}

bool has(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(shell_guard_lists_each_viber_agent_bash_call_with_its_rules) {
    const RunResult result = replay("shell-guard", project);
    BOOST_TEST(result.exit_code == 0, result.err);
    const std::string& out = result.out;
    BOOST_TEST(row(out, 2) == "line 2 deny R1 npm run build && npm test", out);
    BOOST_TEST(row(out, 4) == "line 4 deny R4 npm test > test-output.txt 2>&1", out);
    BOOST_TEST(row(out, 6) == "line 6 none - pkill -f \"vite --port 5173\"", out);
    BOOST_TEST(has(out, "agent-a3f81c9e2b.jsonl  (viber:task-coder)"), out);
    BOOST_TEST(has(out, "agent-b71d04e6aa.jsonl  (viber:task-reviewer)"), out);
    // The reviewer is held to R2 only: its chain passes, the stash list does not.
    BOOST_TEST(has(squeezed(out), "line 2 deny R2 git stash list"), out);
    BOOST_TEST(has(squeezed(out), "line 4 none - npm run lint && npm test"), out);
    // The Explore agent's pkill and the main session's are no viber agent's calls.
    BOOST_TEST(!has(out, "agent-c0ffee0123"), out);
    BOOST_TEST(!has(out, "pkill -f vite\n"), out);
    BOOST_TEST(has(out, "Summary: 1 session, 3 agent files (2 of viber agents), 7 calls judged: "
                        "deny 3, none 4; by rule or step: R1 1, R2 1, R4 1"),
               out);
}

BOOST_AUTO_TEST_CASE(kill_guard_names_the_stop_by_name_command) {
    const RunResult result = replay("kill-guard", project);
    BOOST_TEST(result.exit_code == 0, result.err);
    BOOST_TEST(row(result.out, 6) == "line 6 deny pkill pkill -f \"vite --port 5173\"", result.out);
    BOOST_TEST(row(result.out, 2) == "line 2 none - npm run build && npm test", result.out);
    BOOST_TEST(has(result.out, "7 calls judged: deny 1, none 6; by rule or step: pkill 1"),
               result.out);
}

BOOST_AUTO_TEST_CASE(verdict_nudge_judges_each_viber_agent_stop_on_its_last_message) {
    const RunResult result = replay("verdict-nudge", project);
    BOOST_TEST(result.exit_code == 0, result.err);
    // The coder's last message spans two lines (one message id) and holds no verdict line.
    BOOST_TEST(row(result.out, 13) == "line 13 block no verdict line SubagentStop", result.out);
    // The reviewer's earlier text has none, its last message has one.
    BOOST_TEST(row(result.out, 7) == "line 7 none verdict line SubagentStop", result.out);
    BOOST_TEST(has(result.out, "2 calls judged: block 1, none 1"), result.out);
}

BOOST_AUTO_TEST_CASE(a_session_file_brings_its_subagents_and_an_agent_file_stands_alone) {
    const RunResult from_session = replay("shell-guard", session);
    BOOST_TEST(from_session.exit_code == 0, from_session.err);
    BOOST_TEST(has(from_session.out, "7 calls judged"), from_session.out);
    const RunResult from_agent = replay("shell-guard", coder_file);
    BOOST_TEST(from_agent.exit_code == 0, from_agent.err);
    BOOST_TEST(has(from_agent.out, "0 sessions, 1 agent file (1 of viber agents), 5 calls judged"),
               from_agent.out);
}

BOOST_AUTO_TEST_CASE(nothing_read_is_run) {
    // A coder's command that would write a file if it ran: replayed, it is judged, never run.
    ScratchDir dir;
    const std::string marker = dir / "ran";
    dir.write("p/s.jsonl", "{\"type\":\"permission-mode\",\"permissionMode\":\"default\"}\n");
    dir.write("p/s/subagents/agent-x.meta.json", R"({"agentType":"viber:task-coder"})");
    dir.write(
        "p/s/subagents/agent-x.jsonl",
        R"({"type":"assistant","cwd":")" + dir.path() +
            R"(","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"touch )" +
            marker + R"("}}]}})" + "\n");
    const RunResult result = replay("shell-guard", dir / "p", dir.path());
    BOOST_TEST(result.exit_code == 0, result.err);
    BOOST_TEST(has(result.out, "1 call judged"), result.out);
    std::ifstream probe(marker);
    BOOST_TEST(!probe.good(), "the replayed command ran");
}

BOOST_AUTO_TEST_CASE(a_line_over_the_cap_is_passed_over_and_counted) {
    ScratchDir dir;
    dir.write("s/subagents/agent-y.meta.json", R"({"agentType":"viber:task-coder"})");
    const std::string huge(65u << 20, 'x'); // past the 64 MiB line cap
    dir.write(
        "s/subagents/agent-y.jsonl",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":"
        "\"Bash\",\"input\":{\"command\":\"" +
            huge +
            "\"}}]}}\n"
            R"({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"rm x"}}]}})"
            "\n");
    const RunResult result = replay("shell-guard", dir / "s/subagents/agent-y.jsonl");
    BOOST_TEST(result.exit_code == 0, result.err);
    BOOST_TEST(has(result.out, "1 call judged: deny 1"), result.out);
    BOOST_TEST(has(result.out, "1 line over 64 MiB passed over"), result.out);
}

BOOST_AUTO_TEST_CASE(a_command_past_the_command_cap_is_named_so) {
    // Ten thousand and one commands: the model reads 10,000, and both guards refuse the rest
    // unread.
    ScratchDir dir;
    dir.write("s/subagents/agent-y.meta.json", R"({"agentType":"viber:task-coder"})");
    std::string lines;
    for (int i = 0; i < 10001; ++i) lines += "a\\n";
    dir.write("s/subagents/agent-y.jsonl",
              "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":"
              "\"Bash\",\"input\":{\"command\":\"" +
                  lines + "\"}}]}}\n");
    const RunResult kill = replay("kill-guard", dir / "s/subagents/agent-y.jsonl");
    BOOST_TEST(has(kill.out, "by rule or step: command cap 1"), kill.out);
    const RunResult shell = replay("shell-guard", dir / "s/subagents/agent-y.jsonl");
    BOOST_TEST(has(shell.out, "by rule or step: command cap 1"), shell.out);
}

BOOST_AUTO_TEST_CASE(a_hook_without_replay_and_a_missing_path_exit_2) {
    const RunResult gate = replay("session-start", project);
    BOOST_TEST(gate.exit_code == 2);
    BOOST_TEST(has(gate.err, "does not take --replay"), gate.err);
    const RunResult missing = replay("shell-guard", project + "/no-such-dir");
    BOOST_TEST(missing.exit_code == 2);
    BOOST_TEST(has(missing.err, "no such file or directory"), missing.err);
}

// What is not a session transcript is refused with the reason, in one line on stderr (exit 2),
// never replayed as an empty session: "0 calls judged" would read as "the guards never fired".
BOOST_AUTO_TEST_CASE(what_is_not_a_transcript_is_refused_with_the_reason) {
    ScratchDir dir;
    struct Case {
        std::string path;
        std::string says;
    };
    const std::vector<Case> cases = {
        {source_path("README.md"), "not a session transcript: line 1 is not a JSON object"},
        {source_path("examples/payloads/bash-coder-chain.json"),
         "line 1 is a hook payload, not a transcript line (--explain FILE explains a payload)"},
        {dir.write("typeless.jsonl", "\n{\"a\":1}\n"),
         "line 2 is a JSON object without a \"type\""},
        {dir.write("empty.jsonl", ""), "not a session transcript: it is empty"},
        {source_path("docs"), "holds no session transcript"},
    };
    for (const Case& c : cases) {
        for (const std::string binary : {"shell-guard", "plan-gate"}) {
            BOOST_TEST_CONTEXT(binary << " " << c.path) {
                const RunResult result = replay(binary, c.path);
                BOOST_TEST(result.exit_code == 2);
                BOOST_TEST(result.out.empty(), result.out);
                BOOST_TEST(has(result.err, c.says), result.err);
                BOOST_TEST(std::count(result.err.begin(), result.err.end(), '\n') == 1);
            }
        }
    }
}

// A replay that judges no call says what it read, by tool name, and what the hook judges.
BOOST_AUTO_TEST_CASE(a_replay_that_judges_nothing_says_what_it_read) {
    ScratchDir dir;
    const std::string lone = dir.write(
        "p/s.jsonl",
        "{\"type\":\"permission-mode\",\"permissionMode\":\"default\"}\n"
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Agent","input":{}},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}})"
        "\n"
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Agent","input":{}}]}})"
        "\n");
    const RunResult guard = replay("shell-guard", lone);
    BOOST_TEST(guard.exit_code == 0, guard.err);
    BOOST_TEST(has(guard.out, "0 calls judged\nNo call to judge (this is not \"all allowed\"): "
                              "read 3 lines in 1 file: 1 Bash call, 2 Agent calls; shell-guard "
                              "judges the Bash calls of viber agents"),
               guard.out);
    const RunResult gate = replay("plan-gate", dir / "p");
    BOOST_TEST(gate.exit_code == 0, gate.err);
    BOOST_TEST(has(gate.out, "read 3 lines in 1 file: 0 ExitPlanMode calls, 2 Agent calls, 1 Bash "
                             "call; plan-gate judges the ExitPlanMode calls of main transcripts"),
               gate.out);
    // A replay that judged calls lists them and needs no such line.
    BOOST_TEST(!has(replay("shell-guard", project).out, "No call to judge"));
}

// Claude Code's layout: <id>.jsonl with its agents in <id>/subagents/ beside it. The session file
// and the directory holding it replay the same calls with the same decisions.
BOOST_AUTO_TEST_CASE(a_session_file_and_its_directory_replay_alike) {
    for (const std::string binary : {"shell-guard", "kill-guard", "verdict-nudge"}) {
        BOOST_TEST_CONTEXT(binary) {
            const RunResult from_file = replay(binary, session);
            const RunResult from_dir = replay(binary, project);
            BOOST_TEST(from_file.exit_code == 0, from_file.err);
            BOOST_TEST(from_dir.exit_code == 0, from_dir.err);
            // All but the first line, which names the path given.
            const auto body = [](const std::string& out) { return out.substr(out.find('\n')); };
            BOOST_TEST(body(from_file.out) == body(from_dir.out));
            BOOST_TEST(has(from_file.out, "3 agent files (2 of viber agents)"), from_file.out);
        }
    }
}

// The sessions the real CLI wrote (tests/fixtures/real/<version>/coder, the end-to-end test's
// task-coder), in the layout Claude Code keeps: each of its Bash calls gets the decision the e2e
// test saw the hooks give in the CLI, and the session file replays as its directory does.
BOOST_AUTO_TEST_CASE(the_guards_replay_the_real_clients_task_coder_session) {
    for (const std::string version : {"2.1.197", "2.1.332"}) {
        BOOST_TEST_CONTEXT("Claude Code " << version) {
            const std::string real = source_path("tests/fixtures/real/" + version + "/coder");
            const RunResult shell = replay("shell-guard", real);
            BOOST_TEST(shell.exit_code == 0, shell.err);
            BOOST_TEST(has(shell.out, "(viber:task-coder)"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "none - pkill zz_no_such_proc"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "deny R1 echo a && echo b"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "deny R2 git stash"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "deny R3 rm -rf @PROJECT@/scratch-dir"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "deny R4 echo note > notes.txt"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "deny R5 python3 -c 'print(1)'"), shell.out);
            BOOST_TEST(has(squeezed(shell.out), "none - echo ok"), shell.out);
            BOOST_TEST(has(shell.out, "8 calls judged: deny 5, none 3"), shell.out);

            const RunResult kill = replay("kill-guard", real);
            BOOST_TEST(kill.exit_code == 0, kill.err);
            BOOST_TEST(has(squeezed(kill.out), "deny pkill pkill zz_no_such_proc"), kill.out);
            BOOST_TEST(has(kill.out, "8 calls judged: deny 1, none 7"), kill.out);

            // Its last stop ends with the verdict line the nudge asked for.
            const RunResult nudge = replay("verdict-nudge", real);
            BOOST_TEST(nudge.exit_code == 0, nudge.err);
            BOOST_TEST(has(squeezed(nudge.out), "none verdict line SubagentStop"), nudge.out);

            // The session file finds its agents in <session id>/subagents/ beside it.
            std::string file;
            for (const auto& entry : sfs::directory_iterator(real))
                if (entry.path().extension() == ".jsonl") file = entry.path().generic_string();
            const RunResult from_file = replay("shell-guard", file);
            BOOST_TEST(from_file.exit_code == 0, from_file.err);
            BOOST_TEST(has(from_file.out, "8 calls judged: deny 5, none 3"), from_file.out);
        }
    }
}

// A FIFO named as a session, or standing among a project's sessions and agent files, is passed
// over without a read (nothing writes to it); the regular files beside it are replayed.
BOOST_AUTO_TEST_CASE(a_fifo_among_the_sessions_is_passed_over_without_blocking,
                     *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    dir.write("p/8d2f6c1a.jsonl", read_file(session));
    dir.write("p/8d2f6c1a/subagents/agent-a3f81c9e2b.jsonl", read_file(coder_file));
    dir.write("p/8d2f6c1a/subagents/agent-a3f81c9e2b.meta.json",
              read_file(project + "/8d2f6c1a/subagents/agent-a3f81c9e2b.meta.json"));
    BOOST_REQUIRE(::mkfifo((dir / "p/0000fifo.jsonl").c_str(), 0600) == 0);
    BOOST_REQUIRE(::mkfifo((dir / "p/8d2f6c1a/subagents/agent-fifo.jsonl").c_str(), 0600) == 0);
    const RunResult all = replay("shell-guard", dir / "p");
    BOOST_TEST(!all.timed_out);
    BOOST_TEST(all.exit_code == 0, all.err);
    BOOST_TEST(row(all.out, 2) == "line 2 deny R1 npm run build && npm test", all.out);
    for (const std::string& fifo :
         {dir / "p/0000fifo.jsonl", dir / "p/8d2f6c1a/subagents/agent-fifo.jsonl"}) {
        const RunResult one = replay("kill-guard", fifo);
        BOOST_TEST(!one.timed_out, fifo);
        BOOST_TEST(one.exit_code == 2, fifo);
    }
}
