// plan_gate.hpp: the plan-gate decision (docs/plan-gate.md): which review a plan leaving plan mode
// needs, and whether the transcript shows it, as pure functions over what the hook read.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"
#include "common/transcript/transcript.hpp"
#include "plan-gate/file_limit.hpp"

#include <array>
#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace viber::plan_gate {

inline constexpr std::string_view planner_reviewer = "planner-review";
inline constexpr std::string_view plain_reviewer = "plain-plan-review";

// The plan the gate armed on and what the disk said about it.
struct Plan {
    std::string path;                 // the write's file_path, or cwd/<file_path> (step 1)
    std::string name;                 // the part of `path` after its last `/` or `\`
    std::size_t write_line = 0;       // the line of the last plan write
    std::optional<std::string> text;  // nullopt: missing, not a regular file or unreadable
    std::optional<std::time_t> mtime; // whole seconds; nullopt when not a regular file
};

// Everything decide() looks at, gathered by the hook before any decision is made.
struct GateInput {
    transcript::Scan scan;
    std::optional<Plan> plan;            // nullopt: the gate is not armed
    std::optional<bool> plain_review_on; // the config switch; nullopt when not consulted (off)
    FileTally counted_files;             // count_plan_files() of a plain plan with the switch on
    std::string refs_dir;                // <plugin root>/references, for the dispatch text
};

// The agents the gate pairs and how (docs/plan-gate.md, "Pairing"): the scanner keeps only their
// dispatches, and of a task reviewer's prompt only its `tasks:` line.
extern const std::array<transcript::PairedAgent, 5> paired_agents;

// Which review a plan needs.
enum class Route { planner_review, review_set, plain };

// The paired agents whose pairing decides a route (settled by gather() once the route is known).
std::span<const transcript::PairedAgent> reviewers_of(Route chosen);

// Step 1: the last plan write when it lies inside the episode; nullptr otherwise.
const transcript::PlanWrite* armed_plan_write(const transcript::Scan& scan);

// Step 1: the part after the last `/` or `\`.
std::string_view plan_name(std::string_view path);

// Step 2: line 1 is exactly `---` (a trailing CR stripped; a BOM makes it something else) and a
// line starting `source:` at column 0 comes before the next `---` line or the end of the text.
bool opens_with_planner_frontmatter(std::string_view text);

// Step 2: the planner owns the plan when it owns the episode and the plan opens with its
// frontmatter; a plan it cannot read stays the planner's, never loosening to the plain path.
bool planner_owns_plan(const transcript::Scan& scan, const Plan& plan);

// Step 2: planner-review, the review set (more than 12 tasks in a plan it can read), or plain.
Route route(const transcript::Scan& scan, const Plan& plan);

// Step 4: the refusal of the single reviewer `agent` (planner_reviewer or plain_reviewer), or
// nullopt when its latest pair is a PASS no later write voided. The agent picks the dispatch text
// and the trailer of the reason. Each pair it makes is recorded in `trace`.
std::optional<std::string> single_reviewer_refusal(const GateInput& input, const Plan& plan,
                                                   std::string_view agent, Trace& trace);

// The whole decision: nullopt allows, a string is the deny reason (it opens "Next step:").
std::optional<std::string> decide(const GateInput& input);
// The same, recording the owner, route, config switch, file count and pairs in `trace`.
std::optional<std::string> decide(const GateInput& input, Trace& trace);

// Where gather takes what it does not read from the payload. By default the whole transcript, and
// the plain-review switch from scripts/config.sh. A call judged on a transcript as it stood earlier
// (tools/replay.cpp) gives the transcript's first bytes and the switch's value: then no process is
// started. The plan file is read as it is now.
struct Sources {
    std::uint64_t transcript_bytes = 0;  // read only the first bytes (0: the whole file)
    std::optional<bool> plain_review_on; // the switch as given, config.sh not run (nullopt: run it)
};
// Reads everything decide() needs for this payload (transcript, plan file, config switch, root),
// recording what it read and the episode and plan write in `trace`. Work stops as soon as the
// answer is known to be allow: an unarmed gate reads no plan file and starts no process, and only
// a plain plan runs config.sh.
std::optional<GateInput> gather(const boost::json::object& payload, Trace& trace,
                                const Sources& sources = {});

// hook_main's entry: the deny, or nothing on every other path (fail-open ones included).
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::plan_gate
