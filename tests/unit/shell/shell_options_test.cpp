// shell_options_test.cpp: the shells' one option reader (common/shell/shell_options.hpp): where
// bash finds its -c string or its script, for each way an agent writes the options.
#define BOOST_TEST_MODULE shell_options
#include "common/shell/shell_options.hpp"

#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

using viber::shell::is_shell_name;
using viber::shell::lists_option;
using viber::shell::read_shell_options;
using viber::shell::ShellOptions;
using viber::shell::Word;

namespace {

// The words of `line` split at spaces (no quoting: the tests need none), the shell's name first.
class Words {
public:
    explicit Words(std::string line) : line_(std::move(line)) {
        std::string_view rest(line_);
        while (!rest.empty()) {
            const std::size_t space = rest.find(' ');
            words_.push_back(Word{.text = rest.substr(0, space)});
            if (space == std::string_view::npos) break;
            rest.remove_prefix(space + 1);
        }
    }
    // The options after the shell's name, read to the end of the line.
    ShellOptions read() const { return read(1, words_.size()); }
    ShellOptions read(std::size_t begin, std::size_t end) const {
        return read_shell_options(words_, begin, end);
    }
    std::string_view at(std::optional<std::size_t> index) const {
        return index && *index < words_.size() ? words_[*index].text : "(none)";
    }

private:
    std::string line_;
    std::vector<Word> words_;
};

// The text of the -c string `line` runs, "(none)" when none.
std::string command_string(const std::string& line) {
    const Words words(line);
    return std::string(words.at(words.read().command_string));
}

std::string script(const std::string& line) {
    const Words words(line);
    return std::string(words.at(words.read().script));
}

} // namespace

BOOST_AUTO_TEST_CASE(the_c_string_is_the_first_operand_after_every_option) {
    BOOST_TEST(command_string("bash -c STR") == "STR");
    BOOST_TEST(command_string("bash -xc STR") == "STR");
    // bash reads every option first: `bash -c -x 'echo'` runs echo with xtrace on.
    BOOST_TEST(command_string("bash -c -x STR") == "STR");
    BOOST_TEST(command_string("bash -x -c STR") == "STR");
    BOOST_TEST(command_string("bash -o pipefail -c STR") == "STR");
    BOOST_TEST(command_string("bash -c -o pipefail STR") == "STR");
    BOOST_TEST(command_string("bash -Oextglob -c STR") == "STR");
    BOOST_TEST(command_string("bash -O extglob -c STR") == "STR");
    BOOST_TEST(command_string("bash --rcfile f -c STR") == "STR");
    BOOST_TEST(command_string("bash -c -- STR") == "STR");
    BOOST_TEST(command_string("sh -ec STR $0 a") == "STR");
    for (const char* line : {"bash -c STR", "bash -xc STR", "bash -c -x STR"}) {
        const ShellOptions options = Words(line).read();
        BOOST_TEST(options.command_option, line);
        BOOST_TEST(!options.script_from_stdin, line);
        BOOST_TEST(!options.script.has_value(), line);
    }
}

BOOST_AUTO_TEST_CASE(a_c_without_a_string_runs_nothing_from_stdin) {
    const ShellOptions options = Words("bash -c").read();
    BOOST_TEST(options.command_option);
    BOOST_TEST(!options.command_string.has_value());
    BOOST_TEST(!options.script_from_stdin);
    // `+c` turns nothing on: the word after it is the script.
    BOOST_TEST(!Words("bash +c s.sh").read().command_option);
    BOOST_TEST(script("bash +c s.sh") == "s.sh");
}

BOOST_AUTO_TEST_CASE(the_script_operand_follows_the_options_and_their_values) {
    BOOST_TEST(script("bash +o errexit script.sh") == "script.sh");
    BOOST_TEST(script("bash -o pipefail script.sh") == "script.sh");
    BOOST_TEST(script("bash -- script") == "script");
    BOOST_TEST(script("bash - script") == "script");
    BOOST_TEST(script("bash --rcfile f script") == "script");
    BOOST_TEST(script("bash -x script a b") == "script");
    const ShellOptions options = Words("bash +o errexit script.sh").read();
    BOOST_TEST(!options.command_option);
    BOOST_TEST(!options.command_string.has_value());
    BOOST_TEST(!options.script_from_stdin);
}

BOOST_AUTO_TEST_CASE(the_script_comes_from_stdin) {
    for (const char* line : {"bash -s", "bash", "bash /dev/stdin", "bash /dev/fd/0", "bash -s a b",
                             "bash -x", "bash --", "bash -o pipefail"}) {
        const ShellOptions options = Words(line).read();
        BOOST_TEST(options.script_from_stdin, line);
        BOOST_TEST(!options.command_string.has_value(), line);
    }
    BOOST_TEST(Words("bash -s a b").read().stdin_option);
    BOOST_TEST(Words("bash -xs").read().stdin_option);
    BOOST_TEST(!Words("bash").read().stdin_option);
    BOOST_TEST(!Words("bash /dev/stdin").read().stdin_option);
    BOOST_TEST(!Words("bash -c STR -s").read().stdin_option); // -s after -c's string is an operand
    // `-s`: the operands are positional parameters, not a script.
    BOOST_TEST(script("bash -s a b") == "(none)");
    BOOST_TEST(script("bash /dev/stdin") == "/dev/stdin");
    BOOST_TEST(script("bash") == "(none)");
}

BOOST_AUTO_TEST_CASE(the_rcfile_no_exec_and_other_names) {
    const Words rcfile("bash --rcfile f -c STR");
    BOOST_TEST(rcfile.at(rcfile.read().rcfile) == "f");
    const Words init_file("bash --init-file .temp/x.sh");
    BOOST_TEST(init_file.at(init_file.read().rcfile) == ".temp/x.sh");
    BOOST_TEST(!Words("bash -c STR").read().rcfile.has_value());

    const ShellOptions no_exec = Words("bash -n script").read();
    BOOST_TEST(no_exec.no_exec);
    BOOST_TEST(script("bash -n script") == "script");
    BOOST_TEST(!Words("bash +n script").read().no_exec);

    const ShellOptions version = Words("bash --version").read();
    BOOST_TEST(version.names_other);
    BOOST_TEST(!version.command_string.has_value());
    BOOST_TEST(Words("bash --help").read().names_other);
    BOOST_TEST(!Words("bash -c STR").read().names_other);
}

BOOST_AUTO_TEST_CASE(only_the_words_from_begin_to_end_are_read) {
    // As the lexer calls it: from after the shell's name to the end of its command.
    const Words words("sudo bash -x -c STR more");
    BOOST_TEST(words.at(words.read(2, 5).command_string) == "STR");
    const ShellOptions cut = words.read(2, 4);
    BOOST_TEST(cut.command_option);
    BOOST_TEST(!cut.command_string.has_value());
    BOOST_TEST(read_shell_options(std::span<const Word>(), 0, 0).script_from_stdin);
}

BOOST_AUTO_TEST_CASE(the_shells) {
    for (const char* name :
         {"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox-sh"})
        BOOST_TEST(is_shell_name(name), name);
    for (const char* name : {"python", "bash5", "Bash", "", "shell", "env"})
        BOOST_TEST(!is_shell_name(name), name);
}

BOOST_AUTO_TEST_CASE(lists_name_options_by_letter_or_word) {
    BOOST_TEST(lists_option("-o --output ", "--output"));
    BOOST_TEST(lists_option("-o --output ", "-o"));
    BOOST_TEST(!lists_option("-o --output ", "--out"));
    BOOST_TEST(lists_option("--i(n-place) ", "--in-pl"));
    BOOST_TEST(!lists_option("--fi(le) ", "--f"));
}
