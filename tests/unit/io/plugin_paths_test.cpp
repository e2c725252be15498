// plugin_paths_test.cpp: the finding-files rule (docs/contract.md) for finding a plugin file, and
// the plugin root.
#define BOOST_TEST_MODULE plugin_paths
#include "common/io/files.hpp"
#include "common/io/plugin_paths.hpp"
#include "support/environment.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using viber::plugin_file;
using viber::testing::ScratchDir;

using viber::testing::PluginRootEnv;

namespace {

constexpr std::string_view rel = "hooks/content/manifest.md";

std::string this_executable_dir() {
#ifdef _WIN32
    // Independent of GetModuleFileNameW: the path this test was started by.
    const auto& suite = boost::unit_test::framework::master_test_suite();
    return boost::filesystem::canonical(suite.argv[0]).parent_path().generic_string();
#else
    return boost::filesystem::read_symlink("/proc/self/exe").parent_path().string();
#endif
}

} // namespace

BOOST_AUTO_TEST_CASE(the_env_root_wins_when_it_holds_the_file) {
    ScratchDir root;
    const std::string file = root.write(rel, "manifest");
    BOOST_TEST(plugin_file(rel, root.path().c_str(), "/opt/x/hooks/bin") == file);
}

BOOST_AUTO_TEST_CASE(an_env_root_without_the_file_falls_back_to_the_executable) {
    ScratchDir root;
    BOOST_TEST(plugin_file(rel, root.path().c_str(), "/opt/x/hooks/bin") ==
               "/opt/x/hooks/bin/../../hooks/content/manifest.md");
}

BOOST_AUTO_TEST_CASE(an_env_root_that_does_not_exist_falls_back) {
    BOOST_TEST(plugin_file(rel, "/nonexistent/viber/1.2.0", "/opt/x/hooks/bin") ==
               "/opt/x/hooks/bin/../../hooks/content/manifest.md");
}

BOOST_AUTO_TEST_CASE(an_unset_env_falls_back) {
    BOOST_TEST(plugin_file(rel, nullptr, "/opt/x/hooks/bin") ==
               "/opt/x/hooks/bin/../../hooks/content/manifest.md");
}

BOOST_AUTO_TEST_CASE(an_empty_env_falls_back) {
    BOOST_TEST(plugin_file(rel, "", "/opt/x/hooks/bin") ==
               "/opt/x/hooks/bin/../../hooks/content/manifest.md");
}

BOOST_AUTO_TEST_CASE(an_env_path_that_is_not_a_regular_file_falls_back,
                     *viber::testing::posix_only("a FIFO")) {
    ScratchDir root;
    root.mkdir(rel); // a directory where the file should be
    BOOST_TEST(plugin_file(rel, root.path().c_str(), "/opt/x/hooks/bin") ==
               "/opt/x/hooks/bin/../../hooks/content/manifest.md");
    ScratchDir fifo_root;
    fifo_root.mkdir("hooks/content");
    BOOST_REQUIRE(::mkfifo((fifo_root / rel).c_str(), 0600) == 0);
    BOOST_TEST(plugin_file(rel, fifo_root.path().c_str(), "/opt/x/hooks/bin") ==
               "/opt/x/hooks/bin/../../hooks/content/manifest.md");
}

BOOST_AUTO_TEST_CASE(an_env_root_with_a_trailing_slash_still_finds_the_file) {
    ScratchDir root;
    root.write(rel, "manifest");
    const std::string with_slash = root.path() + "/";
    const std::string found = plugin_file(rel, with_slash.c_str(), "/opt/x/hooks/bin");
    BOOST_TEST(found.rfind(root.path(), 0) == 0u);
    BOOST_TEST(viber::is_regular_file(found));
}

BOOST_AUTO_TEST_CASE(the_fallback_reads_from_the_tree_around_the_executable) {
    ScratchDir tree;
    const std::string bin = tree.mkdir("hooks/bin");
    tree.write(rel, "from the tree");
    const std::string found = plugin_file(rel, nullptr, bin);
    const auto text = viber::read_regular_file(found);
    BOOST_REQUIRE(text);
    BOOST_TEST(*text == "from the tree");
}

BOOST_AUTO_TEST_CASE(the_process_rule_uses_the_environment) {
    ScratchDir root;
    const std::string file = root.write(rel, "manifest");
    {
        PluginRootEnv env(root.path().c_str());
        BOOST_TEST(plugin_file(rel) == file);
    }
    {
        PluginRootEnv env(nullptr);
        BOOST_TEST(plugin_file(rel) == this_executable_dir() + "/../../" + std::string(rel));
    }
    {
        PluginRootEnv env("");
        BOOST_TEST(plugin_file(rel) == this_executable_dir() + "/../../" + std::string(rel));
    }
}

BOOST_AUTO_TEST_CASE(executable_dir_is_the_real_directory_of_this_process) {
    BOOST_TEST(viber::executable_dir() == this_executable_dir());
}

BOOST_AUTO_TEST_CASE(plugin_root_is_the_env_without_trailing_slashes) {
    PluginRootEnv env("/plugins/viber/1.2.0//");
    BOOST_TEST(viber::plugin_root() == "/plugins/viber/1.2.0");
}

BOOST_AUTO_TEST_CASE(plugin_root_without_env_is_two_levels_above_the_executable) {
    PluginRootEnv env(nullptr);
    const auto expected =
        (boost::filesystem::path(this_executable_dir()) / ".." / "..").lexically_normal();
    BOOST_TEST(viber::plugin_root() == expected.generic_string());
}
