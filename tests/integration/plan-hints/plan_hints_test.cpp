// plan_hints_test.cpp: the plan-hints binary run as a process on transcripts it is given
// (docs/plan-hints.md): when it prints the plain-plan rules, when the viber planner chain silences
// it, and where the rules text comes from.
#define BOOST_TEST_MODULE integration_plan_hints
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace json = boost::json;
using namespace viber::testing;

namespace {

constexpr std::string_view hints =
    "Plain plan rules:\n- use TaskCreate\n- \"quoted\" and \\ slashes\n";
constexpr std::string_view hints_cut =
    "Plain plan rules:\n- use TaskCreate\n- \"quoted\" and \\ slashes";

// A plugin tree with the hints file written, and a transcript beside it.
struct Fixture {
    PluginTree tree{"plan-hints"};
    Fixture() { tree.write("hooks/content/plan-hints.md", hints); }

    std::string payload(std::string_view mode, const TranscriptBuilder& transcript) const {
        const std::string path = tree.write("session/t.jsonl", transcript.text());
        return json::serialize(json::object{{"session_id", "s"},
                                            {"transcript_path", path},
                                            {"cwd", tree.path()},
                                            {"permission_mode", mode},
                                            {"hook_event_name", "UserPromptSubmit"},
                                            {"prompt", "plan the change"}});
    }

    RunResult run(const std::string& stdin_bytes,
                  std::map<std::string, std::optional<std::string>> env = {}) const {
        RunOptions options;
        options.stdin_bytes = stdin_bytes;
        options.env = std::move(env);
        options.env.emplace("CLAUDE_PLUGIN_ROOT", std::nullopt);
        options.timeout = std::chrono::milliseconds(10000);
        return run_process(tree.binary(), options);
    }
};

// The exact line plan-hints prints for `context`.
std::string expected_line(std::string_view context) {
    return json::serialize(json::object{
               {"hookSpecificOutput", json::object{{"hookEventName", "UserPromptSubmit"},
                                                   {"additionalContext", context}}}}) +
           "\n";
}

void expect_hints(const RunResult& r, std::string_view context = hints_cut) {
    BOOST_TEST(!r.timed_out);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(r.out == expected_line(context));
}

void expect_silent(const RunResult& r) {
    BOOST_TEST(!r.timed_out);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(r.out == "");
}

TranscriptBuilder plain_session() {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.typed_prompt("hello");
    t.permission_mode("plan");
    return t;
}

std::size_t typed_command(TranscriptBuilder& t, std::string_view command) {
    return t.add(json::object{
        {"type", "user"},
        {"message", json::object{{"content", "<command-message>viber:" + std::string(command) +
                                                 "</command-message>\n<command-name>/viber:" +
                                                 std::string(command) + "</command-name>"}}}});
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    return all.str();
}

} // namespace

BOOST_AUTO_TEST_CASE(prints_in_plan_mode_without_a_signal) {
    Fixture f;
    expect_hints(f.run(f.payload("plan", plain_session())));
}

BOOST_AUTO_TEST_CASE(silent_outside_plan_mode) {
    Fixture f;
    for (const std::string_view mode :
         {"default", "acceptEdits", "bypassPermissions", "PLAN", "plan "}) {
        expect_silent(f.run(f.payload(mode, plain_session())));
    }
    expect_silent(f.run(R"({"transcript_path":"/nowhere","prompt":"x"})"));
    expect_silent(f.run(R"({"permission_mode":true})"));
    // The key quoted inside a string value is not the payload's key.
    expect_silent(f.run(R"({"prompt":"\"permission_mode\":\"plan\""})"));
}

BOOST_AUTO_TEST_CASE(silent_for_each_skill_signal_in_the_episode) {
    for (const std::string_view skill :
         {"planner", "viber:planner", "intent", "viber:intent", "fixer", "viber:fixer"}) {
        Fixture f;
        TranscriptBuilder t = plain_session();
        t.skill(skill);
        t.typed_prompt("go on");
        expect_silent(f.run(f.payload("plan", t)));
    }
}

BOOST_AUTO_TEST_CASE(silent_for_each_typed_chain_command_in_the_episode) {
    for (const std::string_view command : {"intent", "fixer"}) {
        Fixture f;
        TranscriptBuilder t = plain_session();
        typed_command(t, command);
        expect_silent(f.run(f.payload("plan", t)));
    }
}

BOOST_AUTO_TEST_CASE(silent_when_the_signals_enter_plan_mode_lies_in_the_episode) {
    Fixture f;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.permission_mode("default"); // the mid-turn flush
    t.enter_plan_mode();
    t.permission_mode("plan");
    expect_silent(f.run(f.payload("plan", t)));
}

BOOST_AUTO_TEST_CASE(prints_when_the_pending_entry_was_ended_before_the_episode) {
    Fixture f;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:intent");
    t.typed_prompt("never mind");
    t.permission_mode("default");
    t.enter_plan_mode();
    t.permission_mode("plan");
    expect_hints(f.run(f.payload("plan", t)));
}

BOOST_AUTO_TEST_CASE(prints_again_when_the_signal_is_from_an_earlier_episode) {
    Fixture f;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.enter_plan_mode();
    t.permission_mode("plan");
    t.write_file("/repo/.claude/plans/old.md");
    t.permission_mode("acceptEdits"); // the plan was approved and built
    typed_command(t, "fixer");
    t.permission_mode("default");
    t.typed_prompt("a new plain task");
    t.permission_mode("plan");
    expect_hints(f.run(f.payload("plan", t)));
}

BOOST_AUTO_TEST_CASE(prints_for_signals_that_are_not_the_chain) {
    Fixture f;
    TranscriptBuilder t = plain_session();
    t.skill("xyz:planner");
    t.skill("xyz:intent");
    typed_command(t, "planner");
    t.write_file("/tmp/notes.md",
                 R"({"type":"tool_use","name":"Skill","input":{"skill":"viber:planner"}})");
    t.content_element("api-request-blob",
                      json::object{{"type", "tool_use"},
                                   {"name", "Skill"},
                                   {"input", json::object{{"skill", "viber:planner"}}}});
    expect_hints(f.run(f.payload("plan", t)));
}

BOOST_AUTO_TEST_CASE(crlf_transcript_signals_count) {
    Fixture f;
    TranscriptBuilder t;
    t.set_crlf(true);
    t.permission_mode("default");
    t.skill("viber:fixer");
    expect_silent(f.run(f.payload("plan", t)));
}

BOOST_AUTO_TEST_CASE(missing_or_empty_hints_file_is_silent) {
    Fixture f;
    const std::string payload = f.payload("plan", plain_session());
    f.tree.write("hooks/content/plan-hints.md", "");
    expect_silent(f.run(payload));
    f.tree.write("hooks/content/plan-hints.md", "\r\n\n");
    expect_silent(f.run(payload));
    ::unlink((f.tree / "hooks/content/plan-hints.md").c_str());
    expect_silent(f.run(payload));
    f.tree.mkdir("hooks/content/plan-hints.md");
    expect_silent(f.run(payload));
}

BOOST_AUTO_TEST_CASE(crlf_hints_file_loses_only_its_trailing_newlines) {
    Fixture f;
    f.tree.write("hooks/content/plan-hints.md", "line one\r\nline two\r\n\r\n");
    expect_hints(f.run(f.payload("plan", plain_session())), "line one\r\nline two");
}

BOOST_AUTO_TEST_CASE(hints_text_is_verbatim) {
    Fixture f;
    const std::string text =
        "  indented \xE2\x9C\x93 \t tab\n\n<b>tags</b> & {\"json\": [1]}\ntrailing spaces   ";
    f.tree.write("hooks/content/plan-hints.md", text + "\n");
    expect_hints(f.run(f.payload("plan", plain_session())), text);
}

BOOST_AUTO_TEST_CASE(claude_plugin_root_is_honoured) {
    Fixture f;
    ScratchDir other;
    other.write("hooks/content/plan-hints.md", "from the plugin root\n");
    const std::string payload = f.payload("plan", plain_session());
    expect_hints(f.run(payload, {{"CLAUDE_PLUGIN_ROOT", other.path()}}), "from the plugin root");
    // Set but without the file there: the executable's own tree.
    ScratchDir empty;
    expect_hints(f.run(payload, {{"CLAUDE_PLUGIN_ROOT", empty.path()}}));
    expect_hints(f.run(payload, {{"CLAUDE_PLUGIN_ROOT", ""}}));
}

BOOST_AUTO_TEST_CASE(the_shipped_hints_carry_the_plain_plan_rules) {
    const std::string shipped = slurp(source_path("content/plan-hints.md"));
    BOOST_TEST_REQUIRE(!shipped.empty());
    BOOST_TEST(shipped.find("TaskCreate") != std::string::npos);
    BOOST_TEST(shipped.find("parallel") != std::string::npos);
    BOOST_TEST(shipped.find("subagent") != std::string::npos);
    BOOST_TEST(shipped.find("plain-plan-review") != std::string::npos);
    BOOST_TEST(shipped.find("planning.plain-plan-review") != std::string::npos);
    BOOST_TEST(shipped.find("more than 8") != std::string::npos);
    BOOST_TEST(shipped.find("viber planner") != std::string::npos);
    Fixture f;
    f.tree.write("hooks/content/plan-hints.md", shipped);
    std::string_view cut = shipped;
    while (!cut.empty() && (cut.back() == '\n' || cut.back() == '\r')) cut.remove_suffix(1);
    expect_hints(f.run(f.payload("plan", plain_session())), cut);
}

BOOST_AUTO_TEST_CASE(tool_mode) {
    Fixture f;
    RunOptions help;
    help.args = {"--help"};
    const RunResult h = run_process(f.tree.binary(), help);
    BOOST_TEST(h.exit_code == 0);
    BOOST_TEST(h.out.find("plan-hints") != std::string::npos);
    RunOptions version;
    version.args = {"--version"};
    BOOST_TEST(run_process(f.tree.binary(), version).exit_code == 0);
    RunOptions bad;
    bad.args = {"--bogus"};
    const RunResult b = run_process(f.tree.binary(), bad);
    BOOST_TEST(b.exit_code == 2);
    BOOST_TEST(b.out == "");
    BOOST_TEST(!b.err.empty());
}
