// tool_mode_test.cpp: every binary's tool mode (docs/contract.md): --help, --version (one suite
// version), and a bad argument exiting 1 with usage on stderr, never 2.
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

BOOST_AUTO_TEST_CASE(a_bad_argument_exits_1_with_usage_on_stderr) {
    const std::vector<std::vector<std::string>> bad = {
        {"--bogus"}, {"-x"}, {"extra"}, {"--help=yes"}, {"--version", "extra"}, {"--"}, {""}};
    for (const auto& binary : binaries) {
        for (const auto& args : bad) {
            BOOST_TEST_CONTEXT(binary << " " << (args.empty() ? "" : args.front())) {
                const RunResult result = tool(binary, args);
                BOOST_TEST(result.exit_code == 1);
                BOOST_TEST(result.exit_code != 2);
                BOOST_TEST(result.out.empty());
                BOOST_TEST(result.err.find("usage: " + binary) != std::string::npos);
            }
        }
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
            BOOST_TEST(result.exit_code == 1);
        }
    }
}
