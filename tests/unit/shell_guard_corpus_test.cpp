// shell_guard_corpus_test.cpp: every labelled command of tests/corpus/shell-guard.tsv, checked.
#define BOOST_TEST_MODULE shell_guard_corpus
#include <boost/test/unit_test.hpp>

#include "shell-guard/shell_guard.hpp"
#include "support/process.hpp"

#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace viber::shell_guard;

namespace {

struct Case {
    int line = 0;
    std::string agent;
    std::string command;
    std::string expected;
    std::string why;
};

// The corpus escapes: \n newline, \t tab, \\ backslash.
std::string unescape(const std::string& field) {
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
            throw std::runtime_error("unknown escape \\" + std::string(1, next));
    }
    return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab - start));
        if (tab == std::string::npos) return fields;
        start = tab + 1;
    }
}

std::vector<Case> load_corpus() {
    std::ifstream in(viber::testing::source_path("tests/corpus/shell-guard.tsv"));
    BOOST_REQUIRE_MESSAGE(in, "cannot open tests/corpus/shell-guard.tsv");
    std::vector<Case> cases;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> fields = split_tabs(line);
        BOOST_REQUIRE_MESSAGE(fields.size() == 4,
                              "line " << number << " has " << fields.size() << " fields");
        Case c;
        c.line = number;
        c.agent = fields[0] == "-" ? "" : fields[0];
        c.command = unescape(fields[1]);
        c.expected = fields[2];
        c.why = fields[3];
        cases.push_back(std::move(c));
    }
    return cases;
}

const std::vector<Case>& corpus() {
    static const std::vector<Case> cases = load_corpus();
    return cases;
}

std::string broken_for(const Case& c) {
    return broken_rules(viber::shell::analyze(c.command), rules_binding(c.agent)).to_string();
}

} // namespace

BOOST_AUTO_TEST_CASE(every_command_breaks_exactly_its_labelled_rules) {
    for (const Case& c : corpus()) {
        BOOST_TEST(broken_for(c) == c.expected, "line " << c.line << " [" << c.agent << "] "
                                                        << c.command << "  (" << c.why << ")");
    }
}

BOOST_AUTO_TEST_CASE(the_answer_matches_the_label) {
    for (const Case& c : corpus()) {
        const std::optional<boost::json::value> answer = decide(c.agent, c.command).answer;
        if (c.expected == "allow") {
            BOOST_TEST(!answer.has_value(), "line " << c.line << ": " << c.command);
            continue;
        }
        BOOST_TEST_REQUIRE(answer.has_value(), "line " << c.line << ": " << c.command);
        const auto& out = answer->as_object().at("hookSpecificOutput").as_object();
        BOOST_TEST(out.at("permissionDecision").as_string() == "deny");
        const std::string reason(out.at("permissionDecisionReason").as_string());
        BOOST_TEST(reason.rfind("viber guard: ", 0) == 0u, "line " << c.line);
        for (unsigned r = 1; r <= 5; ++r) {
            const std::string tag = "R" + std::to_string(r) + " (";
            const bool labelled = c.expected.find("R" + std::to_string(r)) != std::string::npos;
            BOOST_TEST((reason.find(tag) != std::string::npos) == labelled,
                       "line " << c.line << " " << tag);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_corpus_covers_every_rule_and_caller) {
    const std::vector<Case>& cases = corpus();
    BOOST_TEST(cases.size() >= 220u);
    std::set<std::string> agents;
    std::set<std::string> rules_seen;
    std::size_t allowed = 0;
    for (const Case& c : cases) {
        agents.insert(c.agent);
        if (c.expected == "allow") ++allowed;
        for (unsigned r = 1; r <= 5; ++r) {
            const std::string tag = "R" + std::to_string(r);
            if (c.expected.find(tag) != std::string::npos) rules_seen.insert(tag);
        }
    }
    BOOST_TEST(rules_seen.size() == 5u);
    BOOST_TEST(allowed >= 50u);
    for (const char* agent :
         {"viber:task-coder", "viber:task-reviewer", "viber:final-reviewer", "viber:scout", ""}) {
        BOOST_TEST(agents.count(agent) == 1u, agent);
    }
}
