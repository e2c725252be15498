// decisions_test.cpp: the kill-guard binary's refusals, silences and tool mode.
#define BOOST_TEST_MODULE integration_kill_guard_decisions
#include "support/payloads.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

namespace json = boost::json;
using namespace viber::testing;

namespace {

// Runs a copy of the binary in a scratch plugin tree, so nothing outside the test is read.
RunResult run_guard(const std::string& stdin_bytes) {
    const PluginTree tree("kill-guard");
    RunOptions options;
    options.stdin_bytes = stdin_bytes;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.cwd = tree.path();
    options.timeout = std::chrono::seconds(10);
    return run_process(tree.binary(), options);
}

void check_denied(std::string_view agent, std::string_view command) {
    const RunResult r = run_guard(bash_payload(agent, command));
    BOOST_TEST_CONTEXT(agent << " / " << command) {
        BOOST_TEST(r.exit_code == 0);
        BOOST_TEST_REQUIRE(!r.out.empty());
        BOOST_TEST(r.out.back() == '\n');
        BOOST_TEST(r.out.find('\n') == r.out.size() - 1); // one line
        const json::value answer = json::parse(r.out);
        const json::object& out = answer.at("hookSpecificOutput").as_object();
        BOOST_TEST(out.at("hookEventName").as_string() == "PreToolUse");
        BOOST_TEST(out.at("permissionDecision").as_string() == "deny");
        const std::string reason(out.at("permissionDecisionReason").as_string());
        BOOST_TEST(reason.rfind("viber guard:", 0) == 0u);
        BOOST_TEST(reason.find("`kill <PID>`") != std::string::npos);
        BOOST_TEST(reason.find("`kill -0 <PID>`") != std::string::npos);
    }
}

void check_silent(const std::string& stdin_bytes, std::string_view label) {
    const RunResult r = run_guard(stdin_bytes);
    BOOST_TEST_CONTEXT(label) {
        BOOST_TEST(r.exit_code == 0);
        BOOST_TEST(r.out.empty());
        BOOST_TEST(!r.timed_out);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(refuses_stops_by_name) {
    check_denied("viber:task-coder", "pkill node");
    check_denied("viber:task-coder", "killall -9 node");
    check_denied("viber:final-reviewer", "taskkill //IM node.exe //F");
    check_denied("viber:scout", "pgrep vite | xargs kill -9");
    check_denied("viber:task-coder", "kill $(lsof -t -i:3000)");
    check_denied("viber:task-coder", "sudo -u root /usr/bin/pkill -f 'npm run dev'");
    check_denied("viber:task-coder", "cd web && bash -c 'npm stop || pkill node'");
    check_denied("viber:task-coder", "cat <<EOF\nbody\nEOF\nkillall node");
}

BOOST_AUTO_TEST_CASE(silent_on_allowed_forms) {
    for (const char* command :
         {"kill 1234", "kill -0 1234", "kill $!", "kill %1", "taskkill //PID 1234 //T //F",
          "grep -n \"killall\" notes.md", "cat <<EOF\npkill x\nEOF", "echo hi # pkill x",
          "command -v pkill", "npm test"})
        check_silent(bash_payload("viber:task-coder", command), command);
}

BOOST_AUTO_TEST_CASE(silent_for_a_caller_that_is_not_a_viber_agent) {
    check_silent(bash_payload("", "pkill node"), "main session");
    check_silent(bash_payload("general-purpose", "pkill node"), "another agent");
    check_silent(bash_payload("xyz:viber:task-coder", "pkill node"), "viber: not at the start");
}

BOOST_AUTO_TEST_CASE(agent_type_quoted_inside_a_string_does_not_count) {
    check_silent(bash_payload("", R"(echo '"agent_type":"viber:x"'; pkill node)"),
                 "quoted in the command");
    json::object o;
    o["tool_name"] = "Bash";
    o["tool_input"] = json::object{{"command", "pkill node"}, {"agent_type", "viber:x"}};
    check_silent(json::serialize(o), "nested agent_type");
    check_silent(R"({"agent_type_x":"viber:x","tool_input":{"command":"pkill node"}})",
                 "another key");
}

BOOST_AUTO_TEST_CASE(tool_mode) {
    const std::string exe = hook_binary("kill-guard");
    RunOptions options;
    options.timeout = std::chrono::seconds(10);

    options.args = {"--help"};
    const RunResult help = run_process(exe, options);
    BOOST_TEST(help.exit_code == 0);
    BOOST_TEST(help.out.find("kill-guard") != std::string::npos);

    options.args = {"--version"};
    const RunResult version = run_process(exe, options);
    BOOST_TEST(version.exit_code == 0);
    BOOST_TEST(!version.out.empty());

    options.args = {"--bogus"};
    const RunResult bad = run_process(exe, options);
    BOOST_TEST(bad.exit_code == 2);
    BOOST_TEST(bad.out.empty());
    BOOST_TEST(bad.err == "kill-guard: unknown option --bogus; try --help\n");
}
