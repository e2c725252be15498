// workloads.hpp: the payloads, commands, messages, plans and transcripts the benchmark feeds the
// hooks, shaped like what Claude Code sends (compact JSON, realistic keys and sizes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace viber::bench {

// A deterministic generator, so two runs measure the same bytes.
class Noise {
public:
    explicit Noise(std::uint64_t seed = 0x9e3779b97f4a7c15ull) : state_(seed) {}
    std::uint64_t next();
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
    // Prose of about `bytes` characters, in lines of 60-100 characters.
    std::string prose(std::size_t bytes);
    // Source-code-like text of about `bytes` characters (what a Read tool_result returns).
    std::string code(std::size_t bytes);

private:
    std::uint64_t state_;
};

// A Bash command of about `bytes` bytes that no guard refuses (no chain, rm, write or inline
// code): the guard has to analyze all of it.
std::string allowed_command(std::size_t bytes);

// The hostile commands of about `bytes` bytes each (docs/command-model.md, "Caps and cost"): what
// each is, and what kill-guard and shell-guard (for viber:task-coder) decide on it.
struct HostileCommand {
    std::string label;
    std::string command;
    std::string kill_guard;  // "deny" or "silent"
    std::string shell_guard; // "deny" or "silent"
};
std::vector<HostileCommand> hostile_commands(std::size_t bytes);

// PreToolUse Bash payload; `agent_type` empty means the main session (no agent keys).
std::string bash_payload(std::string_view agent_type, std::string_view command,
                         std::string_view cwd);

// SubagentStop payload carrying `message` as last_assistant_message.
std::string subagent_stop_payload(std::string_view agent_type, std::string_view message,
                                  std::string_view cwd);

// A final agent message of about `bytes` bytes ending with its verdict line.
std::string agent_message(std::size_t bytes);

std::string session_start_payload(std::string_view cwd);
std::string user_prompt_payload(std::string_view transcript_path, std::string_view cwd);
std::string exit_plan_mode_payload(std::string_view transcript_path, std::string_view cwd);

// A planner plan (frontmatter with `source:`) holding `tasks` `<!-- TASK -->` blocks.
std::string planner_plan(std::size_t tasks);

// A plain plan of about `bytes` bytes naming `paths` distinct repository files.
std::string plain_plan(std::size_t bytes, std::size_t paths);

// Writes a transcript to `path`: about `noise_bytes` of realistic 1-3 KB lines, then the tail for
// one gate path. Returns false when the file could not be written.
enum class Tail {
    planner_pass,    // planner Skill, EnterPlanMode, plan write, planner-review dispatch, PASS
    review_set_pass, // the same with the review set (spec, graph, two task slices) all PASS
    plain_plan,      // EnterPlanMode without the planner, a plain plan write, no review
    many_reviews,  // planner: 20,000 planner-review dispatches after the plan write, each answered
                   // by its verdict line (FAIL, the last PASS)
    many_unpaired, // planner: 20,000 planner-review dispatches after the plan write, each
                   // followed by a verdict line naming another id: nothing pairs, so settling
                   // from the end back must look at every line (the worst case for pairing)
    plans_line,    // planner PASS after one 8 MB assistant line whose text names `plans` 590,000
                   // times between escaped quotes and backslashes: the quote search back from
                   // each `plans` hit (is it a "file_path" value?) at its worst
};
inline constexpr std::size_t many_reviews = 20000;
bool write_transcript(const std::string& path, std::size_t noise_bytes, Tail tail,
                      const std::string& plan_path, std::size_t plan_tasks);

// ISO-8601 UTC for `seconds` since the epoch.
std::string iso_time(std::int64_t seconds);

} // namespace viber::bench
