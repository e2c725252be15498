// shell_guard_options_test.cpp: shell-guard's option reader (options.hpp), grammar by grammar: what
// each word of a command line reads as.
#define BOOST_TEST_MODULE shell_guard_options
#include "shell-guard/options.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

using namespace viber::shell_guard;

namespace {

// Each argument as one token: `-o=VALUE` (`+` when attached), `--long=VALUE`, `-o` without a
// value, `'operand'`.
std::string read(std::vector<std::string_view> words, const OptionGrammar& grammar) {
    std::vector<viber::shell::Word> args;
    for (const std::string_view w : words) args.push_back({.text = w});
    std::string out;
    OptionReader reader(args, grammar);
    while (const auto a = reader.next()) {
        if (!out.empty()) out += ' ';
        if (a->operand) {
            out += "'" + std::string(a->text) + "'";
            continue;
        }
        out += a->letter != 0 ? std::string{'-', a->letter} : std::string(a->text);
        if (a->value) out += (a->attached ? "+" : "=") + std::string(*a->value);
    }
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(clusters_take_the_rest_of_the_word_or_the_next_word) {
    const OptionGrammar grammar{.value_letters = "o", .attached_letters = "k"};
    BOOST_TEST(read({"-ab", "-oout", "-o", "x", "f"}, grammar) == "-a -b -o+out -o=x 'f'");
    BOOST_TEST(read({"-xk", "y", "-k2o"}, grammar) == "-x -k 'y' -k+2o");
    BOOST_TEST(read({"-o"}, grammar) == "-o");
    BOOST_TEST(read({"-", "--", "-o", "x"}, grammar) == "'-' '-o' 'x'");
}

BOOST_AUTO_TEST_CASE(dashdash_ends_the_options_unless_the_row_says_not) {
    BOOST_TEST(read({"-a", "--", "-b", "--"}, {}) == "-a '-b' '--'");
    BOOST_TEST(read({"-a", "--", "-b"}, {.dashdash_ends = false}) == "-a -- -b");
    BOOST_TEST(read({"a", "-b"}, {.operand_ends = true}) == "'a' '-b'");
}

BOOST_AUTO_TEST_CASE(long_options_take_equals_or_the_next_word_and_listed_prefixes) {
    const OptionGrammar grammar{.long_values = "--size --ta(rget-directory) "};
    BOOST_TEST(read({"--size", "3", "--size=4", "--sizes", "f"}, grammar) ==
               "--size=3 --size+4 --sizes 'f'");
    BOOST_TEST(read({"--ta", "d", "--target", "e", "--t", "f"}, grammar) ==
               "--ta=d --target=e --t 'f'");
    BOOST_TEST(read({"--target-directoryx", "f"}, grammar) == "--target-directoryx 'f'");
}

BOOST_AUTO_TEST_CASE(whole_words_and_unknown_long_options) {
    BOOST_TEST(read({"-e", "ssh", "-ve", "f"}, {.value_words = "-e "}) == "-e=ssh -v -e 'f'");
    const OptionGrammar curl{.long_flags = "--silent ", .unknown_long_values = true};
    BOOST_TEST(read({"--header", "h", "--silent", "u", "--data", "-x"}, curl) ==
               "--header=h --silent 'u' --data -x");
    const OptionGrammar node{.long_values = "-r ", .clusters = false};
    BOOST_TEST(read({"-r", "m", "-r=n", "-pe"}, node) == "-r=m -r+n -pe");
}
