#!/usr/bin/env python3
"""e2e.py: the hooks inside the real Claude Code CLI, offline against a scripted model.

Contract: argv --cmake <cmake> --build <build dir> [--claude <executable>]... [--only name,...]
[--capture <dir>] [--keep <dir>]; installs the build into a scratch plugin tree with stand-in
agents and skill (plugin.py), and on each Claude Code CLI (those named with --claude, else `claude`
on PATH and every version installed beside it under $VIBER_CLAUDE_VERSIONS_DIR, default
/opt/viber-hooks/claude-code/<version>/, as scripts/install-deps.sh installs them) runs one real
`claude` session per scenario (session.py) against a scripted Messages API on 127.0.0.1
(model.py), and checks what the model and the user saw: session start, the task-coder's guards and
verdict-nudge, plan-hints and every plan-gate scenario of SPEC §12. The scripted model waits for a
background agent's task notification as a real one does (2.1.3xx runs agents in the background),
and each version reaches plan mode by a route it allows offline (Cli.route, printed). Then, on the
newest CLI, three sessions of Bash calls side by side (no plugin, two hooks that only read stdin,
this suite) give the Bash round trip the user feels and the suite's cost over Claude Code's own
cost of running two hooks, with its uncertainty, and each guard's process time against a process
that only reads stdin (printed, never asserted). --capture writes the transcripts and hook
payloads of the scenarios, paths turned into placeholders, under <dir>/<version>/ (tests/fixtures/
real/, see its README), only when every check of that version passed; --only runs (and captures)
the named scenarios (coder, planner-plan-mode, planner-enter, plain-plan, refused-review (only on
versions whose plan mode refuses an Agent call offline), latency); --keep copies
the scratch run there. Prints one line per check and last the versions that ran; exit 0 when
every check passed, 1 when one failed, 77 (ctest's skip) when no `claude` is found, saying so.
Every command a scripted agent sends is harmless if it ran: `pkill zz_no_such_proc` names no
process, `rm -rf` targets a scratch directory."""

import argparse
import concurrent.futures
import glob
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import capture as capture_mod  # noqa: E402
import model as M  # noqa: E402
import plugin as P  # noqa: E402
from session import Session  # noqa: E402

# The version scripts/install-deps.sh installs first on PATH, and the oldest one it installs beside
# it (in its own prefix under VERSIONS_DIR) that the suite still supports.
PINNED = "2.1.332"
OLDEST = "2.1.197"
VERSIONS_DIR = os.environ.get("VIBER_CLAUDE_VERSIONS_DIR", "/opt/viber-hooks/claude-code")
PLAN_FILE = re.compile(r"(/[^\s`'\"\\]*/\.claude/plans/[A-Za-z0-9_.-]+\.md)")
PLANNER_PLAN = "---\nsource: e2e interview\n---\n# Plan: greet\n\n1. Add a greeting to README.md.\n"
PLANNER_PLAN_FIXED = PLANNER_PLAN + "2. Check the greeting with `grep`.\n"
PLAIN_PLAN = "# Plan: greet\n\n1. Add a greeting to README.md.\n2. Check it with grep.\n"


class Checks:
    def __init__(self):
        self.failed = []
        self.count = 0
        self.prefix = ""  # the CLI version the checks are of

    def check(self, scenario, what, ok, detail=""):
        self.count += 1
        print("%s %-8s %-24s %s%s" % ("ok  " if ok else "FAIL", self.prefix, scenario, what,
                                      "" if ok else ": " + str(detail)[:600]), flush=True)
        if not ok:
            self.failed.append((self.prefix, scenario, what))
        return ok


def plan_path(request):
    found = PLAN_FILE.search(M.text_of(request.get("messages")) + "\n" + M.system_text(request))
    return found.group(1) if found else None


def request_text(request):
    return M.system_text(request) + "\n" + M.text_of(request.get("messages"))


def tool_result(requests, tool_id):
    """(text, is_error) of the tool_result for tool_id in the first request that carries it."""
    for request in requests:
        for got_id, text, is_error in M.all_tool_results(request):
            if got_id == tool_id:
                return text, is_error
    return None, None


def streamed_result(session, tool_id):
    """(text, is_error) of the tool_result the CLI streamed to the host (stdout) for tool_id."""
    for event in session.events:
        if event.get("type") != "user":
            continue
        for block in (event.get("message") or {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                return M.text_of(block.get("content", "")), bool(block.get("is_error"))
    return None, None


def tool_ids(session, conversation, name):
    return [i for i, (c, n, _) in session.model.tool_names.items() if c == conversation and n == name]


def refusal(text, tool):
    """The hook's reason in a refused call's tool_result: as it is (Claude Code 2.1.197), or after
    the `PreToolUse:<tool> hook error: ` that Claude Code 2.1.3xx puts before it."""
    framing = "PreToolUse:%s hook error: " % tool
    return text[len(framing):] if isinstance(text, str) and text.startswith(framing) else text


def stop_feedback(request):
    """The reason a SubagentStop block sent back, when the request's last message carries one: a
    user text "Stop hook feedback:\n<reason>" (2.1.197), or a system message "SubagentStop hook
    blocking error from command: "<command>": <reason>" (2.1.3xx); else None."""
    messages = request.get("messages") or []
    if not messages:
        return None
    last = messages[-1]
    if last.get("role") == "user":
        text = M.last_user_text(request).strip()
        prefix = "Stop hook feedback:\n"
        return text[len(prefix):] if text.startswith(prefix) else None
    if last.get("role") == "system":
        found = re.match(r'SubagentStop hook blocking error from command: ".*?": (.*)\Z',
                         M.blocks_text(last.get("content")), re.S)
        return found.group(1) if found else None
    return None


def agent_answer(requests, tool_id):
    """What the caller of an Agent call read as its answer: the tool_result (2.1.197), or, for an
    agent run in the background (2.1.3xx), the <result> of the task notification naming the call."""
    text, _ = tool_result(requests, tool_id)
    if text is None or M.ASYNC_LAUNCHED not in text:
        return text
    for request in requests:
        for message in request.get("messages") or []:
            if message.get("role") == "assistant":
                continue
            body = M.text_of(message.get("content"))
            for found in re.finditer(r"<task-notification>.*?</task-notification>", body, re.S):
                note = found.group(0)
                if "<tool-use-id>%s</tool-use-id>" % tool_id in note:
                    result = re.search(r"<result>(.*?)</result>", note, re.S)
                    return result.group(1) if result else note
    return None


def payloads_of(session, event, tool=None):
    return [p for p in session.payloads()
            if p.get("hook_event_name") == event and (tool is None or p.get("tool_name") == tool)]


def hook_messages(session):
    """What the hooks' stdout said, as the CLI streamed it to the host (hook_response events)."""
    out = []
    for event in session.hook_events():
        text = event.get("output") or event.get("stdout") or ""
        out.append((event.get("hook_event"), text))
    return out


# --- scenario: a viber:task-coder subagent, session start, verdict-nudge ----------------------------

def coder_commands(project):
    return [
        ("kill-guard", "pkill zz_no_such_proc", "kill"),
        ("shell-guard", "echo a && echo b", "R1"),
        ("shell-guard", "git stash", "R2"),
        ("shell-guard", "rm -rf %s" % os.path.join(project, "scratch-dir"), "R3"),
        ("shell-guard", "echo note > notes.txt", "R4"),
        ("shell-guard", "python3 -c 'print(1)'", "R5"),
        (None, "echo ok", "allowed"),
        (None, "ls", "allowed"),
    ]


def coder_session(root, tree, cli):
    holder = {}

    def script(conversation, step, request):
        commands = coder_commands(holder["session"].project)
        if conversation == "main":
            if step == 0:
                return [("tool", "Agent", {"subagent_type": "viber:task-coder", "description": "run the task",
                                           "prompt": "Run the task's commands."})]
            return [("text", "The coder is done.")]
        if conversation == "task-coder":
            if step < len(commands):
                return [("tool", "Bash", {"command": commands[step][1], "description": "task step"})]
            if step == len(commands):
                return [("text", "All commands ran.")]  # no verdict line: sent back once
            return [("text", "All commands ran.\nVERDICT: PASS")]
        return None

    session = Session("coder", root, tree, script, ["Run the task with viber:task-coder."], mode="print", tag="C",
                      claude=cli.path)
    holder["session"] = session
    original = session.prepare

    def prepare():
        original()
        os.makedirs(os.path.join(session.project, "scratch-dir"))
        with open(os.path.join(session.project, "scratch-dir", "keep.txt"), "w") as f:
            f.write("still here\n")

    session.prepare = prepare
    return session


def check_coder(checks, session, tree, manifest):
    name = "session-start"
    main = session.model.conversation("main")
    checks.check(name, "the CLI ran the session to its result", session.finished, session.stderr[-400:])
    checks.check(name, "the manifest reaches the model", bool(main) and manifest in request_text(main[0]),
                 "first main request lacks hooks/content/manifest.md")
    banner = "viber loaded " + os.path.basename(tree)
    shown = [t for e, t in hook_messages(session) if e == "SessionStart" and '"systemMessage":"%s"' % banner in t]
    checks.check(name, "the user sees '%s'" % banner, bool(shown), hook_messages(session)[:3])

    name = "task-coder guards"
    coder = session.model.conversation("task-coder")
    bash_ids = sorted(tool_ids(session, "task-coder", "Bash"))
    payloads = {p.get("tool_use_id"): p for p in payloads_of(session, "PreToolUse", "Bash")}
    for (guard, command, rule), tool_id in zip(coder_commands(session.project), bash_ids):
        text, is_error = tool_result(coder, tool_id)
        if guard:
            payload = payloads.get(tool_id)
            expected = P.deny_reason(P.hook_answer(tree, guard, payload)) if payload else None
            checks.check(name, "%s refuses `%s`, the subagent reads its reason word for word" % (guard, command),
                         is_error is True and expected is not None and refusal(text, "Bash") == expected,
                         "got %r, %s says %r" % (text, guard, expected))
            checks.check(name, "the user sees the same refusal in the stream",
                         streamed_result(session, tool_id) == (text, True), streamed_result(session, tool_id))
            if rule != "kill":
                checks.check(name, "`%s` is refused for %s" % (command, rule), text and ("breaks " + rule) in text, text)
            checks.check(name, "the payload names the agent (agent_type viber:task-coder)",
                         bool(payload) and payload.get("agent_type") == "viber:task-coder", payload)
        else:
            checks.check(name, "`%s` runs" % command, is_error is False and bool(text), text)
    checks.check(name, "every command of the script was sent", len(bash_ids) == len(coder_commands(session.project)),
                 bash_ids)
    checks.check(name, "R3: the scratch directory is still there",
                 os.path.isfile(os.path.join(session.project, "scratch-dir", "keep.txt")))
    checks.check(name, "R4: the redirect wrote nothing", not os.path.exists(os.path.join(session.project, "notes.txt")))

    name = "verdict-nudge"
    stops = payloads_of(session, "SubagentStop")
    first = next((p for p in stops if p.get("agent_type") == "viber:task-coder" and not p.get("stop_hook_active")), None)
    reason = (P.hook_answer(tree, "verdict-nudge", first) or {}).get("reason") if first else None
    fed_back = [r for r in coder if stop_feedback(r) is not None]
    checks.check(name, "the stop with no verdict comes back once, with the hook's reason",
                 len(fed_back) == 1 and reason is not None and stop_feedback(fed_back[0]) == reason,
                 "%d feedback requests; reason %r; got %r" % (len(fed_back), reason,
                                                             stop_feedback(fed_back[0]) if fed_back else None))
    agent_ids = tool_ids(session, "main", "Agent")
    text = agent_answer(main, agent_ids[0]) if agent_ids else None
    checks.check(name, "the next stop passes: the caller reads VERDICT: PASS", bool(text) and "VERDICT: PASS" in text,
                 text)


# --- scenarios: plan mode ---------------------------------------------------------------------------

def review_reply(request):
    verdict = "PASS" if "want: PASS" in M.first_user_text(request) else "FAIL"
    findings = "" if verdict == "PASS" else "- Major: step 1 names no check.\n"
    return [("text", "## Plan Review\n%s\nVERDICT: %s" % (findings, verdict))]


def planner_plan_mode_session(root, tree, cli):
    """Opened in plan mode; the planner's Skill with no EnterPlanMode; FAIL, fix, PASS, approval;
    then a second plan-mode episode whose ExitPlanMode the old plan must not arm."""
    state = {}
    steps = [
        lambda r: ("tool", "Skill", {"skill": "viber:planner"}),
        lambda r: ("tool", "Write", {"file_path": state["plan"], "content": PLANNER_PLAN}),
        lambda r: ("tool", "Agent", {"subagent_type": "viber:planner-review", "description": "review the plan",
                                     "prompt": "Review %s\nwant: FAIL" % state["plan"]}),
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("tool", "Write", {"file_path": state["plan"], "content": PLANNER_PLAN_FIXED}),
        lambda r: ("tool", "Agent", {"subagent_type": "viber:planner-review", "description": "review the plan",
                                     "prompt": "Review %s\nwant: PASS" % state["plan"]}),
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("text", "The plan is approved."),
        # second prompt, plan mode again
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("text", "Done."),
    ]

    def script(conversation, step, request):
        if conversation == "main":
            state["plan"] = state.get("plan") or plan_path(request)
            return [steps[step](request)] if step < len(steps) else [("text", "Done.")]
        if conversation == "planner-review":
            return review_reply(request)
        return None

    def age_plan(session):
        # The old plan changes after its PASS: were it still armed, its PASS would be void.
        if state.get("plan") and os.path.exists(state["plan"]):
            later = time.time() + 120
            os.utime(state["plan"], (later, later))

    first = "Plan a greeting for the README."
    session = Session("planner-plan-mode", root, tree, script,
                      [first if cli.opens_in_plan_mode else {"mode": "plan", "text": first},
                       {"mode": "plan", "before": age_plan, "text": "Plan the next change."}],
                      mode="stdio", permission_mode="plan" if cli.opens_in_plan_mode else "bypassPermissions",
                      tag="P", claude=cli.path)
    session.state = state
    return session


def exit_results(session):
    main = session.model.conversation("main")
    return [(i,) + tool_result(main, i) for i in sorted(tool_ids(session, "main", "ExitPlanMode"))]


def approvals(session):
    return [r for r in session.permission_requests if r.get("tool_name") == "ExitPlanMode"]


def check_planner_plan_mode(checks, session, hints):
    name = "planner in plan mode"
    main = session.model.conversation("main")
    checks.check(name, "the CLI ran both turns to their results", session.finished, session.stderr[-400:])
    checks.check("plan-hints", "in plan mode the hints reach the model", bool(main) and hints in request_text(main[0]))
    skill = [r for r in main if any(t.startswith("Launching skill") for _, t, _ in M.last_tool_results(r))]
    checks.check("plan-hints", "the planner's Skill ran (no EnterPlanMode: already in plan mode)",
                 bool(skill) and not tool_ids(session, "main", "EnterPlanMode"))
    exits = exit_results(session)
    checks.check(name, "three ExitPlanMode calls were made", len(exits) == 3, exits)
    if len(exits) < 3:
        return
    _, fail_text, fail_error = exits[0]
    fail_reason = refusal(fail_text, "ExitPlanMode")
    checks.check(name, "after VERDICT: FAIL the model reads 'Next step: fix the findings.'",
                 fail_error is True and bool(fail_reason) and fail_reason.startswith("Next step: fix the findings.") and
                 "'VERDICT: FAIL'" in fail_reason, fail_text)
    checks.check(name, "the user sees the same refusal in the stream",
                 streamed_result(session, exits[0][0]) == (fail_text, True), streamed_result(session, exits[0][0]))
    _, pass_text, pass_error = exits[1]
    asked = approvals(session)
    checks.check(name, "after VERDICT: PASS ExitPlanMode goes through to the user's approval",
                 pass_error is False and len(asked) >= 1, "%r; %d approval requests" % (pass_text, len(asked)))
    checks.check(name, "the CLI asked the host to approve the plan it read from the plan file",
                 bool(asked) and "Check the greeting" in str((asked[0].get("input") or {}).get("plan")), asked[:1])
    second = [r for r in main if "Plan the next change." in M.turn_text(r)]
    checks.check("plan-hints", "a new plan-mode episode after the approval gets the hints again",
                 bool(second) and hints in M.turn_text(second[0]), "no hints in the second prompt's request")
    name = "second episode"
    _, again_text, again_error = exits[2]
    checks.check(name, "the approved plan (changed since) does not arm the gate: ExitPlanMode goes through",
                 again_error is False and len(asked) == 2, "%r; %d approval requests" % (again_text, len(asked)))


def planner_enter_session(root, tree, cli):
    """Default mode; the planner's Skill, then EnterPlanMode; a typed prompt in plan mode; PASS."""
    state = {}
    steps = [
        lambda r: ("tool", "Skill", {"skill": "viber:planner"}),
        lambda r: ("tool", "EnterPlanMode", {}),
        lambda r: ("tool", "Write", {"file_path": state["plan"], "content": PLANNER_PLAN}),
        lambda r: ("tool", "Agent", {"subagent_type": "viber:planner-review", "description": "review the plan",
                                     "prompt": "Review %s\nwant: PASS" % state["plan"]}),
        lambda r: ("text", "The plan passed review. Shall I go on?"),
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("text", "Done."),
    ]

    def script(conversation, step, request):
        if conversation == "main":
            if step >= 2:
                state["plan"] = state.get("plan") or plan_path(request)
            return [steps[step](request)] if step < len(steps) else [("text", "Done.")]
        if conversation == "planner-review":
            return review_reply(request)
        return None

    session = Session("planner-enter", root, tree, script, ["Plan a greeting for the README with the planner.", "Yes."],
                      mode="stdio", permission_mode="default" if cli.opens_in_plan_mode else "bypassPermissions",
                      tag="E", claude=cli.path)
    session.state = state
    return session


def check_planner_enter(checks, session, hints):
    name = "planner via EnterPlanMode"
    main = session.model.conversation("main")
    checks.check(name, "the CLI ran both turns to their results", session.finished, session.stderr[-400:])
    checks.check(name, "the plan went to the CLI's plan file", bool(session.state.get("plan")), session.state)
    yes = [r for r in main if "Yes." in M.turn_text(r)]
    checks.check("plan-hints", "silent after the planner's Skill (a typed prompt in plan mode)",
                 bool(yes) and hints not in M.turn_text(yes[0]),
                 "the hints came with the prompt typed after the planner's Skill")
    # The typed "Yes." (a background review's task notification, 2.1.3xx, is a prompt of its own).
    prompts = [p for p in payloads_of(session, "UserPromptSubmit") if p.get("prompt") == "Yes."]
    checks.check("plan-hints", "that prompt was typed in plan mode (payload permission_mode plan)",
                 len(prompts) == 1 and prompts[0].get("permission_mode") == "plan",
                 [(p.get("prompt", "")[:20], p.get("permission_mode")) for p in payloads_of(session, "UserPromptSubmit")])
    exits = exit_results(session)
    asked = approvals(session)
    checks.check(name, "after VERDICT: PASS ExitPlanMode goes through to the user's approval",
                 len(exits) == 1 and exits[0][2] is False and len(asked) == 1, "%r; %d approvals" % (exits, len(asked)))


def plain_script(state, steps):
    """The main conversation plays `steps` (the plan file's path taken from the first request that
    names it, into state["plan"]); plain-plan-review answers as review_reply does."""
    def script(conversation, step, request):
        if conversation == "main":
            state["plan"] = state.get("plan") or plan_path(request)
            return [steps[step](request)] if step < len(steps) else [("text", "Done.")]
        if conversation == "plain-plan-review":
            return review_reply(request)
        return None

    return script


def plain_session(root, tree, cli):
    """Plan mode, no planner, the plain-plan switch on: denied, reviewed, allowed."""
    state = {}
    steps = [
        lambda r: ("tool", "Write", {"file_path": state["plan"], "content": PLAIN_PLAN}),
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("tool", "Agent", {"subagent_type": "viber:plain-plan-review", "description": "review the plan",
                                     "prompt": "Review %s. Goal: greet readers.\nwant: PASS" % state["plan"]}),
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("text", "Done."),
    ]

    script = plain_script(state, steps)

    first = "Plan a greeting for the README."
    session = Session("plain-plan", root, tree, script,
                      [first if cli.opens_in_plan_mode else {"mode": "plan", "text": first}], mode="stdio",
                      permission_mode="plan" if cli.opens_in_plan_mode else "bypassPermissions", tag="N",
                      claude=cli.path)
    session.state = state
    return session


def check_plain(checks, session, hints):
    name = "plain plan"
    main = session.model.conversation("main")
    checks.check(name, "the CLI ran the turn to its result", session.finished, session.stderr[-400:])
    checks.check("plan-hints", "the hints reach the model in plan mode without the planner",
                 bool(main) and hints in request_text(main[0]))
    exits = exit_results(session)
    asked = approvals(session)
    checks.check(name, "two ExitPlanMode calls were made", len(exits) == 2, exits)
    if len(exits) < 2:
        return
    _, text, is_error = exits[0]
    reason = refusal(text, "ExitPlanMode")
    checks.check(name, "unreviewed: 'Next step: review the plan.' naming viber:plain-plan-review",
                 is_error is True and bool(reason) and reason.startswith("Next step: review the plan.") and
                 "viber:plain-plan-review" in reason and "planning.plain-plan-review" in reason, text)
    checks.check(name, "the user sees the same refusal in the stream",
                 streamed_result(session, exits[0][0]) == (text, True), streamed_result(session, exits[0][0]))
    _, text, is_error = exits[1]
    checks.check(name, "after VERDICT: PASS ExitPlanMode goes through to the user's approval",
                 is_error is False and len(asked) == 1, "%r; %d approvals" % (text, len(asked)))


def refused_review_session(root, tree, cli):
    """Claude Code 2.1.3xx, opened in plan mode as users do: plan mode's safety check cannot run
    offline, so the reviewer's Agent call is refused (its tool_result an error). The gate must ask
    for the review again, naming the refused call, not wait for a review that never started."""
    state = {}
    steps = [
        lambda r: ("tool", "Write", {"file_path": state["plan"], "content": PLAIN_PLAN}),
        lambda r: ("tool", "Agent", {"subagent_type": "viber:plain-plan-review", "description": "review the plan",
                                     "prompt": "Review %s. Goal: greet readers.\nwant: PASS" % state["plan"]}),
        lambda r: ("tool", "ExitPlanMode", {}),
        lambda r: ("text", "The review could not run."),
    ]

    script = plain_script(state, steps)

    session = Session("refused-review", root, tree, script, ["Plan a greeting for the README."], mode="stdio",
                      permission_mode="plan", tag="R", claude=cli.path)
    session.state = state
    return session


def check_refused_review(checks, session, hints):
    name = "refused review"
    main = session.model.conversation("main")
    checks.check(name, "the CLI ran the turn to its result", session.finished, session.stderr[-400:])
    agents = sorted(tool_ids(session, "main", "Agent"))
    agent_text, agent_error = tool_result(main, agents[0]) if agents else (None, None)
    checks.check(name, "Claude Code refused the reviewer's Agent call (its tool_result is an error)",
                 agent_error is True and bool(agent_text), agent_text)
    exits = exit_results(session)
    checks.check(name, "one ExitPlanMode call was made", len(exits) == 1, exits)
    if len(exits) != 1 or not agent_text:
        return
    _, text, is_error = exits[0]
    reason = refusal(text, "ExitPlanMode") or ""
    first_line = agent_text.split("\n")[0][:300]
    checks.check(name, "'Next step: review the plan.', naming the refused call and the first line of its error",
                 is_error is True and reason.startswith("Next step: review the plan.") and "did not run" in reason and
                 first_line in reason, text)


# --- latency -----------------------------------------------------------------------------------------

LATENCY_CALLS = 40
FLOOR_HOOKS = 2  # the suite runs two hooks on a Bash call: kill-guard, then shell-guard


def floor_plugin(root, reader):
    """A plugin tree whose only hooks are FLOOR_HOOKS PreToolUse Bash hooks that read stdin and
    exit: what Claude Code itself costs for running two hooks, with nothing decided."""
    tree = os.path.join(root, "floor-plugin")
    P.write(os.path.join(tree, ".claude-plugin", "plugin.json"),
            json.dumps({"name": "viber-floor", "version": "0.0.0", "description": "two hooks that only read stdin"}))
    hook = {"type": "command", "command": reader, "timeout": 10}
    P.write(os.path.join(tree, "hooks", "hooks.json"),
            json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook] * FLOOR_HOOKS}]}}))
    return tree


def latency_session(root, tree, name, cli, tag):
    def script(conversation, step, request):
        if conversation != "main":
            return None
        if step < LATENCY_CALLS:
            return [("tool", "Bash", {"command": "echo latency", "description": "latency probe"})]
        return [("text", "Done.")]

    return Session(name, root, tree, script, ["Run the probe."], mode="print", capture=False, tag=tag,
                   claude=cli.path, timeout=180)


def round_trips(session):
    ids = sorted(tool_ids(session, "main", "Bash"))
    return [session.model.round_trips[i] * 1000 for i in ids if i in session.model.round_trips]


def median_difference(a, b, rounds=2000):
    """The difference of the medians of a and b, and its 95% interval by bootstrap (a fixed seed:
    the same samples print the same interval)."""
    rng = random.Random(1)
    diffs = sorted(statistics.median(rng.choices(a, k=len(a))) - statistics.median(rng.choices(b, k=len(b)))
                   for _ in range(rounds))
    return statistics.median(a) - statistics.median(b), diffs[int(0.025 * rounds)], diffs[int(0.975 * rounds) - 1]


def process_times(argv, payload, runs=60):
    """Wall milliseconds of `argv` reading `payload` on stdin, `runs` times."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        times.append((time.perf_counter() - started) * 1000)
    return times


def report_latency(sessions, tree, reader, reader_name):
    """Printed, never asserted: on this 2-core machine a call's round trip varies by several
    milliseconds, as much as the hooks cost."""
    print("latency: a Bash call's round trip in the CLI (tool_use streamed -> its tool_result requested), "
          "%d calls in each of three sessions run side by side" % LATENCY_CALLS)
    samples = {}
    for label, key in (("no plugin", "latency-bare"), ("two hooks that only read stdin (%s)" % reader_name,
                                                       "latency-floor"), ("this suite (kill-guard, shell-guard)",
                                                                          "latency-suite")):
        values = round_trips(sessions[key]) if key in sessions else []
        samples[key] = values
        if len(values) >= 2:
            q = statistics.quantiles(values, n=4)
            print("  %-44s median %6.1f ms  (quartiles %6.1f-%6.1f, %d calls)" % (
                label, statistics.median(values), q[0], q[2], len(values)))
        else:
            print("  %-44s no measurement" % label)
    suite, floor, bare = samples.get("latency-suite"), samples.get("latency-floor"), samples.get("latency-bare")
    if suite and floor and len(suite) >= 2 and len(floor) >= 2:
        cost, low, high = median_difference(suite, floor)
        print("  the suite's cost over two hooks that only read stdin: %+.1f ms a call (median; 95%% interval "
              "%+.1f to %+.1f ms)" % (cost, low, high))
        if low <= 0 <= high:
            print("  (the interval holds 0: at this noise the suite's cost cannot be told apart from Claude Code's "
                  "own cost of running two hooks)")
    if floor and bare and len(floor) >= 2 and len(bare) >= 2:
        cost, low, high = median_difference(floor, bare)
        print("  Claude Code's own cost of running two hooks: %+.1f ms a call (median; 95%% interval %+.1f to "
              "%+.1f ms)" % (cost, low, high))
    # A task-coder's Bash call, so both guards judge it (the latency sessions' own calls are the main
    # agent's, which the guards pass over unread).
    payload = (json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "agent_type": "viber:task-coder",
                           "tool_input": {"command": "echo latency"}, "cwd": tree}) + "\n").encode()
    floor_times = process_times(reader.split(), payload)
    print("each hook as a process on the same Bash payload (%d runs, median; %s: %.2f ms):" % (
        len(floor_times), reader_name, statistics.median(floor_times)))
    for hook in ("kill-guard", "shell-guard"):
        times = process_times([os.path.join(tree, "hooks", "bin", hook)], payload)
        print("  %-12s %.2f ms, %+.2f ms over the process that only reads stdin" % (
            hook, statistics.median(times), statistics.median(times) - statistics.median(floor_times)))


# --- the run -----------------------------------------------------------------------------------------

SCENARIOS = {
    "coder": (coder_session, check_coder),
    "planner-plan-mode": (planner_plan_mode_session, check_planner_plan_mode),
    "planner-enter": (planner_enter_session, check_planner_enter),
    "plain-plan": (plain_session, check_plain),
    # Only where plan mode's safety check refuses an Agent call offline (Cli.opens_in_plan_mode false).
    "refused-review": (refused_review_session, check_refused_review),
}


def version_key(version):
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


class Cli:
    """One Claude Code CLI the test runs: its executable, its version, and how its plan-mode
    sessions reach plan mode offline. Claude Code 2.1.197 runs an Agent call in plan mode whatever
    mode came before, so its sessions open in plan mode (--permission-mode plan) or enter it from
    default (the planner's EnterPlanMode), as users do. Later versions (2.1.332 measured) hold an
    Agent call in plan mode for a safety check their server runs when plan mode was entered from
    default or acceptEdits; offline it never runs and the call is refused. So on them the sessions
    start in bypassPermissions and enter plan mode from there (the host's set_permission_mode, or
    the planner's EnterPlanMode), which asks for no such check."""

    def __init__(self, path):
        self.path = path
        out = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        found = re.search(r"\d+\.\d+\.\d+", out.stdout.decode(errors="replace"))
        self.version = found.group(0) if found else "unknown"
        self.opens_in_plan_mode = self.version != "unknown" and version_key(self.version) <= version_key(OLDEST)

    def route(self):
        if self.opens_in_plan_mode:
            return "plan mode opened with --permission-mode plan, or entered from default"
        return "plan mode entered from bypassPermissions (plan mode's safety check has no offline stand-in)"


def discover_clis(explicit):
    """The CLIs to run: those named with --claude, else `claude` on PATH and every version installed
    beside it under $VIBER_CLAUDE_VERSIONS_DIR (scripts/install-deps.sh), one per version, oldest
    first."""
    paths = list(explicit)
    if not paths:
        if shutil.which("claude"):
            paths.append(shutil.which("claude"))
        paths += sorted(glob.glob(os.path.join(VERSIONS_DIR, "*", "node_modules", ".bin", "claude")))
    clis = {}
    for path in paths:
        cli = Cli(path)
        clis.setdefault(cli.version, cli)
    return sorted(clis.values(), key=lambda c: version_key(c.version) if c.version != "unknown" else (0,))


def read_content(tree, name):
    with open(os.path.join(tree, "hooks", "content", name)) as f:
        return f.read().rstrip("\r\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--build", required=True)
    parser.add_argument("--only", default="")
    parser.add_argument("--capture", default="")
    parser.add_argument("--keep", default="")
    parser.add_argument("--claude", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("VIBER_E2E_JOBS", "3")))
    args = parser.parse_args()

    clis = discover_clis(args.claude)
    if not clis:
        print("SKIPPED: no claude CLI on PATH nor under %s (scripts/install-deps.sh installs "
              "@anthropic-ai/claude-code@%s with npm, and %s beside it)" % (VERSIONS_DIR, PINNED, OLDEST))
        return 77
    wanted = [s for s in args.only.split(",") if s] or list(SCENARIOS) + ["latency"]
    unknown = [s for s in wanted if s not in SCENARIOS and s != "latency"]
    if unknown:
        print("unknown scenario(s): %s; known: %s, latency" % (", ".join(unknown), ", ".join(SCENARIOS)))
        return 2
    for cli in clis:
        print("claude %s (%s): %s; plan mode: %s" % (cli.version, label_of(cli.version), cli.path, cli.route()),
              flush=True)

    started = time.monotonic()
    root = tempfile.mkdtemp(prefix="viber-e2e-")
    checks = Checks()
    try:
        tree = P.install(args.cmake, args.build, root)
        manifest = read_content(tree, "manifest.md")
        hints = read_content(tree, "plan-hints.md")
        for cli in clis:
            where = os.path.join(root, cli.version)
            checks.prefix = cli.version
            sessions = {s: SCENARIOS[s][0](where, tree, cli) for s in wanted
                        if s in SCENARIOS and (s != "refused-review" or not cli.opens_in_plan_mode)}
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                for future in [pool.submit(s.run) for s in sessions.values()]:
                    future.result()
            for name, session in sessions.items():
                print("%s session %-20s %5.1fs, %d model requests" % (cli.version, name, session.elapsed,
                                                                      len(session.model.requests)))
                for error in session.model.errors:
                    checks.check(name, "the scripted model", False, error)
            for name, (_, check) in SCENARIOS.items():
                if name in sessions:
                    check(checks, sessions[name], tree, manifest) if name == "coder" else check(checks, sessions[name],
                                                                                                hints)
            if args.capture and checks.failed:
                print("not captured into %s: a check failed" % args.capture)
            elif args.capture:
                dest = os.path.join(args.capture, cli.version)
                capture_mod.save(dest, sessions, tree)
                print("captured into %s" % dest)
        # The latency sessions (on the newest CLI) after the scenarios, side by side, alone: the
        # same load for the three, and none of the scenarios' own.
        if "latency" in wanted:
            cli = clis[-1]
            where = os.path.join(root, cli.version)
            reader, reader_name = floor_reader(args.build)
            latency = {"latency-bare": latency_session(where, None, "latency-bare", cli, "B"),
                       "latency-floor": latency_session(where, floor_plugin(where, reader), "latency-floor", cli, "F"),
                       "latency-suite": latency_session(where, tree, "latency-suite", cli, "L")}
            with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
                for future in [pool.submit(s.run) for s in latency.values()]:
                    future.result()
            report_latency(latency, tree, reader, reader_name)
    finally:
        if args.keep:
            shutil.copytree(root, args.keep, dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)
    print("versions: %s" % ", ".join("%s (%s)" % (c.version, label_of(c.version)) for c in clis))
    print("%d checks, %d failed, %.1fs" % (checks.count, len(checks.failed), time.monotonic() - started))
    return 1 if checks.failed else 0


def label_of(version):
    if version == PINNED:
        return "pinned"
    if version == OLDEST:
        return "oldest supported"
    return "newest on npm" if version_key(version) > version_key(PINNED) else "installed"


def floor_reader(build):
    """The process that only reads stdin: the benchmark's floor when the build has it, else cat."""
    floor = os.path.join(build, "bench", "floor")
    if os.access(floor, os.X_OK):
        return floor, "a static main that reads stdin"
    return "cat", "cat"


if __name__ == "__main__":
    sys.exit(main())
