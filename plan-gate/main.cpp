// main.cpp: plan-gate, the PreToolUse hook for ExitPlanMode: a plan leaves plan mode only with
// the review it needs (the decision is in plan_gate.cpp).
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain (docs/contract.md, "Tool mode"): tool
//           mode, exit 0. Anything else: usage on stderr, exit 1.
//   cwd     not used; the payload's `cwd` names the project
//   env     CLAUDE_PLUGIN_ROOT (docs/contract.md, "Finding files") to find scripts/config.sh and
//           name references/. VIBER_HOOKS_LOG: appends one line per call (docs/contract.md,
//           "The troubleshooting log").
//   reads   stdin: the PreToolUse payload for ExitPlanMode (`transcript_path`, `cwd`), bounded;
//           the transcript (a regular file only); the plan file (a regular file only);
//           runs `bash <plugin>/scripts/config.sh` in `cwd` (stdin /dev/null, stderr discarded,
//           5 s, then its process group is killed) only for a plain plan
//   stdout  a deny whose reason opens "Next step:", or nothing (no objection: never an allow)
//   exit    0, always; every failure (no transcript, odd files, bad payload, exceptions)
//           prints nothing
#include "common/hook_main.hpp"
#include "plan-gate/plan_gate.hpp"

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "plan-gate",
         .help =
             "PreToolUse hook for ExitPlanMode. Reads the payload's top-level transcript_path\n"
             "and cwd; the transcript, the plan file, and (plain plans only) runs the plugin\n"
             "file scripts/config.sh. Allows leaving plan mode only when the plan written in\n"
             "this episode has its review's latest VERDICT: PASS, written after the plan's last\n"
             "change; otherwise denies with the next step. Always exits 0.",
         .decide = viber::plan_gate::decide});
}
