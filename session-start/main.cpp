// main.cpp: the session-start hook (SessionStart, matcher startup|clear|compact).
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain (docs/contract.md, "Tool mode"): tool
//           mode, exit 0. Anything else: one line on stderr naming the
//           misuse, exit 2.
//   cwd     not used; the payload's `cwd` names the project.
//   env     CLAUDE_PLUGIN_ROOT: the plugin directory (else the binary's ../..), whose last segment
//           is the version in the banner (`dev` when neither gives one), and where plugin files
//           are looked for first (docs/contract.md,
//           "Finding files"). VIBER_HOOKS_LOG: appends one line per call (docs/contract.md,
//           "The troubleshooting log").
//   reads   hooks/content/manifest.md and skills/setup/templates/viber.yml (the finding-files
//           rule), the project's .claude/viber.yml (git top level of `cwd` when it has one
//           there, else `cwd`); regular files only, never blocking on a FIFO.
//   stdin   the SessionStart payload, drained (64 MiB, 2 s idle, 8 s total); only `cwd` is used.
//   stdout  one line: {"hookSpecificOutput":{"hookEventName":"SessionStart"[,"additionalContext":
//           <manifest.md, trailing newlines cut>]},"systemMessage":"viber loaded <version>[ -
//           <schema note>][ - manifest.md has <n> characters, over the 10000 Claude Code keeps]"}.
//           Always printed: a bad payload only means no `cwd`.
//   exit    0, always.
#include "common/hook/hook_main.hpp"
#include "session-start/session_start.hpp"

int main(int argc, char** argv) {
    namespace hook = viber::session_start_hook;
    return viber::run_hook(
        argc, argv,
        {.name = "session-start",
         .help =
             "SessionStart hook. Reads the payload's top-level cwd; the plugin files\n"
             "hooks/content/manifest.md and skills/setup/templates/viber.yml, and the project's\n"
             ".claude/viber.yml (git top level of cwd, else cwd). Prints {\"hookSpecificOutput\":\n"
             "{\"hookEventName\":\"SessionStart\",\"additionalContext\":<manifest.md>},\n"
             "\"systemMessage\":\"viber loaded <version>[ - <notes>]\"}. Always exits 0.",
         .decide = hook::decide,
         .fail_open = hook::fail_open});
}
