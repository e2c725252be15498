// kill_guard_corpus_test.cpp: the labelled commands of tests/corpus/kill-guard.tsv.
// Columns: deny|allow, the command with \n \t \\ escapes, why.
#define BOOST_TEST_MODULE kill_guard_corpus
#include "kill-guard/kill_guard.hpp"
#include "support/corpus.hpp"

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Entry {
    std::size_t line = 0;
    bool deny = false;
    std::string command;
    std::string why;
};

std::vector<Entry> load_corpus() {
    std::vector<Entry> entries;
    for (const viber::testing::CorpusRow& row : viber::testing::read_corpus("kill-guard.tsv")) {
        BOOST_TEST_REQUIRE(row.fields.size() >= 3u,
                           "line " << row.line << " needs three tab-separated columns");
        const std::string& label = row.fields[0];
        BOOST_TEST_REQUIRE((label == "deny" || label == "allow"),
                           "line " << row.line << " label " << label);
        entries.push_back(
            {row.line, label == "deny", viber::testing::unescape(row.fields[1]), row.fields[2]});
    }
    return entries;
}

} // namespace

BOOST_AUTO_TEST_CASE(corpus_holds_at_least_120_labelled_commands_of_both_kinds) {
    const std::vector<Entry> entries = load_corpus();
    std::size_t denied = 0;
    for (const Entry& e : entries) denied += e.deny ? 1 : 0;
    BOOST_TEST(entries.size() >= 120u);
    BOOST_TEST(denied >= 50u);
    BOOST_TEST(entries.size() - denied >= 50u);
}

BOOST_AUTO_TEST_CASE(every_corpus_command_gets_its_label) {
    for (const Entry& e : load_corpus()) {
        const std::optional<std::string> reason = viber::kill_guard::refusal_reason(e.command);
        BOOST_TEST_CONTEXT("line " << e.line << " (" << e.why << "): " << e.command) {
            BOOST_TEST(reason.has_value() == e.deny);
            if (reason) BOOST_TEST(reason->rfind("viber guard:", 0) == 0u);
        }
    }
}
