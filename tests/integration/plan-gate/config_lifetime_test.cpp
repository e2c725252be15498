// config_lifetime_test.cpp: no process outlives plan-gate (docs/contract.md, "One deadline"):
// config.sh and everything it started are gone when the gate returns, whether config.sh exits
// before its background jobs, detaches a grandchild with setsid, closes its stdout and keeps
// running, or never ends; and config.sh dies with the gate when the gate is killed. Decisions are
// asserted exactly; time only as a generous hang guard.
#define BOOST_TEST_MODULE plan_gate_config_lifetime
#include "gate_fixture.hpp"
#include "support/pids.hpp"

#ifndef _WIN32

#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <signal.h>
#include <string>
#include <unistd.h>

using namespace plan_gate_test;

namespace {

// A plain plan written in a plain episode, nothing reviewed yet: with the switch on the gate
// denies ("Next step: review the plan."), with it off it lets the plan through.
struct PlainPlan {
    Gate gate;
    TranscriptBuilder t;
    explicit PlainPlan(const std::string& config_body) {
        gate.config(config_body);
        const std::string plan = gate.plan(".claude/plans/plain.md", plain_plan);
        plain_episode(t);
        t.write_file(plan, plain_plan);
    }
    Answer ask(RunOptions options = {}) const { return gate.ask(t, std::move(options)); }
    std::string pid_file(std::string_view name) const { return gate.scratch() / std::string(name); }
};

long read_pid(const std::string& path) {
    std::ifstream in(path);
    long pid = 0;
    in >> pid;
    return pid;
}

bool exists(long pid) {
    return !viber::testing::process_ended(pid);
}

// A shell line that waits until `file` holds a pid, so the script answers only once its
// children have announced themselves.
std::string wait_for(const std::string& file) {
    return "while [ ! -s '" + file + "' ]; do sleep 0.01; done\n";
}

const std::string switch_on = "echo 'planning.plain-plan-review: true'\n";

// The setsid grandchild is found only by a hook that is its subreaper. Under qemu-user the
// emulated hook is none (its orphans go to PID 1, seen on qemu 7.2), so the case is skipped there,
// saying so; a real arm64 kernel behaves as x86-64 does.
boost::test_tools::assertion_result hook_can_be_subreaper(boost::unit_test::test_unit_id id) {
    if (viber::testing::test_emulator().empty()) return true;
    const std::string why =
        "SKIPPED " + boost::unit_test::framework::get(id, boost::unit_test::TUT_ANY).p_name.get() +
        ": under " + viber::testing::test_emulator().front() +
        " the emulated hook cannot adopt a setsid grandchild as its subreaper";
    std::cerr << why << std::endl;
    boost::test_tools::assertion_result skip(false);
    skip.message() << why;
    return skip;
}

} // namespace

BOOST_AUTO_TEST_CASE(background_job_and_setsid_grandchild_are_gone_when_the_gate_returns,
                     *boost::unit_test::precondition(hook_can_be_subreaper)) {
    const ScratchDir names;
    const std::string job = names / "job.pid";
    const std::string detached = names / "detached.pid";
    const std::string shell = names / "shell.pid";
    // The background job keeps config.sh's stdout open; the setsid grandchild leaves its process
    // group and session.
    PlainPlan p("echo $$ > '" + shell + "'\n" + "sleep 60 &\necho $! > '" + job + "'\n" +
                "setsid sh -c 'echo $$ > \"" + detached + "\"; exec sleep 60' &\n" +
                wait_for(detached) + switch_on);
    const Answer answer = p.ask();
    // config.sh exited with the switch on: its answer counts although its jobs still ran.
    require_deny(answer, "Next step: review the plan.");
    const long job_pid = read_pid(job), detached_pid = read_pid(detached),
               shell_pid = read_pid(shell);
    BOOST_REQUIRE(job_pid > 0);
    BOOST_REQUIRE(detached_pid > 0);
    BOOST_REQUIRE(shell_pid > 0);
    BOOST_TEST(!exists(shell_pid));
    BOOST_TEST(!exists(job_pid));
#ifdef __linux__
    BOOST_TEST(!exists(detached_pid));
#else
    // macOS has no subreaper: a setsid grandchild escapes the process-group kill.
    ::kill(static_cast<pid_t>(detached_pid), SIGKILL);
#endif
}

BOOST_AUTO_TEST_CASE(config_that_closes_stdout_and_keeps_running_is_a_timeout) {
    const ScratchDir names;
    const std::string shell = names / "shell.pid";
    PlainPlan p("echo $$ > '" + shell + "'\n" + switch_on + "exec >&-\nsleep 60\n");
    RunOptions options;
    options.timeout = std::chrono::seconds(30); // a hang guard only
    const Answer answer = p.ask(options);
    // It never exited within its time: no answer from it, so the plain path is not gated.
    require_allow(answer);
    const long shell_pid = read_pid(shell);
    BOOST_REQUIRE(shell_pid > 0);
    BOOST_TEST(!exists(shell_pid));
}

BOOST_AUTO_TEST_CASE(config_that_never_ends_is_killed_and_the_gate_fails_open) {
    const ScratchDir names;
    const std::string shell = names / "shell.pid";
    const std::string job = names / "job.pid";
    PlainPlan p("echo $$ > '" + shell + "'\n" + "sleep 60 &\necho $! > '" + job + "'\n" +
                switch_on + "while :; do sleep 1; done\n");
    RunOptions options;
    options.timeout = std::chrono::seconds(30); // a hang guard only
    const Answer answer = p.ask(options);
    require_allow(answer);
    const long shell_pid = read_pid(shell), job_pid = read_pid(job);
    BOOST_REQUIRE(shell_pid > 0);
    BOOST_REQUIRE(job_pid > 0);
    BOOST_TEST(!exists(shell_pid));
    BOOST_TEST(!exists(job_pid));
}

#ifdef __linux__
BOOST_AUTO_TEST_CASE(config_dies_with_a_killed_gate) {
    const ScratchDir names;
    const std::string shell = names / "shell.pid";
    PlainPlan p("echo $$ > '" + shell + "'\n" + switch_on + "sleep 60\n");
    RunOptions options;
    options.timeout = std::chrono::seconds(2); // the test kills the gate (SIGKILL) here
    const Answer answer = p.ask(options);
    BOOST_TEST(answer.run.timed_out);
    const long shell_pid = read_pid(shell);
    BOOST_REQUIRE(shell_pid > 0);
    // The orphan is reaped by init (or the nearest subreaper) a moment after it is killed.
    for (int i = 0; i < 250 && viber::testing::process_running(shell_pid); ++i) ::usleep(20'000);
    BOOST_TEST(!viber::testing::process_running(shell_pid));
}
#endif
#else
#include "support/platform.hpp"

// On Windows the job object ends config.sh's whole tree (os_windows.cpp); these scripts need a
// POSIX shell with setsid, kill and sleep.
BOOST_AUTO_TEST_CASE(process_lifetime_by_pid,
                     *viber::testing::posix_only("config.sh with setsid")) {}
#endif
