// paths_test.cpp: the common path helpers: separators, last segment, lexical normal form, the
// `.temp` segment.
#define BOOST_TEST_MODULE paths
#include "common/paths.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

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

BOOST_AUTO_TEST_CASE(lexical_normal_form) {
    const std::pair<const char*, const char*> cases[] = {
        {"/a/b/../c", "/a/c"}, {"/a/./b", "/a/b"}, {"/a//b///c", "/a/b/c"},
        {"/a/b/", "/a/b"},     {"/a/b/.", "/a/b"}, {"/", "/"},
        {"/..", "/"},          {"/../x", "/x"},    {"/a/../../x", "/x"},
        {"a/../b", "b"},       {"./a/", "a"},      {"/c/r/x/../y.md", "/c/r/y.md"},
    };
    for (const auto& [path, normal] : cases)
        BOOST_TEST(paths::lexically_normal(path) == normal, path);
}

BOOST_AUTO_TEST_CASE(temp_segment_anywhere_with_either_separator) {
    BOOST_TEST(paths::has_temp_segment(".temp/x.py"));
    BOOST_TEST(paths::has_temp_segment("/repo/.temp/x.py"));
    BOOST_TEST(paths::has_temp_segment("C:\\repo\\.temp\\x.py"));
    BOOST_TEST(paths::has_temp_segment("a/.temp"));
    BOOST_TEST(!paths::has_temp_segment("a/.tempx/y"));
    BOOST_TEST(!paths::has_temp_segment("a/x.temp/y"));
    BOOST_TEST(!paths::has_temp_segment(""));
}
