// shell_lexer_expansion_limits_test.cpp: what the command model reads of the values a command
// gives its variables and aliases when it gives many: every name is kept, however many there are,
// and an expansion left unread once the expansion budget is spent sets `reached_expansion_cap`, so
// no padding hides a later `y=pkill; $y node` unseen.
#define BOOST_TEST_MODULE shell_lexer_expansion_limits
#include "common/shell/shell_lexer.hpp"
#include "support/text.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>

using viber::shell::Command;
using viber::shell::CommandSink;
using viber::shell::read_commands;
using viber::shell::Summary;

namespace {

using viber::testing::repeat;

// What a reading found: how many commands had each name of interest, and its summary. Counted,
// not collected: the padded commands below run to the command cap (10,000 commands).
struct Reading {
    std::size_t pkill = 0;
    std::size_t ls = 0;
    std::size_t npm = 0;
    Summary summary;
};

Reading read(const std::string& command) {
    struct Counter final : CommandSink {
        Reading& out;
        explicit Counter(Reading& r) : out(r) {}
        void command(const Command& c) override {
            if (c.is("pkill")) ++out.pkill;
            if (c.is("ls")) ++out.ls;
            if (c.is("npm")) ++out.npm;
        }
    };
    Reading reading;
    Counter counter(reading);
    reading.summary = read_commands(command, counter);
    return reading;
}

// `a0=1; a1=1; …`: `count` variables, each given a literal.
std::string assignments(std::size_t count) {
    std::string out;
    for (std::size_t i = 0; i < count; ++i) out += "a" + std::to_string(i) + "=1; ";
    return out;
}

std::string aliases(std::size_t count) {
    std::string out = "alias";
    for (std::size_t i = 0; i < count; ++i) out += " a" + std::to_string(i) + "=x";
    return out + "; ";
}

} // namespace

BOOST_AUTO_TEST_CASE(five_thousand_assignments_hide_no_later_literal) {
    const Reading hostile = read(assignments(5000) + "y=pkill; $y node");
    BOOST_TEST(hostile.pkill == 1u);
    BOOST_TEST(!hostile.summary.reached_expansion_cap);
    // The same padding before a harmless value: that value is read, and nothing else is found.
    const Reading harmless = read(assignments(5000) + "y=ls; $y node");
    BOOST_TEST(harmless.ls == 1u);
    BOOST_TEST(harmless.pkill == 0u);
    BOOST_TEST(!harmless.summary.reached_expansion_cap);
}

BOOST_AUTO_TEST_CASE(five_thousand_aliases_hide_no_later_alias) {
    const Reading hostile = read(aliases(5000) + "alias p=pkill; p node");
    BOOST_TEST(hostile.pkill == 1u);
    const Reading harmless = read(aliases(5000) + "alias p=ls; p node");
    BOOST_TEST(harmless.ls == 1u);
    BOOST_TEST(harmless.pkill == 0u);
    BOOST_TEST(!harmless.summary.reached_expansion_cap);
}

BOOST_AUTO_TEST_CASE(three_hundred_thousand_uses_of_x_in_one_command_reach_the_cap) {
    // Each `$x` is read with every word after it, then again without it: past the budget, the
    // later `$y` is not read, and the summary says so.
    const std::string padding = "x=1; " + repeat("$x ", 300000) + "; ";
    const Reading hostile = read(padding + "y=pkill; $y node");
    BOOST_TEST(hostile.summary.reached_expansion_cap);
    BOOST_TEST(hostile.pkill == 0u);
    BOOST_TEST(read(padding + "c='pkill node'; eval \"$c\"").summary.reached_expansion_cap);
}

BOOST_AUTO_TEST_CASE(four_thousand_five_hundred_commands_of_x_stay_within_the_budget) {
    // Each four-byte `$x; ` adds sixteen: 72 KB, more than the 64 KiB allowance, within the
    // command's own length plus it. The budget holds, and what follows is read. (Each use is two
    // commands, the empty expansion and what it runs: 4,500 stay under the command cap.)
    const std::string padding = "x=echo_a_word_0123; " + repeat("$x; ", 4500);
    const Reading hostile = read(padding + "y=pkill; $y node");
    BOOST_TEST(hostile.pkill == 1u);
    BOOST_TEST(!hostile.summary.reached_expansion_cap);
    const Reading harmless = read(padding + "y=ls; $y node");
    BOOST_TEST(harmless.ls == 1u);
    BOOST_TEST(harmless.pkill == 0u);
    BOOST_TEST(!harmless.summary.reached_expansion_cap);
}

BOOST_AUTO_TEST_CASE(an_alias_used_four_thousand_times_reaches_the_cap) {
    // Forty-five bytes for each three-byte use: past the budget, `p` (longer than what is left of
    // it) is not read as pkill. (Each use is two commands, the alias and what it runs: four
    // thousand stay under the command cap.)
    const Reading hostile = read("alias k='echo " + std::string(40, 'h') + "'; alias p='pkill " +
                                 std::string(50, 'n') + "'; " + repeat("k; ", 4000) + "p");
    BOOST_TEST(hostile.summary.reached_expansion_cap);
    BOOST_TEST(!hostile.summary.reached_command_cap);
    BOOST_TEST(hostile.pkill == 0u);
    // Two bytes for each use stay within it: `p` is read, as pkill or as ls.
    const std::string padding = "alias k=ls; " + repeat("k; ", 4000);
    const Reading found = read(padding + "alias p=pkill; p node");
    BOOST_TEST(found.pkill == 1u);
    BOOST_TEST(!found.summary.reached_expansion_cap);
    const Reading harmless = read(padding + "alias p=ls; p node");
    BOOST_TEST(harmless.pkill == 0u);
    BOOST_TEST(harmless.ls == 4001u);
    BOOST_TEST(!harmless.summary.reached_expansion_cap);
}

BOOST_AUTO_TEST_CASE(a_short_command_that_runs_one_value_a_few_times_stays_within_the_budget) {
    // Three uses of thirteen bytes are more than the command's 37: the 64 KiB allowance holds them.
    const Reading reading = read("cmd='npm run build'; $cmd; $cmd; $cmd");
    BOOST_TEST(reading.npm == 3u);
    BOOST_TEST(!reading.summary.reached_expansion_cap);
}

BOOST_AUTO_TEST_CASE(the_summary_counts_the_expanded_bytes_within_the_budget) {
    // `$c` three times: the seven bytes of its value each time.
    BOOST_TEST(read("c='echo hi'; $c; $c; $c").summary.expanded_bytes == 21u);
    BOOST_TEST(read("echo hi; ls").summary.expanded_bytes == 0u);
    // A value whose reading writes the variable's own use again (`$c=…` is the command word
    // `$c` expands in): fifty bytes spend the whole allowance, and no more.
    const std::string self = "c='$c'=\\''\\x6bill -9 -1'\\''; eval \"$c\"'; eval \"$c\"";
    BOOST_TEST(self.size() == 50u);
    const Summary summary = read(self).summary;
    BOOST_TEST(summary.reached_expansion_cap);
    BOOST_TEST(summary.expanded_bytes > std::size_t{60} << 10);
    BOOST_TEST(summary.expanded_bytes <= self.size() + (std::size_t{64} << 10));
}

BOOST_AUTO_TEST_CASE(positional_parameters_and_read_values_used_again_and_again_reach_the_cap) {
    // `set -- WORDS` and `read c <<< TEXT` give literals like an assignment: each use of "$@" or
    // $c is charged to the same budget, so three thousand uses stay linear and are flagged.
    const std::string words = repeat("w ", 20000);
    const Reading set = read("set -- " + words + "; " + repeat("\"$@\"; ", 3000) + "pkill node");
    BOOST_TEST(set.summary.reached_expansion_cap);
    BOOST_TEST(set.pkill == 1u); // a command word written out is read whatever the budget
    const std::string set_command = "set -- " + words + "; " + repeat("\"$@\"; ", 3000);
    BOOST_TEST(read(set_command).summary.expanded_bytes <=
               set_command.size() + (std::size_t{64} << 10));
    const Reading line =
        read("read -r c <<< 'echo " + words + "'; " + repeat("$c; ", 3000) + "pkill node");
    BOOST_TEST(line.summary.reached_expansion_cap);
    BOOST_TEST(line.pkill == 1u);
    // A default value written out is charged too, but it is no longer than its own text: the
    // budget holds, and what follows is read.
    const std::string fallback_command = repeat("${x:-echo " + words + "}; ", 50);
    const Reading fallback = read(fallback_command + "y=pkill; $y node");
    BOOST_TEST(!fallback.summary.reached_expansion_cap);
    BOOST_TEST(fallback.pkill == 1u);
    BOOST_TEST(fallback.summary.expanded_bytes <= fallback_command.size() + 64);
}

BOOST_AUTO_TEST_CASE(arrays_function_calls_and_written_files_used_again_and_again_reach_the_cap) {
    // An array's elements, a function's body and a file the command wrote are read again at each
    // use, call or run, charged to the same budget: three thousand uses stay linear and are
    // flagged; the bodies a command keeps are bounded by its length too, however deeply their
    // definitions nest.
    const std::string words = repeat("w ", 20000);
    const std::string array = "x=(echo " + words + "); " + repeat("\"${x[@]}\"; ", 3000);
    const Reading elements = read(array + "pkill node");
    BOOST_TEST(elements.summary.reached_expansion_cap);
    BOOST_TEST(elements.pkill == 1u);
    BOOST_TEST(read(array).summary.expanded_bytes <= array.size() + (std::size_t{64} << 10));
    const std::string calls = "f() { echo " + words + "; }; " + repeat("f; ", 3000);
    const Reading called = read(calls + "pkill node");
    BOOST_TEST(called.summary.reached_expansion_cap);
    BOOST_TEST(called.pkill == 1u);
    BOOST_TEST(read(calls).summary.expanded_bytes <= calls.size() + (std::size_t{64} << 10));
    // Twenty thousand definitions nested in one another, each body a copy: the copies stop at
    // the bound, and the reading says so (a body it did not keep is not read at the call).
    const std::string nested = repeat("f() { ", 20000) + "pkill node; " + repeat("}; ", 20000);
    const Reading deep = read(nested + "f");
    BOOST_TEST(deep.summary.reached_expansion_cap);
    BOOST_TEST(deep.pkill == 1u);
    // A file written and run again and again: each run is charged like a value.
    const std::string runs = "echo " + words + " > k.sh; " + repeat("bash k.sh; ", 3000);
    const Reading file = read(runs + "pkill node");
    BOOST_TEST(file.summary.reached_expansion_cap);
    BOOST_TEST(file.pkill == 1u);
    BOOST_TEST(read(runs).summary.expanded_bytes <= runs.size() + (std::size_t{64} << 10));
    // A function calling itself is read once per call from outside, not again inside.
    const Reading self = read("f() { f; pkill node; }; f; f");
    BOOST_TEST(!self.summary.reached_depth_cap);
    BOOST_TEST(self.pkill == 3u);
}

BOOST_AUTO_TEST_CASE(values_a_guard_reads_are_charged_to_the_budget) {
    // A guard reads an argument's value through Command::values (kill-guard's operands): a 200 KB
    // literal used as an argument 200,000 times is read within the command plus 64 KiB, then
    // flagged, instead of 200,000 copies of it (40 GB).
    struct Reader final : CommandSink {
        std::size_t read = 0;
        void command(const Command& c) override {
            for (const viber::shell::Word& w : c.args())
                if (c.values != nullptr && c.values->literal_value(w)) ++read;
        }
    } reader;
    const std::string command =
        "x=" + std::string(200000, 'a') + "; kill " + repeat("\"$x$x\" ", 200000);
    const Summary summary = read_commands(command, reader);
    BOOST_TEST(summary.reached_expansion_cap);
    BOOST_TEST(summary.expanded_bytes <= command.size() + (std::size_t{64} << 10));
    BOOST_TEST(reader.read >= 3u); // the first values are read
}
