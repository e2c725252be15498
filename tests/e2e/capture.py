"""capture.py: what the real CLI wrote in an end-to-end run, saved as test fixtures.

Contract: save(dest, sessions, tree) writes, for each session, dest/<session>/ in the layout
Claude Code keeps under ~/.claude/projects/<project key>/: <session id>.jsonl (the main
transcript) and <session id>/subagents/ (each agent-<id>.jsonl with its agent-<id>.meta.json
beside it), so a session file and its directory replay alike; and beside them payloads/NN-<event>
[-<tool>].json (every hook payload, in the order the hooks were called, one compact JSON object
each) and plans/ (the plan files under the scratch ~/.claude/plans/). Paths become placeholders,
longest first: the plugin tree @PLUGIN@, the scratch HOME @HOME@, the project @PROJECT@, the
transcript directory's name (the project path with every character that is not a letter or digit
turned into `-`) @PROJECT_KEY@, the run's scratch root @ROOT@. A destination session directory is
replaced whole.
"""

import glob
import json
import os
import re
import shutil


def placeholders(session, tree):
    root = os.path.dirname(session.dir)
    pairs = [(tree, "@PLUGIN@"), (session.home, "@HOME@"), (session.project, "@PROJECT@"),
             (re.sub(r"[^A-Za-z0-9]", "-", session.project), "@PROJECT_KEY@"), (root, "@ROOT@")]
    return sorted(pairs, key=lambda p: -len(p[0]))


def scrub(text, pairs):
    for real, placeholder in pairs:
        text = text.replace(real, placeholder)
    return text


def copy_text(src, dst, pairs):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    with open(dst, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(scrub(text, pairs))


def save(dest, sessions, tree):
    for name, session in sessions.items():
        out = os.path.join(dest, name)
        shutil.rmtree(out, ignore_errors=True)
        pairs = placeholders(session, tree)
        main = session.transcript()
        if main:
            name_of = os.path.basename(main)[:-len(".jsonl")]
            copy_text(main, os.path.join(out, name_of + ".jsonl"), pairs)
            for path in sorted(glob.glob(os.path.join(main[:-len(".jsonl")], "subagents", "agent-*"))):
                copy_text(path, os.path.join(out, name_of, "subagents", os.path.basename(path)), pairs)
        for index, path in enumerate(sorted(glob.glob(os.path.join(session.payload_dir, "*.json")))):
            with open(path) as f:
                try:
                    payload = json.load(f)
                except ValueError:
                    continue
            label = payload.get("hook_event_name", "event")
            if payload.get("tool_name"):
                label += "-" + payload["tool_name"]
            target = os.path.join(out, "payloads", "%02d-%s.json" % (index + 1, label))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(scrub(json.dumps(payload, separators=(",", ":"), ensure_ascii=False), pairs) + "\n")
        for path in sorted(glob.glob(os.path.join(session.home, ".claude", "plans", "*.md"))):
            copy_text(path, os.path.join(out, "plans", os.path.basename(path)), pairs)
