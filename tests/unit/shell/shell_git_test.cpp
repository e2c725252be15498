// shell_git_test.cpp: git's global options read up to the subcommand (common/shell/shell_git).
#define BOOST_TEST_MODULE shell_git
#include "common/shell/shell_git.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

using viber::shell::git_globals;
using viber::shell::GitGlobals;
using viber::shell::Word;

namespace {

// git's arguments as literal words, split on spaces.
struct Args {
    std::vector<std::string> texts;
    std::vector<Word> words;
    explicit Args(std::string_view line) {
        for (std::size_t at = 0; at < line.size();) {
            const std::size_t space = std::min(line.find(' ', at), line.size());
            texts.emplace_back(line.substr(at, space - at));
            at = space + 1;
        }
        for (const std::string& t : texts) {
            Word w;
            w.text = t;
            words.push_back(w);
        }
    }
};

GitGlobals read(const Args& args) {
    return git_globals(args.words);
}

using Settings = std::vector<std::string_view>;

} // namespace

BOOST_AUTO_TEST_CASE(the_subcommand_comes_after_the_global_options) {
    BOOST_TEST(read(Args("stash")).subcommand == 0u);
    BOOST_TEST(read(Args("-C dir stash")).subcommand == 2u);
    BOOST_TEST(read(Args("-Cdir stash")).subcommand == 1u);
    BOOST_TEST(read(Args("--git-dir .git --work-tree w --namespace n stash")).subcommand == 6u);
    BOOST_TEST(read(Args("--git-dir=.git --no-pager -P --bare stash")).subcommand == 4u);
    BOOST_TEST(read(Args("--super-prefix p --attr-source s --shallow-file x stash")).subcommand ==
               6u);
    // A value option at the end: no subcommand.
    BOOST_TEST(read(Args("-C")).subcommand == 1u);
    BOOST_TEST(read(Args("-C dir")).subcommand == 2u);
    BOOST_TEST(!read(Args("-C dir stash")).exits);
}

BOOST_AUTO_TEST_CASE(an_option_that_prints_and_exits_ends_the_reading) {
    for (const char* line : {"--version stash", "-v stash", "--help stash", "-h stash",
                             "--html-path stash", "--man-path stash", "--info-path stash",
                             "--exec-path stash", "-C d --exec-path stash", "-- stash"}) {
        BOOST_TEST_CONTEXT(line) {
            const GitGlobals g = read(Args(line));
            BOOST_TEST(g.exits);
        }
    }
    // --exec-path=DIR sets the directory and goes on.
    BOOST_TEST(!read(Args("--exec-path=/x stash")).exits);
}

BOOST_AUTO_TEST_CASE(what_c_and_config_env_set_in_order) {
    const Args args("-c a.b=1 -cALIAS.x=stash --config-env c.d=E --config-env=alias.y=F -C c.e=2 "
                    "status");
    const GitGlobals g = read(args);
    BOOST_TEST(g.settings == (Settings{"a.b=1", "ALIAS.x=stash", "c.d=E", "alias.y=F"}),
               boost::test_tools::per_element());
    BOOST_TEST(g.subcommand == 8u);
    // `-c` as the last word sets nothing; `-C`'s value is no setting.
    BOOST_TEST(read(Args("-c")).settings.empty());
    BOOST_TEST(read(Args("--config-env")).settings.empty());
}

BOOST_AUTO_TEST_CASE(shallow_file_takes_a_value_and_list_cmds_exits) {
    BOOST_TEST(read(Args("--shallow-file x stash")).subcommand == 2u);
    BOOST_TEST(read(Args("--list-cmds=main stash")).exits);
    BOOST_TEST(!read(Args("--list-cmds stash")).exits);
}
