// model.hpp: a plain model of plan-gate's and plan-hints' decisions (SPEC §3-§5), written again
// apart from the production scanner (common/transcript/transcript.cpp) and the hooks, for
// differential tests.
//
// Plain on purpose: the transcript is read whole into lines, every line gets one Boost.JSON parse,
// every definition is a loop over all lines (quadratic where that is simplest), no prefilter, no
// windows. It calls nothing of common/ or the hooks: a fault there cannot hide here.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace viber::model {

// What plan-gate decides, in a form two implementations can compare.
struct GateDecision {
    // Empty: allow (no output). Otherwise the deny's "Next step:" kind, one of "review the plan",
    // "let the review finish", "grant the permission", "fix the findings", "re-review",
    // "narrow the plan".
    std::string step;
    // "planner" (planner-review), "plain" (plain-plan-review) or "set" (the review set); empty on
    // allow before a reviewer is chosen.
    std::string route;
    // The review set's missing parts in the order the refusal names them
    // ("viber:planner-spec-review", "viber:planner-task-review for T9-T13"); only for a review
    // set refusal (a).
    std::vector<std::string> missing;
    // The plain plan file limit's count (on the plain path with the switch on).
    std::size_t file_count = 0;
    // One line per step the model took, for a person reading a difference.
    std::vector<std::string> why;
};

struct GateInput {
    std::optional<std::string> transcript_path;
    std::optional<std::string> cwd;
    // What scripts/config.sh prints on stdout (the model reads the switch from it plainly).
    std::string config_output;
};

GateDecision gate_decision(const GateInput& input);

struct HintsInput {
    std::optional<std::string> transcript_path;
    std::string permission_mode; // the payload's top-level permission_mode
    std::string content;         // hooks/content/plan-hints.md (empty: missing or empty)
};

// True when plan-hints prints its context.
bool hints_print(const HintsInput& input);

// The plain plan file limit (SPEC §4 step 3): the distinct repository files the plan text names,
// each in its canonical absolute spelling. `root` and `plan_path` are absolute.
std::set<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                 const std::string& plan_path);

// Pieces a test may hold to the SPEC directly.
std::optional<long long> parse_timestamp(std::string_view text); // whole seconds since the epoch
std::optional<std::string> verdict_in_string(std::string_view text, bool content_or_text);
bool arms_plan_path(std::string_view file_path);
std::size_t task_count(std::string_view plan_text);
bool planner_frontmatter(std::string_view plan_text);

} // namespace viber::model
