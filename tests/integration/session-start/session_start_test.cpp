// session_start_test.cpp: the session-start binary run as Claude Code runs it, in a scratch
// plugin tree whose every file the test writes (docs/session-start.md and the fail-open matrix of
// docs/contract.md).
#define BOOST_TEST_MODULE integration_session_start
#include "support/environment.hpp"
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace json = boost::json;
using viber::testing::PluginTree;
using viber::testing::RunOptions;
using viber::testing::RunResult;
using viber::testing::ScratchDir;
using viber::testing::StdinMode;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view manifest_rel = "hooks/content/manifest.md";
constexpr std::string_view template_rel = "skills/setup/templates/viber.yml";
constexpr std::string_view yml_rel = ".claude/viber.yml";

// A plugin tree holding session-start, and a project repository.
struct Fixture {
    PluginTree plugin{"session-start"};
    ScratchDir repo;
    Fixture() { repo.mkdir(".git"); }

    RunResult run(const std::string& stdin_bytes,
                  std::map<std::string, std::optional<std::string>> env = {},
                  StdinMode mode = StdinMode::bytes) const {
        RunOptions options;
        options.stdin_bytes = stdin_bytes;
        options.stdin_mode = mode;
        options.env = std::move(env);
        if (options.env.count("CLAUDE_PLUGIN_ROOT") == 0)
            options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
        options.cwd = repo.path();
        options.timeout = 10s; // a hang guard, not a speed assertion
        return viber::testing::run_process(plugin.binary(), options);
    }

    std::string payload(const std::string& cwd) const {
        return json::serialize(json::object{{"session_id", "s"},
                                            {"transcript_path", "/nonexistent/t.jsonl"},
                                            {"cwd", cwd},
                                            {"hook_event_name", "SessionStart"},
                                            {"source", "startup"}});
    }
    std::string payload() const { return payload(repo.path()); }

    // The banner with CLAUDE_PLUGIN_ROOT unset: the plugin directory is the binary's ../.., the
    // tree itself, named by its last segment as an installed version is.
    std::string loaded() const {
        const std::string& root = plugin.path();
        return "viber loaded " + root.substr(root.find_last_of('/') + 1);
    }
};

// The one line the hook printed, checked for shape, parsed.
json::object answer(const RunResult& result) {
    BOOST_TEST(!result.timed_out);
    BOOST_TEST(result.exit_code == 0);
    BOOST_TEST(result.signal == 0);
    BOOST_REQUIRE(!result.out.empty());
    BOOST_TEST(result.out.back() == '\n');
    BOOST_TEST(result.out.find('\n') == result.out.size() - 1);
    json::value value = json::parse(result.out);
    BOOST_REQUIRE(value.is_object());
    return value.as_object();
}

std::string banner(const json::object& answer) {
    return std::string(answer.at("systemMessage").as_string());
}

std::optional<std::string> context(const json::object& answer) {
    const auto& inner = answer.at("hookSpecificOutput").as_object();
    BOOST_TEST(inner.at("hookEventName").as_string() == "SessionStart");
    BOOST_TEST(!inner.contains("systemMessage"));
    if (const auto* value = inner.if_contains("additionalContext"))
        return std::string(value->as_string());
    return std::nullopt;
}

const std::string lower_note =
    " - .claude/viber.yml is at schema 1, this version expects 2: run /viber:setup";
const std::string higher_note =
    " - .claude/viber.yml is at schema 3, newer than this version's 2: update the viber plugin";

} // namespace

using viber::testing::IgnoreSigpipe;
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

BOOST_AUTO_TEST_SUITE(manifest)

BOOST_AUTO_TEST_CASE(the_manifest_goes_in_verbatim_with_trailing_newlines_cut) {
    Fixture f;
    f.plugin.write(manifest_rel, "<viber-hooks>\n  \"rules\" \\ here\t\n</viber-hooks>\n\n");
    const RunResult result = f.run(f.payload());
    BOOST_TEST(
        result.out ==
        "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"<"
        "viber-hooks>\\n  "
        "\\\"rules\\\" \\\\ here\\t\\n</viber-hooks>\"},\"systemMessage\":\"" +
            f.loaded() + "\"}\n");
    BOOST_TEST(result.exit_code == 0);
    BOOST_TEST(result.err.empty());
}

BOOST_AUTO_TEST_CASE(crlf_trailing_newlines_are_cut) {
    Fixture f;
    f.plugin.write(manifest_rel, "line 1\r\nline 2\r\n\r\n");
    BOOST_TEST(context(answer(f.run(f.payload()))).value_or("<none>") == "line 1\r\nline 2");
}

BOOST_AUTO_TEST_CASE(an_empty_manifest_is_no_context_key) {
    Fixture f;
    f.plugin.write(manifest_rel, "");
    const RunResult result = f.run(f.payload());
    BOOST_TEST(result.out == "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\"},"
                             "\"systemMessage\":\"" +
                                 f.loaded() + "\"}\n");
}

BOOST_AUTO_TEST_CASE(a_whitespace_only_manifest_is_no_context_key) {
    Fixture f;
    f.plugin.write(manifest_rel, " \n\t \r\n\n");
    const auto got = answer(f.run(f.payload()));
    BOOST_TEST(!context(got));
    BOOST_TEST(banner(got) == f.loaded());
}

BOOST_AUTO_TEST_CASE(a_missing_manifest_is_no_context_key) {
    Fixture f;
    const auto got = answer(f.run(f.payload()));
    BOOST_TEST(!context(got));
    BOOST_TEST(banner(got) == f.loaded());
}

BOOST_AUTO_TEST_CASE(a_manifest_that_is_a_fifo_is_skipped_without_blocking,
                     *viber::testing::posix_only("a FIFO")) {
    Fixture f;
    f.plugin.mkdir("hooks/content");
    BOOST_REQUIRE(::mkfifo((f.plugin / manifest_rel).c_str(), 0600) == 0);
    const auto got = answer(f.run(f.payload()));
    BOOST_TEST(!context(got));
    BOOST_TEST(banner(got) == f.loaded());
}

BOOST_AUTO_TEST_CASE(a_manifest_that_is_a_directory_is_skipped) {
    Fixture f;
    f.plugin.mkdir(manifest_rel);
    const auto got = answer(f.run(f.payload()));
    BOOST_TEST(!context(got));
    BOOST_TEST(banner(got) == f.loaded());
}

BOOST_AUTO_TEST_CASE(a_manifest_that_is_a_dangling_link_is_skipped,
                     *viber::testing::posix_only("a symlink made by a test")) {
    Fixture f;
    f.plugin.mkdir("hooks/content");
    BOOST_REQUIRE(::symlink((f.plugin / "nowhere.md").c_str(), (f.plugin / manifest_rel).c_str()) ==
                  0);
    const auto got = answer(f.run(f.payload()));
    BOOST_TEST(!context(got));
}

BOOST_AUTO_TEST_CASE(an_unreadable_manifest_is_skipped,
                     *viber::testing::posix_only("a symlink made by a test")) {
    // /proc/self/mem is a regular file whose read fails, even for root (mode 000 does not stop
    // root, and the tests may run as root).
    Fixture f;
    f.plugin.mkdir("hooks/content");
    BOOST_REQUIRE(::symlink("/proc/self/mem", (f.plugin / manifest_rel).c_str()) == 0);
    const auto got = answer(f.run(f.payload()));
    BOOST_TEST(!context(got));
    BOOST_TEST(banner(got) == f.loaded());
}

BOOST_AUTO_TEST_CASE(claude_plugin_root_holding_the_manifest_wins) {
    Fixture f;
    f.plugin.write(manifest_rel, "from the tree");
    ScratchDir other;
    const std::string root = other.mkdir("viber/4.5.6");
    other.write("viber/4.5.6/hooks/content/manifest.md", "from CLAUDE_PLUGIN_ROOT\n");
    const auto got = answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", root}}));
    BOOST_TEST(context(got).value_or("<none>") == "from CLAUDE_PLUGIN_ROOT");
    BOOST_TEST(banner(got) == "viber loaded 4.5.6");
}

BOOST_AUTO_TEST_CASE(claude_plugin_root_without_the_manifest_falls_back_to_the_tree) {
    Fixture f;
    f.plugin.write(manifest_rel, "from the tree");
    const auto got =
        answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", "/nonexistent/viber/1.5.0"}}));
    BOOST_TEST(context(got).value_or("<none>") == "from the tree");
    BOOST_TEST(banner(got) == "viber loaded 1.5.0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(version)

// Unset, the plugin directory is found as every plugin file is (<exe dir>/../..): the banner
// names the tree the binary runs from, as `viber loaded dist` from a checkout's dist/.
BOOST_AUTO_TEST_CASE(unset_is_the_directory_the_binary_runs_from) {
    Fixture f;
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(empty_is_the_directory_the_binary_runs_from) {
    Fixture f;
    BOOST_TEST(banner(answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", ""}}))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(the_last_segment_is_the_version) {
    Fixture f;
    BOOST_TEST(
        banner(answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT",
                                           "/home/u/.claude/plugins/cache/viber/viber/1.2.0"}}))) ==
        "viber loaded 1.2.0");
}

BOOST_AUTO_TEST_CASE(trailing_slashes_are_ignored) {
    Fixture f;
    BOOST_TEST(
        banner(answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", "/plugins/viber/1.2.0//"}}))) ==
        "viber loaded 1.2.0");
}

BOOST_AUTO_TEST_CASE(backslashes_read_as_slashes) {
    Fixture f;
    BOOST_TEST(banner(answer(
                   f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", "C:\\plugins\\viber\\2.1.0\\"}}))) ==
               "viber loaded 2.1.0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(schema_note)

BOOST_AUTO_TEST_CASE(project_lower_than_the_template) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\nplanning:\n  plain-plan-review: false\n");
    f.repo.write(yml_rel, "schema: 1\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded() + lower_note);
}

BOOST_AUTO_TEST_CASE(project_higher_than_the_template) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.write(yml_rel, "schema: 3 # newer\n");
    BOOST_TEST(banner(answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", "/x/viber/1.0.0"}}))) ==
               "viber loaded 1.0.0" + higher_note);
}

BOOST_AUTO_TEST_CASE(equal_numbers_give_the_plain_banner) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 7\n");
    f.repo.write(yml_rel, "schema: 007\r\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(the_project_file_at_the_git_top_level_is_used_from_a_subdirectory) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.write(yml_rel, "schema: 1\n");
    const std::string sub = f.repo.mkdir("src/deep");
    f.repo.write("src/deep/.claude/viber.yml",
                 "schema: 2\n"); // not the project file: the top's exists
    BOOST_TEST(banner(answer(f.run(f.payload(sub)))) == f.loaded() + lower_note);
}

BOOST_AUTO_TEST_CASE(without_a_file_at_the_top_the_cwd_file_is_used) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    const std::string sub = f.repo.mkdir("pkg");
    f.repo.write("pkg/.claude/viber.yml", "schema: 3\n");
    BOOST_TEST(banner(answer(f.run(f.payload(sub)))) == f.loaded() + higher_note);
}

BOOST_AUTO_TEST_CASE(without_a_git_top_level_the_cwd_file_is_used) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    ScratchDir plain;
    plain.write(yml_rel, "schema: 1\n");
    BOOST_TEST(banner(answer(f.run(f.payload(plain.path())))) == f.loaded() + lower_note);
}

BOOST_AUTO_TEST_CASE(a_project_file_without_a_schema_line_is_at_schema_0) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.write(yml_rel, "planning:\n  schema: 9\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) ==
               f.loaded() + " - .claude/viber.yml is at schema 0, this version expects 2: run "
                            "/viber:setup");
}

BOOST_AUTO_TEST_CASE(a_non_numeric_schema_is_0) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.write(yml_rel, "schema: two\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) ==
               f.loaded() + " - .claude/viber.yml is at schema 0, this version expects 2: run "
                            "/viber:setup");
}

BOOST_AUTO_TEST_CASE(no_project_file_gives_the_plain_banner) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(no_template_gives_the_plain_banner) {
    Fixture f;
    f.repo.write(yml_rel, "schema: 1\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(an_unreadable_template_gives_the_plain_banner) {
    Fixture f;
    f.plugin.mkdir(template_rel); // a directory where the template should be
    f.repo.write(yml_rel, "schema: 1\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(a_project_file_that_is_a_fifo_has_no_schema,
                     *viber::testing::posix_only("a FIFO")) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.mkdir(".claude");
    BOOST_REQUIRE(::mkfifo((f.repo / yml_rel).c_str(), 0600) == 0);
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(the_template_comes_from_claude_plugin_root_first) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 1\n"); // equal to the project: no note if read
    ScratchDir other;
    const std::string root = other.mkdir("viber/9.0.0");
    other.write("viber/9.0.0/skills/setup/templates/viber.yml", "schema: 2\n");
    f.repo.write(yml_rel, "schema: 1\n");
    BOOST_TEST(banner(answer(f.run(f.payload(), {{"CLAUDE_PLUGIN_ROOT", root}}))) ==
               "viber loaded 9.0.0" + lower_note);
}

BOOST_AUTO_TEST_CASE(no_cwd_gives_the_plain_banner) {
    Fixture f;
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.write(yml_rel,
                 "schema: 1\n"); // also the process cwd: still not read without a payload cwd
    BOOST_TEST(banner(answer(f.run(R"({"hook_event_name":"SessionStart","source":"startup"})"))) ==
               f.loaded());
}

BOOST_AUTO_TEST_CASE(the_source_is_not_filtered) {
    Fixture f;
    f.plugin.write(manifest_rel, "M");
    for (const auto* source : {"startup", "clear", "compact", "resume"}) {
        const std::string payload =
            json::serialize(json::object{{"cwd", f.repo.path()}, {"source", source}});
        BOOST_TEST(context(answer(f.run(payload))).value_or("<none>") == "M", source);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(context_cap)

BOOST_AUTO_TEST_CASE(a_manifest_of_10000_characters_gives_no_note) {
    Fixture f;
    f.plugin.write(manifest_rel, std::string(10000, 'a') + "\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) == f.loaded());
}

BOOST_AUTO_TEST_CASE(a_longer_manifest_is_cut_to_the_cap_with_the_note) {
    // The writer's rule (docs/contract.md, "Output"): no context over 10,000 characters; the
    // banner still tells the user how long the manifest is.
    Fixture f;
    std::string text;
    for (int i = 0; i < 5001; ++i) text += "\xC3\xA9\xE2\x82\xAC"; // 10002 characters, 25005 bytes
    f.plugin.write(manifest_rel, text + "\r\n");
    const auto got = answer(f.run(f.payload()));
    const std::string kept = text.substr(0, 9936 / 2 * 5); // no line end: cut between characters
    BOOST_TEST(context(got).value_or("") == kept + "\n[... 66 more characters left out]");
    BOOST_TEST(banner(got) ==
               f.loaded() +
                   " - manifest.md has 10002 characters, over the 10000 Claude Code keeps");
}

BOOST_AUTO_TEST_CASE(the_cap_note_follows_the_schema_note) {
    Fixture f;
    f.plugin.write(manifest_rel, std::string(12345, 'm'));
    f.plugin.write(template_rel, "schema: 2\n");
    f.repo.write(yml_rel, "schema: 1\n");
    BOOST_TEST(banner(answer(f.run(f.payload()))) ==
               f.loaded() + lower_note +
                   " - manifest.md has 12345 characters, over the 10000 Claude Code keeps");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fail_open)

// In every broken-payload case the banner and the manifest still go out; only cwd is lost, so
// the repository's lower schema gives no note.
struct BrokenPayload : Fixture {
    BrokenPayload() {
        plugin.write(manifest_rel, "M\n");
        plugin.write(template_rel, "schema: 2\n");
        repo.write(yml_rel, "schema: 1\n");
    }
    void expect_plain(const RunResult& result) const {
        const auto got = answer(result);
        BOOST_TEST(context(got).value_or("<none>") == "M");
        BOOST_TEST(banner(got) == loaded());
    }
    void expect_decided(const RunResult& result) const {
        const auto got = answer(result);
        BOOST_TEST(context(got).value_or("<none>") == "M");
        BOOST_TEST(banner(got) == loaded() + lower_note);
    }
};

BOOST_AUTO_TEST_CASE(empty_stdin) {
    BrokenPayload f;
    f.expect_plain(f.run(""));
}

BOOST_AUTO_TEST_CASE(not_json) {
    BrokenPayload f;
    f.expect_plain(f.run("cwd=" + f.repo.path()));
}

BOOST_AUTO_TEST_CASE(a_json_array) {
    BrokenPayload f;
    f.expect_plain(f.run("[" + f.payload() + "]"));
}

BOOST_AUTO_TEST_CASE(truncated_json) {
    BrokenPayload f;
    const std::string payload = f.payload();
    f.expect_plain(f.run(payload.substr(0, payload.size() - 1)));
}

BOOST_AUTO_TEST_CASE(a_cwd_that_is_not_a_string) {
    BrokenPayload f;
    f.expect_plain(f.run(R"({"cwd":["/repo"]})"));
}

BOOST_AUTO_TEST_CASE(a_20_mb_payload_still_decides) {
    BrokenPayload f;
    const std::string payload = json::serialize(json::object{
        {"cwd", f.repo.path()}, {"padding", std::string(20u << 20, 'p')}, {"source", "startup"}});
    f.expect_decided(f.run(payload));
}

BOOST_AUTO_TEST_CASE(a_payload_past_the_64_mib_cap_loses_only_cwd) {
    BrokenPayload f;
    const std::string payload = json::serialize(
        json::object{{"cwd", f.repo.path()}, {"padding", std::string(65u << 20, 'p')}});
    f.expect_plain(f.run(payload));
}

BOOST_AUTO_TEST_CASE(a_bom_payload_still_decides) {
    BrokenPayload f;
    f.expect_decided(f.run("\xEF\xBB\xBF" + f.payload()));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_still_decides) {
    BrokenPayload f;
    const std::string payload =
        "{\"cwd\":\"" + f.repo.path() + "\",\"source\":\"start\xFF\xFEup\"}";
    f.expect_decided(f.run(payload));
}

BOOST_AUTO_TEST_CASE(stdin_held_open_answers_after_the_idle_bound) {
    BrokenPayload f;
    const RunResult result = f.run("", {}, StdinMode::held_open);
    f.expect_plain(result);
    BOOST_TEST(result.seconds >= 1.5); // the 2 s idle bound, not an EOF
    BOOST_TEST(result.seconds < 9.0);  // inside Claude Code's 10 s timeout
}

BOOST_AUTO_TEST_CASE(a_payload_then_stdin_held_open_fails_open_after_the_idle_bound) {
    BrokenPayload f;
    const RunResult result = f.run(f.payload(), {}, StdinMode::held_open);
    f.expect_plain(result);
    BOOST_TEST(result.seconds >= 1.5);
}

BOOST_AUTO_TEST_SUITE_END()
