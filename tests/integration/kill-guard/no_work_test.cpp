// no_work_test.cpp: a kill-guard call not from a viber agent opens no file, starts no process.
// Traced with strace: one execve (the binary itself) and no open/openat once it reads stdin.
#define BOOST_TEST_MODULE integration_kill_guard_no_work
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/strace.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using namespace viber::testing;

namespace {

Trace trace_guard(const std::string& payload) {
    return trace_process({hook_binary("kill-guard")}, payload);
}

} // namespace

BOOST_AUTO_TEST_CASE(not_viber_call_opens_no_file_and_starts_no_process,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    for (
        const char* payload :
        {R"({"session_id":"s","tool_name":"Bash","agent_type":"general-purpose","tool_input":{"command":"pkill node"}})",
         R"({"session_id":"s","tool_name":"Bash","tool_input":{"command":"pkill node; echo viber:task-coder"}})",
         R"({"session_id":"s","tool_name":"Bash","tool_input":{"command":"pkill node"}})"}) {
        const Trace trace = trace_guard(payload);
        BOOST_TEST_CONTEXT(payload) {
            BOOST_TEST(trace.out.empty(), trace.out);
            BOOST_TEST(trace.execs.size() == 1u, joined(trace.execs));
            BOOST_TEST(trace.read_stdin);
            BOOST_TEST(trace.opens_after_stdin.empty(), joined(trace.opens_after_stdin));
            for (const std::string& line : trace.opens_before_stdin)
                BOOST_TEST(is_startup_open(line), line);
        }
    }
}

BOOST_AUTO_TEST_CASE(viber_call_opens_no_file_either,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    // kill-guard reads nothing but stdin even when it decides.
    const Trace trace = trace_guard(
        R"({"agent_type":"viber:task-coder","tool_name":"Bash","tool_input":{"command":"ls"}})");
    BOOST_TEST(trace.out.empty(), trace.out);
    BOOST_TEST(trace.execs.size() == 1u, joined(trace.execs));
    BOOST_TEST(hook_opens(trace).empty(), joined(hook_opens(trace)));
}

BOOST_AUTO_TEST_CASE(a_mebibyte_payload_opens_only_the_huge_page_setting,
                     *boost::unit_test::precondition(viber::testing::strace_sees_hooks)) {
    // docs/contract.md: a buffer of a mebibyte or more may read the system's transparent huge
    // page setting once; a call not for a viber agent opens nothing else and starts nothing.
    const std::string payload =
        R"({"session_id":"s","tool_name":"Bash","tool_input":{"command":")" +
        std::string(2u << 20, 'a') + R"("}})";
    const Trace trace = trace_guard(payload);
    BOOST_TEST(trace.out.empty(), trace.out);
    BOOST_TEST(trace.execs.size() == 1u, joined(trace.execs));
    BOOST_TEST(trace.read_stdin);
    BOOST_TEST(trace.opens_after_stdin.size() <= 1u, joined(trace.opens_after_stdin));
    for (const std::string& line : hook_opens(trace))
        BOOST_TEST(line.find("\"/sys/kernel/mm/transparent_hugepage/enabled\"") !=
                       std::string::npos,
                   line);
}
