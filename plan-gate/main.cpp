// main.cpp: plan-gate, the PreToolUse hook for ExitPlanMode: a plan leaves plan mode only with
// the review it needs (the decision is in plan_gate.cpp).
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain, --replay PATH (docs/contract.md,
//           "Tool mode"; docs/guide.md, "Replay"): tool mode, exit 0. Anything else: one line on
//           stderr naming the misuse, exit 2.
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
#include "common/hook/hook_main.hpp"
#include "plan-gate/plan_gate.hpp"
#include "tools/replay.hpp"

namespace {

namespace gate = viber::plan_gate;

// A deny reason's first line ("Next step: ...").
std::string first_line(const std::string& reason) {
    return reason.substr(0, reason.find('\n'));
}

// --replay: the call on the transcript's first `bytes` bytes. config.sh is never run: a plain
// plan is judged with the switch off (the row) and on (the note under it).
viber::ReplayJudgement judge(const boost::json::object& payload, std::uint64_t bytes) {
    viber::Trace off;
    gate::Sources cut{.transcript_bytes = bytes, .plain_review_on = false};
    const std::optional<gate::GateInput> input = gate::gather(payload, off, cut);
    if (!input) return {.decision = "allow", .label = "no transcript", .why = ""};
    if (!input->plan) return {.decision = "allow", .label = "no plan", .why = ""};
    const gate::Route chosen = gate::route(input->scan, *input->plan);
    const std::optional<std::string> reason = gate::decide(*input);
    viber::ReplayJudgement out{.decision = reason ? "deny" : "allow",
                               .label = chosen == gate::Route::planner_review ? "planner-review"
                                        : chosen == gate::Route::review_set   ? "review set"
                                                                              : "plain plan",
                               .why = reason ? first_line(*reason) : ""};
    if (chosen != gate::Route::plain) return out;
    cut.plain_review_on = true;
    const std::optional<gate::GateInput> on = gate::gather(payload, off, cut);
    const std::optional<std::string> on_reason =
        on && on->plan ? gate::decide(*on) : std::optional<std::string>();
    out.why = "config.sh not run: switch taken as off; with planning.plain-plan-review on: " +
              (on_reason ? "deny, " + first_line(*on_reason) : std::string("allow"));
    return out;
}

const viber::ReplaySpec replay{
    .calls = viber::ReplayCalls::exit_plan_mode,
    .note = "Each ExitPlanMode call is judged on the transcript up to its line, but on the plan "
            "file as it\nis now; scripts/config.sh is never run (a plain plan: switch off, and "
            "what it would be on).",
    .judge = judge};

} // namespace

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "plan-gate",
         .help =
             "PreToolUse hook for ExitPlanMode. Reads the payload's top-level transcript_path\n"
             "and cwd; the transcript, the plan file, and (plain plans only) runs the plugin\n"
             "file scripts/config.sh. Allows leaving plan mode only when the plan written in\n"
             "this episode has its review's latest VERDICT: PASS, written after the plan's last\n"
             "change; otherwise denies with the next step. Always exits 0.\n"
             "--replay PATH judges every ExitPlanMode of recorded sessions on the transcript up\n"
             "to the call and the plan file as it is now; it never runs config.sh.",
         .decide = viber::plan_gate::decide,
         .replay = &replay,
         .run_replay = viber::replay});
}
