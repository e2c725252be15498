// main.cpp: the verdict-nudge hook (SubagentStop).
//
// Contract:
//   argv    none: hook mode. --help, --version, --explain (docs/contract.md, "Tool mode"): tool
//           mode, exit 0. Anything else: one line on stderr naming the
//           misuse, exit 2.
//   cwd     not used.
//   env     VIBER_HOOKS_LOG: appends one line per call (docs/contract.md, "The troubleshooting
//           log").
//   reads   nothing but stdin: no file is opened and no process started.
//   stdin   the SubagentStop payload (64 MiB, 2 s idle, 8 s total); bytes without `viber:` are
//           dismissed unparsed. Used: agent_type, stop_hook_active, last_assistant_message.
//   stdout  {"decision":"block","reason":<one fixed instruction>} when agent_type starts `viber:`
//           and is none of viber:scout, viber:mapper, viber:hunter, stop_hook_active is not true,
//           last_assistant_message is a non-empty string and none of its lines matches
//           ^[ \t`*-]*(VERDICT|AUDIT): ; else nothing.
//   exit    0, always.
#include "common/hook/hook_main.hpp"
#include "common/io/payload.hpp"
#include "tools/replay.hpp"
#include "verdict-nudge/verdict_nudge.hpp"

namespace {

// --replay: the step the decision rests on.
std::string nudge_step(const viber::Decision& decision, const boost::json::object& payload) {
    if (decision.kind == viber::DecisionKind::block) return "no verdict line";
    const std::string_view agent = viber::string_field(payload, "agent_type").value_or("");
    if (!viber::verdict_nudge::owes_verdict_line(agent)) return "returns no verdict";
    return "verdict line";
}

const viber::ReplaySpec replay{.calls = viber::ReplayCalls::agent_stop, .label = nudge_step};

} // namespace

int main(int argc, char** argv) {
    return viber::run_hook(
        argc, argv,
        {.name = "verdict-nudge",
         .help =
             "SubagentStop hook. Reads the payload's top-level agent_type, stop_hook_active and\n"
             "last_assistant_message; no file. Prints {\"decision\":\"block\",\"reason\":\n"
             "<instruction>} when a viber: agent (not scout, mapper or hunter) stops,\n"
             "stop_hook_active is not true, and no line of last_assistant_message opens with\n"
             "VERDICT: or AUDIT:; else nothing. Always exits 0.",
         .decide = viber::verdict_nudge::decide,
         .prefilter = viber::Prefilter::viber_agent,
         .replay = &replay,
         .run_replay = viber::replay});
}
