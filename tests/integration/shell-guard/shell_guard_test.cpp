// shell_guard_test.cpp: the shell-guard binary per rule and per caller (docs/shell-guard.md), and
// tool mode.
#define BOOST_TEST_MODULE integration_shell_guard
#include "guard_run.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using namespace shell_guard_test;
using viber::testing::RunOptions;
using viber::testing::RunResult;

BOOST_GLOBAL_FIXTURE(IgnoreSigpipe);

namespace {

// Positions of "R1 (" … "R5 (" in a reason; npos for the rules it does not name.
std::vector<std::size_t> rule_positions(const std::string& reason) {
    std::vector<std::size_t> at;
    for (int r = 1; r <= 5; ++r) at.push_back(reason.find("R" + std::to_string(r) + " ("));
    return at;
}

// The reason names exactly the rules of `expected` ("R1,R4"), each once, in rule order.
void expect_rules(const std::string& reason, const std::string& expected) {
    BOOST_TEST(reason.rfind("viber guard: ", 0) == 0u, reason);
    const std::vector<std::size_t> at = rule_positions(reason);
    std::size_t last = 0;
    for (int r = 1; r <= 5; ++r) {
        const std::string tag = "R" + std::to_string(r);
        const bool named = at[r - 1] != std::string::npos;
        BOOST_TEST(named == (expected.find(tag) != std::string::npos), tag << " in: " << reason);
        if (!named) continue;
        BOOST_TEST(reason.find(tag + " (", at[r - 1] + 1) == std::string::npos,
                   tag << " twice: " << reason);
        BOOST_TEST(at[r - 1] >= last, tag << " out of order: " << reason);
        last = at[r - 1];
    }
}

const std::string coder = "viber:task-coder";

} // namespace

BOOST_AUTO_TEST_SUITE(task_coder)

BOOST_AUTO_TEST_CASE(r1_chain_is_refused_with_its_correction) {
    const std::string reason = deny_reason(run_guard(bash_payload(coder, "make && make test")));
    expect_rules(reason, "R1");
    BOOST_TEST(reason.find("run one command per Bash call") != std::string::npos, reason);
}

BOOST_AUTO_TEST_CASE(r2_git_stash_is_refused_with_its_correction) {
    const std::string reason =
        deny_reason(run_guard(bash_payload(coder, "git -C . --no-pager stash list")));
    expect_rules(reason, "R2");
    BOOST_TEST(reason.find("keep git read-only (status, diff, log, show)") != std::string::npos,
               reason);
}

BOOST_AUTO_TEST_CASE(r3_rm_is_refused_with_its_correction) {
    const std::string reason =
        deny_reason(run_guard(bash_payload(coder, "find . -name '*.o' | xargs rm -f")));
    expect_rules(reason, "R3");
    BOOST_TEST(reason.find("git rm -r -q --") != std::string::npos, reason);
    BOOST_TEST(reason.find("SCRATCH:") != std::string::npos, reason);
}

BOOST_AUTO_TEST_CASE(r4_write_is_refused_with_its_correction) {
    const std::string reason = deny_reason(run_guard(bash_payload(coder, "make 2>&build.log")));
    expect_rules(reason, "R4");
    BOOST_TEST(reason.find("Write or Edit tool") != std::string::npos, reason);
    BOOST_TEST(reason.find(".temp/") != std::string::npos, reason);
}

BOOST_AUTO_TEST_CASE(r5_inline_code_is_refused_with_its_correction) {
    const std::string reason =
        deny_reason(run_guard(bash_payload(coder, "python3 - <<'EOF'\nprint(1)\nEOF")));
    expect_rules(reason, "R5");
    BOOST_TEST(reason.find("put the code in a file with the Write tool outside .temp/") !=
                   std::string::npos,
               reason);
}

BOOST_AUTO_TEST_CASE(every_broken_rule_is_named_once_in_order) {
    expect_rules(
        deny_reason(run_guard(bash_payload(coder, "rm x; git checkout y; echo > z; node -e 1"))),
        "R1,R2,R3,R4,R5");
    expect_rules(
        deny_reason(run_guard(bash_payload(coder, "python3 -c 1 > out.txt && rm a && rm b"))),
        "R1,R3,R4,R5");
    expect_rules(deny_reason(run_guard(bash_payload(coder, "sudo rm -rf build\ngit clean -fdx"))),
                 "R2,R3");
}

BOOST_AUTO_TEST_CASE(the_traps_of_seed_000_hold) {
    for (const char* allowed :
         {"ls\npwd", "ls # && rm x", "echo x >&2", "echo x >&-", "make 2>&1 | tail",
          "make >/dev/null 2>&1", "echo x > /tmp/x", "echo x > .temp/x", "git rm -r -q -- old.c",
          "git update-index --chmod=+x -- run.sh", "git commit -m \"rm old helper\"",
          "grep 'rm -rf' notes.md"}) {
        expect_nothing(run_guard(bash_payload(coder, allowed)));
    }
    expect_rules(deny_reason(run_guard(bash_payload(coder, "make >&build.log"))), "R4");
    expect_rules(deny_reason(run_guard(bash_payload(coder, "make 2>&err.log"))), "R4");
    expect_rules(deny_reason(run_guard(bash_payload(coder, "\"rm\" x"))), "R3");
}

BOOST_AUTO_TEST_CASE(an_allowed_command_prints_nothing_not_an_allow) {
    const RunResult result =
        run_guard(bash_payload(coder, "python3 -m pytest -q > .temp/viber/T1/out.log 2>&1"));
    expect_nothing(result);
    BOOST_TEST(result.err.empty(), result.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(reviewers)

BOOST_AUTO_TEST_CASE(both_reviewers_get_r2_only) {
    for (const char* reviewer : {"viber:task-reviewer", "viber:final-reviewer"}) {
        const std::string reason =
            deny_reason(run_guard(bash_payload(reviewer, "git diff; git restore src/a.c")));
        expect_rules(reason, "R2");
        for (const char* allowed :
             {"git status && git diff", "rm x", "echo x > out", "sed -i s/a/b/ x.c",
              "python3 -c 'print(1)'", "bash -c 'make'"}) {
            expect_nothing(run_guard(bash_payload(reviewer, allowed)));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(other_callers)

BOOST_AUTO_TEST_CASE(nothing_for_any_other_caller) {
    const std::string everything = "rm x; git stash; echo > z; node -e 1";
    for (const char* agent : {"viber:scout", "viber:implementor", "viber:mapper", "general-purpose",
                              "task-coder", "xyz:task-coder", "viber:task-coder-2", ""}) {
        expect_nothing(run_guard(bash_payload(agent, everything)));
    }
}

BOOST_AUTO_TEST_CASE(no_agent_type_is_no_caller) {
    const std::string payload =
        R"({"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm x # viber:task-coder"}})";
    expect_nothing(run_guard(payload));
}

BOOST_AUTO_TEST_CASE(agent_type_only_inside_a_string_never_counts) {
    const std::string payload =
        bash_payload("general-purpose", R"(echo '{"agent_type":"viber:task-coder"}'; rm x)");
    expect_nothing(run_guard(payload));
    const std::string nested =
        R"({"tool_name":"Bash","tool_input":{"command":"rm x","agent_type":"viber:task-coder"}})";
    expect_nothing(run_guard(nested));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tool_mode)

BOOST_AUTO_TEST_CASE(help_prints_the_contract) {
    RunOptions options;
    options.args = {"--help"};
    options.timeout = 10s;
    const RunResult result =
        viber::testing::run_process(viber::testing::hook_binary("shell-guard"), options);
    BOOST_TEST(result.exit_code == 0);
    BOOST_TEST(result.out.find("shell-guard") != std::string::npos, result.out);
    BOOST_TEST(result.out.find("viber:task-coder") != std::string::npos, result.out);
    BOOST_TEST(result.out.find("viber guard:") != std::string::npos, result.out);
}

BOOST_AUTO_TEST_CASE(version_prints_the_suite_version) {
    RunOptions options;
    options.args = {"--version"};
    options.timeout = 10s;
    const RunResult result =
        viber::testing::run_process(viber::testing::hook_binary("shell-guard"), options);
    BOOST_TEST(result.exit_code == 0);
    BOOST_TEST(result.out.find("shell-guard") != std::string::npos, result.out);
    BOOST_TEST(result.out.find(VIBER_VERSION) != std::string::npos, result.out);
}

BOOST_AUTO_TEST_CASE(a_bad_argument_says_so_in_one_line_and_exits_2) {
    for (const char* bad : {"--bogus", "-x", "stash"}) {
        RunOptions options;
        options.args = {bad};
        options.timeout = 10s;
        const RunResult result =
            viber::testing::run_process(viber::testing::hook_binary("shell-guard"), options);
        BOOST_TEST(result.exit_code == 2, bad);
        BOOST_TEST(result.out.empty(), bad);
        BOOST_TEST(result.err.starts_with("shell-guard: "), result.err);
        BOOST_TEST(result.err.find("usage:") == std::string::npos, result.err);
    }
}

BOOST_AUTO_TEST_SUITE_END()
