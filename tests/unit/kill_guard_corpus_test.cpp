// kill_guard_corpus_test.cpp: the labelled commands of tests/corpus/kill-guard.tsv.
// Columns: deny|allow, the command with \n \t \\ escapes, why.
#define BOOST_TEST_MODULE kill_guard_corpus
#include "kill-guard/kill_guard.hpp"
#include "support/process.hpp"

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

std::string unescape(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
            const char next = text[i + 1];
            if (next == 'n' || next == 't' || next == '\\') {
                out += next == 'n' ? '\n' : next == 't' ? '\t' : '\\';
                ++i;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

std::vector<Entry> load_corpus() {
    std::ifstream in(viber::testing::source_path("tests/corpus/kill-guard.tsv"));
    BOOST_TEST_REQUIRE(in.good());
    std::vector<Entry> entries;
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        const std::size_t first = line.find('\t');
        const std::size_t second = first == std::string::npos ? first : line.find('\t', first + 1);
        BOOST_TEST_REQUIRE(second != std::string::npos,
                           "line " << number << " needs three tab-separated columns");
        const std::string label = line.substr(0, first);
        BOOST_TEST_REQUIRE((label == "deny" || label == "allow"),
                           "line " << number << " label " << label);
        entries.push_back({number, label == "deny",
                           unescape(line.substr(first + 1, second - first - 1)),
                           line.substr(second + 1)});
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
