// hook_main_test.cpp: hook mode fails open: an exception or bad_alloc in a hook never escapes,
// the hook's fail-open answer goes out instead, and the exit status stays 0.
#define BOOST_TEST_MODULE hook_main
#include "common/hook/hook_main.hpp"
#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "support/scratch.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#ifndef _WIN32
#include <cstdlib>
#include <sys/wait.h>
#endif

namespace {

struct Outcome {
    int status = -1;
    std::string out;
};

// What a binary's main calls: hook_main, or run_hook.
using Entry = int (*)(int, char**, const viber::HookInfo&);

// Calls `entry` as main would, with stdin from /dev/null and stdout appended to `out_path`, in hook
// mode (no arguments) or tool mode with `flag`; stdin and stdout are put back after it returns.
int call_with_stdio(Entry entry, const viber::HookInfo& info, const std::string& out_path,
                    const char* flag) {
    std::fflush(stdout);
    const int saved_in = ::dup(0), saved_out = ::dup(1);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(in, 0);
    ::dup2(out, 1);
    char name[] = "hook";
    std::string flag_text = flag != nullptr ? flag : "";
    char* argv[] = {name, flag_text.data(), nullptr};
    const int status = entry(flag != nullptr ? 2 : 1, argv, info);
    std::fflush(stdout);
    ::dup2(saved_in, 0);
    ::dup2(saved_out, 1);
    for (int fd : {in, out, saved_in, saved_out}) ::close(fd);
    return status;
}

std::string read_text(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// Runs hook_main with stdin from /dev/null and stdout in a file: hook mode (no arguments), or
// tool mode with `flag`.
Outcome run_hook_mode(const viber::HookInfo& info, const char* flag = nullptr) {
    viber::testing::ScratchDir dir;
    const std::string out_path = dir / "out";
    Outcome outcome;
    outcome.status = call_with_stdio(viber::hook_main, info, out_path, flag);
    outcome.out = read_text(out_path);
    return outcome;
}

viber::Decision throws_bad_alloc(const viber::HookInput&, viber::Trace&) {
    throw std::bad_alloc();
}
viber::Decision throws_runtime_error(const viber::HookInput&, viber::Trace&) {
    throw std::runtime_error("broken");
}
// No hook prints an allow: a block stands for any answer a hook prints.
viber::Decision answers(const viber::HookInput&, viber::Trace&) {
    return viber::Decision::block("answer");
}
viber::Decision fail_open_answers() {
    return viber::Decision::block("answer");
}
viber::Decision fail_open_throws() {
    throw std::runtime_error("broken too");
}

const std::string answer_line = R"({"decision":"block","reason":"answer"})"
                                "\n";

} // namespace

BOOST_AUTO_TEST_CASE(bad_alloc_prints_the_fail_open_answer_and_exits_0) {
    const Outcome got = run_hook_mode(
        {"t", "contract", throws_bad_alloc, viber::Prefilter::none, fail_open_answers});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out == answer_line);
}

BOOST_AUTO_TEST_CASE(any_exception_prints_the_fail_open_answer_and_exits_0) {
    const Outcome got = run_hook_mode(
        {"t", "contract", throws_runtime_error, viber::Prefilter::none, fail_open_answers});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out == answer_line);
}

BOOST_AUTO_TEST_CASE(a_throwing_fail_open_prints_nothing_and_exits_0) {
    const Outcome got = run_hook_mode(
        {"t", "contract", throws_bad_alloc, viber::Prefilter::none, fail_open_throws});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(no_fail_open_prints_nothing_and_exits_0) {
    const Outcome got =
        run_hook_mode({"t", "contract", throws_bad_alloc, viber::Prefilter::none, nullptr});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(the_answer_of_run_is_printed_as_one_line) {
    const Outcome got = run_hook_mode({"t", "contract", answers, viber::Prefilter::none, nullptr});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out == answer_line);
}

BOOST_AUTO_TEST_CASE(explain_shows_a_throwing_decision_and_the_fail_open_answer) {
    const Outcome got = run_hook_mode(
        {"t", "contract", throws_runtime_error, viber::Prefilter::none, fail_open_answers},
        "--explain");
    BOOST_TEST(got.status == 0);
    BOOST_TEST(
        got.out.find("the decision failed (broken): hook mode prints its fail-open answer") !=
            std::string::npos,
        got.out);
    BOOST_TEST(got.out.ends_with("\nHook mode prints:\n" + answer_line), got.out);
}

BOOST_AUTO_TEST_CASE(explain_of_a_silent_hook_ends_with_nothing) {
    const Outcome got = run_hook_mode(
        {"t", "contract", throws_bad_alloc, viber::Prefilter::none, nullptr}, "--explain");
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out.ends_with("\nDecision: none\n\nHook mode prints:\n(nothing)\n"), got.out);
}

BOOST_AUTO_TEST_SUITE(decide_stdin)

struct Seen {
    bool called = false;
    bool had_payload = false;
    std::string bytes;
};
thread_local Seen seen;

viber::Decision records(const viber::HookInput& in, viber::Trace& trace) {
    seen = Seen{true, in.payload != nullptr, std::string(in.bytes)};
    trace.step("decided");
    return viber::Decision::nothing();
}

const viber::HookInfo prefiltered{
    .name = "t", .decide = records, .prefilter = viber::Prefilter::viber_agent};
const viber::HookInfo unfiltered{.name = "t", .decide = records};

BOOST_AUTO_TEST_CASE(bytes_without_viber_are_dismissed_before_the_decision) {
    viber::Trace off;
    seen = {};
    (void)viber::decide_stdin(prefiltered, std::string(R"({"agent_type":"general"})"), off);
    BOOST_TEST(!seen.called);
    (void)viber::decide_stdin(prefiltered, std::string(R"({"agent_type":"viber:x"})"), off);
    BOOST_TEST(seen.called);
    BOOST_TEST(seen.had_payload);
}

BOOST_AUTO_TEST_CASE(a_payload_that_is_not_an_object_reaches_the_decision_as_none) {
    viber::Trace off;
    for (const char* bytes : {"", "not json", "[1]", "{\"a\":1} trailing", "\"viber:\""}) {
        seen = {};
        (void)viber::decide_stdin(unfiltered, std::string(bytes), off);
        BOOST_TEST(seen.called, bytes);
        BOOST_TEST(!seen.had_payload, bytes);
        BOOST_TEST(seen.bytes == bytes);
    }
    seen = {};
    (void)viber::decide_stdin(unfiltered, std::nullopt, off); // the bounded read failed
    BOOST_TEST(seen.called);
    BOOST_TEST(!seen.had_payload);
}

BOOST_AUTO_TEST_CASE(a_trace_that_is_off_records_nothing) {
    viber::Trace off;
    (void)viber::decide_stdin(unfiltered, std::string(R"({"a":1})"), off);
    BOOST_TEST(!off.on());
    BOOST_TEST(off.reads().empty());
    BOOST_TEST(off.steps().empty());
}

BOOST_AUTO_TEST_CASE(an_explaining_trace_records_the_payload_and_the_steps) {
    viber::Trace trace = viber::Trace::explaining();
    (void)viber::decide_stdin(unfiltered, std::string(R"({"a":1,"b":"x"})"), trace);
    BOOST_TEST(trace.reads().size() == 4u);
    BOOST_TEST(trace.reads().at(0) == "stdin: 15 bytes");
    BOOST_TEST(trace.reads().at(1) == "payload: a JSON object with 2 keys");
    BOOST_TEST(trace.reads().at(2) == "  key a: number 1");
    BOOST_TEST(trace.reads().at(3) == "  key b: string \"x\"");
    BOOST_TEST(trace.steps().size() == 1u);
    BOOST_TEST(trace.steps().at(0) == "decided");
}

BOOST_AUTO_TEST_CASE(a_long_escaped_value_reaches_the_decision_and_the_trace_decoded) {
    std::string spelled;
    std::string decoded;
    while (spelled.size() < 300000) {
        spelled += R"(line \"q\"\n)";
        decoded += "line \"q\"\n";
    }
    static std::string seen_message;
    const auto read_message = [](const viber::HookInput& in, viber::Trace&) {
        seen_message = in.payload != nullptr
                           ? std::string(viber::string_field(*in.payload, "m").value_or("(none)"))
                           : "(no payload)";
        return viber::Decision::nothing();
    };
    const viber::HookInfo info{.name = "t", .decide = read_message};
    viber::Trace trace = viber::Trace::explaining();
    (void)viber::decide_stdin(info, R"({"m":")" + spelled + R"("})", trace);
    BOOST_TEST((seen_message == decoded));
    BOOST_REQUIRE(trace.reads().size() == 3u);
    // --explain shows the decoded text, never the placeholder.
    BOOST_TEST(trace.reads().at(2) ==
               "  key m: string " +
                   boost::json::serialize(boost::json::string(decoded.substr(0, 60))) + "... (" +
                   std::to_string(decoded.size()) + " characters)");
}

BOOST_AUTO_TEST_SUITE_END()

#ifndef _WIN32
namespace {

// The file an exit handler of the forked copy writes to, when one runs.
std::string exit_handler_file;
void mark_exit_handler() {
    std::ofstream(exit_handler_file, std::ios::app) << "exit handlers ran\n";
}

// Runs run_hook in a forked copy of this process (call_with_stdio), with an exit handler
// registered that appends to `out_path` too; returns the copy's exit status (-1 when it did not
// exit). Should run_hook return in hook mode where it leaves at once, the copy exits 3.
int run_hook_in_a_copy(const viber::HookInfo& info, const std::string& out_path, const char* flag) {
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
        exit_handler_file = out_path;
        std::atexit(mark_exit_handler);
        const int status = call_with_stdio(viber::run_hook, info, out_path, flag);
        std::exit(flag == nullptr && viber::hook_mode_leaves_at_once ? 3 : status);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

} // namespace

BOOST_AUTO_TEST_CASE(run_hook_leaves_hook_mode_at_once_with_its_answer_written) {
    viber::testing::ScratchDir dir;
    const std::string out_path = dir / "out";
    const int status = run_hook_in_a_copy(
        {"t", "contract", answers, viber::Prefilter::none, nullptr}, out_path, nullptr);
    BOOST_TEST(status == 0);
    if (viber::hook_mode_leaves_at_once) {
        // std::_Exit: the answer is out, and no exit handler ran.
        BOOST_TEST(read_text(out_path) == answer_line);
    } else {
        // The sanitizer builds leave through exit(): the handlers run after the answer.
        BOOST_TEST(read_text(out_path) == answer_line + "exit handlers ran\n");
    }
}

BOOST_AUTO_TEST_CASE(run_hook_leaves_hook_mode_at_once_after_a_fail_open_answer) {
    viber::testing::ScratchDir dir;
    const std::string out_path = dir / "out";
    const int status = run_hook_in_a_copy(
        {"t", "contract", throws_bad_alloc, viber::Prefilter::none, fail_open_answers}, out_path,
        nullptr);
    BOOST_TEST(status == 0);
    BOOST_TEST(read_text(out_path).starts_with(answer_line));
    BOOST_TEST((read_text(out_path).size() == answer_line.size()) ==
               viber::hook_mode_leaves_at_once);
}

BOOST_AUTO_TEST_CASE(run_hook_returns_from_tool_mode) {
    viber::testing::ScratchDir dir;
    const std::string out_path = dir / "out";
    const int status = run_hook_in_a_copy(
        {"t", "contract", answers, viber::Prefilter::none, nullptr}, out_path, "--version");
    BOOST_TEST(status == 0);
    // It returned: the version is out, then exit() ran the handlers.
    BOOST_TEST(read_text(out_path) ==
               "t (viber-hooks) " + std::string(viber::suite_version()) + "\nexit handlers ran\n");
}
#endif
