// strace_test.cpp: under strace, shell-guard opens no file and starts no process after stdin.
#define BOOST_TEST_MODULE integration_shell_guard_strace
#include "guard_run.hpp"
#include "support/platform.hpp"
#include "support/strace.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using namespace shell_guard_test;
using viber::testing::hook_binary;
using viber::testing::hook_opens;
using viber::testing::joined;
using viber::testing::Trace;
using viber::testing::trace_process;

namespace {

const std::string everything = "rm x; git stash; echo y > z; python3 -c 1";

} // namespace

BOOST_AUTO_TEST_CASE(the_trace_sees_opens_and_execs_after_stdin,
                     *viber::testing::posix_only("strace")) {
    // The harness check, once for every no-work test that uses trace_process: a program that reads
    // stdin, then opens a file and starts a process.
    const Trace got =
        trace_process({"/bin/sh", "-c", "read line; : < /dev/null; /bin/true"}, "x\n");
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(!got.opens_after_stdin.empty(), joined(got.opens_after_stdin));
    BOOST_TEST(got.execs.size() == 2u, joined(got.execs));
}

BOOST_AUTO_TEST_CASE(a_non_viber_call_opens_no_file_and_starts_no_process,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    const Trace got =
        trace_process({hook_binary("shell-guard")}, bash_payload("general-purpose", everything));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(hook_opens(got).empty(), joined(hook_opens(got)));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(a_scout_call_opens_no_file_and_starts_no_process,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    const Trace got =
        trace_process({hook_binary("shell-guard")}, bash_payload("viber:scout", everything));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(hook_opens(got).empty(), joined(hook_opens(got)));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(a_refused_coder_call_opens_no_file_and_starts_no_process_either,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    const Trace got =
        trace_process({hook_binary("shell-guard")}, bash_payload("viber:task-coder", everything));
    BOOST_TEST(got.read_stdin);
    BOOST_TEST(hook_opens(got).empty(), joined(hook_opens(got)));
    BOOST_TEST(got.execs.size() == 1u, joined(got.execs));
    BOOST_TEST(got.out.rfind("{\"hookSpecificOutput\"", 0) == 0u, got.out);
}
