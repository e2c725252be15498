// shell_lexer_json_test.cpp: --commands-json's text (tools/command_json.hpp): each simple command
// with its name, words and their literal flag, wrapper path, and the nesting and count caps.
#define BOOST_TEST_MODULE shell_lexer_json
#include "tools/command_json.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

namespace json = boost::json;

namespace {

json::object parsed(std::string_view command, std::size_t max = 100000) {
    const std::string text = viber::shell::commands_json(command, max);
    BOOST_TEST_REQUIRE(!text.empty());
    BOOST_TEST(text.back() == '\n');
    BOOST_TEST(text.find('\n') == text.size() - 1); // one line
    return json::parse(text).as_object();
}

std::vector<std::string> names(const json::object& o) {
    std::vector<std::string> out;
    for (const json::value& c : o.at("commands").as_array())
        out.emplace_back(c.at("name").as_string());
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(words_carry_their_text_after_quote_removal_and_a_literal_flag) {
    const json::object o = parsed(R"(sudo -u x PKILL "$y" 'a b' ~/x *.c "lit" a{b,c} 'a{b,c}')");
    const json::array& commands = o.at("commands").as_array();
    BOOST_TEST_REQUIRE(commands.size() == 2u);
    BOOST_TEST(commands[0].at("name").as_string() == "sudo");
    BOOST_TEST(commands[0].at("wrapper").as_bool());
    const json::object& pkill = commands[1].as_object();
    BOOST_TEST(pkill.at("name").as_string() == "pkill");
    BOOST_TEST(!pkill.at("wrapper").as_bool());
    const json::array& words = pkill.at("words").as_array();
    const std::vector<std::pair<std::string, bool>> expected{
        {"PKILL", true}, {"$y", false}, {"a b", true},     {"~/x", false},
        {"*.c", false},  {"lit", true}, {"a{b,c}", false}, {"a{b,c}", true}};
    BOOST_TEST_REQUIRE(words.size() == expected.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
        BOOST_TEST(words[i].at("text").as_string() == expected[i].first);
        BOOST_TEST(words[i].at("literal").as_bool() == expected[i].second, "word " << i);
    }
    const json::array& path = pkill.at("path").as_array();
    BOOST_TEST_REQUIRE(path.size() == 1u);
    BOOST_TEST(path[0].at("name").as_string() == "sudo");
    BOOST_TEST(o.at("depth_cap_reached").as_bool() == false);
    BOOST_TEST(o.at("expansion_cap_reached").as_bool() == false);
    BOOST_TEST(o.at("count_cap_reached").as_bool() == false);
}

BOOST_AUTO_TEST_CASE(substitutions_and_shell_strings_are_followed_with_their_path_and_depth) {
    const json::object o = parsed("echo \"$(date)\" `id` | bash -c 'ls; eval pkill x'");
    BOOST_TEST((names(o) ==
                std::vector<std::string>{"date", "id", "echo", "bash", "ls", "eval", "pkill"}));
    const json::array& commands = o.at("commands").as_array();
    BOOST_TEST(commands[0].at("path").as_array()[0].at("how").as_string() == "$(…)");
    BOOST_TEST(commands[0].at("depth").as_int64() == 1);
    BOOST_TEST(commands[6].at("depth").as_int64() == 2);
    BOOST_TEST(commands[6].at("path").as_array().size() == 2u);
    BOOST_TEST(o.at("chain_operators").as_int64() == 1);
}

BOOST_AUTO_TEST_CASE(redirections_alone_are_left_out) {
    BOOST_TEST(names(parsed("> out.txt\n2>&1 >/dev/null")).empty());
    BOOST_TEST((names(parsed("> out.txt ls")) == std::vector<std::string>{"ls"}));
}

BOOST_AUTO_TEST_CASE(the_nesting_cap_is_flagged) {
    std::string deep;
    for (int i = 0; i < 40; ++i) deep += "$(";
    deep += "pkill x";
    for (int i = 0; i < 40; ++i) deep += ")";
    BOOST_TEST(parsed(deep).at("depth_cap_reached").as_bool());
    BOOST_TEST(!parsed("$($($(pkill x)))").at("depth_cap_reached").as_bool());
}

BOOST_AUTO_TEST_CASE(the_expansion_cap_is_flagged) {
    // The second `$x` is read again with every word after it, and so on: past the budget.
    std::string padded = "x=1; ";
    for (int i = 0; i < 30000; ++i) padded += "$x ";
    BOOST_TEST(parsed(padded + "; y=pkill; $y node").at("expansion_cap_reached").as_bool());
    BOOST_TEST(!parsed("x=1; $x $x; y=pkill; $y node").at("expansion_cap_reached").as_bool());
}

BOOST_AUTO_TEST_CASE(the_count_cap_leaves_the_rest_out_and_is_flagged) {
    const json::object capped = parsed("a\nb\nc\nd\ne", 3);
    BOOST_TEST((names(capped) == std::vector<std::string>{"a", "b", "c"}));
    BOOST_TEST(capped.at("count_cap_reached").as_bool());
    const json::object exact = parsed("a\nb\nc", 3);
    BOOST_TEST(names(exact).size() == 3u);
    BOOST_TEST(!exact.at("count_cap_reached").as_bool());
}

BOOST_AUTO_TEST_CASE(any_bytes_stay_valid_json) {
    const json::object o = parsed("printf '\"\\\\\n\t\x01' $'\\xff\\xfe' \"\x80\"");
    const json::array& words = o.at("commands").as_array()[0].at("words").as_array();
    BOOST_TEST_REQUIRE(words.size() == 4u);
    BOOST_TEST(words[1].at("text").as_string() == "\"\\\\\n\t\x01");
    BOOST_TEST(words[2].at("literal").as_bool());
}
