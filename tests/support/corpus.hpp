// corpus.hpp: the labelled command corpora of tests/corpus/ (tab-separated, `#` comments), read
// one way for every guard.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace viber::testing {

// One data line of a corpus: its 1-based line number in the file and its tab-separated fields.
struct CorpusRow {
    std::size_t line = 0;
    std::vector<std::string> fields;
};

// The data lines of tests/corpus/<name> (blank and `#` lines skipped); fails the test when the
// file cannot be read.
std::vector<CorpusRow> read_corpus(std::string_view name);

// A command field with the corpus escapes decoded: \n newline, \t tab, \\ backslash (a lone
// trailing backslash stays). Any other escape is a typo in the corpus: std::invalid_argument.
std::string unescape(std::string_view field);

} // namespace viber::testing
