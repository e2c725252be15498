// shell_lexer_words_test.cpp: words, quoting, escapes, assignments and path prefixes.
#define BOOST_TEST_MODULE shell_lexer_words
#include "common/shell/shell_lexer.hpp"
#include "support/shell_analysis.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using viber::shell::Analysis;
using viber::shell::analyze;
using viber::shell::Invocation;

namespace {

std::vector<std::string> names(const Analysis& a) {
    std::vector<std::string> out;
    for (const Invocation& inv : a.invocations) out.push_back(inv.name);
    return out;
}

std::vector<std::string> arg_texts(const Invocation& inv) {
    std::vector<std::string> out;
    for (const auto& w : inv.args) out.push_back(w.text);
    return out;
}

using Names = std::vector<std::string>;

} // namespace

BOOST_AUTO_TEST_CASE(plain_words_split_on_blanks) {
    const Analysis a = analyze("echo  a\tb   c");
    BOOST_TEST(names(a) == Names{"echo"});
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"a", "b", "c"}));
    BOOST_TEST(a.reached_depth_cap == false);
    BOOST_TEST(a.chain_operators == 0u);
}

BOOST_AUTO_TEST_CASE(single_quotes_keep_everything_literal) {
    const Analysis a = analyze("echo 'a b; pkill x' '$(pkill y)'");
    BOOST_TEST(names(a) == Names{"echo"});
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"a b; pkill x", "$(pkill y)"}));
    BOOST_TEST(a.invocations[0].args[0].quoted);
    BOOST_TEST(!a.invocations[0].args[1].has_substitution);
    BOOST_TEST(a.chain_operators == 0u);
}

BOOST_AUTO_TEST_CASE(double_quotes_remove_escapes_of_dollar_backtick_quote_backslash) {
    const Analysis a = analyze(R"(echo "a \$x \" \\ \` \n")");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{R"(a $x " \ ` \n)"}));
    BOOST_TEST(a.invocations[0].args[0].quoted);
}

BOOST_AUTO_TEST_CASE(ansi_c_quotes_decode_escapes) {
    const Analysis a = analyze(R"(echo $'a\tb\n\x41\101\'')");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"a\tb\nAA'"}));
    BOOST_TEST(a.invocations[0].args[0].quoted);
}

BOOST_AUTO_TEST_CASE(ansi_c_quoted_command_word_is_that_command) {
    const Analysis a = analyze(R"($'pk\x69ll' x)");
    BOOST_TEST(names(a) == Names{"pkill"});
}

BOOST_AUTO_TEST_CASE(backslash_escapes_outside_quotes) {
    const Analysis a = analyze(R"(echo a\ b \; \|)");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"a b", ";", "|"}));
    BOOST_TEST(a.chain_operators == 0u);
}

BOOST_AUTO_TEST_CASE(line_continuation_joins_words_and_lines) {
    const Analysis a = analyze("pk\\\nill \\\n  x");
    BOOST_TEST(names(a) == Names{"pkill"});
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"x"}));
}

BOOST_AUTO_TEST_CASE(mixed_quoting_forms_one_word) {
    const Analysis a = analyze(R"(echo a'b c'"d e"f)");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"ab cd ef"}));
}

BOOST_AUTO_TEST_CASE(quoted_command_word_is_still_the_command) {
    BOOST_TEST(names(analyze(R"("pkill" x)")) == Names{"pkill"});
    BOOST_TEST(names(analyze("'pkill' x")) == Names{"pkill"});
    BOOST_TEST(names(analyze(R"(\pkill x)")) == Names{"pkill"});
    BOOST_TEST(names(analyze(R"(p"ki"ll x)")) == Names{"pkill"});
    const Analysis a = analyze(R"("pkill" x)");
    BOOST_TEST(a.invocations[0].command_word.quoted);
    BOOST_TEST(a.invocations[0].command_word.text == "pkill");
}

BOOST_AUTO_TEST_CASE(quoted_name_as_argument_is_not_a_command) {
    const Analysis a = analyze(R"(grep -n "killall" notes.md)");
    BOOST_TEST(names(a) == Names{"grep"});
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"-n", "killall", "notes.md"}));
}

BOOST_AUTO_TEST_CASE(path_prefix_is_stripped_from_the_name) {
    const Analysis a = analyze("/usr/bin/pkill x");
    BOOST_TEST(names(a) == Names{"pkill"});
    BOOST_TEST(a.invocations[0].command_word.text == "/usr/bin/pkill");
    BOOST_TEST(names(analyze("./pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze("../bin/pkill x")) == Names{"pkill"});
}

BOOST_AUTO_TEST_CASE(strip_path_prefix_cases) {
    using viber::shell::strip_path_prefix;
    BOOST_TEST(strip_path_prefix("/usr/bin/pkill") == "pkill");
    BOOST_TEST(strip_path_prefix("./x") == "x");
    BOOST_TEST(strip_path_prefix("x") == "x");
    BOOST_TEST(strip_path_prefix("C:\\Windows\\System32\\taskkill.exe") == "taskkill.exe");
    BOOST_TEST(strip_path_prefix("dir/") == "");
}

BOOST_AUTO_TEST_CASE(assignments_before_the_command_word_are_skipped) {
    BOOST_TEST(names(analyze("X=1 pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze(R"(X="a b" Y='c' pkill x)")) == Names{"pkill"});
    BOOST_TEST(names(analyze("a[1]=x pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze("X+=1 pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze("X=$(date) pkill x")) == (Names{"date", "pkill"}));
}

BOOST_AUTO_TEST_CASE(assignment_alone_runs_nothing) {
    BOOST_TEST(analyze("X=1").invocations.empty());
    BOOST_TEST(analyze("arr=(a b c)").invocations.empty());
}

BOOST_AUTO_TEST_CASE(assignment_after_the_command_word_is_an_argument) {
    const Analysis a = analyze("make X=1");
    BOOST_TEST(names(a) == Names{"make"});
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"X=1"}));
}

BOOST_AUTO_TEST_CASE(quoted_assignment_is_a_command_word) {
    // "X=1" quoted is not an assignment: bash runs a command named X=1.
    BOOST_TEST(names(analyze(R"("X=1" pkill)")) == Names{"x=1"}); // names are case folded
}

BOOST_AUTO_TEST_CASE(substitution_unquoted_and_in_double_quotes_is_marked) {
    const Analysis a = analyze(R"X(kill $(pgrep x) "$(pgrep y)" `pgrep z` "`pgrep w`" '$(no)')X");
    BOOST_TEST(names(a) == (Names{"pgrep", "pgrep", "pgrep", "pgrep", "kill"}));
    const Invocation& kill = a.invocations.back();
    BOOST_TEST(kill.args.size() == 5u);
    BOOST_TEST(kill.args[0].has_substitution);
    BOOST_TEST(kill.args[1].has_substitution);
    BOOST_TEST(kill.args[2].has_substitution);
    BOOST_TEST(kill.args[3].has_substitution);
    BOOST_TEST(!kill.args[4].has_substitution);
    // Expansions stay as written.
    BOOST_TEST(kill.args[0].text == "$(pgrep x)");
    BOOST_TEST(kill.args[2].text == "`pgrep z`");
}

BOOST_AUTO_TEST_CASE(plain_expansions_are_not_substitutions) {
    const Analysis a = analyze("kill $! ${pid} $((1+2)) $x");
    BOOST_TEST(names(a) == Names{"kill"});
    for (const auto& w : a.invocations[0].args) BOOST_TEST(!w.has_substitution);
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"$!", "${pid}", "$((1+2))", "$x"}));
}

BOOST_AUTO_TEST_CASE(parameter_expansion_default_runs_its_substitution) {
    const Analysis a = analyze("echo ${x:-$(pkill y)}");
    BOOST_TEST(names(a) == (Names{"pkill", "echo"}));
    BOOST_TEST(a.invocations[1].args[0].has_substitution);
}

BOOST_AUTO_TEST_CASE(locale_quoted_string_is_a_double_quoted_word) {
    const Analysis a = analyze(R"(echo $"a b")");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"a b"}));
}

BOOST_AUTO_TEST_CASE(hash_inside_a_word_is_literal) {
    const Analysis a = analyze("echo a#b $# x");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"a#b", "$#", "x"}));
}
