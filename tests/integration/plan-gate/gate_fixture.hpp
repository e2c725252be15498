// gate_fixture.hpp: what the plan-gate integration tests share: a scratch plugin tree holding a
// copy of the binary and a stub scripts/config.sh, a scratch project directory, transcripts
// built event by event, and the answer parsed back.
#pragma once

#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <array>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace plan_gate_test {

namespace json = boost::json;
using viber::testing::PluginTree;
using viber::testing::RunOptions;
using viber::testing::RunResult;
using viber::testing::ScratchDir;
using viber::testing::TranscriptBuilder;

inline constexpr std::string_view planner_plan =
    "---\nsource: interview\n---\n# Plan\n\nDo the thing.\n";
inline constexpr std::string_view plain_plan = "# Plan\n\nDo the thing.\n";

inline constexpr std::string_view switch_on_script =
    "echo 'memory: true'\necho 'planning.plain-plan-review: true'\necho 'planning.other: false'\n";
inline constexpr std::string_view switch_off_script =
    "echo 'memory: true'\necho 'planning.plain-plan-review: false'\n";

// A fixed moment for verdict timestamps: 2026-10-01T10:00:00Z.
inline constexpr long long verdict_epoch = 1790848800;
inline constexpr std::string_view verdict_iso = "2026-10-01T10:00:00.000Z";

// The gate's answer, parsed.
struct Answer {
    RunResult run;
    std::string decision; // "deny", or empty when stdout was not one answer line
    std::string reason;
};

inline bool has(const std::string& text, std::string_view needle) {
    return text.find(needle) != std::string::npos;
}

class Gate {
public:
    Gate() : tree_("plan-gate") {
        // A gate that stops reading a payload past its bound closes the pipe under the writer.
        std::signal(SIGPIPE, SIG_IGN);
        // The process cwd is an empty directory apart from the project, so a relative plan path
        // can only be found through the payload's cwd.
        run_dir_ = scratch_.mkdir("process-cwd");
    }

    const PluginTree& tree() const { return tree_; }
    const ScratchDir& project() const { return project_; }
    const ScratchDir& scratch() const { return scratch_; }

    // Writes the stub X/scripts/config.sh.
    void config(std::string_view body) const { tree_.write("scripts/config.sh", body); }

    // Writes the plan file under the project; returns its absolute path.
    std::string plan(std::string_view rel, std::string_view text) const {
        return project_.write(rel, text);
    }

    std::string transcript(const TranscriptBuilder& builder) const {
        return scratch_.write("transcript.jsonl", builder.text());
    }

    // The payload for ExitPlanMode with this transcript and the project as cwd.
    json::object payload(const TranscriptBuilder& builder) const {
        return json::object{{"session_id", "s"},
                            {"transcript_path", transcript(builder)},
                            {"cwd", project_.path()},
                            {"permission_mode", "plan"},
                            {"hook_event_name", "PreToolUse"},
                            {"tool_name", "ExitPlanMode"},
                            {"tool_input", json::object{{"plan", "the plan"}}}};
    }

    Answer ask_raw(std::string stdin_bytes, RunOptions options = {}) const {
        options.stdin_bytes = std::move(stdin_bytes);
        options.env.emplace("CLAUDE_PLUGIN_ROOT", std::nullopt);
        if (!options.cwd) options.cwd = run_dir_;
        if (options.timeout == RunOptions{}.timeout) options.timeout = std::chrono::seconds(15);
        Answer answer;
        answer.run = viber::testing::run_process(tree_.binary(), options);
        boost::system::error_code ec;
        const json::value value = json::parse(answer.run.out, ec);
        if (!ec && value.is_object() && answer.run.out.ends_with("\n") &&
            answer.run.out.find('\n') == answer.run.out.size() - 1) {
            if (const auto* out = value.as_object().if_contains("hookSpecificOutput");
                out && out->is_object()) {
                const auto& o = out->as_object();
                if (const auto* d = o.if_contains("permissionDecision"); d && d->is_string())
                    answer.decision = std::string(d->as_string());
                if (const auto* r = o.if_contains("permissionDecisionReason"); r && r->is_string())
                    answer.reason = std::string(r->as_string());
            }
        }
        return answer;
    }

    Answer ask(const json::object& payload, RunOptions options = {}) const {
        return ask_raw(json::serialize(payload), std::move(options));
    }
    Answer ask(const TranscriptBuilder& builder, RunOptions options = {}) const {
        return ask(payload(builder), std::move(options));
    }

private:
    PluginTree tree_;
    ScratchDir project_;
    ScratchDir scratch_;
    std::string run_dir_;
};

// No objection: nothing at all on stdout (an explicit allow would skip Claude Code's own
// permission flow, docs/plan-gate.md), exit 0.
inline void require_allow(const Answer& answer) {
    BOOST_TEST(answer.run.exit_code == 0);
    BOOST_TEST(!answer.run.timed_out);
    BOOST_TEST(answer.run.out.empty(), "stdout: " << answer.run.out.substr(0, 200));
}

// A deny whose reason opens `next_step`, exit 0.
inline void require_deny(const Answer& answer, std::string_view next_step) {
    BOOST_TEST(answer.run.exit_code == 0);
    BOOST_TEST(!answer.run.timed_out);
    BOOST_TEST(answer.decision == "deny");
    BOOST_TEST(answer.reason.starts_with(next_step), "reason: " << answer.reason);
}

// An ISO-8601 UTC spelling of `seconds` with milliseconds.
inline std::string iso_utc(long long seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buffer[40];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
    return buffer;
}

// An episode the planner owns: a default-mode record, the planner's Skill call, its EnterPlanMode.
inline void planner_episode(TranscriptBuilder& t) {
    t.permission_mode("default");
    t.typed_prompt("plan the feature");
    t.skill("viber:planner", "toolu_skill");
    t.enter_plan_mode();
}

// An episode with no planner signal.
inline void plain_episode(TranscriptBuilder& t) {
    t.permission_mode("default");
    t.typed_prompt("plan the feature");
    t.enter_plan_mode();
}

// Two plan paths under the project's .claude/plans that are no regular file: a FIFO nobody writes
// and a symlink to /dev/zero. A gate that opened either without care would block or read forever.
// POSIX only (a test using them is posix_only).
inline std::array<std::string, 2> fifo_and_device_plans(Gate& gate) {
    gate.project().mkdir(".claude/plans");
    const std::string fifo = gate.project() / ".claude/plans/fifo.md";
    const std::string zero = gate.project() / ".claude/plans/zero.md";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    BOOST_REQUIRE(::symlink("/dev/zero", zero.c_str()) == 0);
    return {fifo, zero};
}

} // namespace plan_gate_test
