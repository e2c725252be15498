// hooks_json_test.cpp: hooks/hooks.json wires the five rows of docs/contract.md exactly.
#define BOOST_TEST_MODULE hooks_json
#include "support/process.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace json = boost::json;
using viber::testing::hook_binary;
using viber::testing::source_path;

namespace {

json::object load_hooks_json() {
    std::ifstream in(source_path("hooks/hooks.json"), std::ios::binary);
    BOOST_REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    json::value value = json::parse(text.str());
    BOOST_REQUIRE(value.is_object());
    return value.as_object();
}

std::set<std::string> keys_of(const json::object& obj) {
    std::set<std::string> keys;
    for (const auto& member : obj) keys.emplace(member.key());
    return keys;
}

std::string quoted_command(const std::string& binary) {
    return "\"${CLAUDE_PLUGIN_ROOT}/hooks/bin/" + binary + "\"";
}

// One event's entries: each is {matcher?, hooks:[…]}.
const json::array& entries(const json::object& root, const char* event) {
    const json::object& hooks = root.at("hooks").as_object();
    BOOST_REQUIRE_MESSAGE(hooks.contains(event), "no " << event << " entry");
    return hooks.at(event).as_array();
}

// Checks one entry: its matcher (none when `matcher` is empty) and its commands in order.
void check_entry(const json::value& entry_value, const std::string& matcher,
                 const std::vector<std::string>& binaries) {
    BOOST_REQUIRE(entry_value.is_object());
    const json::object& entry = entry_value.as_object();
    if (matcher.empty()) {
        BOOST_TEST(keys_of(entry) == (std::set<std::string>{"hooks"}));
    } else {
        BOOST_TEST(keys_of(entry) == (std::set<std::string>{"matcher", "hooks"}));
        BOOST_REQUIRE(entry.contains("matcher"));
        BOOST_TEST(entry.at("matcher").as_string() == matcher);
    }
    const json::array& commands = entry.at("hooks").as_array();
    BOOST_REQUIRE_EQUAL(commands.size(), binaries.size());
    for (std::size_t i = 0; i < binaries.size(); ++i) {
        const json::object& command = commands[i].as_object();
        BOOST_TEST(keys_of(command) == (std::set<std::string>{"type", "command", "timeout"}));
        BOOST_TEST(command.at("type").as_string() == "command");
        BOOST_TEST(command.at("command").as_string() == quoted_command(binaries[i]));
        BOOST_REQUIRE(command.at("timeout").is_int64());
        BOOST_TEST(command.at("timeout").as_int64() == 10);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(top_level_holds_description_hooks_and_modules) {
    const json::object root = load_hooks_json();
    BOOST_TEST(keys_of(root) == (std::set<std::string>{"description", "hooks", "modules"}));
    const json::array& modules = root.at("modules").as_array();
    BOOST_REQUIRE_EQUAL(modules.size(), 1u);
    BOOST_TEST(modules[0].as_string() == "./register.tsx");
}

BOOST_AUTO_TEST_CASE(exactly_four_events) {
    const json::object root = load_hooks_json();
    BOOST_TEST(
        keys_of(root.at("hooks").as_object()) ==
        (std::set<std::string>{"PreToolUse", "UserPromptSubmit", "SessionStart", "SubagentStop"}));
}

BOOST_AUTO_TEST_CASE(pretooluse_exitplanmode_runs_plan_gate) {
    const json::object root = load_hooks_json();
    const json::array& pre = entries(root, "PreToolUse");
    BOOST_REQUIRE_EQUAL(pre.size(), 2u);
    check_entry(pre[0], "ExitPlanMode", {"plan-gate"});
}

BOOST_AUTO_TEST_CASE(pretooluse_bash_runs_kill_guard_then_shell_guard) {
    const json::object root = load_hooks_json();
    const json::array& pre = entries(root, "PreToolUse");
    BOOST_REQUIRE_EQUAL(pre.size(), 2u);
    check_entry(pre[1], "Bash", {"kill-guard", "shell-guard"});
}

BOOST_AUTO_TEST_CASE(userpromptsubmit_runs_plan_hints_without_matcher) {
    const json::object root = load_hooks_json();
    const json::array& rows = entries(root, "UserPromptSubmit");
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    check_entry(rows[0], "", {"plan-hints"});
}

BOOST_AUTO_TEST_CASE(sessionstart_matches_startup_clear_compact) {
    const json::object root = load_hooks_json();
    const json::array& rows = entries(root, "SessionStart");
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    check_entry(rows[0], "startup|clear|compact", {"session-start"});
}

BOOST_AUTO_TEST_CASE(subagentstop_runs_verdict_nudge_without_matcher) {
    const json::object root = load_hooks_json();
    const json::array& rows = entries(root, "SubagentStop");
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    check_entry(rows[0], "", {"verdict-nudge"});
}

BOOST_AUTO_TEST_CASE(description_summarizes_every_hook) {
    const json::object root = load_hooks_json();
    BOOST_REQUIRE(root.at("description").is_string());
    const std::string description(root.at("description").as_string());
    for (const char* needle :
         {"plan-gate", "plan-hints", "kill-guard", "shell-guard", "session-start", "verdict-nudge",
          "planning.plain-plan-review", "schema", "viber guard:", "VERDICT:", "Next step:"}) {
        BOOST_TEST(description.find(needle) != std::string::npos, "description lacks " << needle);
    }
}

BOOST_AUTO_TEST_CASE(every_command_names_a_built_binary) {
    const json::object root = load_hooks_json();
    std::set<std::string> wired;
    const std::string prefix = "\"${CLAUDE_PLUGIN_ROOT}/hooks/bin/";
    for (const auto& event : root.at("hooks").as_object())
        for (const auto& entry : event.value().as_array())
            for (const auto& command : entry.as_object().at("hooks").as_array()) {
                std::string text(command.as_object().at("command").as_string());
                BOOST_REQUIRE(text.rfind(prefix, 0) == 0 && text.size() > prefix.size() + 1);
                wired.insert(text.substr(prefix.size(), text.size() - prefix.size() - 1));
            }
    BOOST_TEST(wired == (std::set<std::string>{"plan-gate", "plan-hints", "kill-guard",
                                               "shell-guard", "verdict-nudge", "session-start"}));
    for (const auto& binary : wired) {
        struct stat info {};
        BOOST_TEST((::stat(hook_binary(binary).c_str(), &info) == 0 && S_ISREG(info.st_mode)),
                   binary << " is not built");
    }
}
