// shell_guard_corpus_test.cpp: every labelled command of tests/corpus/shell-guard.tsv, checked.
#define BOOST_TEST_MODULE shell_guard_corpus
#include "shell-guard/shell_guard.hpp"
#include "support/corpus.hpp"
#include "support/hook_decision.hpp"
#include "support/payloads.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <optional>
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
    // The optional fifth column `cwd=<dir>`: the payload's cwd, relative to the scratch work tree.
    std::optional<std::string> cwd;
};

// The scratch tree the `cwd=` rows run in: S/tree is a git work tree (it holds a `.git`
// directory, which is all the git top level needs), S/plain is a directory under no work tree.
// `cwd=.` is S/tree, `cwd=src` is S/tree/src, `cwd=../plain` is S/plain. In such a row's command,
// @TREE@ stands for the absolute path of S/tree, so absolute targets inside the tree can be named.
const viber::testing::ScratchDir& scratch_tree() {
    static const viber::testing::ScratchDir scratch;
    static const bool made = [] {
        // S/plain must lie under no work tree, or its rows would read another tree's top level.
        for (boost::filesystem::path up = scratch.path(); !up.empty() && up != up.root_path();
             up = up.parent_path()) {
            BOOST_TEST_REQUIRE(!boost::filesystem::exists(up / ".git"),
                               "the scratch directory lies in a git work tree: " << up.string());
        }
        scratch.mkdir("tree/.git");
        scratch.mkdir("tree/.temp");
        scratch.mkdir("tree/src");
        scratch.mkdir("plain");
        return true;
    }();
    (void)made;
    return scratch;
}

std::string tree_path() {
    return scratch_tree() / "tree";
}

std::string replace_tree(std::string command) {
    const std::string placeholder = "@TREE@";
    for (std::size_t at = command.find(placeholder); at != std::string::npos;
         at = command.find(placeholder, at)) {
        command.replace(at, placeholder.size(), tree_path());
    }
    return command;
}

std::vector<Case> load_corpus() {
    std::vector<Case> cases;
    for (const viber::testing::CorpusRow& row : viber::testing::read_corpus("shell-guard.tsv")) {
        const std::vector<std::string>& fields = row.fields;
        BOOST_REQUIRE_MESSAGE(fields.size() == 4 || fields.size() == 5,
                              "line " << row.line << " has " << fields.size() << " fields");
        Case c;
        c.line = static_cast<int>(row.line);
        c.agent = fields[0] == "-" ? "" : fields[0];
        c.command = viber::testing::unescape(fields[1]);
        c.expected = fields[2];
        c.why = fields[3];
        if (fields.size() == 5) {
            BOOST_REQUIRE_MESSAGE(fields[4].rfind("cwd=", 0) == 0,
                                  "line " << row.line << ": the fifth column is cwd=<dir>");
            const std::string dir = tree_path() + "/" + fields[4].substr(4);
            boost::filesystem::create_directories(dir);
            c.cwd = boost::filesystem::canonical(dir).string();
            c.command = replace_tree(c.command);
        }
        cases.push_back(std::move(c));
    }
    return cases;
}

const std::vector<Case>& corpus() {
    static const std::vector<Case> cases = load_corpus();
    return cases;
}

// The PreToolUse payload of a `cwd=` row: the suite's Bash payload with this row's cwd.
std::string payload_with_cwd(const Case& c) {
    boost::json::object payload =
        boost::json::parse(viber::testing::bash_payload(c.agent, c.command)).as_object();
    payload["cwd"] = *c.cwd;
    return boost::json::serialize(payload);
}

// The answer for one row: from the command alone, or from the whole payload when the row names a
// cwd (R4 resolves targets against it).
std::optional<boost::json::value> answer_for(const Case& c) {
    if (c.cwd) {
        const viber::HookInfo shell_guard{.name = "shell-guard",
                                          .decide = viber::shell_guard::decide,
                                          .prefilter = viber::Prefilter::viber_agent};
        return viber::testing::hook_answer(shell_guard, payload_with_cwd(c));
    }
    return decide(c.agent, c.command).answer;
}

// The rules an answer's reason names, in the corpus's notation ("R1,R4" or "allow").
std::string rules_named(const std::optional<boost::json::value>& answer) {
    if (!answer) return "allow";
    const std::string reason(answer->as_object()
                                 .at("hookSpecificOutput")
                                 .as_object()
                                 .at("permissionDecisionReason")
                                 .as_string());
    std::string rules;
    for (unsigned r = 1; r <= 5; ++r) {
        if (reason.find("R" + std::to_string(r) + " (") == std::string::npos) continue;
        if (!rules.empty()) rules += ',';
        rules += "R" + std::to_string(r);
    }
    return rules.empty() ? "allow" : rules;
}

std::string broken_for(const Case& c) {
    if (c.cwd) return rules_named(answer_for(c));
    return broken_rules(c.command, rules_binding(c.agent)).to_string();
}

} // namespace

BOOST_AUTO_TEST_CASE(every_command_breaks_exactly_its_labelled_rules) {
    for (const Case& c : corpus()) {
        const std::string broken = broken_for(c);
        BOOST_TEST(broken == c.expected, "line " << c.line << " [" << c.agent << "] " << c.command
                                                 << "  (" << c.why << "): got " << broken
                                                 << ", want " << c.expected);
    }
}

BOOST_AUTO_TEST_CASE(the_answer_matches_the_label) {
    for (const Case& c : corpus()) {
        const std::optional<boost::json::value> answer = answer_for(c);
        if (c.expected == "allow") {
            BOOST_TEST(!answer.has_value(),
                       "line " << c.line << ": " << c.command << "  (" << c.why << ")");
            continue;
        }
        BOOST_TEST(answer.has_value(), "line " << c.line << ": " << c.command);
        if (!answer) continue;
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
