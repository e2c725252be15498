// install_test.cpp: `cmake --install <build> --prefix P` lays out the plugin tree of
// docs/contract.md exactly.
#define BOOST_TEST_MODULE install
#include "common/io/files.hpp"
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/filesystem.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace fs = boost::filesystem;
namespace json = boost::json;
using namespace viber::testing;

namespace {

const char* const hook_names[] = {"plan-gate",   "plan-hints",    "kill-guard",
                                  "shell-guard", "verdict-nudge", "session-start"};

// The build tree these tests belong to: the hooks are built into <build>/bin.
std::string build_dir() {
    return fs::canonical(fs::path(VIBER_BIN_DIR) / "..").string();
}

// The cmake that configured the build tree (its cache names it), so the test installs with the
// same version that generated the install scripts.
std::string cmake_command() {
    std::istringstream cache(read_file(build_dir() + "/CMakeCache.txt"));
    const std::string key = "CMAKE_COMMAND:INTERNAL=";
    for (std::string line; std::getline(cache, line);)
        if (line.rfind(key, 0) == 0) return line.substr(key.size());
    return "/usr/bin/cmake";
}

// One install into a fresh prefix, shared by the cases below.
struct Installed {
    ScratchDir prefix;
    RunResult result;
    Installed() {
        RunOptions options;
        options.args = {"--install", build_dir(), "--prefix", prefix.path()};
        options.timeout = std::chrono::seconds(120);
        result = run_process(cmake_command(), options);
    }
    std::string operator/(const std::string& rel) const { return prefix.path() + "/" + rel; }
};

const Installed& installed() {
    static const Installed once;
    return once;
}

} // namespace

BOOST_AUTO_TEST_CASE(cmake_install_succeeds,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    BOOST_TEST(tree.result.exit_code == 0,
               "cmake --install failed: " << tree.result.err << tree.result.out);
    BOOST_TEST(!tree.result.timed_out);
}

BOOST_AUTO_TEST_CASE(tree_holds_exactly_the_spec_layout,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    std::set<std::string> files, directories, other;
    const fs::path root(tree.prefix.path());
    for (fs::recursive_directory_iterator it(root), end; it != end; ++it) {
        const std::string rel = fs::relative(it->path(), root).generic_string();
        const fs::file_status status = fs::symlink_status(it->path());
        if (fs::is_regular_file(status))
            files.insert(rel);
        else if (fs::is_directory(status))
            directories.insert(rel);
        else
            other.insert(rel);
    }
    const std::set<std::string> expected_files{"hooks/hooks.json",
                                               "hooks/bin/plan-gate",
                                               "hooks/bin/plan-hints",
                                               "hooks/bin/kill-guard",
                                               "hooks/bin/shell-guard",
                                               "hooks/bin/verdict-nudge",
                                               "hooks/bin/session-start",
                                               "hooks/content/manifest.md",
                                               "hooks/content/plan-hints.md",
                                               ".claude-plugin/plugin.json",
                                               "scripts/install.sh",
                                               "LICENSE",
                                               "README.md"};
    BOOST_TEST(files == expected_files, boost::test_tools::per_element());
    BOOST_TEST(directories == (std::set<std::string>{"hooks", "hooks/bin", "hooks/content",
                                                     ".claude-plugin", "scripts"}),
               boost::test_tools::per_element());
    BOOST_TEST(other.empty());
}

BOOST_AUTO_TEST_CASE(the_six_binaries_are_executable,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    for (const char* name : hook_names) {
        struct stat info {};
        const std::string path = tree / (std::string("hooks/bin/") + name);
        BOOST_REQUIRE_MESSAGE(::stat(path.c_str(), &info) == 0, path << " missing");
        BOOST_TEST(S_ISREG(info.st_mode));
        BOOST_TEST((info.st_mode & 0111) == 0111, name << " is not executable by all");
    }
}

BOOST_AUTO_TEST_CASE(installed_binaries_answer_version_alike,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    std::set<std::string> versions;
    for (const char* name : hook_names) {
        RunOptions options;
        options.args = {"--version"};
        options.timeout = std::chrono::seconds(10);
        const RunResult run = run_process(tree / (std::string("hooks/bin/") + name), options);
        BOOST_TEST(run.exit_code == 0, name << " --version exited " << run.exit_code);
        const std::string prefix = std::string(name) + " (viber-hooks) ";
        BOOST_TEST(run.out.rfind(prefix, 0) == 0, name << " printed " << run.out);
        if (run.out.rfind(prefix, 0) == 0) versions.insert(run.out.substr(prefix.size()));
    }
    BOOST_TEST(versions.size() == 1u, "the six binaries report different versions");
}

BOOST_AUTO_TEST_CASE(hooks_json_and_content_are_the_source_files,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    BOOST_TEST(read_file(tree / "hooks/hooks.json") == read_file(source_path("hooks/hooks.json")));
    BOOST_TEST(read_file(tree / "hooks/content/manifest.md") ==
               read_file(source_path("content/manifest.md")));
    BOOST_TEST(read_file(tree / "hooks/content/plan-hints.md") ==
               read_file(source_path("content/plan-hints.md")));
    BOOST_TEST(!read_file(tree / "hooks/content/manifest.md").empty());
}

// plugin.json makes the tree a plugin Claude Code loads as is: name viber, the suite version.
BOOST_AUTO_TEST_CASE(plugin_json_names_viber_and_the_suite_version,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    boost::system::error_code ec;
    const json::value manifest = json::parse(read_file(tree / ".claude-plugin/plugin.json"), ec);
    BOOST_TEST_REQUIRE(!ec.failed());
    BOOST_TEST_REQUIRE(manifest.is_object());
    const json::object& fields = manifest.as_object();
    BOOST_TEST(fields.at("name").as_string() == "viber");
    BOOST_TEST(fields.at("version").as_string() == VIBER_VERSION);
    BOOST_TEST(!fields.at("description").as_string().empty());
}

// The installed tree is a working plugin root: with CLAUDE_PLUGIN_ROOT unset, session-start finds
// the manifest through its own location (docs/contract.md) and injects it (docs/session-start.md).
BOOST_AUTO_TEST_CASE(installed_session_start_reads_the_installed_manifest,
                     *viber::testing::posix_only("running the build machine's cmake --install")) {
    const Installed& tree = installed();
    ScratchDir project;
    RunOptions options;
    options.stdin_bytes = json::serialize(json::object{
        {"hook_event_name", "SessionStart"}, {"source", "startup"}, {"cwd", project.path()}});
    options.env["CLAUDE_PLUGIN_ROOT"] = std::nullopt;
    options.cwd = project.path();
    options.timeout = std::chrono::seconds(10);
    const RunResult run = run_process(tree / "hooks/bin/session-start", options);
    BOOST_TEST(run.exit_code == 0);
    BOOST_REQUIRE(!run.out.empty() && run.out.back() == '\n');
    const json::object answer = json::parse(run.out).as_object();
    // Run by hand from the installed tree, the banner names that tree (its last segment).
    const std::string root = tree.prefix.path();
    BOOST_TEST(answer.at("systemMessage").as_string() ==
               "viber loaded " + root.substr(root.find_last_of('/') + 1));
    const std::string file = read_file(tree / "hooks/content/manifest.md");
    const std::string manifest(viber::cut_trailing_newlines(file));
    const json::object& specific = answer.at("hookSpecificOutput").as_object();
    BOOST_TEST(specific.at("hookEventName").as_string() == "SessionStart");
    BOOST_REQUIRE(specific.contains("additionalContext"));
    BOOST_TEST(specific.at("additionalContext").as_string() == manifest);
}
