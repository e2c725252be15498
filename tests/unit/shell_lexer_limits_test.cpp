// shell_lexer_limits_test.cpp: the lexer's depth cap, word budget and pathological inputs.
// The lexer stays linear, keeps a bounded stack and never throws.
#define BOOST_TEST_MODULE shell_lexer_limits
#include "common/shell_lexer.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using viber::shell::Analysis;
using viber::shell::analyze;
using viber::shell::Options;

namespace {

std::string repeat(std::string_view piece, std::size_t times) {
    std::string out;
    out.reserve(piece.size() * times);
    for (std::size_t i = 0; i < times; ++i) out += piece;
    return out;
}

// `$(` nested `levels` deep around `pkill x`, closed.
std::string nested_substitutions(std::size_t levels) {
    return repeat("echo $(", levels) + "pkill x" + repeat(")", levels);
}

} // namespace

BOOST_AUTO_TEST_CASE(nesting_up_to_the_cap_is_complete) {
    const Analysis a = analyze(nested_substitutions(32));
    BOOST_TEST(a.complete);
    BOOST_TEST(a.invocations.front().name == "pkill");
    BOOST_TEST(a.invocations.front().depth == 32u);
}

BOOST_AUTO_TEST_CASE(nesting_past_the_cap_is_incomplete) {
    BOOST_TEST(!analyze(nested_substitutions(33)).complete);
}

BOOST_AUTO_TEST_CASE(the_cap_is_an_option) {
    Options options;
    options.max_depth = 2;
    BOOST_TEST(analyze(nested_substitutions(2), options).complete);
    BOOST_TEST(!analyze(nested_substitutions(3), options).complete);
    BOOST_TEST(!analyze("bash -c \"sh -c 'dash -c x'\"", options).complete);
    BOOST_TEST(analyze("bash -c \"sh -c 'x'\"", options).complete);
}

BOOST_AUTO_TEST_CASE(backticks_and_shell_strings_count_toward_the_cap) {
    Options options;
    options.max_depth = 1;
    BOOST_TEST(analyze("echo `a`", options).complete);
    BOOST_TEST(!analyze(R"(echo `a \`b\``)", options).complete);
    BOOST_TEST(!analyze("eval \"eval x\"", options).complete);
    BOOST_TEST(!analyze("echo <(cat <(x))", options).complete);
}

BOOST_AUTO_TEST_CASE(unclosed_substitution_ten_thousand_deep) {
    const Analysis a = analyze(repeat("$(", 10000));
    BOOST_TEST(!a.complete);
}

BOOST_AUTO_TEST_CASE(closed_substitution_ten_thousand_deep) {
    const Analysis a = analyze(nested_substitutions(10000));
    BOOST_TEST(!a.complete);
}

BOOST_AUTO_TEST_CASE(ten_thousand_open_parentheses) {
    const Analysis a = analyze(repeat("( ", 10000) + "pkill x");
    BOOST_TEST(a.complete);
    BOOST_TEST_REQUIRE(a.invocations.size() == 1u);
    BOOST_TEST(a.invocations[0].name == "pkill");
}

BOOST_AUTO_TEST_CASE(ten_thousand_balanced_parentheses_and_groups) {
    const Analysis a = analyze(repeat("( { ", 10000) + "pkill x" + repeat("; } )", 10000));
    BOOST_TEST(a.complete);
    BOOST_TEST(a.invocations.size() == 1u);
    BOOST_TEST(a.chain_operators == 10000u);
}

BOOST_AUTO_TEST_CASE(ten_thousand_parentheses_without_blanks) {
    BOOST_TEST(analyze(repeat("(", 10000)).invocations.empty());
    BOOST_TEST(analyze(repeat(")", 10000)).invocations.empty());
}

BOOST_AUTO_TEST_CASE(a_megabyte_of_quotes) {
    for (const char* piece : {"\"", "'", "\"\"", "''", "\\\"", "$'", "`", "${", "\"${x:-\""}) {
        const Analysis a = analyze(repeat(piece, (1u << 20) / std::string_view(piece).size()));
        BOOST_TEST_CONTEXT(piece) {
            BOOST_TEST(a.chain_operators == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(many_commands_and_words_within_the_budget) {
    const Analysis a = analyze(repeat("a;", 1u << 15));
    BOOST_TEST(a.complete);
    BOOST_TEST(a.invocations.size() == (1u << 15));
    BOOST_TEST(a.chain_operators == (1u << 15));
    const Analysis b = analyze(repeat("x ", 1u << 15));
    BOOST_TEST(b.complete);
    BOOST_TEST_REQUIRE(b.invocations.size() == 1u);
    BOOST_TEST(b.invocations[0].args.size() == (1u << 15) - 1);
}

BOOST_AUTO_TEST_CASE(a_megabyte_of_words_passes_the_budget) {
    // Half a million words: past Options::max_words the analysis stops and fails open.
    BOOST_TEST(!analyze(repeat("a;", 1u << 19)).complete);
    BOOST_TEST(!analyze(repeat("x ", 1u << 19)).complete);
    BOOST_TEST(!analyze(repeat(">x ", 1u << 18)).complete);
}

BOOST_AUTO_TEST_CASE(the_word_budget_is_an_option) {
    Options options;
    options.max_words = 3;
    BOOST_TEST(analyze("a b c", options).complete);
    BOOST_TEST(!analyze("a b c d", options).complete);
    BOOST_TEST(!analyze("a b > c d", options).complete);
    // A wrapper's Invocation copies its words: `sudo a b` stores 3, and sudo's copy 3 more.
    options.max_words = 6;
    BOOST_TEST(analyze("sudo a b", options).complete);
    BOOST_TEST(!analyze("sudo a b c", options).complete);
}

BOOST_AUTO_TEST_CASE(a_megabyte_of_unbalanced_constructs) {
    BOOST_TEST(analyze(repeat("<<E\n", 1u << 18)).complete);
    BOOST_TEST(analyze(repeat("((", 1u << 19)).invocations.empty());
    BOOST_TEST(analyze(repeat("$((", 1u << 18)).complete);
    BOOST_TEST(analyze(repeat("case x in ", 1u << 16)).invocations.empty());
    BOOST_TEST(analyze(repeat("${", 1u << 19)).complete);
}

BOOST_AUTO_TEST_CASE(a_long_wrapper_chain_is_incomplete_not_quadratic) {
    const Analysis a = analyze(repeat("sudo ", 200000) + "pkill x");
    BOOST_TEST(!a.complete);
    const Analysis b = analyze(repeat("nohup ", 30) + "pkill x");
    BOOST_TEST(b.complete);
    BOOST_TEST(b.invocations.back().name == "pkill");
}

BOOST_AUTO_TEST_CASE(nested_shell_strings_past_the_cap) {
    // Each level quotes the next, so the text grows with the depth: a cap of 4 and 6 levels.
    std::string command = "pkill x";
    for (int i = 0; i < 6; ++i) {
        std::string quoted = "'";
        for (char c : command) {
            if (c == '\'')
                quoted += "'\\''";
            else
                quoted += c;
        }
        command = "bash -c " + quoted + "'";
    }
    Options options;
    options.max_depth = 4;
    BOOST_TEST(!analyze(command, options).complete);
    options.max_depth = 6;
    const Analysis a = analyze(command, options);
    BOOST_TEST(a.complete);
    BOOST_TEST(a.invocations.back().name == "pkill");
    BOOST_TEST(a.invocations.back().depth == 6u);
}

BOOST_AUTO_TEST_CASE(binary_and_invalid_utf8_bytes) {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
    const Analysis a = analyze(bytes + bytes + "\xff\xfe pkill x");
    BOOST_TEST(a.complete);
    const Analysis b = analyze(std::string("pkill\0x", 7));
    BOOST_TEST(b.invocations.size() == 1u);
}
