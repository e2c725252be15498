// differential_test.cpp: the real plan-gate and plan-hints binaries against the plain model of
// their decisions (tests/model/), on generated sessions in every shape SPEC §3 lists.
//
// Each case writes a transcript, a plan file with its mtime, a stub scripts/config.sh and the
// project's files, runs both binaries on their payloads, and compares what they decided with
// what the model decides: plan-gate's allow, or its deny's "Next step:" kind, route and (review
// set) missing parts or (file limit) count; plan-hints' print or silence. A difference prints the
// seed and the transcript cut down to the lines the difference needs.
//
// VIBER_DIFF_CASES sets how many cases (default 2000, 200 under an
// emulator or the sanitizers), VIBER_DIFF_SEED the first seed (default 1),
// VIBER_DIFF_REPORTS how many differences are cut down and printed whole (default 3):
// scripts/fuzz.sh's longer stage runs many more cases.
#define BOOST_TEST_MODULE integration_model_differential
#include "model/generator.hpp"
#include "model/model.hpp"
#include "support/emulator.hpp"
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

namespace json = boost::json;
namespace fs = boost::filesystem;
using namespace viber::testing;
using viber::model::Case;

namespace {

constexpr std::string_view hints_text = "Plain plan rules:\n- a TaskCreate task list\n";

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    return std::strtoull(value, nullptr, 10);
}

// What a binary decided, in the model's terms.
struct Outcome {
    std::string step;  // plan-gate: "" allow, else the Next step kind; plan-hints: "print"/""
    std::string route; // plan-gate: planner, plain, set
    std::string missing;
    std::string count;
    std::string raw;

    bool operator==(const Outcome& o) const {
        return step == o.step && route == o.route && missing == o.missing && count == o.count;
    }
};

std::string describe(const Outcome& o) {
    if (o.step.empty()) return "allow/silent";
    std::string text = o.step;
    if (!o.route.empty()) text += " [" + o.route + "]";
    if (!o.missing.empty()) text += " missing: " + o.missing;
    if (!o.count.empty()) text += " count: " + o.count;
    return text;
}

bool has(std::string_view text, std::string_view needle) {
    return text.find(needle) != std::string_view::npos;
}

Outcome gate_outcome(const RunResult& run) {
    Outcome o;
    o.raw = run.out;
    if (run.out.empty()) return o;
    boost::system::error_code ec;
    const json::value value = json::parse(run.out, ec);
    const json::object* out = !ec && value.is_object()
                                  ? value.as_object().if_contains("hookSpecificOutput")
                                        ? &value.as_object().at("hookSpecificOutput").as_object()
                                        : nullptr
                                  : nullptr;
    const json::value* reason = out ? out->if_contains("permissionDecisionReason") : nullptr;
    if (reason == nullptr || !reason->is_string()) {
        o.step = "unreadable output";
        return o;
    }
    const std::string text(reason->as_string());
    constexpr std::string_view lead = "Next step: ";
    if (!text.starts_with(lead)) {
        o.step = "reason without Next step";
        return o;
    }
    o.step = text.substr(lead.size(), text.find('.') - lead.size());
    if (has(text, "planning.plain-plan-review in .claude/viber.yml"))
        o.route = "plain";
    else if (has(text, "viber:planner-spec-review") || has(text, "viber:planner-graph-review") ||
             has(text, "viber:planner-task-review"))
        o.route = "set";
    else
        o.route = "planner";
    if (o.step == "narrow the plan") {
        const std::size_t at = text.find(" names ");
        if (at != std::string::npos) o.count = text.substr(at + 7, text.find(' ', at + 7) - at - 7);
    }
    if (o.route == "set" && (o.step == "review the plan" || o.step == "let the review finish")) {
        const std::size_t at = text.find(" from: ");
        if (at != std::string::npos)
            o.missing = text.substr(at + 7, text.find_first_of(".;", at + 7) - at - 7);
    }
    return o;
}

Outcome model_gate_outcome(const viber::model::GateDecision& d) {
    Outcome o;
    o.step = d.step;
    if (d.step.empty()) return o;
    o.route = d.route;
    if (d.step == "narrow the plan") o.count = std::to_string(d.file_count);
    if (d.route == "set" && !d.missing.empty()) {
        // A refusal names at most 16 parts, then how many more.
        for (std::size_t i = 0; i < d.missing.size() && i < 16; ++i)
            o.missing += (i > 0 ? ", " : "") + d.missing[i];
        if (d.missing.size() > 16)
            o.missing += ",  and " + std::to_string(d.missing.size() - 16) + " more parts";
    }
    return o;
}

class Harness {
public:
    Harness() {
        std::signal(SIGPIPE, SIG_IGN);
        hints_.write("hooks/content/plan-hints.md", hints_text);
        project_ = work_ / "project";
        transcript_ = work_ / "session/transcript.jsonl";
        run_dir_ = work_.mkdir("run");
    }

    const std::string& project() const { return project_; }

    // Writes the case's files.
    void materialize(const Case& c) {
        boost::system::error_code ec;
        fs::remove_all(project_, ec);
        fs::create_directories(project_);
        for (const auto& [rel, text] : viber::model::project_files())
            work_.write("project/" + rel, text);
        if (!c.plan_path.empty()) {
            work_.write(c.plan_path.substr(work_.path().size() + 1), c.plan_text);
            set_mtime(c.plan_path, c.plan_mtime);
        }
        fs::remove(transcript_, ec);
        if (c.transcript_present) work_.write("session/transcript.jsonl", c.transcript);
        if (c.config_output != config_) {
            config_ = c.config_output;
            gate_.write("scripts/config.sh", "printf '%s' '" + config_ + "'\n");
        }
    }

    std::pair<Outcome, Outcome> run_hooks(const Case& c) const {
        json::object payload{{"session_id", "s"}, {"transcript_path", transcript_}};
        if (c.cwd_present) payload["cwd"] = project_;
        payload["permission_mode"] = "plan";
        payload["hook_event_name"] = "PreToolUse";
        payload["tool_name"] = "ExitPlanMode";
        payload["tool_input"] = {{"plan", c.plan_text}, {"planFilePath", c.plan_path}};
        const Outcome gate = gate_outcome(run(gate_.binary(), json::serialize(payload)));

        json::object hints{{"session_id", "s"},
                           {"transcript_path", transcript_},
                           {"cwd", project_},
                           {"permission_mode", c.hints_mode},
                           {"hook_event_name", "UserPromptSubmit"},
                           {"prompt", "plan it"}};
        const RunResult printed = run(hints_.binary(), json::serialize(hints));
        Outcome hint;
        hint.raw = printed.out;
        if (!printed.out.empty()) {
            const std::string expected =
                json::serialize(json::object{
                    {"hookSpecificOutput",
                     {{"hookEventName", "UserPromptSubmit"},
                      {"additionalContext", "Plain plan rules:\n- a TaskCreate task list"}}}}) +
                "\n";
            hint.step = printed.out == expected ? "print" : "print (unexpected text)";
        }
        return {gate, hint};
    }

    std::pair<Outcome, Outcome> run_model(const Case& c,
                                          std::vector<std::string>* why = nullptr) const {
        viber::model::GateInput input;
        if (c.transcript_present) input.transcript_path = transcript_;
        if (c.cwd_present) input.cwd = project_;
        input.config_output = c.config_output;
        const auto decision = viber::model::gate_decision(input);
        if (why) *why = decision.why;
        Outcome hint;
        if (viber::model::hints_print(
                {input.transcript_path, c.hints_mode, std::string(hints_text)}))
            hint.step = "print";
        return {model_gate_outcome(decision), hint};
    }

    bool differs(const Case& c) {
        materialize(c);
        const auto hooks = run_hooks(c);
        const auto model = run_model(c);
        return !(hooks.first == model.first) || !(hooks.second == model.second);
    }

    // The case's transcript cut to the lines the difference needs (greedy, one line at a time).
    Case minimize(Case c) {
        const auto split = [](const std::string& text) {
            std::vector<std::string> lines;
            std::istringstream in(text);
            for (std::string line; std::getline(in, line);) lines.push_back(line);
            return lines;
        };
        std::vector<std::string> lines = split(c.transcript);
        for (int pass = 0; pass < 3; ++pass) {
            bool changed = false;
            for (std::size_t i = lines.size(); i-- > 0;) {
                std::vector<std::string> fewer = lines;
                fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
                Case trial = c;
                trial.transcript.clear();
                for (const std::string& line : fewer) trial.transcript += line + "\n";
                if (differs(trial)) {
                    lines = std::move(fewer);
                    c = std::move(trial);
                    changed = true;
                }
            }
            if (!changed) break;
        }
        return c;
    }

    void report(const Case& original) {
        const Case c = minimize(original);
        materialize(c);
        const auto hooks = run_hooks(c);
        std::vector<std::string> why;
        const auto model = run_model(c, &why);
        std::ostringstream out;
        out << "DIFFERENCE seed " << c.seed << "\n  plan-gate: hook " << describe(hooks.first)
            << " | model " << describe(model.first) << "\n  plan-hints: hook "
            << describe(hooks.second) << " | model " << describe(model.second) << "\n  shapes: ";
        for (const std::string& s : original.shapes) out << s << "; ";
        out << "\n  model: ";
        for (const std::string& w : why) out << w << "; ";
        out << "\n  plan " << c.plan_path << " mtime " << c.plan_mtime << " cwd "
            << (c.cwd_present ? "present" : "absent") << " hints mode " << c.hints_mode
            << " config " << json::serialize(json::value(c.config_output))
            << "\n  plan text: " << json::serialize(json::value(c.plan_text.substr(0, 300)))
            << "\n  minimal transcript ("
            << std::count(c.transcript.begin(), c.transcript.end(), '\n') << " lines):\n";
        std::istringstream lines(c.transcript);
        std::size_t number = 0;
        for (std::string line; std::getline(lines, line);)
            out << "  " << ++number << ": "
                << (line.size() > 400 ? line.substr(0, 400) + "..." : line) << "\n";
        std::cout << out.str() << std::flush;
    }

private:
    RunResult run(const std::string& binary, std::string stdin_bytes) const {
        RunOptions options;
        options.stdin_bytes = std::move(stdin_bytes);
        options.env.emplace("CLAUDE_PLUGIN_ROOT", std::nullopt);
        options.env.emplace("VIBER_HOOKS_LOG", std::nullopt);
        options.cwd = run_dir_;
        options.timeout = std::chrono::seconds(15);
        return run_process(binary, options);
    }

    PluginTree gate_{"plan-gate"};
    PluginTree hints_{"plan-hints"};
    ScratchDir work_;
    std::string project_;
    std::string transcript_;
    std::string run_dir_;
    std::string config_ = "\x01"; // nothing written yet
};

} // namespace

// The model runs every plain plan's config.sh; the hook needs bash for it (wine has none).
// clang says it builds with AddressSanitizer through __has_feature (GCC defines
// __SANITIZE_ADDRESS__).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VIBER_CLANG_ASAN 1
#endif
#endif
#ifndef VIBER_CLANG_ASAN
#define VIBER_CLANG_ASAN 0
#endif

BOOST_AUTO_TEST_CASE(the_hooks_decide_as_the_model_does, *viber::testing::needs_bash()) {
    // Under an emulator (qemu-user, wine) each process start costs tens of milliseconds, under
    // the sanitizers a few times a native one: fewer cases there.
#if defined(_WIN32) || defined(__SANITIZE_ADDRESS__) || VIBER_CLANG_ASAN
    const bool emulated = true;
#else
    const bool emulated = !viber::testing::test_emulator().empty();
#endif
    const std::uint64_t cases = env_number("VIBER_DIFF_CASES", emulated ? 200 : 2000);
    const std::uint64_t first = env_number("VIBER_DIFF_SEED", 1);
    // The first differences are cut down and printed whole, the next 50 in one line each.
    const std::uint64_t reports = env_number("VIBER_DIFF_REPORTS", 3);
    Harness harness;
    std::size_t differences = 0;
    std::size_t gate_denies = 0;
    std::map<std::string, std::size_t> outcomes; // the model's plan-gate decisions, counted
    std::size_t hints_prints = 0;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t seed = first; seed < first + cases; ++seed) {
        const Case c = viber::model::generate_case(seed, harness.project());
        harness.materialize(c);
        const auto hooks = harness.run_hooks(c);
        const auto model = harness.run_model(c);
        ++outcomes[model.first.step.empty() ? "allow"
                                            : model.first.step + " [" + model.first.route + "]"];
        if (!model.first.step.empty()) ++gate_denies;
        if (!model.second.step.empty()) ++hints_prints;
        if (hooks.first == model.first && hooks.second == model.second) continue;
        ++differences;
        if (differences <= reports) {
            harness.report(c);
        } else if (differences <= reports + 50) {
            std::cout << "difference seed " << seed << ": plan-gate hook " << describe(hooks.first)
                      << " | model " << describe(model.first) << "; plan-hints hook "
                      << describe(hooks.second) << " | model " << describe(model.second)
                      << std::endl;
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << cases << " cases from seed " << first << " in " << seconds << " s: " << differences
              << " differ; the model denies " << gate_denies << " and prints " << hints_prints
              << std::endl;
    for (const auto& [outcome, count] : outcomes)
        std::cout << "  " << count << " " << outcome << "\n";
    BOOST_TEST(differences == 0u);
    // The generator reaches both decisions of each hook.
    BOOST_TEST(gate_denies > 0u);
    BOOST_TEST(gate_denies < cases);
    BOOST_TEST(hints_prints > 0u);
    BOOST_TEST(hints_prints < cases);
}
