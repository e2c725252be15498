// session_start_test.cpp: the SessionStart decision of docs/session-start.md, one case per rule.
#define BOOST_TEST_MODULE session_start
#include "common/io/output.hpp"
#include "common/io/plugin_paths.hpp"
#include "common/text/utf8.hpp"
#include "session-start/session_start.hpp"
#include "support/environment.hpp"
#include "support/hook_decision.hpp"
#include "support/scratch.hpp"
#include "support/text.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

namespace hook = viber::session_start_hook;
using hook::Inputs;
using viber::testing::ScratchDir;

using viber::testing::PluginRootEnv;

namespace {

// What the hook reads for `cwd`, without explaining.
Inputs gather(const std::optional<std::string>& cwd) {
    viber::Trace off;
    return hook::gather(cwd, off);
}

std::string schema(std::string_view yml) {
    return hook::schema_of(yml).digits;
}

using viber::testing::repeat;

std::string answer_text(const Inputs& inputs) {
    return boost::json::serialize(hook::decide(inputs));
}

} // namespace

BOOST_AUTO_TEST_SUITE(manifest)

BOOST_AUTO_TEST_CASE(trailing_lf_newlines_are_cut) {
    BOOST_TEST(*hook::manifest_context("a\nb\n\n\n") == "a\nb");
}

BOOST_AUTO_TEST_CASE(trailing_crlf_newlines_are_cut) {
    BOOST_TEST(*hook::manifest_context("a\r\nb\r\n\r\n") == "a\r\nb");
    BOOST_TEST(*hook::manifest_context("a\n\r\n\n") == "a");
}

BOOST_AUTO_TEST_CASE(everything_else_is_verbatim) {
    BOOST_TEST(*hook::manifest_context("\n\n  <viber>\n\tx \"q\" \\ \n</viber>  ") ==
               "\n\n  <viber>\n\tx \"q\" \\ \n</viber>  ");
    BOOST_TEST(*hook::manifest_context("a  \n") == "a  ");
    BOOST_TEST(*hook::manifest_context("a\r") == "a\r"); // a lone CR is no newline
}

BOOST_AUTO_TEST_CASE(empty_or_whitespace_only_is_no_context) {
    BOOST_TEST(!hook::manifest_context(""));
    BOOST_TEST(!hook::manifest_context("\n\n"));
    BOOST_TEST(!hook::manifest_context("\r\n"));
    BOOST_TEST(!hook::manifest_context(" \t\r\n \n\v\f"));
}

BOOST_AUTO_TEST_CASE(a_manifest_is_the_additional_context) {
    Inputs inputs;
    inputs.manifest = "<viber>\nrules\n</viber>\n";
    inputs.plugin_root = "/plugins/viber/1.2.0";
    BOOST_TEST(answer_text(inputs) ==
               "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":"
               "\"<viber>\\nrules\\n</viber>\"},\"systemMessage\":\"viber loaded 1.2.0\"}");
}

BOOST_AUTO_TEST_CASE(no_manifest_is_no_context_key_but_the_banner) {
    Inputs inputs;
    BOOST_TEST(answer_text(inputs) == "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\"}"
                                      ",\"systemMessage\":\"viber loaded dev\"}");
}

BOOST_AUTO_TEST_CASE(a_whitespace_only_manifest_is_no_context_key) {
    Inputs inputs;
    inputs.manifest = "  \n\t\n";
    BOOST_TEST(answer_text(inputs) == "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\"}"
                                      ",\"systemMessage\":\"viber loaded dev\"}");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(version)

// `dev` only when no plugin directory is found, or it names no version (a relative `..`).
BOOST_AUTO_TEST_CASE(no_directory_is_dev) {
    BOOST_TEST(hook::plugin_version(std::nullopt) == "dev");
    BOOST_TEST(hook::plugin_version(std::string_view("")) == "dev");
    BOOST_TEST(hook::plugin_version(std::string_view("..")) == "dev");
    BOOST_TEST(hook::plugin_version(std::string_view("/")) == "dev");
}

BOOST_AUTO_TEST_CASE(the_last_segment_is_the_version) {
    BOOST_TEST(hook::plugin_version(
                   std::string_view("/home/u/.claude/plugins/cache/viber/viber/1.2.0")) == "1.2.0");
    BOOST_TEST(hook::plugin_version(std::string_view("1.4.0")) == "1.4.0");
}

BOOST_AUTO_TEST_CASE(trailing_slashes_are_ignored) {
    BOOST_TEST(hook::plugin_version(std::string_view("/plugins/viber/1.2.0/")) == "1.2.0");
    BOOST_TEST(hook::plugin_version(std::string_view("/plugins/viber/1.2.0///")) == "1.2.0");
}

BOOST_AUTO_TEST_CASE(backslashes_read_as_slashes) {
    BOOST_TEST(hook::plugin_version(std::string_view("C:\\Users\\me\\plugins\\viber\\1.3.0")) ==
               "1.3.0");
    BOOST_TEST(hook::plugin_version(std::string_view("C:\\Users\\me\\plugins\\viber\\1.3.0\\")) ==
               "1.3.0");
    BOOST_TEST(hook::plugin_version(std::string_view("C:/plugins\\viber/2.0.0\\/")) == "2.0.0");
}

BOOST_AUTO_TEST_CASE(separators_alone_are_dev) {
    BOOST_TEST(hook::plugin_version(std::string_view("/")) == "dev");
    BOOST_TEST(hook::plugin_version(std::string_view("\\\\")) == "dev");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(schema_numbers)

BOOST_AUTO_TEST_CASE(a_plain_number) {
    BOOST_TEST(schema("schema: 3\n") == "3");
}

BOOST_AUTO_TEST_CASE(the_first_column_zero_line_counts) {
    BOOST_TEST(schema("version: 1\nschema: 5\nschema: 6\n") == "5");
    BOOST_TEST(schema("  schema: 4\nschema: 2\n") == "2");
}

BOOST_AUTO_TEST_CASE(no_column_zero_line_is_zero) {
    BOOST_TEST(schema("") == "0");
    BOOST_TEST(schema("  schema: 4\n") == "0");
    BOOST_TEST(schema("Schema: 4\nschemas: 5\n# schema: 6\n") == "0");
}

BOOST_AUTO_TEST_CASE(leading_zeros_read_as_decimal) {
    BOOST_TEST(schema("schema: 007") == "7");
    BOOST_TEST(schema("schema: 010") == "10");
    BOOST_TEST(schema("schema: 0") == "0");
    BOOST_TEST(schema("schema: 000") == "0");
}

BOOST_AUTO_TEST_CASE(a_comment_is_cut) {
    BOOST_TEST(schema("schema: 4 # the layout version") == "4");
    BOOST_TEST(schema("schema: # 5") == "0");
}

BOOST_AUTO_TEST_CASE(crs_and_all_whitespace_are_removed) {
    BOOST_TEST(schema("schema:3\r\n") == "3");
    BOOST_TEST(schema("schema:\t1 2\r") == "12");
    BOOST_TEST(schema("schema: \v4\f") == "4");
}

BOOST_AUTO_TEST_CASE(anything_but_digits_is_zero) {
    BOOST_TEST(schema("schema: 3a") == "0");
    BOOST_TEST(schema("schema: -1") == "0");
    BOOST_TEST(schema("schema: 1.5") == "0");
    BOOST_TEST(schema("schema: \"3\"") == "0");
    BOOST_TEST(schema("schema:") == "0");
    BOOST_TEST(schema("schema: \xD9\xA3") == "0"); // ARABIC-INDIC DIGIT THREE is no ASCII digit
}

BOOST_AUTO_TEST_CASE(a_last_line_without_newline_counts) {
    BOOST_TEST(schema("a: 1\nschema: 9") == "9");
}

BOOST_AUTO_TEST_CASE(an_absurdly_long_number_is_kept_exactly) {
    const std::string forty = "1234567890123456789012345678901234567890";
    BOOST_TEST(schema("schema: " + forty) == forty);
    BOOST_TEST(schema("schema: " + std::string(100, '0') + "3") == "3");
}

BOOST_AUTO_TEST_CASE(comparison_is_numeric_at_any_length) {
    const auto cmp = [](std::string_view a, std::string_view b) {
        return hook::compare(hook::schema_of(a), hook::schema_of(b));
    };
    BOOST_TEST(cmp("schema: 2", "schema: 10") == -1);
    BOOST_TEST(cmp("schema: 10", "schema: 2") == 1);
    BOOST_TEST(cmp("schema: 007", "schema: 7") == 0);
    BOOST_TEST(cmp("schema: 99999999999999999999999", "schema: 99999999999999999999998") == 1);
    BOOST_TEST(cmp("schema: 18446744073709551616", "schema: 1") == 1); // 2^64 does not wrap to 0
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(schema_note)

BOOST_AUTO_TEST_CASE(project_lower_says_run_setup) {
    BOOST_TEST(hook::schema_note(std::string("schema: 1\n"), std::string("schema: 2\n")) ==
               " - .claude/viber.yml is at schema 1, this version expects 2: run /viber:setup");
}

BOOST_AUTO_TEST_CASE(project_higher_says_update_the_plugin) {
    BOOST_TEST(hook::schema_note(std::string("schema: 3\n"), std::string("schema: 2\n")) ==
               " - .claude/viber.yml is at schema 3, newer than this version's 2: update the viber "
               "plugin");
}

BOOST_AUTO_TEST_CASE(equal_numbers_give_no_note) {
    BOOST_TEST(hook::schema_note(std::string("schema: 2\n"), std::string("schema: 2\n")).empty());
    BOOST_TEST(
        hook::schema_note(std::string("schema: 007\n"), std::string("schema: 7 # x\n")).empty());
}

BOOST_AUTO_TEST_CASE(no_project_file_or_no_template_gives_no_note) {
    BOOST_TEST(hook::schema_note(std::nullopt, std::string("schema: 2\n")).empty());
    BOOST_TEST(hook::schema_note(std::string("schema: 1\n"), std::nullopt).empty());
    BOOST_TEST(hook::schema_note(std::nullopt, std::nullopt).empty());
}

BOOST_AUTO_TEST_CASE(a_readable_file_without_a_schema_line_is_zero) {
    BOOST_TEST(hook::schema_note(std::string("planning:\n  x: 1\n"), std::string("schema: 2\n")) ==
               " - .claude/viber.yml is at schema 0, this version expects 2: run /viber:setup");
    BOOST_TEST(hook::schema_note(std::string("schema: 1\n"), std::string("")) ==
               " - .claude/viber.yml is at schema 1, newer than this version's 0: update the viber "
               "plugin");
}

BOOST_AUTO_TEST_CASE(numbers_are_printed_in_decimal) {
    BOOST_TEST(hook::schema_note(std::string("schema: 007\n"), std::string("schema: 010\n")) ==
               " - .claude/viber.yml is at schema 7, this version expects 10: run /viber:setup");
}

BOOST_AUTO_TEST_CASE(the_note_follows_the_version_in_the_banner) {
    Inputs inputs;
    inputs.plugin_root = "/plugins/viber/1.2.0";
    inputs.project_yml = "schema: 1\n";
    inputs.template_yml = "schema: 2\n";
    BOOST_TEST(hook::banner(inputs) == "viber loaded 1.2.0 - .claude/viber.yml is at schema 1, "
                                       "this version expects 2: run /viber:setup");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(context_cap)

BOOST_AUTO_TEST_CASE(code_points_of_valid_utf8) {
    BOOST_TEST(viber::utf8::code_points("") == 0u);
    BOOST_TEST(viber::utf8::code_points("abc") == 3u);
    BOOST_TEST(viber::utf8::code_points("caf\xC3\xA9") == 4u);
    BOOST_TEST(viber::utf8::code_points("\xE2\x82\xAC") == 1u);
    BOOST_TEST(viber::utf8::code_points("\xF0\x9F\x98\x80!") == 2u);
}

BOOST_AUTO_TEST_CASE(each_invalid_byte_counts_as_one) {
    BOOST_TEST(viber::utf8::code_points("\xFF") == 1u);
    BOOST_TEST(viber::utf8::code_points("\x80\x80") == 2u);         // stray continuation bytes
    BOOST_TEST(viber::utf8::code_points("a\xC3") == 2u);            // truncated at the end
    BOOST_TEST(viber::utf8::code_points("\xE2\x82x") == 3u);        // truncated before ASCII
    BOOST_TEST(viber::utf8::code_points("\xC0\xAF") == 2u);         // overlong
    BOOST_TEST(viber::utf8::code_points("\xED\xA0\x80") == 3u);     // surrogate
    BOOST_TEST(viber::utf8::code_points("\xF4\x90\x80\x80") == 4u); // past U+10FFFF
}

BOOST_AUTO_TEST_CASE(exactly_10000_characters_gives_no_note) {
    Inputs inputs;
    inputs.manifest = std::string(10000, 'a');
    BOOST_TEST(hook::banner(inputs) == "viber loaded dev");
}

BOOST_AUTO_TEST_CASE(past_10000_characters_gives_the_note) {
    Inputs inputs;
    inputs.manifest = std::string(10001, 'a');
    BOOST_TEST(
        hook::banner(inputs) ==
        "viber loaded dev - manifest.md has 10001 characters, over the 10000 Claude Code keeps");
}

BOOST_AUTO_TEST_CASE(characters_are_code_points_not_bytes) {
    Inputs inputs;
    inputs.manifest = repeat("\xC3\xA9", 10000); // 20000 bytes, 10000 characters
    BOOST_TEST(hook::banner(inputs) == "viber loaded dev");
    inputs.manifest = repeat("\xE2\x82\xAC", 10001);
    BOOST_TEST(
        hook::banner(inputs) ==
        "viber loaded dev - manifest.md has 10001 characters, over the 10000 Claude Code keeps");
}

BOOST_AUTO_TEST_CASE(invalid_bytes_count_one_each) {
    Inputs inputs;
    inputs.manifest = std::string(9999, 'a') + "\xFF\xFE";
    BOOST_TEST(
        hook::banner(inputs) ==
        "viber loaded dev - manifest.md has 10001 characters, over the 10000 Claude Code keeps");
}

BOOST_AUTO_TEST_CASE(the_count_is_of_the_injected_text) {
    Inputs inputs;
    inputs.manifest = std::string(10000, 'a') + "\r\n\n\n";
    BOOST_TEST(hook::banner(inputs) == "viber loaded dev");
}

BOOST_AUTO_TEST_CASE(the_manifest_still_goes_in_whole) {
    Inputs inputs;
    inputs.manifest = std::string(12000, 'a');
    const auto answer = hook::decide(inputs);
    BOOST_TEST(answer.at("hookSpecificOutput").at("additionalContext").as_string().size() ==
               12000u);
}

BOOST_AUTO_TEST_CASE(the_cap_note_comes_after_the_schema_note) {
    Inputs inputs;
    inputs.plugin_root = "/p/viber/2.0.0/";
    inputs.manifest = std::string(10500, 'a');
    inputs.project_yml = "schema: 5\n";
    inputs.template_yml = "schema: 4\n";
    BOOST_TEST(hook::banner(inputs) ==
               "viber loaded 2.0.0 - .claude/viber.yml is at schema 5, newer than this version's "
               "4: update the viber "
               "plugin - manifest.md has 10500 characters, over the 10000 Claude Code keeps");
}

BOOST_AUTO_TEST_CASE(a_whitespace_only_manifest_gives_no_note) {
    Inputs inputs;
    inputs.manifest = std::string(20000, ' ');
    BOOST_TEST(hook::banner(inputs) == "viber loaded dev");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(reading)

BOOST_AUTO_TEST_CASE(the_project_file_is_at_the_git_top_level) {
    ScratchDir repo;
    repo.mkdir(".git");
    const std::string file = repo.write(".claude/viber.yml", "schema: 1\n");
    BOOST_TEST(hook::project_config_path(repo.mkdir("src/deep")) == file);
}

BOOST_AUTO_TEST_CASE(without_a_file_at_the_top_the_project_file_is_in_cwd) {
    ScratchDir repo;
    repo.mkdir(".git");
    const std::string cwd = repo.mkdir("sub");
    BOOST_TEST(hook::project_config_path(cwd) == cwd + "/.claude/viber.yml");
}

BOOST_AUTO_TEST_CASE(without_a_git_top_level_the_project_file_is_in_cwd) {
    ScratchDir dir;
    BOOST_TEST(hook::project_config_path(dir.path()) == dir.path() + "/.claude/viber.yml");
}

BOOST_AUTO_TEST_CASE(gather_reads_the_plugin_tree_and_the_project) {
    ScratchDir plugin;
    plugin.write("hooks/content/manifest.md", "M\n");
    plugin.write("skills/setup/templates/viber.yml", "schema: 4\n");
    ScratchDir repo;
    repo.mkdir(".git");
    repo.write(".claude/viber.yml", "schema: 3\n");
    PluginRootEnv env(plugin.path().c_str());
    const Inputs inputs = gather(repo.path());
    BOOST_TEST(inputs.manifest.value_or("<none>") == "M\n");
    BOOST_TEST(inputs.plugin_root.value_or("<none>") == plugin.path());
    BOOST_TEST(inputs.project_yml.value_or("<none>") == "schema: 3\n");
    BOOST_TEST(inputs.template_yml.value_or("<none>") == "schema: 4\n");
}

BOOST_AUTO_TEST_CASE(gather_without_cwd_reads_no_yml) {
    ScratchDir plugin;
    plugin.write("hooks/content/manifest.md", "M\n");
    plugin.write("skills/setup/templates/viber.yml", "schema: 4\n");
    PluginRootEnv env(plugin.path().c_str());
    const Inputs inputs = gather(std::nullopt);
    BOOST_TEST(inputs.manifest.has_value());
    BOOST_TEST(!inputs.project_yml);
    BOOST_TEST(!inputs.template_yml);
}

// An empty CLAUDE_PLUGIN_ROOT counts as unset: the plugin directory is the executable's ../..,
// as for every other plugin file.
BOOST_AUTO_TEST_CASE(an_empty_plugin_root_is_the_executables_directory) {
    PluginRootEnv env("");
    const std::optional<std::string> root = gather(std::nullopt).plugin_root;
    BOOST_REQUIRE(root.has_value());
    BOOST_TEST(*root == viber::plugin_root());
    BOOST_TEST(!root->empty());
}

BOOST_AUTO_TEST_CASE(a_bad_payload_still_gives_the_banner) {
    PluginRootEnv env("/nonexistent/viber/3.1.0");
    for (const std::optional<std::string>& payload :
         {std::optional<std::string>{}, std::optional<std::string>{""},
          std::optional<std::string>{"not json"}, std::optional<std::string>{"[1]"},
          std::optional<std::string>{"{\"cwd\":7}"},
          std::optional<std::string>{"{\"cwd\":\"\"}"}}) {
        const viber::HookInfo session_start{.name = "session-start", .decide = hook::decide};
        const auto answer = viber::testing::hook_answer(session_start, payload);
        BOOST_REQUIRE(answer);
        BOOST_TEST(answer->at("systemMessage").as_string() == "viber loaded 3.1.0");
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(fail_open_still_prints_the_banner) {
    PluginRootEnv env("");
    const auto answer = hook::fail_open().answer;
    BOOST_REQUIRE(answer);
    const std::string root = viber::plugin_root();
    BOOST_TEST(answer->as_object().at("systemMessage").as_string() ==
               "viber loaded " + root.substr(root.find_last_of('/') + 1));
}
