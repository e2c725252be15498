// explain_test.cpp: `--explain` on every binary (docs/contract.md, "Tool mode"): it reads one
// payload as hook mode does, prints what was read, the steps and the decision, and ends with the
// exact line hook mode prints for the same payload, or `(nothing)`; exit 0.
#define BOOST_TEST_MODULE integration_explain
#include "support/payloads.hpp"
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <sys/stat.h>
#include <utility>
#include <vector>

using namespace viber::testing;
using namespace std::chrono_literals;

namespace {

struct Case {
    std::string binary;
    std::string payload;
    bool prints; // hook mode prints a line for it
};

const std::vector<Case> cases = {
    {"kill-guard", bash_payload("viber:task-coder", "pkill node"), true},
    {"kill-guard", bash_payload("general-purpose", "pkill node"), false},
    {"shell-guard", bash_payload("viber:task-coder", "rm -rf x"), true},
    {"shell-guard", bash_payload("viber:task-coder", "ls"), false},
    {"verdict-nudge",
     R"({"agent_type":"viber:task-coder","stop_hook_active":false,"last_assistant_message":"done"})",
     true},
    {"verdict-nudge", R"({"agent_type":"viber:scout","last_assistant_message":"done"})", false},
    {"session-start", R"({"cwd":"/nonexistent"})", true},
    {"plan-hints", R"({"permission_mode":"default"})", false},
    {"plan-gate", R"({"cwd":"/nonexistent"})", false},
    {"plan-gate", "not json", false},
};

RunResult run(const std::string& binary, const std::string& payload, bool explain) {
    RunOptions options;
    if (explain) options.args = {"--explain"};
    options.stdin_bytes = payload;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.env["VIBER_HOOKS_LOG"] = std::nullopt;
    options.timeout = 15s;
    return run_process(hook_binary(binary), options);
}

// The text after the last "Hook mode prints:\n" heading.
std::string printed_section(const std::string& out) {
    constexpr std::string_view heading = "\nHook mode prints:\n";
    const std::size_t at = out.rfind(heading);
    return at == std::string::npos ? "<no heading>" : out.substr(at + heading.size());
}

} // namespace

BOOST_AUTO_TEST_CASE(explain_ends_with_the_exact_line_hook_mode_prints) {
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.binary << " " << c.payload) {
            const RunResult hook = run(c.binary, c.payload, false);
            const RunResult explained = run(c.binary, c.payload, true);
            BOOST_TEST(explained.exit_code == 0);
            BOOST_TEST(explained.err.empty(), explained.err);
            BOOST_TEST(hook.out.empty() == !c.prints, hook.out);
            BOOST_TEST(printed_section(explained.out) == (c.prints ? hook.out : "(nothing)\n"));
        }
    }
}

BOOST_AUTO_TEST_CASE(explain_shows_what_was_read_the_steps_and_the_decision) {
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.binary << " " << c.payload) {
            const std::string out = run(c.binary, c.payload, true).out;
            BOOST_TEST(out.rfind(c.binary + " --explain\n", 0) == 0u, out);
            BOOST_TEST(out.find("\nRead:\n  stdin: " + std::to_string(c.payload.size()) +
                                " bytes\n") != std::string::npos,
                       out);
            BOOST_TEST(out.find("\nSteps:\n") != std::string::npos, out);
            BOOST_TEST(out.find("\nDecision: ") != std::string::npos, out);
        }
    }
}

BOOST_AUTO_TEST_CASE(explain_lists_the_payload_keys_hook_mode_parsed) {
    const std::string out = run("verdict-nudge",
                                R"({"agent_type":"viber:task-coder","last_assistant_message":"a)"
                                R"(\nb"})",
                                true)
                                .out;
    BOOST_TEST(out.find("payload: a JSON object with 2 keys\n") != std::string::npos, out);
    BOOST_TEST(out.find("key agent_type: string \"viber:task-coder\"\n") != std::string::npos, out);
    // A newline in a value stays escaped: one key, one line.
    BOOST_TEST(out.find("key last_assistant_message: string \"a\\nb\"\n") != std::string::npos,
               out);
}

BOOST_AUTO_TEST_CASE(a_prefiltered_payload_says_it_was_dismissed_unparsed) {
    for (const char* binary : {"kill-guard", "shell-guard", "verdict-nudge"}) {
        const std::string out = run(binary, R"({"agent_type":"general-purpose"})", true).out;
        BOOST_TEST(out.find("hold no `viber:`") != std::string::npos, binary << "\n" << out);
        BOOST_TEST(out.find("payload: a JSON object") == std::string::npos, out);
        BOOST_TEST(printed_section(out) == "(nothing)\n");
    }
}

BOOST_AUTO_TEST_CASE(verdict_nudge_names_the_verdict_line_it_found) {
    const std::string out =
        run("verdict-nudge",
            R"({"agent_type":"viber:task-coder","last_assistant_message":"Done.\n- **VERDICT: PASS**"})",
            true)
            .out;
    BOOST_TEST(out.find("line 2 is a verdict line: \"- **VERDICT: PASS**\"") != std::string::npos,
               out);
    BOOST_TEST(out.find("\nDecision: none\n") != std::string::npos, out);
}

// A command refused at one of the command model's caps (docs/kill-guard.md, "Caps") is explained
// by the cap it reached, as no command found by name.
BOOST_AUTO_TEST_CASE(kill_guard_explains_a_cap_by_its_cap) {
    std::string padded, nested;
    for (int i = 0; i < 10001; ++i) padded += ":\n";
    for (int i = 0; i < 40; ++i) nested += "echo $(";
    nested += "ls" + std::string(40, ')');
    const std::vector<std::pair<std::string, std::string>> caps{
        {padded, "the command runs more than 10,000 commands to be read"},
        {nested, "the command nests deeper than 32 levels"}};
    for (const auto& [command, why] : caps) {
        const std::string out =
            run("kill-guard", bash_payload("viber:task-coder", command), true).out;
        BOOST_TEST(out.find(". rule broken: " + why + "\n") != std::string::npos, out);
        BOOST_TEST(out.find("rule broken: `") == std::string::npos, out);
        BOOST_TEST(out.find("\nDecision: deny") != std::string::npos, out);
    }
}

BOOST_AUTO_TEST_CASE(verdict_nudge_explains_a_block) {
    const std::string out =
        run("verdict-nudge",
            R"({"agent_type":"viber:task-coder","last_assistant_message":"one\ntwo"})", true)
            .out;
    BOOST_TEST(out.find("stop_hook_active is not true") != std::string::npos, out);
    BOOST_TEST(out.find("2 lines, 7 bytes; none matches") != std::string::npos, out);
    BOOST_TEST(out.find("\nDecision: block (") != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(session_start_names_the_files_it_read_with_their_sizes) {
    ScratchDir plugin;
    const std::string manifest = plugin.write("hooks/content/manifest.md", "twelve bytes");
    RunOptions options;
    options.args = {"--explain"};
    options.stdin_bytes = R"({"cwd":"/nonexistent"})";
    options.env["CLAUDE_PLUGIN_ROOT"] = plugin.path();
    options.timeout = 15s;
    const std::string out = run_process(hook_binary("session-start"), options).out;
    BOOST_TEST(out.find("manifest: " + manifest + " (12 bytes)\n") != std::string::npos, out);
    BOOST_TEST(out.find("plugin directory: " + plugin.path() + " (CLAUDE_PLUGIN_ROOT)\n") !=
                   std::string::npos,
               out);
    BOOST_TEST(out.find("project config: /nonexistent/.claude/viber.yml (not read") !=
                   std::string::npos,
               out);
    BOOST_TEST(out.find("manifest: 12 characters") != std::string::npos, out);
    BOOST_TEST(out.find("\nDecision: context") != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(explain_on_empty_or_held_open_stdin_still_exits_0) {
    for (const char* binary : {"plan-gate", "plan-hints", "kill-guard", "shell-guard",
                               "verdict-nudge", "session-start"}) {
        RunOptions options;
        options.args = {"--explain"};
        options.stdin_mode = StdinMode::held_open;
        options.timeout = 15s;
        const RunResult result = run_process(hook_binary(binary), options);
        BOOST_TEST(result.exit_code == 0, binary);
        BOOST_TEST(!result.timed_out, binary);
        BOOST_TEST(result.out.find("\nHook mode prints:\n") != std::string::npos, result.out);
    }
}

// `--explain FILE`: the same explanation as on stdin, the file named first and alone.
BOOST_AUTO_TEST_CASE(explain_reads_a_payload_file) {
    ScratchDir dir;
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.binary << " " << c.payload) {
            const std::string file = dir.write("payload.json", c.payload);
            RunOptions options;
            options.args = {"--explain", file};
            options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
            options.timeout = 15s;
            const RunResult from_file = run_process(hook_binary(c.binary), options);
            BOOST_TEST(from_file.exit_code == 0, from_file.err);
            BOOST_TEST(from_file.out.find("payload file: " + file) != std::string::npos,
                       from_file.out);
            // Its one source: the file, never also a stdin it did not read.
            BOOST_TEST(from_file.out.find("stdin") == std::string::npos, from_file.out);
            BOOST_TEST(printed_section(from_file.out) ==
                       printed_section(run(c.binary, c.payload, true).out));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_file_without_explain_or_two_files_are_bad_arguments) {
    ScratchDir dir;
    const std::string file = dir.write("payload.json", "{}");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{file}, std::vector<std::string>{"--explain", file, file},
          std::vector<std::string>{"--explain", dir / "missing.json"}}) {
        RunOptions options;
        options.args = args;
        const RunResult result = run_process(hook_binary("plan-gate"), options);
        BOOST_TEST(result.exit_code == 2, result.out);
        BOOST_TEST(!result.err.empty());
    }
}

BOOST_AUTO_TEST_CASE(an_empty_stdin_is_said_to_be_empty_at_once) {
    for (const char* binary : {"plan-gate", "shell-guard", "verdict-nudge"}) {
        const RunResult result = run(binary, "", true);
        BOOST_TEST(result.exit_code == 0, binary);
        BOOST_TEST(result.seconds < 1.5, binary);
        BOOST_TEST(result.out.find("stdin: empty (0 bytes): no payload to explain") !=
                       std::string::npos,
                   result.out);
    }
}

// Every rule not judged says why.
BOOST_AUTO_TEST_CASE(shell_guard_says_why_a_rule_was_not_judged) {
    const std::string reviewer =
        run("shell-guard", bash_payload("viber:task-reviewer", "npm test && rm x"), true).out;
    BOOST_TEST(reviewer.find("R1, R3, R4, R5 not judged: they bind viber:task-coder only") !=
                   std::string::npos,
               reviewer);
    BOOST_TEST(reviewer.find("R2 judged, not broken") != std::string::npos, reviewer);
    const std::string other = run("shell-guard", bash_payload("viber:scout", "rm x"), true).out;
    BOOST_TEST(other.find("no rule binds viber:scout") != std::string::npos, other);
    // A cwd that is not an absolute path is read as no cwd: a relative target is a write.
    const std::string relative_cwd =
        R"({"agent_type":"viber:task-coder","cwd":"@PROJECT@","tool_input":{"command":"npm test > out.txt"}})";
    const RunResult relative = run("shell-guard", relative_cwd, true);
    BOOST_TEST(relative.out.find("not an absolute path") != std::string::npos, relative.out);
    BOOST_TEST(relative.out.find("R4 broken") != std::string::npos, relative.out);
    BOOST_TEST(!run("shell-guard", relative_cwd, false).out.empty());
    const std::string absolute_cwd =
        R"({"agent_type":"viber:task-coder","cwd":"/nonexistent/p","tool_input":{"command":"ls"}})";
    const std::string kept = run("shell-guard", absolute_cwd, true).out;
    BOOST_TEST(kept.find("R1, R2, R3, R4, R5 judged, not broken (R4: no write target") !=
                   std::string::npos,
               kept);
}

// `--explain --log FILE[:LINE]`: a logged call explained from the payload the log kept.
BOOST_AUTO_TEST_CASE(explain_log_explains_a_logged_call) {
    ScratchDir dir;
    const std::string log = dir / "hooks.log";
    const std::string refused = bash_payload("viber:task-coder", "rm -rf dist");
    const std::string allowed = bash_payload("viber:task-coder", "ls");
    std::string printed;
    for (const auto& [binary, payload] : std::vector<std::pair<std::string, std::string>>{
             {"shell-guard", refused}, {"kill-guard", refused}, {"shell-guard", allowed}}) {
        RunOptions options;
        options.stdin_bytes = payload;
        options.env["VIBER_HOOKS_LOG"] = log;
        options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
        const RunResult hook = run_process(hook_binary(binary), options);
        if (printed.empty()) printed = hook.out;
    }
    BOOST_TEST_REQUIRE(!printed.empty());
    const auto explain_log = [&](const std::string& spec) {
        RunOptions options;
        options.args = {"--explain", "--log", spec};
        options.env["VIBER_HOOKS_LOG"] = std::nullopt;
        options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
        return run_process(hook_binary("shell-guard"), options);
    };
    // The default: the last line of this hook (line 3, the allowed ls).
    const RunResult last = explain_log(log);
    BOOST_TEST(last.exit_code == 0, last.err);
    BOOST_TEST(last.out.find("logged call: " + log + ":3 (shell-guard") != std::string::npos,
               last.out);
    BOOST_TEST(printed_section(last.out) == "(nothing)\n");
    // Line 1: the deny, explained to the very line hook mode printed.
    const RunResult first = explain_log(log + ":1");
    BOOST_TEST(first.exit_code == 0, first.err);
    // Its one source is the logged call: no stdin size beside it.
    BOOST_TEST(first.out.find("stdin") == std::string::npos, first.out);
    BOOST_TEST(printed_section(first.out) == printed);
    // Line 2 is kill-guard's: said so, and decided as shell-guard would.
    const RunResult other = explain_log(log + ":2");
    BOOST_TEST(other.out.find("the line is a call of kill-guard") != std::string::npos, other.out);
    // A line that is not there, and a log without this hook's calls.
    BOOST_TEST(explain_log(log + ":9").exit_code == 2);
    RunOptions none;
    none.args = {"--explain", "--log", log};
    BOOST_TEST(run_process(hook_binary("verdict-nudge"), none).exit_code == 2);
}

// A payload file or a log that is a FIFO is refused at once (exit 2, said on stderr), never read:
// nothing writes to it, and a read would wait for ever.
BOOST_AUTO_TEST_CASE(a_fifo_payload_file_or_log_is_refused_without_blocking,
                     *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    const std::string fifo = dir / "payload.json";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--explain", fifo},
          std::vector<std::string>{"--explain", "--log", fifo},
          std::vector<std::string>{"--explain", "--log", fifo + ":3"}}) {
        RunOptions options;
        options.args = args;
        options.timeout = 10s;
        const RunResult result = run_process(hook_binary("shell-guard"), options);
        BOOST_TEST(!result.timed_out, args.back());
        BOOST_TEST(result.exit_code == 2, args.back());
        BOOST_TEST(result.err.find("not a regular file") != std::string::npos, result.err);
    }
}
