// plan_gate_config_switch_test.cpp: reading the plain plan review switch from config.sh's output,
// and running config.sh bounded in time and output, in the project directory.
#define BOOST_TEST_MODULE plan_gate_config_switch
#include "common/os/os.hpp"
#include "plan-gate/config_switch.hpp"
#include "support/pids.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace viber::plan_gate;
using viber::testing::ScratchDir;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text);
    return text;
}

} // namespace

BOOST_AUTO_TEST_CASE(exact_line_is_on) {
    BOOST_TEST(switch_is_on("planning.plain-plan-review: true\n"));
    BOOST_TEST(switch_is_on("planning.plain-plan-review: true"));
    BOOST_TEST(switch_is_on("memory: true\nplanning.plain-plan-review: true\nplanning.other: x\n"));
}

BOOST_AUTO_TEST_CASE(other_values_are_off) {
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: false\n"));
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: True\n"));
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: \n"));
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: yes\n"));
}

BOOST_AUTO_TEST_CASE(cr_or_trailing_space_is_off) {
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: true\r\n"));
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: true \n"));
    BOOST_TEST(!switch_is_on("planning.plain-plan-review: true\t\n"));
}

BOOST_AUTO_TEST_CASE(absent_or_flat_key_is_off) {
    BOOST_TEST(!switch_is_on(""));
    BOOST_TEST(!switch_is_on("memory: true\n"));
    BOOST_TEST(!switch_is_on("plain-plan-review: true\n"));
    BOOST_TEST(!switch_is_on(" planning.plain-plan-review: true\n"));
    BOOST_TEST(!switch_is_on("planning.plain-plan-review:true\n"));
    BOOST_TEST(!switch_is_on("x planning.plain-plan-review: true\n"));
}

BOOST_AUTO_TEST_CASE(two_switch_lines_are_off) {
    BOOST_TEST(
        !switch_is_on("planning.plain-plan-review: true\nplanning.plain-plan-review: true\n"));
    BOOST_TEST(
        !switch_is_on("planning.plain-plan-review: false\nplanning.plain-plan-review: true\n"));
    BOOST_TEST(
        !switch_is_on("planning.plain-plan-review: true\nplanning.plain-plan-review: false\n"));
}

BOOST_AUTO_TEST_CASE(script_runs_in_cwd_with_stdin_from_dev_null_and_stderr_dropped,
                     *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const std::string project = dir.mkdir("it's a \"project\" $(touch pwned) dir");
    const std::string script = dir.write("config.sh", "echo to-stderr >&2\n"
                                                      "pwd\n"
                                                      "cat\n"
                                                      "echo done\n");
    const auto output = run_bash_script(script, project);
    BOOST_REQUIRE(output.has_value());
    BOOST_TEST(*output == project + "\ndone\n");
    BOOST_TEST(::access((dir / "pwned").c_str(), F_OK) != 0);
    BOOST_TEST(::access((project + "/pwned").c_str(), F_OK) != 0);
}

BOOST_AUTO_TEST_CASE(exit_status_is_ignored, *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const std::string script =
        dir.write("config.sh", "echo 'planning.plain-plan-review: true'\nexit 3\n");
    const auto output = run_bash_script(script, dir.path());
    BOOST_REQUIRE(output.has_value());
    BOOST_TEST(switch_is_on(*output));
}

BOOST_AUTO_TEST_CASE(script_that_cannot_run_gives_no_switch, *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const auto output = run_bash_script(dir / "missing.sh", dir.path());
    BOOST_TEST(!(output && switch_is_on(*output)));
    const auto bad_cwd = run_bash_script(
        dir.write("config.sh", "echo 'planning.plain-plan-review: true'\n"), dir / "no-such-dir");
    BOOST_TEST(!(bad_cwd && switch_is_on(*bad_cwd)));
}

BOOST_AUTO_TEST_CASE(script_past_the_time_bound_is_killed_with_its_group,
                     *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const std::string script = dir.write("config.sh", "echo 'planning.plain-plan-review: true'\n"
                                                      "sleep 30 &\n"
                                                      "echo $! > \"" +
                                                          (dir / "bgpid") +
                                                          "\"\n"
                                                          "echo $$ > \"" +
                                                          (dir / "pid") +
                                                          "\"\n"
                                                          "sleep 30\n");
    const auto started = std::chrono::steady_clock::now();
    const auto output = run_bash_script(script, dir.path(), std::chrono::milliseconds(500));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    BOOST_TEST(!output.has_value());
    BOOST_TEST(seconds < 10.0); // a hang guard, not a speed assertion
    const std::string bgpid = read_file(dir / "bgpid");
    const std::string pid = read_file(dir / "pid");
    BOOST_REQUIRE(!bgpid.empty());
    BOOST_REQUIRE(!pid.empty());
    // The background child is reparented when its shell dies; give its reaper a moment.
    for (int i = 0; i < 100 && viber::testing::process_running(std::stol(bgpid)); ++i)
        ::usleep(20'000);
    BOOST_TEST(!viber::testing::process_running(std::stol(bgpid)));
    BOOST_TEST(!viber::testing::process_running(std::stol(pid)));
}

// The script's answer is complete when it exits; a background job still holding stdout neither
// holds the hook nor outlives it.
BOOST_AUTO_TEST_CASE(background_child_holding_stdout_is_ended_when_the_script_exits,
                     *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const std::string script = dir.write("config.sh", "echo 'planning.plain-plan-review: true'\n"
                                                      "sleep 30 &\n"
                                                      "echo $! > \"" +
                                                          (dir / "bgpid") + "\"\n");
    const auto output = run_bash_script(script, dir.path(), std::chrono::milliseconds(5000));
    BOOST_REQUIRE(output.has_value());
    BOOST_TEST(switch_is_on(*output));
    const std::string bgpid = read_file(dir / "bgpid");
    BOOST_REQUIRE(!bgpid.empty());
    BOOST_TEST(viber::testing::process_ended(std::stol(bgpid)));
}

BOOST_AUTO_TEST_CASE(the_time_left_never_passes_five_seconds_or_the_hook_deadline) {
    const auto left = config_time_left();
    BOOST_TEST(left.count() <= config_time_limit.count());
    BOOST_TEST(left.count() <= viber::os::left_of(config_deadline).count());
}

BOOST_AUTO_TEST_CASE(output_past_the_bound_gives_no_switch, *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const std::string script = dir.write("config.sh", "echo 'planning.plain-plan-review: true'\n"
                                                      "head -c 4096 /dev/zero | tr '\\0' x\n");
    BOOST_TEST(
        !run_bash_script(script, dir.path(), std::chrono::milliseconds(5000), 1024).has_value());
    const auto whole = run_bash_script(script, dir.path(), std::chrono::milliseconds(5000), 8192);
    BOOST_REQUIRE(whole.has_value());
    BOOST_TEST(switch_is_on(*whole));
}

BOOST_AUTO_TEST_CASE(endless_output_is_cut_at_the_bound, *viber::testing::needs_bash()) {
    const ScratchDir dir;
    const std::string script = dir.write("config.sh", "yes 'planning.plain-plan-review: true'\n");
    const auto started = std::chrono::steady_clock::now();
    BOOST_TEST(!run_bash_script(script, dir.path()).has_value());
    BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() <
               10.0);
}
