// no_work_test.cpp: a kill-guard call not from a viber agent opens no file, starts no process.
// Traced with strace: one execve (the binary itself) and no open/openat once it reads stdin.
#define BOOST_TEST_MODULE integration_kill_guard_no_work
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace viber::testing;

namespace {

std::string find_strace() {
    for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
        const std::string path = std::string(dir) + "/strace";
        if (::access(path.c_str(), X_OK) == 0) return path;
    }
    return {};
}

struct Trace {
    std::size_t execves = 0;
    std::vector<std::string> opens_after_stdin; // open/openat once the hook began reading stdin
    std::vector<std::string> loader_opens;      // before: the dynamic loader and sanitizer runtime
    bool read_stdin = false;
};

bool is_open(const std::string& line) {
    return line.find(" open(") != std::string::npos || line.find(" openat(") != std::string::npos;
}

// Library loads and sanitizer start-up happen before main; the hook reads stdin first thing in
// main.
bool is_startup_open(const std::string& line) {
    return line.find(".so") != std::string::npos || line.find("/proc/") != std::string::npos ||
           line.find("/sys/") != std::string::npos;
}

Trace trace_run(const std::string& payload) {
    const std::string strace = find_strace();
    const ScratchDir scratch;
    const std::string log = scratch / "trace.log";
    RunOptions options;
    options.args = {
        "-f", "-qq", "-e", "trace=open,openat,execve,read", "-o", log, hook_binary("kill-guard")};
    options.stdin_bytes = payload;
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.env["ASAN_OPTIONS"] = "detect_leaks=0"; // leak checking at exit reads /proc
    options.timeout = std::chrono::seconds(20);
    const RunResult r = run_process(strace, options);
    BOOST_TEST_REQUIRE(r.exit_code == 0);
    BOOST_TEST(r.out.empty());

    Trace trace;
    std::ifstream in(log);
    BOOST_TEST_REQUIRE(in.good());
    std::string line;
    while (std::getline(in, line)) {
        if (line.find(" execve(") != std::string::npos) ++trace.execves;
        if (line.find(" read(0,") != std::string::npos) trace.read_stdin = true;
        if (!is_open(line)) continue;
        if (trace.read_stdin)
            trace.opens_after_stdin.push_back(line);
        else
            trace.loader_opens.push_back(line);
    }
    return trace;
}

} // namespace

BOOST_AUTO_TEST_CASE(not_viber_call_opens_no_file_and_starts_no_process) {
    if (find_strace().empty()) {
        BOOST_TEST_MESSAGE("strace is not installed: the no-file/no-process check is skipped");
        return;
    }
    for (
        const char* payload :
        {R"({"session_id":"s","tool_name":"Bash","agent_type":"general-purpose","tool_input":{"command":"pkill node"}})",
         R"({"session_id":"s","tool_name":"Bash","tool_input":{"command":"pkill node; echo viber:task-coder"}})",
         R"({"session_id":"s","tool_name":"Bash","tool_input":{"command":"pkill node"}})"}) {
        const Trace trace = trace_run(payload);
        BOOST_TEST_CONTEXT(payload) {
            BOOST_TEST(trace.execves == 1u);
            BOOST_TEST(trace.read_stdin);
            BOOST_TEST(trace.opens_after_stdin.empty());
            for (const std::string& line : trace.opens_after_stdin)
                BOOST_TEST_MESSAGE("opened: " << line);
            for (const std::string& line : trace.loader_opens)
                BOOST_TEST(is_startup_open(line), line);
        }
    }
}

BOOST_AUTO_TEST_CASE(viber_call_opens_no_file_either) {
    // kill-guard reads nothing but stdin even when it decides.
    if (find_strace().empty()) {
        BOOST_TEST_MESSAGE("strace is not installed: the no-file/no-process check is skipped");
        return;
    }
    const Trace trace = trace_run(
        R"({"agent_type":"viber:task-coder","tool_name":"Bash","tool_input":{"command":"ls"}})");
    BOOST_TEST(trace.execves == 1u);
    BOOST_TEST(trace.opens_after_stdin.empty());
}
