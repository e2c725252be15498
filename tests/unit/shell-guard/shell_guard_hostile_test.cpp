// shell_guard_hostile_test.cpp: shell-guard's decision on hostile commands of up to a mebibyte.
// Each asserts the decision only; their cost is measured in bench/, never timed here.
#define BOOST_TEST_MODULE shell_guard_hostile
#include "shell-guard/shell_guard.hpp"
#include "support/text.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using namespace viber::shell_guard;

namespace {

using viber::testing::repeat;

// The rules the task-coder's command breaks, or "command cap" when it broke none before the
// command model's cap (the guard refuses it for that: decide()).
std::string broken(const std::string& command) {
    const Judgement judgement = judge(command, rules_binding("viber:task-coder"));
    if (judgement.broken.empty() && judgement.unread) return "command cap";
    return judgement.broken.to_string();
}

constexpr std::size_t mebibyte = std::size_t{1} << 20;

} // namespace

BOOST_AUTO_TEST_CASE(sixteen_nested_sh_c_substitutions_of_a_mebibyte) {
    std::string command = "rm x\n";
    command += repeat("sh -c $(", 16);
    command += repeat("echo x ", (mebibyte - command.size() - 16) / 7);
    command += repeat(")", 16);
    BOOST_TEST(broken(command) == "R3,R5");
}

BOOST_AUTO_TEST_CASE(ten_thousand_deep_substitution_still_judges_what_was_found) {
    BOOST_TEST(broken("rm x\necho " + repeat("$(", 10000)) == "R3");
}

BOOST_AUTO_TEST_CASE(a_thousand_wrappers) {
    BOOST_TEST(broken(repeat("sudo -u root nice -n 5 timeout 5 env X=1 ", 1000) + "rm x") == "R3");
}

BOOST_AUTO_TEST_CASE(targetless_redirections) {
    BOOST_TEST(broken("x " + repeat("> ", mebibyte / 2 - 8) + "\nrm y") == "R3");
}

BOOST_AUTO_TEST_CASE(a_181_kilobyte_find_exec_tee_list) {
    const std::string command = "find src -exec tee " + repeat("{} ", 60000) + "\\;";
    BOOST_TEST(command.size() > 180000u);
    BOOST_TEST(broken(command) == "R4");
    BOOST_TEST(broken("find .temp -exec tee " + repeat("{} ", 60000) + "\\;") == "allow");
}

BOOST_AUTO_TEST_CASE(many_heredocs) {
    BOOST_TEST(broken(repeat("cat <<'E'\nrm x; y\nE\n", 9000)) == "allow");
    BOOST_TEST(broken(repeat("cat <<'E'\nrm x; y\nE\n", 40000)) == "command cap");
    BOOST_TEST(broken(repeat("bash <<'E'\nrm x\nE\n", 20000)) == "R3,R5");
}

BOOST_AUTO_TEST_CASE(rm_followed_by_131072_words) {
    BOOST_TEST(broken("rm " + repeat("x ", 131072)) == "R3");
}

BOOST_AUTO_TEST_CASE(padding_past_the_command_cap_hides_nothing) {
    // The command model reads 10,000 commands: a command that broke no rule before them is refused
    // for the rest it did not read; one that broke a rule is refused for that rule.
    const auto answer = [](const std::string& command) {
        const viber::Decision d = decide("viber:task-coder", command);
        return d.kind == viber::DecisionKind::deny ? d.reason : std::string("allow");
    };
    const std::string cap = std::string(command_cap_reason);
    BOOST_TEST(answer(repeat(":\n", 10000) + "rm -rf dist") == cap);
    BOOST_TEST(answer(repeat(":\n", 10000)) == "allow");
    BOOST_TEST(answer(repeat(":\n", 9999) + "rm -rf dist").find("breaks R3") != std::string::npos);
    BOOST_TEST(answer("rm -rf dist\n" + repeat(":\n", 20000)).find("breaks R3") !=
               std::string::npos);
    // The agents no rule binds are not judged at all.
    BOOST_TEST(!decide("viber:scout", repeat(":\n", 20000)).answer.has_value());
}
