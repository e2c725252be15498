// shell_variables_test.cpp: the command model's reading of variables whose value is a command's
// output (shell_variables.hpp), and the names a word expands.
#define BOOST_TEST_MODULE shell_variables
#include "common/shell/shell_variables.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

using viber::shell::Command;
using viber::shell::CommandSink;
using viber::shell::OutputVariables;
using viber::shell::read_commands;

namespace {

// The whole command read, then `name` asked.
bool filled(std::string_view command, std::string_view name) {
    struct Sink final : CommandSink {
        OutputVariables variables;
        void command(const Command& c) override { variables.command(c); }
        void loop_variable(std::string_view n, bool from_substitution) override {
            variables.loop_variable(n, from_substitution);
        }
        void function_defined(std::string_view n) override { variables.function_defined(n); }
    } sink;
    read_commands(command, sink);
    sink.variables.finish();
    return sink.variables.filled(name);
}

std::vector<std::string> names(std::string_view word) {
    std::vector<std::string> out;
    viber::shell::for_each_variable(word, [&](std::string_view n) { out.emplace_back(n); });
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(assignments_and_declarations_of_output) {
    BOOST_TEST(filled("p=$(pgrep node)", "p"));
    BOOST_TEST(filled("local p=`pgrep node`", "p"));
    BOOST_TEST(filled("declare -a ps=($(pgrep node))", "ps"));
    BOOST_TEST(filled("printf -v p '%s' \"$(pgrep node)\"", "p"));
    BOOST_TEST(filled("for p in $(pgrep node); do :; done", "p"));
    BOOST_TEST(filled("set -- $(pgrep node)", "1"));
    BOOST_TEST(filled("f() { :; }; f $(pgrep node)", "@"));
    // Order does not matter: a loop may fill the variable after its use.
    BOOST_TEST(filled("kill $p; p=$(pgrep node)", "p"));
    // Look-alikes: a literal, another name, a call of a function not defined here.
    BOOST_TEST(!filled("p=4242", "p"));
    BOOST_TEST(!filled("q=$(pgrep node)", "p"));
    BOOST_TEST(!filled("g $(pgrep node)", "@"));
}

BOOST_AUTO_TEST_CASE(reads_fed_by_output) {
    BOOST_TEST(filled("pgrep node | read p", "p"));
    BOOST_TEST(filled("read p < <(pgrep node)", "p"));
    BOOST_TEST(filled("read p <<< \"$(pgrep node)\"", "p"));
    BOOST_TEST(filled("pgrep node | mapfile -t ps", "ps"));
    BOOST_TEST(filled("pgrep node | mapfile", "MAPFILE"));
    BOOST_TEST(filled("pgrep node | read", "REPLY"));
    // A loop fed by a process substitution: its reads hold output.
    BOOST_TEST(filled("while read p; do :; done < <(pgrep node)", "p"));
    // Look-alikes: a read from a file, the value of -d.
    BOOST_TEST(!filled("read p < pids.txt", "p"));
    BOOST_TEST(!filled("pgrep node | read -d x p", "x"));
}

BOOST_AUTO_TEST_CASE(the_names_a_word_expands) {
    BOOST_TEST(names("$p") == std::vector<std::string>{"p"});
    BOOST_TEST(names("${ps[@]}-$q") == (std::vector<std::string>{"ps", "q"}));
    BOOST_TEST(names("$@ $* $1") == (std::vector<std::string>{"@", "*", "1"}));
    BOOST_TEST(names("4242").empty());
    BOOST_TEST(names("$").empty());
}
