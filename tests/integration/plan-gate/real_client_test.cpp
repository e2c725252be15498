// real_client_test.cpp: plan-gate on what the real Claude Code CLI wrote (SPEC §3 rev. 3 and 4,
// §12), on every version captured: the transcripts and ExitPlanMode payloads of
// tests/fixtures/real/<version>/, captured by the end-to-end test (tests/e2e/capture.sh) in the
// layout Claude Code keeps (<session id>.jsonl, <session id>/subagents/). Each payload is asked
// against the transcript as it stood when the CLI ran the hook: its lines up to the assistant line
// holding the payload's tool_use_id.
// The placeholders (@HOME@, @PROJECT@, @PLUGIN@, @ROOT@, @PROJECT_KEY@) become scratch paths, and
// the plan files are written where the transcript's writes put them.
#define BOOST_TEST_MODULE plan_gate_real_client
#include "gate_fixture.hpp"
#include "support/platform.hpp"

#include <algorithm>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <string>
#include <vector>

using namespace plan_gate_test;
namespace sfs = std::filesystem;

namespace {

// The versions captured: 2.1.197 runs a reviewer in the foreground; 2.1.332 in the background, its
// verdict arriving as a task notification, with bookkeeping records between the lines.
const std::vector<std::string> versions{"2.1.197", "2.1.332"};

std::string fixture_dir(std::string_view version, std::string_view scenario) {
    return viber::testing::source_path("tests/fixtures/real/" + std::string(version) + "/" +
                                       std::string(scenario));
}

// The session's main transcript: the one <session id>.jsonl in its directory.
std::string main_transcript(const std::string& dir) {
    std::string found;
    for (const auto& entry : sfs::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().extension() == ".jsonl") {
            BOOST_REQUIRE_MESSAGE(found.empty(), "two transcripts in " << dir);
            found = entry.path().generic_string();
        }
    }
    BOOST_REQUIRE_MESSAGE(!found.empty(), "no <session id>.jsonl in " << dir);
    return found;
}

// A path as it stands inside a JSON string (every placeholder does).
std::string json_escaped(std::string_view path) {
    std::string out;
    for (const char c : path) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// One captured session placed in a Gate's scratch space.
class RealSession {
public:
    RealSession(const Gate& gate, std::string_view version, std::string_view scenario)
        : gate_(gate), dir_(fixture_dir(version, scenario)) {
        home_ = gate.scratch().mkdir("home");
        const std::string main = main_transcript(dir_);
        transcript_ = fill(viber::testing::read_file(main));
        BOOST_REQUIRE_MESSAGE(!transcript_.empty(), "empty fixture " << main);
        for (const auto& entry : sfs::directory_iterator(dir_ + "/payloads")) {
            const std::string name = entry.path().filename().string();
            if (name.find("-PreToolUse-ExitPlanMode.json") != std::string::npos)
                exits_.push_back(entry.path().generic_string());
        }
        std::sort(exits_.begin(), exits_.end());
    }

    // The captured ExitPlanMode payloads, in the order the CLI sent them.
    std::size_t exits() const { return exits_.size(); }

    // Writes every captured plan file under the scratch HOME's .claude/plans; returns the paths.
    std::vector<std::string> write_plans() const {
        std::vector<std::string> out;
        for (const auto& entry : sfs::directory_iterator(dir_ + "/plans")) {
            const std::string name = entry.path().filename().string();
            out.push_back(
                gate_.scratch().write("home/.claude/plans/" + name,
                                      viber::testing::read_file(entry.path().generic_string())));
        }
        return out;
    }

    // plan-gate's answer to the n-th ExitPlanMode payload, on the transcript as it stood then.
    Answer ask(std::size_t n) const {
        const std::string payload = fill(viber::testing::read_file(exits_.at(n)));
        boost::system::error_code ec;
        json::value value = json::parse(payload, ec);
        BOOST_REQUIRE(!ec && value.is_object());
        json::object& object = value.as_object();
        const std::string id(object.at("tool_use_id").as_string());
        const std::string cut = upto(id);
        BOOST_REQUIRE_MESSAGE(!cut.empty(), "no transcript line holds " << id);
        object["transcript_path"] =
            gate_.scratch().write("transcript-" + std::to_string(n) + ".jsonl", cut);
        object["cwd"] = gate_.project().path();
        return gate_.ask(object);
    }

private:
    std::string fill(std::string text) const {
        text = replace_all(std::move(text), "@PLUGIN@", json_escaped(gate_.tree().path()));
        text = replace_all(std::move(text), "@HOME@", json_escaped(home_));
        text = replace_all(std::move(text), "@PROJECT@", json_escaped(gate_.project().path()));
        text = replace_all(std::move(text), "@PROJECT_KEY@", "project-key");
        return replace_all(std::move(text), "@ROOT@", json_escaped(gate_.scratch().path()));
    }

    // The transcript's lines up to and including the first line naming `"id":"<id>"`.
    std::string upto(const std::string& id) const {
        const std::size_t at = transcript_.find("\"id\":\"" + id + "\"");
        if (at == std::string::npos) return {};
        const std::size_t end = transcript_.find('\n', at);
        return transcript_.substr(0, end == std::string::npos ? transcript_.size() : end + 1);
    }

    const Gate& gate_;
    std::string dir_;
    std::string home_;
    std::string transcript_;
    std::vector<std::string> exits_;
};

// Earlier than any verdict the CLI wrote: the plan was not changed after its review.
constexpr long long reviewed_plan_mtime = 1000000000;

void set_plans_mtime(const std::vector<std::string>& plans, long long seconds) {
    for (const auto& plan : plans) viber::testing::set_mtime(plan, seconds);
}

} // namespace

// Opened in plan mode: the planner's Skill with no EnterPlanMode after it (the entry wait never
// ends), the plan write, planner-review FAIL, then the fixed plan and PASS (SPEC §3 rev. 3).
BOOST_DATA_TEST_CASE(planner_opened_in_plan_mode, boost::unit_test::data::make(versions), version) {
    Gate gate;
    RealSession session(gate, version, "planner-plan-mode");
    BOOST_REQUIRE_EQUAL(session.exits(), 3u);
    const auto plans = session.write_plans();
    BOOST_REQUIRE(!plans.empty());
    set_plans_mtime(plans, reviewed_plan_mtime);

    const Answer fail = session.ask(0);
    require_deny(fail, "Next step: fix the findings.");
    BOOST_TEST(has(fail.reason, "'VERDICT: FAIL'"), fail.reason);

    require_allow(session.ask(1));
}

// The same session's second plan-mode episode, after the approved plan's plan_mode_exit: the old
// plan does not arm the gate, even changed after its PASS (which would void that PASS).
BOOST_DATA_TEST_CASE(second_episode_after_an_approved_plan, boost::unit_test::data::make(versions),
                     version) {
    Gate gate;
    RealSession session(gate, version, "planner-plan-mode");
    BOOST_REQUIRE_EQUAL(session.exits(), 3u);
    const auto plans = session.write_plans();
    const long long changed = static_cast<long long>(std::time(nullptr)) + 60;
    set_plans_mtime(plans, changed);
    // Were the old plan armed, its changed file would need a re-review: the check can fail.
    require_deny(session.ask(1), "Next step: re-review.");
    require_allow(session.ask(2));
}

// Default mode; the planner's Skill, then EnterPlanMode; a typed prompt in plan mode; PASS.
BOOST_DATA_TEST_CASE(planner_entered_through_enter_plan_mode,
                     boost::unit_test::data::make(versions), version) {
    Gate gate;
    RealSession session(gate, version, "planner-enter");
    BOOST_REQUIRE_EQUAL(session.exits(), 1u);
    set_plans_mtime(session.write_plans(), reviewed_plan_mtime);
    require_allow(session.ask(0));
}

// A plain plan with the switch on: refused unreviewed, allowed after plain-plan-review's PASS.
BOOST_TEST_DECORATOR(*viber::testing::needs_bash())
BOOST_DATA_TEST_CASE(plain_plan_switch_on, boost::unit_test::data::make(versions), version) {
    Gate gate;
    gate.config(switch_on_script);
    RealSession session(gate, version, "plain-plan");
    BOOST_REQUIRE_EQUAL(session.exits(), 2u);
    set_plans_mtime(session.write_plans(), reviewed_plan_mtime);
    const Answer unreviewed = session.ask(0);
    require_deny(unreviewed, "Next step: review the plan.");
    BOOST_TEST(has(unreviewed.reason, "viber:plain-plan-review"), unreviewed.reason);
    require_allow(session.ask(1));
}

// Claude Code 2.1.332 opened in plan mode (SPEC §3 rev. 4): the reviewer's Agent call waits for a
// safety check that cannot run offline and is refused, its tool_result an error. The gate asks for
// the review again and names the refused call, where it used to wait for a review that never ran.
BOOST_AUTO_TEST_CASE(a_refused_review_is_asked_for_again, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(switch_on_script);
    RealSession session(gate, "2.1.332", "refused-review");
    BOOST_REQUIRE_EQUAL(session.exits(), 1u);
    set_plans_mtime(session.write_plans(), reviewed_plan_mtime);
    const Answer answer = session.ask(0);
    require_deny(answer, "Next step: review the plan.");
    BOOST_TEST(has(answer.reason, "did not run: its result on line"), answer.reason);
    BOOST_TEST(has(answer.reason, "is an error (\"Auto mode is unavailable"), answer.reason);
}
