// tool_mode_test.cpp: every binary's tool mode (docs/contract.md): --help, --version (one suite
// version), and every misuse exiting 2 with one line on stderr that names it.
#define BOOST_TEST_MODULE integration_tool_mode
#include "support/process.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using viber::testing::hook_binary;
using viber::testing::RunOptions;
using viber::testing::RunResult;
using namespace std::chrono_literals;

namespace {

const std::vector<std::string> binaries = {"plan-gate",   "plan-hints",    "kill-guard",
                                           "shell-guard", "verdict-nudge", "session-start"};

RunResult tool(const std::string& binary, std::vector<std::string> args) {
    RunOptions options;
    options.args = std::move(args);
    options.timeout = 10s; // a hang guard: tool mode never reads stdin
    return viber::testing::run_process(hook_binary(binary), options);
}

std::string last_word(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text.substr(text.find_last_of(' ') + 1);
}

} // namespace

BOOST_AUTO_TEST_CASE(help_prints_usage_and_the_contract) {
    for (const auto& binary : binaries) {
        BOOST_TEST_CONTEXT(binary) {
            for (const char* flag : {"--help", "-h"}) {
                const RunResult result = tool(binary, {flag});
                BOOST_TEST(result.exit_code == 0);
                BOOST_TEST(result.out.find("usage: " + binary) != std::string::npos);
                const std::size_t contract = result.out.find("Contract:\n");
                BOOST_TEST_REQUIRE(contract != std::string::npos);
                // The contract itself: a non-empty line right after the heading.
                const std::size_t first = contract + std::string_view("Contract:\n").size();
                BOOST_TEST(result.out.find('\n', first) > first);
                BOOST_TEST(result.err.empty());
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(version_is_the_project_version_from_every_binary) {
    for (const auto& binary : binaries) {
        BOOST_TEST_CONTEXT(binary) {
            for (const char* flag : {"--version", "-V"}) {
                const RunResult result = tool(binary, {flag});
                BOOST_TEST(result.exit_code == 0);
                BOOST_TEST(result.out == binary + " (viber-hooks) " VIBER_VERSION "\n");
                BOOST_TEST(last_word(result.out) == VIBER_VERSION);
                BOOST_TEST(result.err.empty());
            }
        }
    }
}

// Every misuse of every binary: exit 2 (a usage error), nothing on stdout, and one line on stderr
// that names the problem and the way out, never the whole help (it would bury that line).
BOOST_AUTO_TEST_CASE(a_misuse_exits_2_with_one_line_naming_it) {
    struct Misuse {
        std::vector<std::string> args;
        std::string says; // a part of the line on stderr
    };
    const std::vector<Misuse> misuses = {
        {{"--bogus"}, "unknown option --bogus"},
        {{"-x"}, "unknown option -x"},
        {{"extra"}, "a file argument ('extra') is read only with --explain"},
        {{""}, "is read only with --explain"},
        {{"--help=yes"}, "'--help' does not take any arguments"},
        {{"--version", "extra"}, "is read only with --explain"},
        {{"--help", "--version"}, "--help and --version are used one at a time"},
        {{"--"}, "no option given"},
        {{"--log", "calls.log"}, "--log needs --explain"},
        {{"--log"}, "--log"},
        {{"--explain", "a.json", "b.json"}, "--explain takes one payload file, not 2"},
        {{"--explain", "a.json", "--log", "calls.log"}, "a payload file or --log FILE, not both"},
        {{"--explain", "no-such-payload.json"}, "--explain no-such-payload.json: no such file"},
        {{"--explain", "--log", "no-such.log"}, "--log no-such.log: no such file"},
    };
    for (const auto& binary : binaries) {
        for (const Misuse& misuse : misuses) {
            BOOST_TEST_CONTEXT(binary << " " << misuse.args.front()) {
                const RunResult result = tool(binary, misuse.args);
                BOOST_TEST(result.exit_code == 2);
                BOOST_TEST(result.out.empty());
                BOOST_TEST(result.err.starts_with(binary + ": "), result.err);
                BOOST_TEST(result.err.find(misuse.says) != std::string::npos, result.err);
                BOOST_TEST(result.err.ends_with("; try --help\n"), result.err);
                BOOST_TEST(std::count(result.err.begin(), result.err.end(), '\n') == 1, result.err);
                BOOST_TEST(result.err.find("usage:") == std::string::npos, result.err);
            }
        }
    }
}

// An option of other hooks says whose it is: session-start judges no recorded call, and only the
// guards print the commands they find.
BOOST_AUTO_TEST_CASE(an_option_of_other_hooks_says_whose_it_is) {
    for (const auto& binary : binaries) {
        BOOST_TEST_CONTEXT(binary) {
            const bool guard = binary == "kill-guard" || binary == "shell-guard";
            if (!guard) {
                const RunResult json = tool(binary, {"--commands-json=text"});
                BOOST_TEST(json.exit_code == 2);
                BOOST_TEST(json.err == binary + ": " + binary +
                                           " does not take --commands-json (kill-guard and "
                                           "shell-guard do); try --help\n");
            }
        }
    }
    const RunResult replay = tool("session-start", {"--replay", "project"});
    BOOST_TEST(replay.exit_code == 2);
    BOOST_TEST(replay.err == "session-start: session-start does not take --replay (plan-gate, "
                             "plan-hints, kill-guard, shell-guard and verdict-nudge do); try "
                             "--help\n");
    for (const std::string binary : {"kill-guard", "shell-guard"}) {
        const RunResult mode = tool(binary, {"--commands-json=bogus"});
        BOOST_TEST(mode.exit_code == 2, binary);
        BOOST_TEST(mode.err.find("MODE is empty") != std::string::npos, mode.err);
    }
}

// The guards' own tool-mode option (docs/command-model.md): the bare command on stdin with =text,
// one JSON line naming the simple commands found; the other hooks do not take it.
BOOST_AUTO_TEST_CASE(the_guards_print_the_commands_they_find_as_json) {
    for (const std::string binary : {"kill-guard", "shell-guard"}) {
        BOOST_TEST_CONTEXT(binary) {
            RunOptions options;
            options.args = {"--commands-json=text"};
            options.stdin_bytes = "sudo bash -c 'pkill zz_no_such_proc'";
            options.timeout = 10s;
            const RunResult result = viber::testing::run_process(hook_binary(binary), options);
            BOOST_TEST(result.exit_code == 0, result.err);
            BOOST_TEST(result.out.find("\"pkill\"") != std::string::npos, result.out);
            BOOST_TEST(result.out.find("\"sudo\"") != std::string::npos, result.out);
            BOOST_TEST(std::count(result.out.begin(), result.out.end(), '\n') == 1);
        }
    }
    for (const std::string binary : {"plan-gate", "verdict-nudge"}) {
        BOOST_TEST_CONTEXT(binary) {
            const RunResult result = tool(binary, {"--commands-json=text"});
            BOOST_TEST(result.exit_code == 2);
        }
    }
}
