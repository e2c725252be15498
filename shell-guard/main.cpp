// main.cpp: shell-guard, the PreToolUse Bash hook holding viber's coders and reviewers to R1-R5
// (the rules and why each exists open shell_guard.cpp).
//
// Contract:
//   argv   none: hook mode. --help, --version, --explain [FILE], --explain --log FILE[:LINE],
//          --replay PATH (docs/contract.md, "Tool mode"), --commands-json[=text]
//          (docs/command-model.md): tool mode, exit 0. Anything else: one line
//          on stderr naming the misuse, exit 2.
//   cwd    not used (the payload's `cwd` is)
//   env    HOME, when a write target opens with `~` or `$HOME`. VIBER_HOOKS_LOG: appends one line
//          per call (docs/contract.md, "The troubleshooting log").
//   reads  stdin; for viber:task-coder, when a write target must be placed, the `.git` entries
//          on the way up from the payload's `cwd` (its git top level). No file is opened and no
//          process is started, for any caller.
//   stdin  the PreToolUse payload of a Bash call: the top-level `agent_type`, `cwd` and
//          `tool_input.command` are read (to EOF within 64 MiB, 2 s idle, 8 s in all; a leading
//          UTF-8 BOM stripped)
//   stdout for `viber:task-coder` (R1-R5), `viber:task-reviewer` and `viber:final-reviewer` (R2
//          only), when the command breaks a rule binding the caller: one line
//          {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
//          "permissionDecisionReason":"viber guard: …"}} naming each broken rule, in order, with
//          the correction to apply. Nothing otherwise, never an allow: an allow would skip the
//          user's own permission rules for every command the guard lets through.
//   exit   0 always. Fail open (nothing printed): a payload without `viber:` (dismissed before it
//          is parsed), not JSON, not an object, without the keys, an unread stdin, any exception.
//          A command nesting past the command model's cap is judged on what was found in it;
//          one past its command cap (10,000 commands) that broke no rule before it is refused.
#include "common/hook/hook_main.hpp"
#include "shell-guard/shell_guard.hpp"
#include "tools/command_json.hpp"
#include "tools/replay.hpp"

namespace {

// --replay: the rules a refusal names ("R1,R4", from `this command breaks R1,R4;`), or "command
// cap" for a command past the command model's cap.
std::string broken_rules(const viber::Decision& decision, const boost::json::object&) {
    constexpr std::string_view opening = "breaks ";
    const std::size_t at = decision.reason.find(opening);
    if (decision.kind != viber::DecisionKind::deny) return "";
    if (at == std::string::npos) return "command cap";
    const std::size_t from = at + opening.size();
    return decision.reason.substr(from, decision.reason.find(';', from) - from);
}

const viber::ReplaySpec replay{.calls = viber::ReplayCalls::agent_bash, .label = broken_rules};

} // namespace

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "shell-guard",
         .help =
             "PreToolUse Bash hook. Reads the payload's top-level agent_type, cwd and\n"
             "tool_input.command (and HOME for ~ targets). For viber:task-coder refuses R1\n"
             "chains, R2 git stash/checkout/restore/clean/switch/reset --hard, R3 rm/unlink/\n"
             "shred -u/find -delete, R4 file writes into the work tree outside .temp/, R5 inline\n"
             "or .temp/ interpreter code; for viber:task-reviewer and viber:final-reviewer R2.\n"
             "A refusal is a deny whose reason opens `viber guard:`; anything else prints\n"
             "nothing. Exit 0 always.",
         .decide = viber::shell_guard::decide,
         .prefilter = viber::Prefilter::viber_agent,
         .replay = &replay,
         .run_replay = viber::replay,
         .extra = viber::shell::commands_json_option});
}
