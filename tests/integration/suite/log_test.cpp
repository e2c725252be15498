// log_test.cpp: VIBER_HOOKS_LOG (docs/contract.md, "The troubleshooting log"): one JSON line per
// call appended to a regular or absent file; a FIFO or device is ignored without blocking; the log
// never changes a decision; unset or empty, nothing is logged and the common path opens no file.
#define BOOST_TEST_MODULE integration_log
#include "support/payloads.hpp"
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/strace.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace json = boost::json;
using namespace viber::testing;
using namespace std::chrono_literals;

namespace {

const std::string refused = bash_payload("viber:task-coder", "rm -rf x; git stash; echo y > z");

RunResult run(const std::string& binary, const std::string& payload,
              std::optional<std::string> log) {
    RunOptions options;
    options.stdin_bytes = payload;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.env["VIBER_HOOKS_LOG"] = std::move(log);
    options.timeout = 15s;
    return run_process(hook_binary(binary), options);
}

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

bool exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

} // namespace

BOOST_AUTO_TEST_CASE(each_call_appends_one_json_line) {
    ScratchDir dir;
    const std::string log = dir / "hooks.log";
    const RunResult deny = run("shell-guard", refused, log);
    const RunResult none = run("kill-guard", bash_payload("general-purpose", "ls"), log);
    const RunResult block = run(
        "verdict-nudge", R"({"agent_type":"viber:task-coder","last_assistant_message":"x"})", log);
    const RunResult context = run("session-start", "{}", log);
    const std::vector<std::string> lines = lines_of(log);
    BOOST_TEST_REQUIRE(lines.size() == 4u);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"shell-guard", "deny"},
        {"kill-guard", "none"},
        {"verdict-nudge", "block"},
        {"session-start", "context"}};
    for (std::size_t i = 0; i < lines.size(); ++i) {
        BOOST_TEST_CONTEXT(lines[i]) {
            const json::object entry = json::parse(lines[i]).as_object();
            BOOST_TEST(entry.size() == 6u);
            BOOST_TEST(entry.at("payload").is_object());
            BOOST_TEST(entry.at("hook").as_string() == expected[i].first);
            BOOST_TEST(entry.at("decision").as_string() == expected[i].second);
            const std::string time(entry.at("time").as_string());
            // ISO-8601 UTC: 2026-11-30T23:59:59.123Z
            BOOST_TEST(time.size() == 24u);
            BOOST_TEST(time[4] == '-');
            BOOST_TEST(time[10] == 'T');
            BOOST_TEST(time[19] == '.');
            BOOST_TEST(time.back() == 'Z');
            BOOST_TEST(entry.at("micros").is_int64());
            BOOST_TEST(entry.at("micros").as_int64() >= 0);
            BOOST_TEST(entry.at("reason").is_string());
        }
    }
    BOOST_TEST(json::parse(lines[1]).at("reason").as_string() == "");
    // The plugin directory is the binary's ../.. (CLAUDE_PLUGIN_ROOT unset): the build directory.
    BOOST_TEST(json::parse(lines[3]).at("reason").as_string().starts_with("viber loaded "));
}

BOOST_AUTO_TEST_CASE(the_line_carries_the_payload_as_the_object_it_was) {
    ScratchDir dir;
    const std::string log = dir / "hooks.log";
    (void)run("shell-guard", refused, log);
    (void)run("kill-guard", "not json {", log);
    const std::vector<std::string> lines = lines_of(log);
    BOOST_TEST_REQUIRE(lines.size() == 2u);
    const json::object first = json::parse(lines[0]).as_object();
    BOOST_TEST(first.at("payload") == json::parse(refused));
    BOOST_TEST(!first.contains("payload_cut"));
    // Bytes that are not a JSON object are kept as a string, as they were read.
    const json::object second = json::parse(lines[1]).as_object();
    BOOST_TEST(second.at("payload") == json::value("not json {"));
}

BOOST_AUTO_TEST_CASE(a_payload_over_64_kib_is_cut_and_flagged_and_the_decision_stays) {
    ScratchDir dir;
    const std::string log = dir / "hooks.log";
    // A refused command 100 KiB long: the log keeps the first 64 KiB of the payload's text.
    const std::string payload =
        bash_payload("viber:task-coder", "rm -rf x; echo " + std::string(100 * 1024, 'a'));
    const std::string plain = run("shell-guard", payload, std::nullopt).out;
    BOOST_TEST_REQUIRE(!plain.empty());
    const RunResult logged = run("shell-guard", payload, log);
    BOOST_TEST(logged.out == plain);
    const std::vector<std::string> lines = lines_of(log);
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    const json::object entry = json::parse(lines[0]).as_object();
    BOOST_TEST(entry.at("payload_cut") == json::value(true));
    BOOST_TEST_REQUIRE(entry.at("payload").is_string());
    const std::string kept(entry.at("payload").as_string());
    BOOST_TEST(kept.size() == 64u * 1024u);
    BOOST_TEST(kept == payload.substr(0, kept.size()));
}

BOOST_AUTO_TEST_CASE(the_reason_is_its_first_200_characters) {
    ScratchDir dir;
    const std::string log = dir / "hooks.log";
    const RunResult deny = run("shell-guard", refused, log);
    const std::string reason(
        json::parse(deny.out).at("hookSpecificOutput").at("permissionDecisionReason").as_string());
    BOOST_TEST_REQUIRE(reason.size() > 200u); // ASCII: bytes are characters
    const std::vector<std::string> lines = lines_of(log);
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    BOOST_TEST(json::parse(lines[0]).at("reason").as_string() == reason.substr(0, 200));
}

BOOST_AUTO_TEST_CASE(the_log_never_changes_a_decision, *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    BOOST_REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    const std::string plain = run("shell-guard", refused, std::nullopt).out;
    BOOST_TEST_REQUIRE(!plain.empty());
    for (const std::string& log :
         {dir / "new.log", dir / "fifo", std::string("/dev/full"), std::string("/dev/null"),
          dir.path(), dir / "no/such/dir/x", std::string("")}) {
        const RunResult got = run("shell-guard", refused, log);
        BOOST_TEST(got.exit_code == 0, log);
        BOOST_TEST(got.out == plain, log);
    }
}

// A log that cannot be written is said once on stderr in hook mode, never on stdout, with the
// decision and exit 0 unchanged; --explain says it in its Read: section without writing anything.
BOOST_AUTO_TEST_CASE(a_log_that_cannot_be_written_is_said_once_on_stderr,
                     *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    BOOST_REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    const std::string plain = run("shell-guard", refused, std::nullopt).out;
    BOOST_TEST_REQUIRE(!plain.empty());
    std::vector<std::pair<std::string, std::string>> cases = {
        {dir / "no/such/dir/x.log", "its directory " + (dir / "no/such/dir") + " does not exist"},
        {dir.path(), "it is a directory"},
        {dir / "fifo", "it is not a regular file (a FIFO or a device is never written)"},
    };
    // Permissions do not bind root: the unwritable file is a case only for other users.
    if (::geteuid() != 0) {
        const std::string locked = dir.write("locked.log", "");
        BOOST_REQUIRE(::chmod(locked.c_str(), 0444) == 0);
        cases.emplace_back(locked, "the file is not writable");
    }
    for (const auto& [log, why] : cases) {
        BOOST_TEST_CONTEXT(log) {
            const RunResult got = run("shell-guard", refused, log);
            BOOST_TEST(got.exit_code == 0);
            BOOST_TEST(got.out == plain);
            BOOST_TEST(got.err ==
                       "shell-guard: VIBER_HOOKS_LOG=" + log + " is not written: " + why + "\n");
            const std::string payload = dir.write("payload.json", refused);
            RunOptions options;
            options.args = {"--explain", payload};
            options.env["VIBER_HOOKS_LOG"] = log;
            options.timeout = 15s;
            const RunResult explained = run_process(hook_binary("shell-guard"), options);
            BOOST_TEST(explained.exit_code == 0, explained.err);
            BOOST_TEST(explained.out.find("  VIBER_HOOKS_LOG: " + log +
                                          ": the log is not written: " + why + "\n") !=
                           std::string::npos,
                       explained.out);
        }
    }
    BOOST_TEST(!exists(dir / "no"));
    // A log that is written says so in --explain and nothing on stderr in hook mode.
    const std::string good = dir / "good.log";
    const RunResult logged = run("shell-guard", refused, good);
    BOOST_TEST(logged.err.empty(), logged.err);
    RunOptions options;
    options.args = {"--explain", dir.write("payload.json", refused)};
    options.env["VIBER_HOOKS_LOG"] = good;
    options.timeout = 15s;
    const RunResult explained = run_process(hook_binary("shell-guard"), options);
    BOOST_TEST(explained.out.find("  VIBER_HOOKS_LOG: " + good +
                                  " (hook mode appends one line per call)\n") != std::string::npos,
               explained.out);
}

BOOST_AUTO_TEST_CASE(a_fifo_log_is_ignored_without_blocking,
                     *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    const std::string fifo = dir / "fifo";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // No reader: an open that blocked would hang the hook until the 15 s guard kills it.
    const RunResult got = run(
        "verdict-nudge", R"({"agent_type":"viber:task-coder","last_assistant_message":"x"})", fifo);
    BOOST_TEST(!got.timed_out);
    BOOST_TEST(got.exit_code == 0);
    BOOST_TEST(got.seconds < 5.0);
    BOOST_TEST(!got.out.empty());
    struct stat info {};
    BOOST_TEST(::stat(fifo.c_str(), &info) == 0);
    BOOST_TEST(S_ISFIFO(info.st_mode)); // left as it was
}

BOOST_AUTO_TEST_CASE(unset_or_empty_logs_nothing_and_creates_no_file) {
    ScratchDir dir;
    const RunResult got = run("shell-guard", refused, std::string(""));
    BOOST_TEST(!got.out.empty());
    BOOST_TEST(!exists(dir / "hooks.log"));
}

// The common path (a call for no viber agent) opens no file with the variable unset or empty;
// with it set, the one open is the log's.
BOOST_AUTO_TEST_CASE(the_common_path_opens_no_file_unless_the_log_is_set,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    ScratchDir dir;
    const std::string payload = bash_payload("general-purpose", "rm -rf x");
    for (const char* binary : {"kill-guard", "shell-guard", "verdict-nudge"}) {
        BOOST_TEST_CONTEXT(binary) {
            ::unsetenv("VIBER_HOOKS_LOG");
            Trace unset = trace_process({hook_binary(binary)}, payload);
            BOOST_TEST(unset.read_stdin);
            BOOST_TEST(hook_opens(unset).empty(), joined(hook_opens(unset)));

            ::setenv("VIBER_HOOKS_LOG", "", 1);
            Trace empty = trace_process({hook_binary(binary)}, payload);
            BOOST_TEST(hook_opens(empty).empty(), joined(hook_opens(empty)));

            const std::string log = dir / (std::string(binary) + ".log");
            ::setenv("VIBER_HOOKS_LOG", log.c_str(), 1);
            Trace set = trace_process({hook_binary(binary)}, payload);
            ::unsetenv("VIBER_HOOKS_LOG");
            const std::vector<std::string> opens = hook_opens(set);
            BOOST_TEST(opens.size() == 1u, joined(opens));
            BOOST_TEST(joined(opens).find(log) != std::string::npos, joined(opens));
            BOOST_TEST(lines_of(log).size() == 1u);
        }
    }
}
