// transcript.hpp: the one scanner of Claude Code transcripts (SPEC §3), shared by plan-gate and
// plan-hints. A single streaming pass with a raw-byte prefilter; only candidate lines are parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::transcript {

enum class Verdict { pass, fail, denied };

// A tool_use named Agent (or Task) carrying input.subagent_type.
struct Dispatch {
    std::size_t line = 0;
    std::string agent;  // subagent_type with a leading `prefix:` ([A-Za-z0-9_.-]+:) removed
    std::string id;     // the tool_use id when it starts "toolu_", else empty
    std::string prompt; // input.prompt, empty when absent
};

// A line carrying a verdict (SPEC §4 step 4), after the last plan write.
struct VerdictLine {
    std::size_t line = 0;
    Verdict value = Verdict::fail;            // the first verdict on the line in document order
    std::optional<std::int64_t> timestamp;    // top-level "timestamp", whole seconds since the epoch
    std::vector<std::size_t> named_dispatches; // indices into Scan::dispatches whose id the raw line contains
};

struct PlanWrite {
    std::size_t line = 0;
    std::string file_path; // the last matching input.file_path on the line
};

enum class Signals {
    planner,      // plan-gate: Skill planner / viber:planner
    planner_chain // plan-hints: planner, intent, fixer (bare or viber:) and typed /viber:intent, /viber:fixer
};

struct Scan {
    bool readable = false;       // a regular file, read to the end
    std::size_t lines = 0;       // physical lines read
    std::size_t episode_start = 0;
    // The last Skill signal of the requested set (0: none) and its own EnterPlanMode (0: none).
    std::size_t last_signal = 0;
    std::size_t last_signal_entry = 0;
    std::optional<PlanWrite> last_plan_write;
    std::vector<Dispatch> dispatches;   // after the last plan write
    std::vector<VerdictLine> verdicts;  // after the last plan write
};

struct Request {
    Signals signals = Signals::planner;
    bool plan_writes = false; // also collect the last plan write and the dispatches and verdicts after it
};

// Scans the transcript at `path`. A path that is not a regular file gives readable == false.
Scan scan_file(const std::string& path, const Request& request);
// The same over bytes in memory (tests, fuzzing).
Scan scan_bytes(std::string_view bytes, const Request& request);

// True when the last signal or its entry lies inside the episode (SPEC §3).
bool signal_owns_episode(const Scan& scan);

// True when `path` arms the gate: a `plans` segment between separators and a `.md` ending.
bool is_plan_path(std::string_view path);

// ISO-8601 to whole seconds since the epoch: fractional seconds dropped, `Z` or a numeric offset
// honoured, no zone read as UTC.
std::optional<std::int64_t> parse_timestamp(std::string_view text);

} // namespace viber::transcript
