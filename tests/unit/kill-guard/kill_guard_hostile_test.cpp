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

// The command model reads at most 10,000 commands: what follows them is unknown, so the command is
// refused as one nesting past the cap is, unless a command before them stops processes by name.
bool refused_for_the_command_cap(const std::string& command) {
    return refusal_reason(command).value_or("").find("runs more than 10,000 commands") !=
           std::string::npos;
}

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
    // Each wrapper is a command: nine thousand are read through, a hundred thousand reach the cap.
    BOOST_TEST(!refusal_reason(repeat("nice ", 9000) + "echo x").has_value());
    BOOST_TEST(refused_for_the_command_cap(repeat("nice ", 100000) + "echo x"));
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
    BOOST_TEST(refuses_pkill(repeat("cat <<E\npkill x\nE\n", 9000) + "pkill node"));
    BOOST_TEST(!refusal_reason(repeat("cat <<'E'\npkill x\nE\n", 9000)).has_value());
    BOOST_TEST(refused_for_the_command_cap(repeat("cat <<'E'\npkill x\nE\n", 40000)));
}

BOOST_AUTO_TEST_CASE(pkill_followed_by_131072_words) {
    BOOST_TEST(refuses_pkill("pkill node " + repeat("x ", 131072)));
    BOOST_TEST(refuses_pkill(repeat("x ", 131072) + "; pkill node"));
}

BOOST_AUTO_TEST_CASE(a_mebibyte_of_short_commands_then_pkill) {
    // Half a million commands: the reading ends at the cap, and the command is refused for it,
    // with the pkill after them or without it.
    BOOST_TEST(refused_for_the_command_cap(repeat("a;", mebibyte / 2 - 8) + "pkill node"));
    BOOST_TEST(refused_for_the_command_cap(repeat("a\n", mebibyte / 2)));
    // A pkill before the cap is found and named.
    BOOST_TEST(refuses_pkill("pkill node\n" + repeat("a\n", mebibyte / 2)));
    // Exactly 10,000 commands are read through; the ten thousand and first reaches the cap.
    BOOST_TEST(refuses_pkill(repeat("a\n", 9999) + "pkill node"));
    BOOST_TEST(!refusal_reason(repeat("a\n", 10000)).has_value());
    BOOST_TEST(refused_for_the_command_cap(repeat("a\n", 10000) + "pkill node"));
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

// The values a command gives its variables and aliases (§7.2), padded: every name is kept, and
// past the lexer's expansion budget the command is refused, not read in part.
namespace {

std::string assignments(std::size_t count) {
    std::string out;
    for (std::size_t i = 0; i < count; ++i) out += "a" + std::to_string(i) + "=1; ";
    return out;
}

bool refused_for_expansions(const std::string& command) {
    return refusal_reason(command).value_or("").find("expands too many variables and aliases") !=
           std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(five_thousand_assignments_then_a_literal_pkill) {
    BOOST_TEST(refuses_pkill(assignments(5000) + "y=pkill; $y node"));
    BOOST_TEST(!refusal_reason(assignments(5000) + "y=ls; $y node").has_value());
}

BOOST_AUTO_TEST_CASE(three_hundred_thousand_uses_of_a_variable_then_a_literal_pkill) {
    BOOST_TEST(refused_for_expansions("x=1; " + repeat("$x ", 300000) + "; y=pkill; $y node"));
    // As separate commands the same uses stay within the budget: read through, decided on what
    // follows.
    const std::string padding = "x=1; " + repeat("$x; ", 4500);
    BOOST_TEST(refuses_pkill(padding + "y=pkill; $y node"));
    BOOST_TEST(!refusal_reason(padding + "y=ls; $y node").has_value());
}

BOOST_AUTO_TEST_CASE(an_alias_used_four_thousand_times_then_pkill) {
    // Each use is two commands (the alias and what it runs): four thousand stay under the cap.
    BOOST_TEST(refused_for_expansions("alias k='echo " + std::string(40, 'h') +
                                      "'; alias p='pkill " + std::string(50, 'n') + "'; " +
                                      repeat("k; ", 4000) + "p"));
    const std::string padding = "alias k=ls; " + repeat("k; ", 4000);
    BOOST_TEST(refuses_pkill(padding + "alias p=pkill; p node"));
    BOOST_TEST(!refusal_reason(padding + "alias p=ls; p node").has_value());
}

BOOST_AUTO_TEST_CASE(a_short_command_that_runs_one_variable_three_times_is_allowed) {
    // Three thirteen-byte values are more than the command's 37 bytes: the budget's allowance
    // reads them all, and no cap is reached.
    BOOST_TEST(!refusal_reason("cmd='npm run build'; $cmd; $cmd; $cmd").has_value());
}

BOOST_AUTO_TEST_CASE(a_value_written_again_as_kill_operands_is_read_once) {
    // Each `$x` is the same fields: read once, whatever its size and however often it is written.
    const std::string value = "x=" + std::string(200000, 'a') + "\nkill ";
    BOOST_TEST(!refusal_reason(value + repeat("$x ", 280000)).has_value());
    // A -1 among them is found wherever it stands, and each spelling is read for itself.
    BOOST_TEST(refusal_reason("p=-1; kill 4242 " + repeat("$p ", 100000)).has_value());
    BOOST_TEST(refusal_reason("p=4242; q=-1; kill " + repeat("$p ", 1000) + "\"$q\"").has_value());
    BOOST_TEST(
        !refusal_reason("p=4242; q=4343; kill " + repeat("$p ", 1000) + "\"$q\"").has_value());
    // A variable that a search filled, written again and again, is found once.
    BOOST_TEST(refusal_reason("p=$(pgrep node); kill " + repeat("$p ", 100000)).has_value());
}

// git's global options are read once to find the subcommand: a mebibyte of them, then the foreach
// that runs pkill.
BOOST_AUTO_TEST_CASE(a_mebibyte_of_git_global_options_then_submodule_foreach) {
    const std::string options = repeat("-c a.b=c -C d --no-pager ", mebibyte / 25);
    BOOST_TEST(refuses_pkill("git " + options + "submodule foreach 'pkill node'"));
    BOOST_TEST(!find_stop_by_name("git " + options + "submodule foreach 'git status'"));
    BOOST_TEST(!find_stop_by_name("git " + options + "--version submodule foreach 'pkill node'"));
}
