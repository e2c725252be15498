// review_set.hpp: the review set that gates planner plans of more than 12 tasks (docs/plan-gate.md,
// step 5).
#pragma once

#include "common/transcript/transcript.hpp"

#include <cstddef>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace viber::plan_gate {

// Plans with more tasks than this go to the review set instead of planner-review.
inline constexpr std::size_t review_set_threshold = 12;

// Lines that are exactly `<!-- TASK -->` (a trailing CR ignored; code fences not excluded).
std::size_t count_tasks(std::string_view plan_text);

// The members of the review set, bare.
inline constexpr std::string_view spec_reviewer = "planner-spec-review";
inline constexpr std::string_view graph_reviewer = "planner-graph-review";
inline constexpr std::string_view task_reviewer = "planner-task-review";

// The range of the first prompt line matching `^\s*tasks:\s*T(\d+)\s*-\s*T(\d+)\s*$` with
// 1 <= a <= b; nullopt when there is none.
std::optional<std::pair<std::size_t, std::size_t>> task_range(std::string_view prompt);

// That first matching line itself (a view into `prompt`): all the scanner copies of a task
// reviewer's prompt, so task_range() of the line gives the prompt's range.
std::optional<std::string_view> task_range_line(std::string_view prompt);

struct ReviewSetInput {
    std::string plan_path; // as the gate resolved it
    std::string plan_name; // the part after the last separator
    std::size_t tasks = 0; // count_tasks of the plan (> 12)
    std::size_t plan_write_line = 0;
    std::string refs_dir; // the plugin's reference directory, for the dispatch text
    std::optional<std::time_t> plan_mtime; // whole seconds; nullopt when not a regular file
    const std::vector<transcript::Dispatch>* dispatches = nullptr; // kept after the last plan write
    const std::vector<transcript::VerdictLine>* verdicts = nullptr;
    // The latest failed dispatch of each agent after the last plan write (SPEC §4, rev. 4).
    const std::vector<transcript::FailedDispatch>* failed = nullptr;
};

// nullopt: allow. Otherwise the deny reason (opens "Next step:").
std::optional<std::string> review_set_refusal(const ReviewSetInput& input);

} // namespace viber::plan_gate
