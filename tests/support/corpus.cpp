// corpus.cpp: reading the labelled command corpora.
#include "support/corpus.hpp"

#include "support/process.hpp"

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <stdexcept>

namespace viber::testing {

std::vector<CorpusRow> read_corpus(std::string_view name) {
    const std::string path = source_path("tests/corpus/" + std::string(name));
    std::ifstream in(path);
    BOOST_TEST_REQUIRE(in.good(), "cannot read " << path);
    std::vector<CorpusRow> rows;
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        CorpusRow row{number, {}};
        std::size_t start = 0;
        for (;;) {
            const std::size_t tab = line.find('\t', start);
            row.fields.push_back(line.substr(start, tab - start));
            if (tab == std::string::npos) break;
            start = tab + 1;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string unescape(std::string_view field) {
    std::string out;
    for (std::size_t i = 0; i < field.size(); ++i) {
        if (field[i] != '\\' || i + 1 == field.size()) {
            out += field[i];
            continue;
        }
        const char next = field[++i];
        if (next == 'n')
            out += '\n';
        else if (next == 't')
            out += '\t';
        else if (next == '\\')
            out += '\\';
        else
            throw std::invalid_argument("unknown corpus escape \\" + std::string(1, next));
    }
    return out;
}

} // namespace viber::testing
