// main.cpp: plan-hints, the UserPromptSubmit hook that gives a plain plan-mode session the
// plain-plan rules (docs/plan-hints.md).
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain, --replay PATH (docs/contract.md,
//           "Tool mode"; docs/guide.md, "Replay"): tool mode, exit 0. Anything else: one line on
//           stderr naming the misuse, exit 2.
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
#include "common/hook/hook_main.hpp"
#include "plan-hints/plan_hints.hpp"
#include "tools/replay.hpp"

namespace {

// --replay: a typed plan-mode prompt, judged on the transcript's lines before it.
viber::ReplayJudgement judge(const boost::json::object& payload, std::uint64_t bytes) {
    std::string why;
    const viber::Decision decision = viber::plan_hints::decide_before(payload, bytes, why);
    const bool context = decision.kind == viber::DecisionKind::context;
    return {.decision = context ? "context" : "silent",
            .label = context                                ? "plain plan mode"
                     : why.starts_with("the episode shows") ? "planner chain"
                     : why.starts_with("not in plan mode")  ? "not plan mode"
                                                            : "no plan-hints.md",
            .why = why};
}

const viber::ReplaySpec replay{
    .calls = viber::ReplayCalls::plan_prompt,
    .note = "Each typed prompt in plan mode is judged on the transcript's lines before it and "
            "the plan-hints.md\nfound now (CLAUDE_PLUGIN_ROOT, else beside the binary).",
    .judge = judge};

} // namespace

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "plan-hints",
         .help = "UserPromptSubmit hook. Reads the payload's top-level permission_mode and\n"
                 "transcript_path; in plan mode, the plugin file hooks/content/plan-hints.md and\n"
                 "the transcript. Injects plan-hints.md (the plain-plan rules) as context unless\n"
                 "the plan-mode episode already shows the viber planner, intent or fixer. Prints\n"
                 "nothing otherwise; always exits 0.\n"
                 "--replay PATH judges every typed plan-mode prompt of recorded sessions on the\n"
                 "transcript's lines before it.",
         .decide = viber::plan_hints::decide,
         .replay = &replay,
         .run_replay = viber::replay});
}
