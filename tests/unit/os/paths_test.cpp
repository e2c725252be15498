// paths_test.cpp: the common path helpers: separators, last segment, the Git Bash spelling of a
// Windows path, lexical segments and normal form, the `.temp` segment.
#define BOOST_TEST_MODULE paths
#include "common/os/paths.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paths = viber::paths;

BOOST_AUTO_TEST_CASE(both_separators) {
    BOOST_TEST(paths::is_separator('/'));
    BOOST_TEST(paths::is_separator('\\'));
    BOOST_TEST(!paths::is_separator(':'));
}

BOOST_AUTO_TEST_CASE(last_segment_after_either_separator) {
    BOOST_TEST(paths::last_segment("/repo/.claude/plans/p.md") == "p.md");
    BOOST_TEST(paths::last_segment("C:\\Users\\me\\plans\\p.md") == "p.md");
    BOOST_TEST(paths::last_segment("p.md") == "p.md");
    BOOST_TEST(paths::last_segment("/repo/") == "");
}

BOOST_AUTO_TEST_CASE(git_bash_spelling_of_each_spelling) {
    const std::pair<const char*, const char*> cases[] = {
        {"C:\\a\\b", "/c/a/b"},           // Windows drive, backslashes
        {"C:/a/b", "/c/a/b"},             // Windows drive, slashes
        {"c:\\a/b", "/c/a/b"},            // lowercase drive, mixed separators
        {"/c/a/b", "/c/a/b"},             // Git Bash already
        {"Z:\\Src\\A.ts", "/z/Src/A.ts"}, // only the drive letter is lowercased
        {"C:", "/c"},                     // the drive alone
        {"C:\\", "/c/"},                  // the drive's root
        {"C:x", "C:x"},                   // drive-relative: no absolute path, kept as written
        {"1:/x", "1:/x"},                 // not a drive letter
        {"CC:/x", "CC:/x"},               // not a drive
        {"src\\a.ts", "src/a.ts"},        // relative, backslashes
        {"\\\\host\\share\\x", "//host/share/x"},
        {"/usr/bin", "/usr/bin"}, // POSIX unchanged
        {"", ""},
    };
    for (const auto& [path, spelling] : cases)
        BOOST_TEST(paths::git_bash_spelling(path) == spelling, path);
}

BOOST_AUTO_TEST_CASE(rooted_segments_resolve_dots_and_clamp_at_the_root) {
    using Segments = std::vector<std::string_view>;
    const std::pair<const char*, Segments> cases[] = {
        {"/a/b/../c", {"a", "c"}},
        {"//a///b/./", {"a", "b"}},
        {"/../x", {"x"}},
        {"/a/../../x", {"x"}},
        {"a/../../b", {"b"}}, // relative text is read from a root too
        {"/", {}},
        {"", {}},
        {"/c/r/.temp/../x.md", {"c", "r", "x.md"}},
    };
    for (const auto& [path, segments] : cases)
        BOOST_TEST(paths::rooted_segments(path) == segments, path);
}

BOOST_AUTO_TEST_CASE(lexical_normal_form) {
    const std::pair<const char*, const char*> cases[] = {
        {"/a/b/../c", "/a/c"},
        {"/a/./b", "/a/b"},
        {"/a//b///c", "/a/b/c"},
        {"/a/b/", "/a/b"},
        {"/a/b/.", "/a/b"},
        {"/", "/"},
        {"/..", "/"},
        {"/../x", "/x"},
        {"/a/../../x", "/x"},
        {"a/../b", "b"},
        {"./a/", "a"},
        {"/c/r/x/../y.md", "/c/r/y.md"},
        // Relative paths keep the `..` they cannot resolve; nothing left is `.`.
        {"../x", "../x"},
        {"a/../..", ".."},
        {"../../x/../y", "../../y"},
        {"a/..", "."},
        {"", "."},
        {"./", "."},
        // Already normal: returned as it is.
        {"/c/r/src/a.ts", "/c/r/src/a.ts"},
        {"src/a.ts", "src/a.ts"},
        {"//a", "/a"},
        {"/a/.b/..c", "/a/.b/..c"},
    };
    for (const auto& [path, normal] : cases)
        BOOST_TEST(paths::lexically_normal(path) == normal, path);
}

BOOST_AUTO_TEST_CASE(drive_spellings_normalise_to_one) {
    for (const char* path :
         {"C:\\r\\src\\..\\a.ts", "c:/r/./a.ts", "/c/r//a.ts", "C:/r/lib/../a.ts"})
        BOOST_TEST(paths::lexically_normal(paths::git_bash_spelling(path)) == "/c/r/a.ts", path);
}

BOOST_AUTO_TEST_CASE(temp_segment_anywhere_with_either_separator) {
    BOOST_TEST(paths::has_temp_segment(".temp/x.py"));
    BOOST_TEST(paths::has_temp_segment("/repo/.temp/x.py"));
    BOOST_TEST(paths::has_temp_segment("C:\\repo\\.temp\\x.py"));
    BOOST_TEST(paths::has_temp_segment("a/.temp"));
    BOOST_TEST(!paths::has_temp_segment("a/.tempx/y"));
    BOOST_TEST(!paths::has_temp_segment("a/x.temp/y"));
    BOOST_TEST(!paths::has_temp_segment(""));
    BOOST_TEST(paths::has_temp_segment(".temp"));
    BOOST_TEST(paths::has_temp_segment("a\\.temp\\"));
    BOOST_TEST(!paths::has_temp_segment(".tem/p"));
    BOOST_TEST(!paths::has_temp_segment("/.temp.md"));
}
