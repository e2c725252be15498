// git_test.cpp: the git top level of a directory, found by walking up for `.git`.
#define BOOST_TEST_MODULE git
#include "common/os/git.hpp"
#include "common/os/os.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

using viber::git_top_level;
using viber::testing::ScratchDir;

namespace {

// The "no repository" cases only mean something when no ancestor of the scratch area is one.
bool ancestors_hold_no_git(const std::string& dir) {
    for (boost::filesystem::path at = dir; !at.empty(); at = at.parent_path()) {
        if (boost::filesystem::exists(at / ".git")) return false;
        if (at == at.parent_path()) break;
    }
    return true;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_git_directory_marks_the_top) {
    ScratchDir repo;
    repo.mkdir(".git");
    const auto top = git_top_level(repo.path());
    BOOST_REQUIRE(top);
    BOOST_TEST(*top == repo.path());
}

BOOST_AUTO_TEST_CASE(a_git_file_marks_the_top) {
    ScratchDir repo;
    repo.write(".git", "gitdir: /elsewhere/.git/worktrees/w\n");
    const auto top = git_top_level(repo.mkdir("src/deep"));
    BOOST_REQUIRE(top);
    BOOST_TEST(*top == repo.path());
}

BOOST_AUTO_TEST_CASE(a_subdirectory_walks_up) {
    ScratchDir repo;
    repo.mkdir(".git");
    const auto top = git_top_level(repo.mkdir("a/b/c"));
    BOOST_REQUIRE(top);
    BOOST_TEST(*top == repo.path());
}

BOOST_AUTO_TEST_CASE(the_nearest_repository_wins) {
    ScratchDir repo;
    repo.mkdir(".git");
    repo.write("vendor/lib/.git", "gitdir: ../../.git/modules/lib\n");
    const auto inner = git_top_level(repo.mkdir("vendor/lib/src"));
    BOOST_REQUIRE(inner);
    BOOST_TEST(*inner == repo / "vendor/lib");
    const auto outer = git_top_level(repo.mkdir("vendor/other"));
    BOOST_REQUIRE(outer);
    BOOST_TEST(*outer == repo.path());
}

BOOST_AUTO_TEST_CASE(no_repository_is_none) {
    ScratchDir dir;
    BOOST_REQUIRE(ancestors_hold_no_git(dir.path()));
    BOOST_TEST(!git_top_level(dir.path()));
    BOOST_TEST(!git_top_level(dir.mkdir("a/b")));
}

BOOST_AUTO_TEST_CASE(a_git_entry_of_another_kind_is_no_marker,
                     *viber::testing::posix_only("a symlink made by a test")) {
    ScratchDir dir;
    BOOST_REQUIRE(ancestors_hold_no_git(dir.path()));
    BOOST_REQUIRE(::symlink((dir / "missing").c_str(), (dir / ".git").c_str()) == 0);
    BOOST_TEST(!git_top_level(dir.path()));
}

BOOST_AUTO_TEST_CASE(a_trailing_slash_is_ignored) {
    ScratchDir repo;
    repo.mkdir(".git");
    const auto top = git_top_level(repo.path() + "/");
    BOOST_REQUIRE(top);
    BOOST_TEST(*top == repo.path());
    const auto from_sub = git_top_level(repo.mkdir("sub") + "//");
    BOOST_REQUIRE(from_sub);
    BOOST_TEST(*from_sub == repo.path());
}

BOOST_AUTO_TEST_CASE(dot_segments_are_normalized) {
    ScratchDir repo;
    repo.mkdir(".git");
    repo.mkdir("a/b");
    const auto top = git_top_level(repo.path() + "/a/./b/..");
    BOOST_REQUIRE(top);
    BOOST_TEST(*top == repo.path());
}

BOOST_AUTO_TEST_CASE(an_empty_directory_name_is_none) {
    BOOST_TEST(!git_top_level(""));
}

// The process's current directory, put back when the test case ends however it ends.
class CurrentDirectory {
public:
    CurrentDirectory() : before_(boost::filesystem::current_path()) {}
    ~CurrentDirectory() {
        boost::system::error_code ignored;
        boost::filesystem::current_path(before_, ignored);
    }
    CurrentDirectory(const CurrentDirectory&) = delete;
    CurrentDirectory& operator=(const CurrentDirectory&) = delete;
    void change_to(const std::string& dir) const { boost::filesystem::current_path(dir); }

private:
    boost::filesystem::path before_;
};

// Claude Code sends an absolute cwd; a relative one is taken against the process's current
// directory (as the top level would be read back through it, links resolved).
BOOST_AUTO_TEST_CASE(a_relative_directory_is_taken_against_the_current_one) {
    ScratchDir repo;
    repo.mkdir(".git");
    repo.mkdir("a/b/c");
    const CurrentDirectory cwd;
    cwd.change_to(repo.path());
    const std::string expected = boost::filesystem::current_path().generic_string();
    cwd.change_to(repo / "a");
    const auto top = git_top_level("b/c");
    const auto here = git_top_level(".");
    const auto up = git_top_level("../a/b");
    BOOST_REQUIRE(top);
    BOOST_TEST(*top == expected);
    BOOST_REQUIRE(here);
    BOOST_TEST(*here == expected);
    BOOST_REQUIRE(up);
    BOOST_TEST(*up == expected);
}

BOOST_AUTO_TEST_CASE(a_relative_directory_outside_any_repository_is_none) {
    ScratchDir dir;
    BOOST_REQUIRE(ancestors_hold_no_git(dir.path()));
    dir.mkdir("a/b");
    const CurrentDirectory cwd;
    cwd.change_to(dir.path());
    BOOST_TEST(!git_top_level("a/b"));
}

// Fail open: when the current directory is gone, a relative directory has no top level (an
// absolute one is still walked).
BOOST_AUTO_TEST_CASE(a_relative_directory_under_a_removed_current_one_is_none,
                     *viber::testing::posix_only("a process's current directory removed")) {
    ScratchDir repo;
    repo.mkdir(".git");
    const std::string gone = repo.mkdir("gone");
    const CurrentDirectory cwd;
    cwd.change_to(gone);
    boost::filesystem::remove(gone);
    BOOST_TEST(!viber::os::current_directory());
    BOOST_TEST(!git_top_level("sub"));
    const auto absolute = git_top_level(repo / "sub");
    BOOST_REQUIRE(absolute);
    BOOST_TEST(*absolute == repo.path());
}
