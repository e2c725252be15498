// plan_hints.cpp: the plan-hints decision (docs/plan-hints.md).
#include "plan-hints/plan_hints.hpp"

#include "common/io/files.hpp"
#include "common/io/payload.hpp"
#include "common/io/plugin_paths.hpp"
#include "common/transcript/transcript.hpp"

namespace viber::plan_hints {

std::optional<std::string> hint_context(const HintsInput& input) {
    // The viber planner, intent and fixer bring their own planning rules: the plain-plan rules
    // would contradict them for the rest of the episode.
    if (!input.plan_mode || input.chain_owns_episode || !input.hints_text) return std::nullopt;
    const std::string_view text = cut_trailing_newlines(*input.hints_text);
    if (text.empty()) return std::nullopt;
    return std::string(text);
}

namespace {

// The decision on the transcript's first `transcript_bytes` bytes (nullopt: the whole file; 0:
// none of it); `why` gets what decided.
Decision decide_on(const boost::json::object* payload, Trace& trace,
                   std::optional<std::uint64_t> transcript_bytes, std::string* why) {
    const auto say = [&](std::string text) {
        if (why != nullptr) *why = std::move(text);
    };
    if (payload == nullptr) return Decision::nothing();

    HintsInput input;
    const std::optional<std::string_view> mode = string_field(*payload, "permission_mode");
    input.plan_mode = mode == "plan";
    if (trace.on())
        trace.step(
            "permission_mode: " + (mode ? "`" + std::string(*mode) + "`" : std::string("absent")) +
            (input.plan_mode ? "" : " (not plan: nothing to add)"));
    // Outside plan mode nothing is read: this hook runs on every prompt.
    if (!input.plan_mode) {
        say("not in plan mode");
        return Decision::nothing();
    }

    input.hints_text = read_regular_file(plugin_file(plan_hints_file));
    if (!input.hints_text || cut_trailing_newlines(*input.hints_text).empty()) {
        say("hooks/content/plan-hints.md missing or empty (" + plugin_file(plan_hints_file) + ")");
        return Decision::nothing();
    }

    say("no planner, intent or fixer signal in the plan-mode episode");
    // A missing or unreadable transcript shows no signal, and neither does none of it.
    const auto path = string_field(*payload, "transcript_path");
    if (path && transcript_bytes != std::uint64_t{0}) {
        const transcript::Scan scan = transcript::scan_file(
            std::string(*path), {.signals = transcript::Signals::planner_chain,
                                 .plan_writes = false,
                                 .byte_limit = transcript_bytes.value_or(0)});
        input.chain_owns_episode = scan.readable && transcript::signal_owns_episode(scan);
        if (input.chain_owns_episode)
            say("the episode shows the viber planner, intent or fixer (line " +
                std::to_string(scan.last_signal) + ")");
        if (trace.on()) {
            trace.read("transcript " + std::string(*path) +
                       (scan.readable ? " (" + std::to_string(scan.lines) + " lines)"
                                      : " (not a readable regular file: no signal)"));
            if (scan.readable) {
                trace.step(scan.episode_start == 0 ? std::string("episode: the whole transcript")
                                                   : "episode: the lines after line " +
                                                         std::to_string(scan.episode_start));
                trace.step(scan.last_signal == 0
                               ? std::string("no planner, intent or fixer signal")
                               : "last planner/intent/fixer signal on line " +
                                     std::to_string(scan.last_signal) +
                                     (scan.last_signal_entry != 0
                                          ? ", its EnterPlanMode on line " +
                                                std::to_string(scan.last_signal_entry)
                                          : std::string()) +
                                     (input.chain_owns_episode ? ": inside the episode, so silent"
                                                               : ": before the episode"));
            }
        }
    }

    std::optional<std::string> context = hint_context(input);
    if (!context) return Decision::nothing();
    return Decision::context("UserPromptSubmit", std::move(*context));
}

} // namespace

Decision decide(const HookInput& in, Trace& trace) {
    return decide_on(in.payload, trace, std::nullopt, nullptr);
}

Decision decide_before(const boost::json::object& payload, std::uint64_t transcript_bytes,
                       std::string& why) {
    Trace off;
    return decide_on(&payload, off, transcript_bytes, &why);
}

} // namespace viber::plan_hints
