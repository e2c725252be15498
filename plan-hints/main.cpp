// main.cpp: plan-hints, the UserPromptSubmit hook that gives a plain plan-mode session the
// plain-plan rules (docs/plan-hints.md).
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain (docs/contract.md, "Tool mode"): tool
//           mode, exit 0. Anything else: usage on stderr, exit 1.
//   cwd     not used.
//   env     CLAUDE_PLUGIN_ROOT: where hooks/content/plan-hints.md is looked for first
//           (docs/contract.md, "Finding files"). VIBER_HOOKS_LOG: appends one line per call
//           (docs/contract.md, "The troubleshooting log").
//   reads   only in plan mode: hooks/content/plan-hints.md, and the payload's transcript_path when
//           it is a regular file.
//   stdin   the UserPromptSubmit payload (64 MiB, 2 s idle, 8 s in all): permission_mode,
//           transcript_path.
//   stdout  {"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":
//           <plan-hints.md>}} when permission_mode is "plan", the episode shows no planner, intent
//           or fixer signal and plan-hints.md is not empty; otherwise nothing.
//   exit    0, always (fails open: prints nothing).
#include "common/hook_main.hpp"
#include "plan-hints/plan_hints.hpp"

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "plan-hints",
         .help = "UserPromptSubmit hook. Reads the payload's top-level permission_mode and\n"
                 "transcript_path; in plan mode, the plugin file hooks/content/plan-hints.md and\n"
                 "the transcript. Injects plan-hints.md (the plain-plan rules) as context unless\n"
                 "the plan-mode episode already shows the viber planner, intent or fixer. Prints\n"
                 "nothing otherwise; always exits 0.",
         .decide = viber::plan_hints::decide});
}
