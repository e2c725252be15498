// plan_hints.cpp: the plan-hints decision (SPEC §5).
#include "plan-hints/plan_hints.hpp"

#include "common/files.hpp"
#include "common/payload.hpp"
#include "common/plugin_paths.hpp"
#include "common/transcript.hpp"

namespace viber::plan_hints {

std::optional<std::string> hint_context(const HintsInput& input) {
    // The viber planner, intent and fixer bring their own planning rules: the plain-plan rules
    // would contradict them for the rest of the episode.
    if (!input.plan_mode || input.chain_owns_episode || !input.hints_text) return std::nullopt;
    const std::string_view text = cut_trailing_newlines(*input.hints_text);
    if (text.empty()) return std::nullopt;
    return std::string(text);
}

Decision decide(const HookInput& in, Trace&) {
    if (in.payload == nullptr) return Decision::nothing();
    const boost::json::object* payload = in.payload;

    HintsInput input;
    input.plan_mode = string_field(*payload, "permission_mode") == "plan";
    // Outside plan mode nothing is read: this hook runs on every prompt.
    if (!input.plan_mode) return Decision::nothing();

    input.hints_text = read_regular_file(plugin_file(plan_hints_file));
    if (!input.hints_text || cut_trailing_newlines(*input.hints_text).empty())
        return Decision::nothing();

    // A missing or unreadable transcript shows no signal.
    if (const auto path = string_field(*payload, "transcript_path")) {
        const transcript::Scan scan =
            transcript::scan_file(std::string(*path), {transcript::Signals::planner_chain, false});
        input.chain_owns_episode = scan.readable && transcript::signal_owns_episode(scan);
    }

    std::optional<std::string> context = hint_context(input);
    if (!context) return Decision::nothing();
    return Decision::context("UserPromptSubmit", std::move(*context));
}

} // namespace viber::plan_hints
