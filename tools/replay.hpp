// replay.hpp: `--replay PATH`: what a hook would have decided on the calls recorded in Claude
// Code sessions (docs/guide.md, "Replay"). Each hook says which calls it judges and how a decision
// is labelled (in its own directory); the reading of sessions is shared here.
#pragma once

#include "common/io/decision.hpp"

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber {

struct HookInfo;

// The calls a hook judges in a recorded session.
enum class ReplayCalls {
    // PreToolUse Bash: every Bash tool_use of a viber agent, read from the session's
    // `subagents/agent-*.jsonl` files (the agent named by `agent-*.meta.json`'s `agentType`).
    agent_bash,
    // SubagentStop: each viber agent's stop, with the text of its last assistant message.
    agent_stop,
    // PreToolUse ExitPlanMode: every ExitPlanMode tool_use of a main transcript (plan-gate).
    exit_plan_mode,
    // UserPromptSubmit: every typed prompt of a main transcript (a user line whose
    // message.content is a string) with the top-level permissionMode `plan` (plan-hints).
    plan_prompt,
};

// How a hook that reads the main transcript (exit_plan_mode, plan_prompt) judged one call.
struct ReplayJudgement {
    std::string decision; // "deny", "allow", "context", "silent"
    std::string label;    // short, counted in the summary ("planner-review", "plain plan")
    std::string why;      // printed under the row ("Next step: ..."); "" for none
};

struct ReplaySpec {
    ReplayCalls calls = ReplayCalls::agent_bash;
    // The rule or step a decision rests on, one short word or list ("R1,R4", "pkill", "no
    // verdict line"); "" for none. `payload` is the payload the call was judged on.
    std::string (*label)(const Decision& decision, const boost::json::object& payload) = nullptr;
    // For exit_plan_mode and plan_prompt, instead of the hook's decide: the call judged on the
    // transcript's first `transcript_bytes` bytes (the lines written when the hook ran).
    // Printed under the listing's first line: what the replay reads differently from hook mode.
    std::string_view note = {};
    ReplayJudgement (*judge)(const boost::json::object& payload,
                             std::uint64_t transcript_bytes) = nullptr;
};

// One call found in a session, as the hook is given it.
struct ReplayCall {
    std::string file;       // the agent file the call was read from
    std::size_t line = 0;   // its 1-based line there (for a stop: the last assistant line)
    std::string agent_type; // "viber:task-coder"
    std::string what;       // the command, or the event ("SubagentStop")
    std::string payload;    // the payload hook mode would have read (compact JSON)
    // For a main transcript's call: the bytes of the transcript written when the hook ran.
    std::uint64_t transcript_bytes = 0;
};

// What reading the sessions under `path` found, beside the calls.
struct ReplayCount {
    std::size_t sessions = 0;          // main transcripts seen
    std::size_t agent_files = 0;       // subagents/agent-*.jsonl files seen
    std::size_t viber_agent_files = 0; // of which a viber agent's
    std::size_t long_lines = 0;        // lines over the cap, passed over
    std::size_t calls_left = 0;        // main-transcript calls before the last ones, not judged
    std::size_t not_transcripts = 0;   // .jsonl files under a directory that are no transcript
    std::vector<std::string> files;    // the transcripts and agent files found, in path order
    // Why `path` was not read (not a transcript, no transcript in the directory, neither a file
    // nor a directory); "" when it was.
    std::string refusal;
};

// Why the file at `path` is not a Claude Code session transcript (JSONL: one JSON object with a
// string `type` a line; the first line that is not blank or over the cap is looked at), or
// nullopt when it is one.
std::optional<std::string> not_a_transcript(const std::string& path);

// A main transcript's calls are judged each on the transcript read again up to it: at most this
// many of a session's (its last ones), so a replay costs at most that many reads of a session.
inline constexpr std::size_t judged_main_calls = 64;

// Streams the sessions under `path` (a session transcript with its `<session>/subagents/`, one
// agent file, or a directory searched for both, e.g. ~/.claude/projects/<project>/) and calls
// `on_call` with each call of `calls`, in path order. Nothing read is run: the caller only
// passes the payload to a decision. False, with `count.refusal` saying why, when `path` is
// neither a transcript nor a directory holding one.
bool read_sessions(const std::string& path, ReplayCalls calls,
                   const std::function<void(const ReplayCall&)>& on_call, ReplayCount& count);

// Tool mode's --replay: every call printed with its agent, command or event, decision and label,
// then a summary count; when no call was judged, what was read (lines, tool calls by name). 0, or
// 2 (one line on stderr) for a path that holds no transcript. `info.replay` is set: tool mode
// offers --replay only then.
int replay(const HookInfo& info, const std::string& path);

} // namespace viber
