"""plugin.py: the plugin tree the end-to-end test loads, and the hooks' own answers.

Contract: install(cmake, build_dir, root) installs the build (`cmake --install build --prefix
root/viber-e2e`) and adds to that copy only the stand-ins the viber plugin itself would bring, so
`viber:` names resolve: agents/task-coder.md, agents/planner-review.md,
agents/plain-plan-review.md, skills/planner/SKILL.md, and scripts/config.sh printing
`planning.plain-plan-review: true` (the plain plan's switch). Each stand-in agent's prompt holds
`E2E-AGENT:<name>`, which is how the scripted model knows the conversation. Returns the tree's
path. hook_answer(tree, hook, payload) runs the installed binary on a payload, as Claude Code
does, and returns its parsed output (None when it printed nothing).
"""

import json
import os
import subprocess

AGENTS = {
    "task-coder": "Stand-in for the viber task coder, for the end-to-end test.",
    "planner-review": "Stand-in for the viber planner's reviewer, for the end-to-end test.",
    "plain-plan-review": "Stand-in for the viber plain plan reviewer, for the end-to-end test.",
}


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def install(cmake, build_dir, root, name="viber-e2e"):
    tree = os.path.join(root, name)
    subprocess.run([cmake, "--install", build_dir, "--prefix", tree], check=True, stdout=subprocess.DEVNULL)
    for agent, description in AGENTS.items():
        write(os.path.join(tree, "agents", agent + ".md"),
              "---\nname: %s\ndescription: %s\ntools: Bash, Read, Write\n---\n\nE2E-AGENT:%s\n"
              "You stand in for viber:%s in a scripted test session.\n" % (agent, description, agent, agent))
    write(os.path.join(tree, "skills", "planner", "SKILL.md"),
          "---\nname: planner\ndescription: Stand-in for the viber planner, for the end-to-end test.\n---\n\n"
          "E2E-SKILL:planner\nWrite the plan with the planner's frontmatter, then dispatch viber:planner-review.\n")
    write(os.path.join(tree, "scripts", "config.sh"), "#!/usr/bin/env bash\necho 'planning.plain-plan-review: true'\n",
          0o755)
    return tree


def hook_answer(tree, hook, payload):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "VIBER_"))}
    env["CLAUDE_PLUGIN_ROOT"] = tree
    done = subprocess.run([os.path.join(tree, "hooks", "bin", hook)], input=json.dumps(payload).encode(),
                          stdout=subprocess.PIPE, env=env, cwd=payload.get("cwd") or tree, timeout=30)
    out = done.stdout.decode().strip()
    return json.loads(out) if out else None


def deny_reason(answer):
    if not answer:
        return None
    return (answer.get("hookSpecificOutput") or {}).get("permissionDecisionReason")
