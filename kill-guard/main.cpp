// main.cpp: kill-guard, the PreToolUse Bash hook that refuses a viber agent's stop-by-name command.
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain (docs/contract.md, "Tool mode"),
//           --commands-json[=text] (docs/command-model.md): tool
//           mode, exit 0. Anything else: one line on stderr naming the
//           misuse, exit 2.
//   cwd     not used.
//   env     VIBER_HOOKS_LOG: appends one line per call (docs/contract.md, "The troubleshooting
//           log").
//   reads   nothing but stdin: no file is opened and no process is started.
//   stdin   the PreToolUse payload, a JSON object, read to EOF within 64 MiB, 2 s idle and 8 s
//           in all; a leading UTF-8 BOM is stripped.
//   stdout  when the top-level `agent_type` starts `viber:` and `tool_input.command` stops
//           processes by name or by search wherever a command runs in it (killall, killall5,
//           pkill, skill, snice, fuser -k, kill-port, taskkill /IM or /FI, kill -1 / kill 0,
//           kill fed by xargs, parallel, a substitution or a variable filled from one,
//           PowerShell Stop-Process -Name), nests deeper than 32 levels, or expands more
//           variables and aliases than the command model reads (docs/command-model.md): one line,
//           {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
//           "permissionDecisionReason":"viber guard: …"}}. Otherwise nothing, never allow.
//   exit    0 in hook mode, whatever happens: every failure prints nothing.
#include "common/hook/hook_main.hpp"
#include "common/io/payload.hpp"
#include "kill-guard/kill_guard.hpp"
#include "tools/command_json.hpp"
#include "tools/replay.hpp"

namespace {

// --replay: the command a refusal stops processes by name with ("pkill", "xargs kill").
std::string stop_command(const viber::Decision& decision, const boost::json::object& payload) {
    if (decision.kind != viber::DecisionKind::deny) return "";
    const std::optional<std::string_view> command = viber::bash_command(payload);
    if (!command) return "";
    const std::optional<viber::kill_guard::StopByName> found =
        viber::kill_guard::find_stop_by_name(*command);
    if (!found) return "";
    switch (found->cap) {
    case viber::kill_guard::StopByName::Cap::nesting:
        return "nesting cap";
    case viber::kill_guard::StopByName::Cap::expansion:
        return "expansion cap";
    case viber::kill_guard::StopByName::Cap::commands:
        return "command cap";
    case viber::kill_guard::StopByName::Cap::none:
        break;
    }
    return found->command;
}

const viber::ReplaySpec replay{.calls = viber::ReplayCalls::agent_bash, .label = stop_command};

} // namespace

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "kill-guard",
         .help =
             "PreToolUse Bash hook. Reads the payload's top-level agent_type and\n"
             "tool_input.command; no file. For a viber: agent, refuses commands that stop\n"
             "processes by name or search (killall, pkill, skill, fuser -k, kill-port, taskkill\n"
             "/IM or /FI, kill -1, xargs kill, kill $(...), Stop-Process -Name) with a\n"
             "`viber guard:` correction; otherwise prints nothing. Always exits 0.",
         .decide = viber::kill_guard::decide,
         .prefilter = viber::Prefilter::viber_agent,
         .replay = &replay,
         .run_replay = viber::replay,
         .extra = viber::shell::commands_json_option});
}
