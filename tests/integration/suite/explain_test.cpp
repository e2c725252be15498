// explain_test.cpp: `--explain` on every binary (docs/contract.md, "Tool mode"): it reads one
// payload as hook mode does, prints what was read, the steps and the decision, and ends with the
// exact line hook mode prints for the same payload, or `(nothing)`; exit 0.
#define BOOST_TEST_MODULE integration_explain
#include "support/payloads.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
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
    BOOST_TEST(out.find("CLAUDE_PLUGIN_ROOT: " + plugin.path() + "\n") != std::string::npos, out);
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
