// kill_guard_hostile_test.cpp: kill-guard's decision on hostile commands of up to a mebibyte.
// Each asserts the decision only; their cost is measured in bench/, never timed here.
#define BOOST_TEST_MODULE kill_guard_hostile
#include "kill-guard/kill_guard.hpp"
#include "support/text.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using viber::kill_guard::find_stop_by_name;
using viber::kill_guard::refusal_reason;

namespace {

using viber::testing::repeat;

bool refuses_pkill(const std::string& command) {
    const auto found = find_stop_by_name(command);
    return found.has_value() && found->command == "pkill";
}

constexpr std::size_t mebibyte = std::size_t{1} << 20;

} // namespace

BOOST_AUTO_TEST_CASE(sixteen_nested_sh_c_substitutions_of_a_mebibyte) {
    std::string command = "pkill node; ";
    command += repeat("sh -c $(", 16);
    command += repeat("echo x ", (mebibyte - command.size() - 16) / 7);
    command += repeat(")", 16);
    BOOST_TEST(refuses_pkill(command));
    // The same with the pkill at the bottom: found once, as commands.
    std::string bottom = repeat("sh -c \"$(", 16) + "pkill node" + repeat(")\"", 16);
    BOOST_TEST(refuses_pkill(bottom));
}

BOOST_AUTO_TEST_CASE(ten_thousand_deep_substitution_is_refused_by_the_cap) {
    BOOST_TEST(refusal_reason(repeat("$(", 10000)).value_or("").find("nests deeper") !=
               std::string::npos);
    BOOST_TEST(refuses_pkill(repeat("echo $(", 10000) + repeat(")", 10000) + "\npkill node"));
}

BOOST_AUTO_TEST_CASE(a_thousand_wrappers) {
    BOOST_TEST(
        refuses_pkill(repeat("sudo -u root nice -n 5 timeout 5 env X=1 ", 1000) + "pkill node"));
    BOOST_TEST(!refusal_reason(repeat("nice ", 100000) + "echo x").has_value());
}

BOOST_AUTO_TEST_CASE(twelve_eval_levels_of_24_env) {
    std::string command = "pkill node";
    for (int level = 0; level < 12; ++level) {
        std::string quoted;
        for (char c : command) {
            if (c == '\\' || c == '"' || c == '$' || c == '`') quoted += '\\';
            quoted += c;
        }
        command = "eval " + repeat("env ", 24) + "\"" + quoted + "\"";
    }
    BOOST_TEST(refuses_pkill(command));
    BOOST_TEST(refuses_pkill("pkill node; " + command));
}

BOOST_AUTO_TEST_CASE(targetless_redirections) {
    BOOST_TEST(refuses_pkill("x " + repeat("> ", mebibyte / 2 - 8) + "\npkill node"));
}

BOOST_AUTO_TEST_CASE(a_long_find_exec_list) {
    std::string command = "find . -exec tee " + repeat("{} ", 60000) + "\\; -exec pkill node \\;";
    BOOST_TEST(refuses_pkill(command));
}

BOOST_AUTO_TEST_CASE(many_heredocs) {
    BOOST_TEST(refuses_pkill(repeat("cat <<E\npkill x\nE\n", 40000) + "pkill node"));
    BOOST_TEST(!refusal_reason(repeat("cat <<'E'\npkill x\nE\n", 40000)).has_value());
}

BOOST_AUTO_TEST_CASE(pkill_followed_by_131072_words) {
    BOOST_TEST(refuses_pkill("pkill node " + repeat("x ", 131072)));
    BOOST_TEST(refuses_pkill(repeat("x ", 131072) + "; pkill node"));
}

BOOST_AUTO_TEST_CASE(a_mebibyte_of_short_commands_then_pkill) {
    BOOST_TEST(refuses_pkill(repeat("a;", mebibyte / 2 - 8) + "pkill node"));
}

BOOST_AUTO_TEST_CASE(thirty_two_nested_word_lists_then_a_comment) {
    // Every level's word list is open at once, each reserving room for the third of a mebibyte
    // left after it; the pkill at the bottom is found.
    std::string lists;
    for (int level = 0; level < 32; ++level) lists += "echo " + repeat("w ", 40) + "$(";
    lists += "pkill node " + repeat("w ", 40) + repeat(")", 32) + "\n#";
    const std::string head = "echo " + repeat("x ", (mebibyte * 2 / 3 - lists.size()) / 2);
    BOOST_TEST(refuses_pkill(head + "; " + lists + std::string(mebibyte / 3, 'c')));
    // Without the pkill the same shape is allowed.
    std::string quiet = lists;
    quiet.replace(quiet.find("pkill node"), 10, "echo node.");
    BOOST_TEST(!find_stop_by_name(head + "; " + quiet + std::string(mebibyte / 3, 'c')));
}
