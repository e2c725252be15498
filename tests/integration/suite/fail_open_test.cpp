// fail_open_test.cpp: every binary on every broken stdin (docs/contract.md, "Fail open"): exit 0
// within its bounds, and the fail-open answer: nothing from the five that may stay silent (no
// hook prints an allow), and session-start's banner with no project (so no schema note). The
// body is one that four binaries decide on when it is whole (plan-gate through an armed
// transcript), so each of them is silent on a broken form only because it is broken.
#define BOOST_TEST_MODULE integration_fail_open
#include "support/environment.hpp"
#include "support/payloads.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace viber::testing;
using namespace std::chrono_literals;

using viber::testing::IgnoreSigpipe;
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

namespace {

struct Binary {
    std::string name;
    std::string fail_open_line; // what it prints when it cannot decide
};

// With CLAUDE_PLUGIN_ROOT unset the banner names the binary's ../.. (the build tree's directory).
std::string plugin_directory_name() {
    std::string dir = VIBER_BIN_DIR;
    for (int up = 0; up < 2; ++up) dir = dir.substr(0, dir.find_last_of('/'));
    return dir.substr(dir.find_last_of('/') + 1);
}

const std::string banner =
    R"({"hookSpecificOutput":{"hookEventName":"SessionStart"},"systemMessage":"viber loaded )" +
    plugin_directory_name() + "\"}\n";

const std::vector<Binary> binaries = {{"plan-gate", ""},     {"plan-hints", ""},
                                      {"kill-guard", ""},    {"shell-guard", ""},
                                      {"verdict-nudge", ""}, {"session-start", banner}};

struct BrokenStdin {
    std::string label;
    std::string bytes;
    StdinMode mode = StdinMode::bytes;
};

// A project whose planner plan was written and never reviewed, and the transcript that says so:
// plan-gate denies ExitPlanMode on it (docs/plan-gate.md).
struct ArmedProject {
    ScratchDir project;
    std::string transcript;
    ArmedProject() {
        const std::string plan =
            project.write(".claude/plans/p.md", "---\nsource: interview\n---\n# Plan\n");
        TranscriptBuilder t;
        t.permission_mode("default");
        t.typed_prompt("plan the feature");
        t.skill("viber:planner");
        t.enter_plan_mode();
        t.write_file(plan, "---\nsource: interview\n---\n# Plan\n");
        transcript = project.write("transcript.jsonl", t.text());
    }
};

const ArmedProject& armed() {
    static const ArmedProject project;
    return project;
}

std::string json_text(std::string_view text) {
    return boost::json::serialize(boost::json::value(text));
}

// One viber-flavoured body, so the prefilter lets every case through to the parser. Whole, it is
// a payload that kill-guard and shell-guard deny, verdict-nudge blocks and plan-gate denies (the
// control below): each broken form of it is silent only because it is broken.
std::string viber_keys() {
    return R"("agent_type":"viber:task-coder","permission_mode":"plan","cwd":)" +
           json_text(armed().project.path()) + R"(,"transcript_path":)" +
           json_text(armed().transcript) +
           R"(,"last_assistant_message":"x","tool_name":"Bash","tool_input":{"command":"pkill x; rm y"})";
}

std::vector<BrokenStdin> broken_stdin() {
    const std::string viber_keys = ::viber_keys();
    return {
        {"empty", ""},
        {"a BOM alone", "\xEF\xBB\xBF"},
        {"not JSON", "viber: pkill x"},
        {"an array", "[{" + viber_keys + "}]"},
        {"a string", "\"viber:task-coder\""},
        {"null", "null viber:"},
        {"truncated", "{" + viber_keys},
        {"truncated in the middle", ("{" + viber_keys).substr(0, viber_keys.size() / 2)},
        {"truncated at 40 bytes", ("{" + viber_keys).substr(0, 40)},
        {"trailing garbage", "{" + viber_keys + "} trailing"},
        {"two objects", "{" + viber_keys + "}{}"},
        {"invalid UTF-8 outside strings", "{\xFF" + viber_keys + "}"},
        {"nested past the depth cap",
         std::string(5000, '[') + "\"viber:\"" + std::string(5000, ']')},
        {"keys of the wrong types",
         R"({"agent_type":["viber:task-coder"],"permission_mode":1,"cwd":{},)"
         R"("last_assistant_message":false,"tool_input":"pkill x","transcript_path":7})"},
        {"no tool_input", R"({"agent_type":"viber:task-coder","last_assistant_message":7})"},
        {"a null tool_input and message",
         R"({"agent_type":"viber:task-coder","tool_input":null,"last_assistant_message":null})"},
        {"a number command", R"({"agent_type":"viber:task-coder","tool_input":{"command":42}})"},
        {"20 MiB of unbalanced braces", std::string(std::size_t{20} << 20, '{') + "viber:"},
        {"keys only inside a string",
         R"({"note":"{\"agent_type\":\"viber:task-coder\",\"tool_input\":{\"command\":\"pkill x\"}}"})"},
        {"past the 64 MiB cap", "{\"agent_type\":\"viber:task-coder\",\"pad\":\"" +
                                    std::string(std::size_t{65} << 20, 'a') + "\"}"},
        {"held open with no data", "", StdinMode::held_open},
        {"held open after a whole payload", "{" + viber_keys + "}", StdinMode::held_open},
    };
}

} // namespace

BOOST_AUTO_TEST_CASE(the_whole_body_is_decided) {
    // The control for every broken form: the body whole, and read past what is no break (a BOM,
    // a 20 MiB value before it, invalid UTF-8 in another value, a megabyte escaped value), is
    // decided by the four binaries that decide on it.
    const std::vector<std::pair<std::string, std::string>> deciding = {
        {"kill-guard", R"("permissionDecision":"deny")"},
        {"shell-guard", R"("permissionDecision":"deny")"},
        {"verdict-nudge", R"("decision":"block")"},
        {"plan-gate", R"("permissionDecision":"deny")"}};
    const std::string viber_keys = ::viber_keys();
    std::string escaped;
    while (escaped.size() < (std::size_t{1} << 20)) escaped += R"(a line\n\"quoted\"\t)";
    const std::vector<std::pair<std::string, std::string>> forms = {
        {"as is", "{" + viber_keys + "}"},
        {"after a BOM", "\xEF\xBB\xBF{" + viber_keys + "}"},
        {"after a 20 MiB value",
         R"({"pad":")" + std::string(std::size_t{20} << 20, 'a') + R"(",)" + viber_keys + "}"},
        {"with invalid UTF-8 in another value", R"({"description":")"
                                                "\xff\xfe\xc3\xed\xa0\x80"
                                                R"(",)" +
                                                    viber_keys + "}"},
        {"with a megabyte escaped value", R"({"note":")" + escaped + R"(",)" + viber_keys + "}"}};
    for (const auto& [form, bytes] : forms) {
        for (const auto& [name, answer] : deciding) {
            BOOST_TEST_CONTEXT(name << " " << form) {
                RunOptions options;
                options.stdin_bytes = bytes;
                options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
                options.env["VIBER_HOOKS_LOG"] = std::nullopt;
                options.timeout = 30s;
                const RunResult result = run_process(hook_binary(name), options);
                BOOST_TEST(result.exit_code == 0);
                BOOST_TEST(!result.timed_out);
                BOOST_TEST(result.out.find(answer) != std::string::npos, result.out);
            }
        }
    }
}

// The held-open runs each wait out the 2 s idle bound: on POSIX they start together, first, and
// the rest run one by one meanwhile (run_process forks with close-on-exec pipes, so no child
// holds another's stdin open); on Windows, where a child would inherit the others' pipe ends,
// each runs in turn.
#ifdef _WIN32
constexpr auto held_open_launch = std::launch::deferred;
#else
constexpr auto held_open_launch = std::launch::async;
#endif

BOOST_AUTO_TEST_CASE(every_binary_fails_open_on_every_broken_stdin) {
    ScratchDir empty_plugin; // no manifest, no hints, no config.sh: nothing to find
    const auto run = [](const BrokenStdin& input, const Binary& binary) {
        RunOptions options;
        options.stdin_bytes = input.bytes;
        options.stdin_mode = input.mode;
        options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
        options.env["VIBER_HOOKS_LOG"] = std::nullopt;
        options.timeout = 15s;
        return run_process(hook_binary(binary.name), options);
    };
    const std::vector<BrokenStdin> inputs = broken_stdin();
    std::map<std::pair<const BrokenStdin*, const Binary*>, std::future<RunResult>> held_open;
    for (const BrokenStdin& input : inputs)
        if (input.mode == StdinMode::held_open)
            for (const Binary& binary : binaries)
                held_open[{&input, &binary}] =
                    std::async(held_open_launch, run, std::cref(input), std::cref(binary));
    for (const BrokenStdin& input : inputs) {
        for (const Binary& binary : binaries) {
            BOOST_TEST_CONTEXT(binary.name << " on " << input.label) {
                const RunResult result = input.mode == StdinMode::held_open
                                             ? held_open.at({&input, &binary}).get()
                                             : run(input, binary);
                BOOST_TEST(result.exit_code == 0);
                BOOST_TEST(result.signal == 0);
                BOOST_TEST(!result.timed_out);
                // Within the 8 s total bound of the stdin reader, whatever the input.
                BOOST_TEST(result.seconds < 9.0);
                // A writer that holds stdin open gets the 2 s idle bound, not an early answer.
                if (input.mode == StdinMode::held_open) BOOST_TEST(result.seconds >= 1.5);
                BOOST_TEST(result.out == binary.fail_open_line);
                BOOST_TEST(result.err.empty(), result.err);
            }
        }
    }
}
