// shell_lexer_limits_test.cpp: the command model's depth cap and pathological inputs: past the cap
// the deep part is skipped and reading goes on after it; nothing else is capped.
#define BOOST_TEST_MODULE shell_lexer_limits
#include "common/shell/shell_lexer.hpp"
#include "support/shell_analysis.hpp"
#include "support/text.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#ifndef _WIN32
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using viber::shell::Analysis;
using viber::shell::analyze;
using viber::shell::Options;

namespace {

using viber::testing::repeat;

// `$(` nested `levels` deep around `pkill x`, closed.
std::string nested_substitutions(std::size_t levels) {
    return repeat("echo $(", levels) + "pkill x" + repeat(")", levels);
}

// `echo` and 20 words opening a `$(` at each of 32 levels, `pkill x` and 20 words innermost, the
// levels closed, then a 330 KB comment: every level reaches 16 words while all 33 are open, each
// with about 330 KB left after it (room for 165,000 words, just under 4 MiB).
std::string word_lists_at_every_level() {
    std::string command;
    for (int level = 0; level < 32; ++level) command += "echo " + repeat("w ", 20) + "$(";
    return command + "pkill x " + repeat("w ", 20) + repeat(")", 32) + "\n#" +
           std::string(330000, 'c');
}

bool finds(const Analysis& a, std::string_view name) {
    for (const auto& inv : a.invocations)
        if (inv.name == name) return true;
    return false;
}

} // namespace

BOOST_AUTO_TEST_CASE(nesting_up_to_the_cap_is_read_whole) {
    const Analysis a = analyze(nested_substitutions(32));
    BOOST_TEST(!a.reached_depth_cap);
    BOOST_TEST(a.invocations.front().name == "pkill");
    BOOST_TEST(a.invocations.front().depth == 32u);
}

BOOST_AUTO_TEST_CASE(past_the_cap_the_deep_part_is_skipped_and_reading_goes_on) {
    const Analysis a = analyze(nested_substitutions(33) + "; killall y");
    BOOST_TEST(a.reached_depth_cap);
    BOOST_TEST(!finds(a, "pkill"));
    BOOST_TEST(finds(a, "killall"));
    BOOST_TEST(a.invocations.back().depth == 0u);
}

BOOST_AUTO_TEST_CASE(the_cap_is_an_option) {
    Options options;
    options.max_depth = 2;
    BOOST_TEST(!analyze(nested_substitutions(2), options).reached_depth_cap);
    BOOST_TEST(analyze(nested_substitutions(3), options).reached_depth_cap);
    BOOST_TEST(analyze("bash -c \"sh -c 'dash -c x'\"", options).reached_depth_cap);
    BOOST_TEST(!analyze("bash -c \"sh -c 'x'\"", options).reached_depth_cap);
}

BOOST_AUTO_TEST_CASE(backticks_subshells_and_shell_strings_count_toward_the_cap) {
    Options options;
    options.max_depth = 1;
    BOOST_TEST(!analyze("echo `a`", options).reached_depth_cap);
    BOOST_TEST(analyze(R"(echo `a \`b\``)", options).reached_depth_cap);
    BOOST_TEST(analyze("eval \"eval x\"", options).reached_depth_cap);
    BOOST_TEST(analyze("echo <(cat <(x))", options).reached_depth_cap);
    BOOST_TEST(analyze("( ( x ) )", options).reached_depth_cap);
}

BOOST_AUTO_TEST_CASE(a_wrapper_chain_is_one_level) {
    const Analysis a = analyze(repeat("nice ", 1000) + "pkill x");
    BOOST_TEST(!a.reached_depth_cap);
    BOOST_TEST(a.invocations.back().name == "pkill");
    BOOST_TEST(a.invocations.back().depth == 0u);
    BOOST_TEST(a.invocations.size() == 1001u);
}

BOOST_AUTO_TEST_CASE(unclosed_substitution_ten_thousand_deep) {
    const Analysis a = analyze(repeat("$(", 10000));
    BOOST_TEST(a.reached_depth_cap);
}

BOOST_AUTO_TEST_CASE(closed_substitution_ten_thousand_deep_then_a_command) {
    const Analysis a = analyze(nested_substitutions(10000) + "\npkill node");
    BOOST_TEST(a.reached_depth_cap);
    BOOST_TEST(a.invocations.back().name == "pkill");
    BOOST_TEST(a.invocations.back().args.at(0).text == "node");
}

BOOST_AUTO_TEST_CASE(ten_thousand_open_parentheses) {
    const Analysis a = analyze(repeat("( ", 10000) + "pkill x");
    BOOST_TEST(a.reached_depth_cap);
}

BOOST_AUTO_TEST_CASE(thirty_parentheses_and_groups_are_read) {
    const Analysis a = analyze(repeat("( { ", 30) + "pkill x" + repeat("; } )", 30));
    BOOST_TEST(!a.reached_depth_cap);
    BOOST_TEST(a.invocations.size() == 1u);
    BOOST_TEST(a.chain_operators == 30u);
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

BOOST_AUTO_TEST_CASE(the_reading_ends_at_ten_thousand_commands) {
    // Half a million commands: the first 10,000 are handed, then the reading ends and says so.
    const Analysis a = analyze(repeat("a;", 1u << 19));
    BOOST_TEST(a.invocations.size() == 10000u);
    BOOST_TEST(a.reached_command_cap);
    BOOST_TEST(a.chain_operators == 10000u);
    // Exactly 10,000 are read whole; redirections alone and each wrapper count too.
    const Analysis exact = analyze(repeat("a\n", 9999) + "pkill x");
    BOOST_TEST(!exact.reached_command_cap);
    BOOST_TEST_REQUIRE(exact.invocations.size() == 10000u);
    BOOST_TEST(exact.invocations.back().name == "pkill");
    BOOST_TEST(analyze(repeat("> a\n", 10001)).reached_command_cap);
    BOOST_TEST(analyze(repeat("nice ", 10000) + "ls").reached_command_cap);
    BOOST_TEST(!analyze(repeat("nice ", 9999) + "ls").reached_command_cap);
    // A lower cap given in Options ends the reading there.
    std::size_t handed = 0;
    struct Counter final : viber::shell::CommandSink {
        std::size_t& n;
        explicit Counter(std::size_t& count) : n(count) {}
        void command(const viber::shell::Command&) override { ++n; }
    } counter(handed);
    const viber::shell::Summary three =
        viber::shell::read_commands("a; b; c; d", counter, {.max_commands = 3});
    BOOST_TEST(handed == 3u);
    BOOST_TEST(three.reached_command_cap);
}

BOOST_AUTO_TEST_CASE(no_word_budget_a_command_under_a_mebibyte_can_reach) {
    const Analysis b = analyze("pkill node " + repeat("x ", 1u << 19));
    BOOST_TEST_REQUIRE(b.invocations.size() == 1u);
    BOOST_TEST(b.invocations[0].args.size() == (1u << 19) + 1);
}

BOOST_AUTO_TEST_CASE(targetless_redirections_store_nothing) {
    const Analysis a = analyze("x " + repeat("> ", 1u << 18) + "; pkill y");
    BOOST_TEST(a.redirects.empty());
    BOOST_TEST(a.invocations.back().name == "pkill");
}

BOOST_AUTO_TEST_CASE(a_megabyte_of_unbalanced_constructs) {
    BOOST_TEST(analyze(repeat("<<E\n", 1u << 18)).invocations.empty());
    BOOST_TEST(analyze(repeat("((", 1u << 19)).invocations.empty());
    BOOST_TEST(analyze(repeat("$((", 1u << 18)).invocations.size() <= 1u);
    BOOST_TEST(analyze(repeat("case x in ", 1u << 16)).invocations.empty());
    BOOST_TEST(analyze(repeat("${", 1u << 19)).invocations.empty());
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
    BOOST_TEST(analyze(command, options).reached_depth_cap);
    options.max_depth = 6;
    const Analysis a = analyze(command, options);
    BOOST_TEST(!a.reached_depth_cap);
    BOOST_TEST(a.invocations.back().name == "pkill");
    BOOST_TEST(a.invocations.back().depth == 6u);
}

BOOST_AUTO_TEST_CASE(a_substitution_inside_a_shell_string_is_read_once) {
    // `sh -c "$(…)"`: the substitution runs; the string it produces is unknown and not re-read.
    const Analysis a = analyze("sh -c \"$(pkill x)\"");
    std::size_t pkills = 0;
    for (const auto& inv : a.invocations) pkills += inv.name == "pkill" ? 1 : 0;
    BOOST_TEST(pkills == 1u);
    BOOST_TEST(a.invocations.front().path == "$(…)");
}

BOOST_AUTO_TEST_CASE(binary_and_invalid_utf8_bytes) {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
    const Analysis a = analyze(bytes + bytes + "\xff\xfe pkill x");
    BOOST_TEST(!a.reached_depth_cap);
    const Analysis b = analyze(std::string("pkill\0x", 7));
    BOOST_TEST(b.invocations.size() == 1u);
}

BOOST_AUTO_TEST_CASE(word_lists_open_at_every_level_are_read_whole) {
    const Analysis a = analyze(word_lists_at_every_level());
    BOOST_TEST(!a.reached_depth_cap);
    BOOST_TEST_REQUIRE(a.invocations.size() == 33u);
    for (const auto& inv : a.invocations) {
        BOOST_TEST_CONTEXT(inv.name << " at depth " << inv.depth) {
            // 20 words, and the `$(…)` word (echo) or `x` (pkill).
            BOOST_TEST(inv.args.size() == 21u);
        }
    }
    BOOST_TEST(finds(a, "pkill"));
}

#ifndef _WIN32
// Peak resident memory, in KiB, of a forked copy of this process that lexes `command` (0 when the
// copy failed or reached the depth cap).
long peak_kib_lexing(const std::string& command) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const Analysis a = analyze(command);
        ::_exit(a.reached_depth_cap ? 1 : 0);
    }
    int status = 0;
    struct rusage usage {};
    if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 0;
    return usage.ru_maxrss;
}

BOOST_AUTO_TEST_CASE(word_lists_open_at_every_level_touch_only_their_words) {
    // Each of the 33 open lists reserves room for the words left after it at once (just under
    // 4 MiB each, 130 MiB of address space together): only the pages its words fill are ever
    // touched, so the whole lexes in about what the same bytes as one comment do.
    const std::string command = word_lists_at_every_level();
    const long baseline = peak_kib_lexing("#" + std::string(command.size() - 1, 'c'));
    const long lexed = peak_kib_lexing(command);
    BOOST_TEST_REQUIRE(baseline > 0);
    BOOST_TEST_REQUIRE(lexed > 0);
    BOOST_TEST_MESSAGE("peak " << lexed << " KiB; the same bytes as a comment " << baseline);
    BOOST_TEST(lexed - baseline < 8 * 1024);
}
#endif
