// transcript.hpp: the one scanner of Claude Code transcripts (docs/transcript.md), shared by
// plan-gate and plan-hints. A single streaming pass with a raw-byte prefilter; only candidate
// lines are parsed.
#pragma once

#include "common/fast/kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace viber::transcript {

enum class Verdict { pass, fail, denied };

// A tool_use named Agent (or Task) carrying input.subagent_type, of an agent the caller pairs.
struct Dispatch {
    std::size_t line = 0;
    std::string agent;       // subagent_type with a leading `prefix:` ([A-Za-z0-9_.-]+:) removed
    std::string id;          // the tool_use id when it starts "toolu_", else empty
    std::string prompt_line; // the one prompt line the caller asked for (PairedAgent), else empty
    // Its own tool_result, on a later line, is an error (`"is_error":true`: the call was refused
    // or could not start), so no review runs: it is no dispatch (SPEC §4, rev. 4) and pairing
    // passes over it. Set only on a dispatch kept in line order (a review-set member's); a single
    // reviewer's failed dispatches never reach the lists.
    bool failed = false;
};

// A dispatch whose own tool_result is an error, as the refusal names it.
struct FailedDispatch {
    std::size_t line = 0;       // the dispatch
    std::string agent;          // as in Dispatch
    std::size_t error_line = 0; // its tool_result
    std::string error;          // the first line of the error's text
};

// A line carrying a verdict (docs/plan-gate.md, "Pairing"), after the last plan write.
struct VerdictLine {
    std::size_t line = 0;
    Verdict value = Verdict::fail;         // the first verdict on the line in document order
    std::optional<std::int64_t> timestamp; // top-level "timestamp", whole seconds since the epoch
    std::vector<std::size_t> named_dispatches; // indices into Scan::dispatches the line names
};

// An agent whose dispatches the caller keeps (Request::paired_agents) to pair them with verdict
// lines itself (Request::pairing): its bare name, a value of the caller's own that the scanner
// hands back untouched (plan-gate: the rule its dispatches pair by), and the part of its prompt
// the caller reads.
struct PairedAgent {
    std::string_view name; // the agent, bare
    std::uint8_t tag = 0;
    // The part of the prompt the caller reads (a task reviewer's `tasks:` line), or nullptr for
    // none: only that line is copied, never the prompt.
    std::optional<std::string_view> (*prompt_line)(std::string_view prompt) = nullptr;
};

struct PlanWrite {
    std::size_t line = 0;
    std::string file_path; // the last matching input.file_path on the line
};

// Lines after the last plan write that only pairing reads, waiting for settle_pairing (opaque).
class PendingPairing;
// The caller's pairing, which the scanner hands the dispatch and verdict candidates to
// (transcript_candidates.hpp).
class Candidates;

enum class Signals {
    planner,      // plan-gate: Skill planner / viber:planner
    planner_chain // plan-hints: planner, intent, fixer (bare or viber:) and typed /viber:intent,
                  // /viber:fixer
};

struct Scan {
    bool readable = false; // a regular file, read to the end
    std::size_t lines = 0; // physical lines read
    std::size_t episode_start = 0;
    // The last Skill signal of the requested set (0: none) and its own EnterPlanMode (0: none).
    // A typed /viber:intent or /viber:fixer (planner_chain) is a signal that never has an entry.
    std::size_t last_signal = 0;
    std::size_t last_signal_entry = 0;
    std::optional<PlanWrite> last_plan_write;
    // Both lists are empty while there is no plan write: there is no "after" to collect in.
    // Only dispatches of Request::paired_agents are kept, and only the verdict lines that can
    // close one of them under its rule: a session that ran thousands of other agents, or whose
    // reviewers answered many times, keeps only what pairing reads (a single reviewer settled
    // late: only what decides its pairing).
    std::vector<Dispatch> dispatches; // after the last plan write
    std::vector<VerdictLine>
        verdicts; // after the last plan write (never the plan write's own line)
    // The latest failed dispatch of each paired agent after the last plan write (Dispatch::failed),
    // in no particular order.
    std::vector<FailedDispatch> failed_dispatches;
    // Set only for a Request with settle_later: the dispatch and verdict candidates after the last
    // plan write that the scan did not parse yet. The lists above are complete only once
    // settle_pairing() has run (a scan without it is complete as returned).
    std::shared_ptr<PendingPairing> pending;
};

struct Request {
    Signals signals = Signals::planner;
    bool plan_writes =
        false; // also collect the last plan write and the dispatches and verdicts after it
    std::span<const PairedAgent> paired_agents = {}; // whose dispatches to keep (plan_writes only)
    // Leave the dispatch and verdict candidates after the last plan write unparsed (only their
    // place is kept) until the caller, knowing which agents it pairs, calls settle_pairing(): a
    // single reviewer then costs a parse of the lines from the end back to its latest pair. The
    // scan keeps the file open (or, from scan_bytes, a view of the bytes) until then.
    bool settle_later = false;
    // Read only the file's first `byte_limit` bytes (0: all of it): --replay judges a recorded
    // call on the transcript as it stood then, a prefix of the file as it is now.
    std::uint64_t byte_limit = 0;
    // The caller's pairing (plan-gate's pairing window), made for the scan's Scan, parse arena,
    // read-buffer size and window size; nullptr: nothing is paired, the lists stay empty.
    using Pairing = std::unique_ptr<Candidates> (*)(const Request& request, Scan& scan,
                                                    std::span<unsigned char> arena,
                                                    std::size_t buffer_size,
                                                    std::size_t window_entries);
    Pairing pairing = nullptr;
};

// Lines longer than this are passed over unparsed (docs/contract.md, "Bounded").
inline constexpr std::size_t longest_parsed_line = std::size_t{64} << 20;

// The `toolu_` tokens of a raw line, in order: `toolu_` and the letters, digits, `_` and `-`
// after it (a tool_use id as Claude Code writes it). A verdict line names a dispatch when one of
// them equals the dispatch's id, so `toolu_01A` inside `toolu_01AB` names another call.
std::vector<std::string_view> toolu_tokens(std::string_view line);

// Scans the transcript at `path`. A path that is not a regular file gives readable == false,
// without blocking (a FIFO, a directory, /dev/zero, a dangling link). No exception escapes: a read
// error or an allocation failure also gives readable == false, so callers fail open.
Scan scan_file(const std::string& path, const Request& request);
// The same over bytes in memory (tests, fuzzing); readable is true unless allocation failed.
Scan scan_bytes(std::string_view bytes, const Request& request);

// Completes a settle_later scan's lists for `agents` (a subset of the request's paired agents) and
// drops its pending lines; nothing to do for a scan without them. A single reviewer's lists gain
// only the lines its pairing decides on (docs/plan-gate.md, "Pairing"), found from the end: its
// last dispatch and its latest pair, which pair in order as every line would; a review-set member
// gets every line, paired in order as scan_bytes pairs them. False when a line could not be read
// again or memory ran out (the caller fails open); the lists are then incomplete.
bool settle_pairing(Scan& scan, std::span<const PairedAgent> agents);

// True when the last signal or its entry lies inside the episode (docs/transcript.md).
bool signal_owns_episode(const Scan& scan);

// True when `path` arms the gate: a `plans` segment between separators and a `.md` ending.
bool is_plan_path(std::string_view path);

// ISO-8601 to whole seconds since the epoch: fractional seconds dropped, `Z` or a numeric offset
// honoured, no zone read as UTC.
std::optional<std::int64_t> parse_timestamp(std::string_view text);

// The verdict grammar (docs/plan-gate.md, "Verdict lines") on one string value: the first
// `VERDICT:` in `text` that stands, after optional spaces and tabs, at the string's start (only
// when `content_or_text_key`, i.e. the value of a `content` or `text` key), after a `\n`, or
// right after `<result>`, and is followed by a well-formed value.
std::optional<Verdict> verdict_in_string(std::string_view text, bool content_or_text_key);

// The agent named by a subagent_type: a leading `[A-Za-z0-9_.-]+:` prefix removed.
std::string_view agent_of(std::string_view subagent_type);

// Internals exposed so tests can hold the two prefilter kernels and the buffer handling to the
// same results; hooks do not use them.
namespace detail {

// The prefilter's line-scan kernels (common/fast/kernel.hpp).
using Kernel = fast::Kernel;
inline bool kernel_supported(Kernel kernel) {
    return fast::supported(kernel, fast::line_kernels);
}

// The raw-byte needles of the prefilter, one bit each in a line's hit mask.
enum Needle : unsigned {
    needle_permission_mode_type, // permission-mode      (episode start)
    needle_permission_mode_key,  // permissionMode       (a typed prompt's mode; a plan-mode record
                                 //                       ends a pending entry)
    needle_skill,                // "Skill"              (a Skill tool_use)
    needle_enter_plan_mode,      // EnterPlanMode        (the pending entry)
    needle_string_content,  // "content":"          (a string-content line ends a pending entry)
    needle_file_path,       // file_path            (a plan write)
    needle_subagent_type,   // subagent_type        (a dispatch)
    needle_verdict,         // VERDICT:             (a verdict line)
    needle_tool_error,      // "is_error":true      (a failed tool call: a dispatch's own error)
    needle_command_message, // <command-message>viber:  (a typed chain command)
    needle_plans,           // plans                (with a file_path, a line that may write a plan)
    needle_plan_mode_exit,  // plan_mode_exit       (an attachment that starts the episode)
    needle_count
};
std::string_view needle_text(Needle needle);

// Per physical line of `bytes`, the mask of needles found in it, by the chosen kernel.
std::vector<std::uint32_t> line_hits(std::string_view bytes, Kernel kernel);

// Dispatch and verdict candidates held unparsed after the last plan write before the oldest
// half is paired in order (a bounded window; scan_bytes_with_window lets tests make it small).
inline constexpr std::size_t default_pairing_window = std::size_t{64} * 1024;

// scan_bytes with a chosen read-buffer size and kernel, so tests cross every buffer boundary.
Scan scan_bytes_with(std::string_view bytes, const Request& request, std::size_t buffer_size,
                     Kernel kernel, std::size_t window_entries = default_pairing_window);
Scan scan_bytes_with_window(std::string_view bytes, const Request& request,
                            std::size_t window_entries);

} // namespace detail

} // namespace viber::transcript
