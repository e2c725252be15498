// plan_gate_file_limit_test.cpp: the plain plan file limit (docs/plan-gate.md, step 3): which
// tokens count as repository files, their one canonical spelling, and the refusal past 8 files.
#define BOOST_TEST_MODULE plan_gate_file_limit
#include "common/io/files.hpp"
#include "plan-gate/file_limit.hpp"
#include "plan-gate/reasons.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using viber::plan_gate::file_limit_refusal;
using viber::plan_gate::plain_plan_file_limit;
using Files = std::vector<std::string>;
using viber::plan_gate::count_plan_files;
using viber::plan_gate::CountOptions;
using viber::plan_gate::FileTally;

// Every file the plan names: from its text, or (nullopt when it cannot be read whole) from its
// file.
Files plan_files(std::string_view text, const std::string& root, const std::string& plan,
                 CountOptions keep = viber::plan_gate::every_file) {
    return count_plan_files(text, plan, root, keep).value().first;
}
std::optional<Files> plan_file_files(const std::string& plan, const std::string& root,
                                     CountOptions keep = viber::plan_gate::every_file) {
    const std::optional<FileTally> tally = count_plan_files(std::nullopt, plan, root, keep);
    if (!tally) return std::nullopt;
    return tally->first;
}
// The tally the hook takes (the first 40 files, each cut as the refusal shows it).
FileTally plan_tally(std::string_view text, const std::string& root, const std::string& plan) {
    return count_plan_files(text, plan, root).value();
}
// A tally of the files as given.
FileTally tally_of(const Files& files) {
    return FileTally{files.size(), files};
}

// A root that does not exist on this machine, so only path-shaped tokens can count.
const std::string root = "/c/r";
const std::string plan = "/c/r/.claude/plans/p.md";

Files files_of(std::string_view text) {
    return plan_files(text, root, plan);
}

bool holds(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

} // namespace

// ---- path shape ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_relative_path_shaped_token_counts_against_the_root) {
    BOOST_TEST(files_of("Edit src/a.ts first.") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(an_extension_of_one_to_ten_characters_is_path_shaped) {
    BOOST_TEST(files_of("src/a.b") == Files{"/c/r/src/a.b"});
    BOOST_TEST(files_of("src/a.abcdefghij") == Files{"/c/r/src/a.abcdefghij"});
    BOOST_TEST(files_of("src/.gitignore") == Files{"/c/r/src/.gitignore"});
    BOOST_TEST(files_of("lib/x.tar.gz") == Files{"/c/r/lib/x.tar.gz"});
}

BOOST_AUTO_TEST_CASE(an_eleven_character_extension_is_not_path_shaped) {
    BOOST_TEST(files_of("src/a.abcdefghijk").empty());
}

BOOST_AUTO_TEST_CASE(a_token_without_a_slash_or_a_dot_in_its_last_segment_is_not_path_shaped) {
    BOOST_TEST(files_of("a.ts").empty());       // no `/`: only counts when it exists
    BOOST_TEST(files_of("src/noext").empty());  // no `.` after the last `/`
    BOOST_TEST(files_of("src.d/file").empty()); // the `.` is before the last `/`
    BOOST_TEST(files_of("and/or").empty());
}

// ---- wrapping and punctuation ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(backticks_are_stripped) {
    BOOST_TEST(files_of("`src/a.ts`") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("```src/a.ts```") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(double_and_single_quotes_are_stripped) {
    BOOST_TEST(files_of("\"src/a.ts\"") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("'src/a.ts'") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(parentheses_are_stripped) {
    BOOST_TEST(files_of("(src/a.ts)") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(square_curly_and_angle_brackets_are_stripped) {
    BOOST_TEST(files_of("[src/a.ts]") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("{src/a.ts}") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("<src/a.ts>") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(trailing_sentence_punctuation_is_stripped) {
    BOOST_TEST(files_of("src/a.ts.") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("src/a.ts,") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("src/a.ts;") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("src/a.ts:") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("src/a.ts...") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(wrapping_and_punctuation_combine) {
    BOOST_TEST(files_of("(`src/a.ts`),") == Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("(see \"src/b.ts\").") == Files{"/c/r/src/b.ts"});
}

BOOST_AUTO_TEST_CASE(a_table_cell_is_one_unfolded_token_that_counts_as_itself) {
    BOOST_TEST(files_of("|src/a.ts|") == Files{"/c/r/|src/a.ts|"});
    BOOST_TEST(files_of("|src/a.ts| src/a.ts") == (Files{"/c/r/|src/a.ts|", "/c/r/src/a.ts"}));
    // Spaced cells are ordinary tokens; a lone pipe is no file.
    BOOST_TEST(files_of("| src/a.ts | new |") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(every_kind_of_whitespace_separates_tokens) {
    BOOST_TEST(files_of("src/a.ts\tsrc/b.ts\r\nsrc/c.ts\nsrc/d.ts\fsrc/e.ts\vsrc/f.ts") ==
               (Files{"/c/r/src/a.ts", "/c/r/src/b.ts", "/c/r/src/c.ts", "/c/r/src/d.ts",
                      "/c/r/src/e.ts", "/c/r/src/f.ts"}));
}

BOOST_AUTO_TEST_CASE(tokens_split_alike_wherever_they_fall_against_64_byte_blocks) {
    // The plan is split 64 bytes at a time: a token may open, close or straddle a block edge,
    // and the plan may end exactly on one, inside a token.
    const char* const separators[] = {" ", "\t", "\r\n", "\f", "\v", "  \n\n  "};
    for (std::size_t pad = 0; pad < 140; ++pad) {
        const std::string separator = separators[pad % std::size(separators)];
        const std::string first = "src/a" + std::to_string(pad) + ".ts";
        const std::string text = "w" + std::string(pad + 1, pad % 2 == 0 ? ' ' : '\n') + first +
                                 separator + "lib/b.rs" + separator + "x/" +
                                 std::string(pad % 70, 'y') + ".md";
        BOOST_TEST(files_of(text) == (Files{"/c/r/" + first, "/c/r/lib/b.rs",
                                            "/c/r/x/" + std::string(pad % 70, 'y') + ".md"}),
                   "pad " << pad);
    }
}

BOOST_AUTO_TEST_CASE(control_and_non_ascii_bytes_are_not_whitespace) {
    BOOST_TEST(files_of("src/a\x01b.ts") == Files{"/c/r/src/a\x01b.ts"});
    BOOST_TEST(files_of("src/\xC3\xA9.ts") == Files{"/c/r/src/\xC3\xA9.ts"});
    // A UTF-8 no-break space joins two paths into one token.
    BOOST_TEST(files_of("src/a.ts\xC2\xA0src/b.ts") == Files{"/c/r/src/a.ts\xC2\xA0src/b.ts"});
    BOOST_TEST(files_of(std::string("src/a.ts\0src/b.ts", 17)) ==
               Files{std::string("/c/r/src/a.ts\0src/b.ts", 22)});
}

BOOST_AUTO_TEST_CASE(spellings_of_one_length_differing_in_one_byte_count_apart) {
    // Every length from a few bytes to several words: the distinct-spelling set must tell apart
    // spellings that differ only in their first, middle or last byte, and hold their repeats.
    for (std::size_t n = 1; n <= 24; ++n) {
        const std::string name(n, 'm');
        std::string first = "s/" + name + ".ts", middle = first, last = first;
        first[0] = 't';
        middle[2 + n / 2] = 'q';
        last.back() = 'x';
        const std::string base = "s/" + name + ".ts";
        BOOST_TEST(
            files_of(base + " " + first + " " + middle + " " + last + " " + base + " " + middle) ==
                (Files{"/c/r/" + base, "/c/r/" + first, "/c/r/" + middle, "/c/r/" + last}),
            "length " << base.size());
    }
}

// ---- what counts nothing ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(urls_count_nothing) {
    BOOST_TEST(files_of("https://example.com/docs/a.html").empty());
    BOOST_TEST(files_of("<http://example.com/a.ts>").empty());
    BOOST_TEST(files_of("file:///c/r/src/a.ts").empty());
    BOOST_TEST(files_of("git+ssh://host/r/src/a.ts").empty());
}

BOOST_AUTO_TEST_CASE(temp_paths_count_nothing) {
    BOOST_TEST(files_of(".temp/x.ts").empty());
    BOOST_TEST(files_of("src/.temp/y.ts").empty());
    BOOST_TEST(files_of("/c/r/.temp/z.log").empty());
    BOOST_TEST(files_of("C:\\r\\.temp\\w.txt").empty());
    // Only a segment that is exactly `.temp`.
    BOOST_TEST(files_of(".temporary/x.ts") == Files{"/c/r/.temporary/x.ts"});
    BOOST_TEST(files_of("x.temp/a.ts") == Files{"/c/r/x.temp/a.ts"});
}

BOOST_AUTO_TEST_CASE(paths_outside_the_root_count_nothing) {
    BOOST_TEST(files_of("/etc/ssl/openssl.cnf").empty());
    BOOST_TEST(files_of("/c/rr/a.ts").empty()); // a sibling sharing the root's prefix
    BOOST_TEST(files_of("../a.ts").empty());
    BOOST_TEST(files_of("src/../../a.ts").empty());
    BOOST_TEST(files_of("D:/r/a.ts").empty());
    // `..` that stays inside the root is resolved lexically.
    BOOST_TEST(files_of("src/../b.ts") == Files{"/c/r/b.ts"});
}

BOOST_AUTO_TEST_CASE(the_plans_own_path_counts_nothing) {
    BOOST_TEST(files_of(".claude/plans/p.md").empty());
    BOOST_TEST(files_of("/c/r/.claude/plans/p.md").empty());
    BOOST_TEST(files_of("C:\\r\\.claude\\plans\\p.md").empty());
    BOOST_TEST(files_of(".claude/plans/other.md") == Files{"/c/r/.claude/plans/other.md"});
}

BOOST_AUTO_TEST_CASE(an_empty_plan_counts_nothing) {
    BOOST_TEST(files_of("").empty());
    BOOST_TEST(files_of(" \n\t ").empty());
}

// ---- one canonical spelling ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(drive_git_bash_and_relative_spellings_count_once) {
    BOOST_TEST(
        files_of(
            "C:\\r\\src\\a.ts C:/r/src/a.ts c:/r/src/a.ts /c/r/src/a.ts src/a.ts ./src/a.ts") ==
        Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(a_plain_relative_spelling_first_counts_once_with_the_others) {
    // `src/a.ts` is its own key in the counted set (no memo of its own): every other spelling of
    // the file that comes after it must find it there, and it must find them.
    BOOST_TEST(files_of("src/a.ts C:\\r\\src\\a.ts /c/r/src/a.ts ./src/a.ts src//a.ts src/a.ts") ==
               Files{"/c/r/src/a.ts"});
    BOOST_TEST(files_of("src/a.ts lib/b.rs /c/r/lib/b.rs src\\a.ts lib/b.rs") ==
               (Files{"/c/r/src/a.ts", "/c/r/lib/b.rs"}));
}

BOOST_AUTO_TEST_CASE(a_root_with_a_temp_segment_counts_nothing) {
    BOOST_TEST(plan_files("src/a.ts /c/.temp/r/src/b.ts", "/c/.temp/r", "/c/.temp/r/p.md").empty());
}

BOOST_AUTO_TEST_CASE(the_file_system_root_as_root_counts_each_file_once) {
    BOOST_TEST(plan_files("src/a.ts /src/a.ts ./src/a.ts p.md /p.md", "/", "/p.md") ==
               Files{"/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(backslashes_read_as_slashes) {
    BOOST_TEST(files_of("src\\a.ts src/a.ts") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(runs_of_slashes_and_dot_segments_fold) {
    BOOST_TEST(files_of("src//a.ts ./src/./a.ts src/lib/../a.ts") == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(a_root_in_drive_form_is_canonical_too) {
    BOOST_TEST(plan_files("/c/r/src/a.ts src/a.ts", "C:\\r", "C:\\r\\plans\\p.md") ==
               Files{"/c/r/src/a.ts"});
    BOOST_TEST(plan_files("C:/r/src/a.ts", "/c/r/", plan) == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(the_drive_letter_is_lowercased_and_nothing_else) {
    BOOST_TEST(files_of("C:/r/Src/A.ts c:/r/src/a.ts") ==
               (Files{"/c/r/Src/A.ts", "/c/r/src/a.ts"}));
}

BOOST_AUTO_TEST_CASE(files_come_in_first_seen_order) {
    BOOST_TEST(files_of("src/b.ts src/a.ts src/b.ts lib/c.rs src/a.ts") ==
               (Files{"/c/r/src/b.ts", "/c/r/src/a.ts", "/c/r/lib/c.rs"}));
}

// ---- tokens that are not path-shaped ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(an_existing_file_that_is_not_path_shaped_counts,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    repo.write("README.md", "# r\n");
    repo.write("src/Dockerfile", "FROM x\n");
    const Files files = plan_files("Update `Makefile`, README.md and src/Dockerfile.", repo.path(),
                                   repo / "plans/p.md");
    BOOST_TEST(files == (Files{repo / "Makefile", repo / "README.md", repo / "src/Dockerfile"}));
}

BOOST_AUTO_TEST_CASE(an_absolute_existing_file_under_the_root_counts,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    BOOST_TEST(plan_files(repo / "Makefile" + " Makefile", repo.path(), repo / "plans/p.md") ==
               Files{repo / "Makefile"});
}

BOOST_AUTO_TEST_CASE(a_word_that_names_no_file_counts_nothing) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    repo.mkdir("src");
    BOOST_TEST(
        plan_files("Update the build so it works", repo.path(), repo / "plans/p.md").empty());
    // A directory is not a file.
    BOOST_TEST(plan_files("src", repo.path(), repo / "plans/p.md").empty());
}

BOOST_AUTO_TEST_CASE(the_plan_file_itself_counts_nothing_even_as_a_bare_name) {
    viber::testing::ScratchDir repo;
    const std::string own = repo.write("p.md", "p.md Makefile\n");
    BOOST_TEST(plan_files("p.md", repo.path(), own).empty());
}

BOOST_AUTO_TEST_CASE(a_path_shaped_token_counts_without_existing,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    viber::testing::ScratchDir repo;
    BOOST_TEST(plan_files("src/new.ts", repo.path(), repo / "plans/p.md") ==
               Files{repo / "src/new.ts"});
}

BOOST_AUTO_TEST_CASE(a_large_plan_counts_every_distinct_path) {
    std::string text;
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < 5000; ++i) {
            text += "- change `src/module" + std::to_string(i) +
                    "/file.ts` so that the words here repeat, ";
            text += "as (plans) do; see src/module" + std::to_string(i) + "/file.ts.\n";
        }
    }
    const Files files = files_of(text);
    BOOST_TEST(files.size() == 5000u);
    BOOST_TEST(files.front() == "/c/r/src/module0/file.ts");
    BOOST_TEST(files.back() == "/c/r/src/module4999/file.ts");
}

// ---- the refusal -----------------------------------------------------------------------------

namespace {

Files numbered(std::size_t n) {
    Files files;
    for (std::size_t i = 1; i <= n; ++i) files.push_back("/c/r/src/f" + std::to_string(i) + ".ts");
    return files;
}

} // namespace

BOOST_AUTO_TEST_CASE(eight_files_pass_the_limit) {
    BOOST_TEST(plain_plan_file_limit == 8u);
    BOOST_TEST(!file_limit_refusal(tally_of(numbered(8)), "p.md"));
    BOOST_TEST(!file_limit_refusal(tally_of(Files{}), "p.md"));
    BOOST_TEST(!file_limit_refusal(viber::plan_gate::FileTally{}, "p.md"));
}

BOOST_AUTO_TEST_CASE(nine_files_are_refused_with_every_fact) {
    const auto reason = file_limit_refusal(tally_of(numbered(9)), "p.md");
    BOOST_REQUIRE(reason);
    BOOST_TEST(reason->rfind("Next step: narrow the plan.", 0) == 0u);
    BOOST_TEST(holds(*reason, "p.md"));
    BOOST_TEST(holds(*reason, " 9 "));
    BOOST_TEST(holds(*reason, "limit for a plain plan is 8"));
    for (const std::string& file : numbered(9)) BOOST_TEST(holds(*reason, "\n- " + file + "\n"));
    BOOST_TEST(holds(*reason, "at most 8 files"));
    BOOST_TEST(holds(*reason, "viber planner"));
    BOOST_TEST(holds(*reason, "No review PASS overrides"));
    const std::string_view trailer = viber::plan_gate::plain_gate_trailer;
    BOOST_TEST(reason->substr(reason->size() - trailer.size()) == trailer);
}

BOOST_AUTO_TEST_CASE(a_long_list_is_cut_with_the_rest_counted) {
    const auto reason = file_limit_refusal(tally_of(numbered(50)), "p.md");
    BOOST_REQUIRE(reason);
    BOOST_TEST(holds(*reason, " 50 "));
    BOOST_TEST(holds(*reason, "/c/r/src/f40.ts\n"));
    BOOST_TEST(!holds(*reason, "/c/r/src/f41.ts"));
    BOOST_TEST(holds(*reason, "(and 10 more)"));
}

BOOST_AUTO_TEST_CASE(counting_and_refusing_together_at_the_boundary) {
    std::string eight, nine;
    for (int i = 1; i <= 8; ++i) eight += "src/f" + std::to_string(i) + ".ts\n";
    nine = eight + "C:\\r\\src\\f1.ts /c/r/src/f2.ts src/f9.ts";
    BOOST_TEST(files_of(eight).size() == 8u);
    BOOST_TEST(!file_limit_refusal(tally_of(files_of(eight)), "p.md"));
    BOOST_TEST(files_of(nine).size() == 9u);
    BOOST_TEST(file_limit_refusal(tally_of(files_of(nine)), "p.md").has_value());
}

BOOST_AUTO_TEST_CASE(a_refusal_lists_drive_spelled_files_in_the_canonical_spelling) {
    // docs/plan-gate.md, step 3: a plan written on Windows names `C:\\r\\src\\f1.ts`; the files
    // are compared, counted and listed in the one canonical spelling, `/c/r/src/f1.ts`.
    std::string text;
    for (int i = 1; i <= 9; ++i) text += "C:\\r\\src\\f" + std::to_string(i) + ".ts\n";
    const auto reason = file_limit_refusal(tally_of(files_of(text)), "p.md");
    BOOST_REQUIRE(reason);
    for (int i = 1; i <= 9; ++i)
        BOOST_TEST(holds(*reason, "\n- /c/r/src/f" + std::to_string(i) + ".ts\n"));
    BOOST_TEST(!holds(*reason, "C:"));
}

// ---- bounds (docs/plan-gate.md, "File limit")
// ----------------------------------------------------

BOOST_AUTO_TEST_CASE(at_most_100000_distinct_tokens_are_looked_up_on_disk,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    // A bare name counts only through a lookup; past the bound only path-shaped tokens count.
    // Each word has the length and the first and last letters of `Makefile`, so no listing of the
    // root can tell it from that file: every one of them is looked up.
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    repo.write("Dockerfile", "FROM x\n");
    std::string text = "Dockerfile\n";
    char word[16];
    for (std::size_t i = 1; i < viber::plan_gate::disk_lookup_limit; ++i) {
        std::snprintf(word, sizeof word, "m%06zue ", i);
        text += word;
    }
    text += "\nMakefile src/late.ts\n";
    const Files found = plan_files(text, repo.path(), repo.path() + "/.claude/plans/p.md");
    BOOST_TEST(found == (Files{repo.path() + "/Dockerfile", repo.path() + "/src/late.ts"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(words_no_root_entry_can_be_take_no_lookup,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    // One listing of the root settles every plain word that no entry's length and end letters
    // fit: 150,000 distinct such words spend none of the 100,000 lookups, and a bare name after
    // them is still looked up and counted.
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    std::string text;
    for (std::size_t i = 1; i <= 150000; ++i) text += "word" + std::to_string(i) + " ";
    text += "\nMakefile\n";
    const Files found = plan_files(text, repo.path(), repo.path() + "/.claude/plans/p.md");
    BOOST_TEST(found == (Files{repo.path() + "/Makefile"}), boost::test_tools::per_element());
}

namespace {

// A root holding `Makefile` and `others` more entries, and a plan of 150,000 distinct plain words
// (no entry's length and end letters fit them) followed by a bare `Makefile`: the files it counts.
Files makefile_after_150000_words(std::size_t others, std::string_view other_name_prefix) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    for (std::size_t i = 0; i < others; ++i)
        repo.write(std::string(other_name_prefix) + std::to_string(i), "");
    std::string text;
    for (std::size_t i = 1; i <= 150000; ++i) text += "word" + std::to_string(i) + " ";
    text += "\nMakefile\n";
    Files found = plan_files(text, repo.path(), repo.path() + "/.claude/plans/p.md");
    for (std::string& file : found) file = file.substr(repo.path().size());
    return found;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_listing_settles_words_in_a_root_of_4096_entries,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    // 4,096 entries is the most the listing holds: the words take no lookup, Makefile counts.
    BOOST_TEST(makefile_after_150000_words(4095, "e") == Files{"/Makefile"},
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_listing_stands_aside_in_a_root_of_more_than_4096_entries,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    // One entry more and every word is looked up: the 100,000 lookups are spent before Makefile.
    BOOST_TEST(makefile_after_150000_words(4096, "e").empty());
}

BOOST_AUTO_TEST_CASE(the_listing_stands_aside_for_a_non_ascii_entry,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    // Unicode case folding could match an entry such as `\u0130nfo` from an ASCII spelling, so
    // a root holding a non-ASCII name is not filtered: every word is looked up.
    BOOST_TEST(makefile_after_150000_words(1, "\xc4\xb0nfo").empty());
    BOOST_TEST(makefile_after_150000_words(1, "Info") == Files{"/Makefile"},
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_name_counts_in_any_case_the_file_system_matches) {
    // The listing is a filter, never the answer: a spelling that differs from an entry only in
    // ASCII case passes it, and the lookup decides as the file system does (Linux: only the
    // exact spelling; Windows and a default macOS volume: all three, each spelling once).
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    const bool folds_case = viber::is_regular_file(repo / "MAKEFILE");
    const Files found =
        plan_files("MAKEFILE makefile Makefile\n", repo.path(), repo.path() + "/p.md");
    BOOST_TEST(found.size() == (folds_case ? 3u : 1u));
    BOOST_TEST(found.back().ends_with("/Makefile"));
}

BOOST_AUTO_TEST_CASE(repeated_words_past_the_bound_are_judged_alike) {
    // Past the bound the distinct-token set stops growing; a repeated spelling still counts once.
    std::string text;
    for (std::size_t i = 0; i < viber::plan_gate::disk_lookup_limit + 10; ++i)
        text += "w" + std::to_string(i) + " ";
    text += "src/a.ts src/a.ts ./src/a.ts";
    BOOST_TEST(files_of(text) == Files{"/c/r/src/a.ts"});
}

BOOST_AUTO_TEST_CASE(the_listed_files_are_bounded_in_characters) {
    Files many;
    for (int i = 0; i < 30; ++i)
        many.push_back("/c/r/" + std::string(2000, static_cast<char>('a' + i % 26)) + ".ts");
    const auto reason = file_limit_refusal(tally_of(many), "p.md");
    BOOST_REQUIRE(reason);
    BOOST_TEST(reason->size() <= 10000u);
    BOOST_TEST(holds(*reason, "names 30 repository files"));
    BOOST_TEST(holds(*reason, "more)"));
}

// The root's listing (plan-gate/file_limit.hpp, detail): settling bare names by it gives the
// answer of judging every token.
namespace {

// Which tokens are judged: all but the bare names the root's listing excludes (what the hook
// does), or every token (the answer the listing must not change).
enum class Tokens { settled_by_listing, every_token };
CountOptions keep_every_file(Tokens tokens) {
    CountOptions keep = viber::plan_gate::every_file;
    keep.every_token = tokens == Tokens::every_token;
    return keep;
}
Files plan_files_with(Tokens tokens, std::string_view text, const std::string& root,
                      const std::string& plan) {
    return plan_files(text, root, plan, keep_every_file(tokens));
}
std::optional<Files> plan_file_files_with(Tokens tokens, const std::string& plan,
                                          const std::string& root) {
    return plan_file_files(plan, root, keep_every_file(tokens));
}

// Random plans from pieces that take every branch of the classes: bare names of the root
// (in other cases too), words sharing an entry's length and end letters, wrapping on either
// side, name bytes, non-ASCII bytes, paths, every whitespace byte, long tokens.
std::string random_plan(std::mt19937& rng, std::size_t size) {
    static const std::vector<std::string> pieces = {
        "Makefile",
        "makefile",
        "MAKEFILE",
        "README.md",
        "readme.md",
        "Mxxxxxxe",
        "Rabcdefgd",
        "word",
        "review.",
        "(Makefile)",
        "`Makefile`.",
        "\"Makefile\",",
        "[README.md]:",
        "<Makefile>",
        "src/a.ts",
        "`src/a.ts`:",
        "./src/a.ts",
        "src\\a.ts",
        "C:/r/x.ts",
        "~/x.ts",
        "caf\xc3\xa9",
        "\xc3\x89"
        "cole.md",
        "|src/a.ts|",
        "http://x.io/a.ts",
        ".git",
        ".claude",
        "notes",
        "n",
        "e",
        ".",
        ":",
        "((((",
        "))))",
        "Makefile:",
        "src/",
        "a/b/c.md",
        std::string(70, 'x'),
        "M" + std::string(100, 'q') + "e",
        std::string(65, '/'),
    };
    static const std::string spaces = " \t\n\v\f\r";
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    std::uniform_int_distribution<std::size_t> pick_space(0, spaces.size() - 1);
    std::uniform_int_distribution<int> run(1, 3);
    std::string text;
    if (rng() % 2 == 0) text += spaces[pick_space(rng)];
    while (text.size() < size) {
        text += pieces[pick(rng)];
        if (rng() % 5 == 0) text += pieces[pick(rng)]; // two pieces as one token
        for (int i = run(rng); i > 0; --i) text += spaces[pick_space(rng)];
    }
    if (rng() % 2 == 0) text += "Makefile"; // a token at the very end
    return text;
}

} // namespace

BOOST_AUTO_TEST_CASE(settling_by_the_listing_counts_what_judging_every_token_counts) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    repo.write("README.md", "# r\n");
    repo.write("notes", "n\n");
    repo.write("e", "e\n");
    repo.write("src/a.ts", "a\n");
    repo.mkdir(".git");
    repo.mkdir(".claude");
    const std::string plan_path = repo.path() + "/.claude/plans/p.md";
    std::mt19937 rng(20261201);
    std::size_t counted = 0;
    for (int round = 0; round < 400; ++round) {
        const std::string text = random_plan(rng, static_cast<std::size_t>(rng() % 700));
        const Files want = plan_files_with(Tokens::every_token, text, repo.path(), plan_path);
        counted += want.size();
        const Files got = plan_files_with(Tokens::settled_by_listing, text, repo.path(), plan_path);
        BOOST_TEST(got == want, "plan:\n" << text);
    }
    BOOST_TEST(counted > 1000u); // the plans did name files, in number
}

BOOST_AUTO_TEST_CASE(a_name_counts_at_every_offset_from_a_block_edge) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    const std::string plan_path = repo.path() + "/.claude/plans/p.md";
    for (const Tokens tokens : {Tokens::settled_by_listing, Tokens::every_token}) {
        for (std::size_t pad = 0; pad < 140; ++pad) {
            for (const std::string& form : {std::string("Makefile"), std::string("(Makefile).")}) {
                const std::string before = std::string(pad, 'w') + " " + form;
                const std::string after =
                    std::string(pad, ' ') + form + "\t" + std::string(pad % 64, 'w');
                for (const std::string& text : {before, after}) {
                    const Files got = plan_files_with(tokens, text, repo.path(), plan_path);
                    BOOST_TEST(got.size() == 1u, "tokens " << static_cast<int>(tokens) << ", pad "
                                                           << pad << ": " << text);
                }
            }
        }
    }
}

// The plan file read a piece at a time (plan_file_files): the same count as the text whole.
BOOST_AUTO_TEST_CASE(a_plan_file_counts_what_its_text_counts) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    repo.write("README.md", "# r\n");
    repo.write("src/a.ts", "a\n");
    std::mt19937 rng(1201);
    for (int round = 0; round < 13; ++round) {
        // Up to 300 KB: tokens cross the 16 KiB pieces at many offsets; a long token now and
        // then outgrows the buffer. The last round is past 2 MiB, read 64 KiB at a time.
        const std::size_t size = round == 12 ? (std::size_t{2} << 20) + 1 + rng() % 100000
                                             : static_cast<std::size_t>(rng() % 300000);
        std::string text = random_plan(rng, size);
        if (round % 3 == 0)
            text += " src/" + std::string(200000 + rng() % 1000, 'd') + ".ts Makefile";
        const std::string plan =
            repo.write(".claude/plans/p" + std::to_string(round) + ".md", text);
        BOOST_TEST((text.size() > (std::size_t{2} << 20)) == (round == 12));
        const Files want = plan_files_with(Tokens::every_token, text, repo.path(), plan);
        for (const Tokens tokens : {Tokens::settled_by_listing, Tokens::every_token}) {
            const std::optional<Files> got = plan_file_files_with(tokens, plan, repo.path());
            BOOST_TEST_REQUIRE(got.has_value());
            BOOST_TEST(*got == want, "tokens " << static_cast<int>(tokens) << ", round " << round);
        }
        BOOST_TEST(want.size() >= (round % 3 == 0 ? 1u : 0u));
    }
}

BOOST_AUTO_TEST_CASE(a_plan_file_that_cannot_be_read_whole_counts_nothing) {
    viber::testing::ScratchDir repo;
    repo.write("Makefile", "all:\n");
    BOOST_TEST(!plan_file_files(repo / "missing.md", repo.path()).has_value());
    repo.mkdir("dir.md");
    BOOST_TEST(!plan_file_files(repo / "dir.md", repo.path()).has_value());
    // Past the read bound (a sparse file: nothing is written or read).
    const std::string big = repo.write("big.md", "Makefile src/a.ts\n");
    std::filesystem::resize_file(big, viber::plan_gate::plan_read_limit + 1);
    BOOST_TEST(!plan_file_files(big, repo.path()).has_value());
#ifdef __linux__
    // A regular file whose read fails: /proc/self/mem at offset 0, which no mapping covers (EIO).
    BOOST_TEST(!plan_file_files("/proc/self/mem", repo.path()).has_value());
#endif
    std::filesystem::resize_file(big, 18);
    const std::optional<Files> small = plan_file_files(big, repo.path());
    BOOST_TEST_REQUIRE(small.has_value());
    BOOST_TEST(small->size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_tally_counts_every_file_and_keeps_the_first_forty) {
    viber::testing::ScratchDir repo;
    std::string text;
    for (int i = 0; i < 50; ++i) text += "src/f" + std::to_string(i) + ".ts and again src/f0.ts\n";
    const std::string plan = repo.write(".claude/plans/p.md", text);
    const Files all = plan_files(text, repo.path(), plan);
    BOOST_TEST_REQUIRE(all.size() == 50u);
    const Files first(all.begin(), all.begin() + 40);
    const viber::plan_gate::FileTally tally = plan_tally(text, repo.path(), plan);
    BOOST_TEST(tally.count == 50u);
    BOOST_TEST(tally.first == first, boost::test_tools::per_element());
    const std::optional<viber::plan_gate::FileTally> from_file =
        count_plan_files(std::nullopt, plan, repo.path());
    BOOST_TEST_REQUIRE(from_file.has_value());
    BOOST_TEST(from_file->count == 50u);
    BOOST_TEST(from_file->first == first, boost::test_tools::per_element());
    BOOST_TEST((file_limit_refusal(tally, "p.md") == file_limit_refusal(tally_of(all), "p.md")));
    BOOST_TEST(!count_plan_files(std::nullopt, repo / "missing.md", repo.path()).has_value());
}

BOOST_AUTO_TEST_CASE(a_token_too_long_to_remember_still_counts_once,
                     *viber::testing::posix_only(
                         "a POSIX-spelled expected list (counted files are spelled /c/...)")) {
    // Spellings past 4 KiB are judged each time they come rather than remembered; the file
    // they name is still counted once, in any spelling, from text or from file.
    viber::testing::ScratchDir repo;
    const std::string path = "src/" + std::string(20000, 'a') + ".ts";
    const std::string text = path + " (" + path + "). ./" + path + "\n" + path + " src/b.ts\n";
    const std::string plan = repo.write(".claude/plans/p.md", text);
    const Files want{repo.path() + "/" + path, repo.path() + "/src/b.ts"};
    BOOST_TEST(plan_files(text, repo.path(), plan) == want);
    BOOST_TEST(plan_file_files(plan, repo.path()).value_or(Files{}) == want);
    const viber::plan_gate::FileTally tally = plan_tally(text, repo.path(), plan);
    BOOST_TEST(tally.count == 2u);
    BOOST_TEST_REQUIRE(tally.first.size() == 2u);
    BOOST_TEST(tally.first[0].size() == 6000u); // as the refusal shows it
}
