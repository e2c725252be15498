"""session.py: runs the real `claude` CLI once, offline, against a scripted model (model.py).

Contract: Session(name, root, plugin, script, ...) prepares root/<name>/ (home/: a scratch HOME;
project/: a scratch git repository with one commit; payloads/: every hook payload when `capture`,
written by a command hook in --settings), starts a Model and runs `claude -p --output-format
stream-json --verbose` in project/ with ANTHROPIC_BASE_URL pointing at it, a dummy key,
IS_SANDBOX=1 and the non-essential traffic switched off. mode "print": the prompt on the command
line and --dangerously-skip-permissions; mode "stdio": the SDK protocol (--input-format
stream-json --permission-prompt-tool stdio, --permission-mode given), the prompts written one per
turn (each after the previous turn's `result`; a prompt may first switch the permission mode with
a set_permission_mode control request) and every can_use_tool control request recorded and
allowed. A turn's result does not end it while a background agent has not notified the model
(Claude Code 2.1.3xx): its notification starts the next turn. The CLI is stopped once its last
turn's result is out (it can linger for seconds after). The model takes `think` seconds (default
0.5) before each answer, as a real one does. `claude` is the CLI's executable (default: `claude`
on PATH).
Afterwards: .events (stdout's JSON lines), .permission_requests, .model (its requests),
.transcript_dir (the session's transcript directory), .payloads().
"""

import glob
import json
import os
import select
import signal
import subprocess
import threading
import time

from model import Model

QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
}


class Session:
    def __init__(self, name, root, plugin, script, prompts, mode="print", permission_mode="plan", capture=True,
                 tag=None, timeout=90, think=0.5, claude="claude"):
        self.name = name
        self.claude = claude
        self.dir = os.path.join(root, name)
        self.home = os.path.join(self.dir, "home")
        self.project = os.path.join(self.dir, "project")
        self.payload_dir = os.path.join(self.dir, "payloads")
        self.plugin = plugin
        self.script = script
        self.prompts = prompts
        self.mode = mode
        self.permission_mode = permission_mode
        self.capture = capture
        self.timeout = timeout
        self.think = think
        self.tag = tag or name[:2].upper()
        self.events = []
        self.permission_requests = []
        self.stderr = ""
        self.status = None
        self.elapsed = 0.0
        self.model = None
        self.on_permission = None  # optional callback(request) before the host allows it

    def prepare(self):
        for d in (self.home, self.project, self.payload_dir):
            os.makedirs(d, exist_ok=True)
        git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
        subprocess.run(git + ["init", "-q", "."], cwd=self.project, check=True)
        with open(os.path.join(self.project, "README.md"), "w") as f:
            f.write("scratch project of the viber-hooks end-to-end test\n")
        subprocess.run(git + ["add", "README.md"], cwd=self.project, check=True)
        subprocess.run(git + ["commit", "-q", "-m", "scratch"], cwd=self.project, check=True)

    def settings(self):
        if not self.capture:
            return None
        # Every hook payload into payloads/<ns>-<pid>.json: a stand-in hook beside the plugin's.
        command = 'cat > "$E2E_PAYLOAD_DIR/$(date +%s%N)-$$.json"'
        hook = [{"hooks": [{"type": "command", "command": command, "timeout": 10}]}]
        events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStop", "Stop"]
        path = os.path.join(self.dir, "settings.json")
        with open(path, "w") as f:
            json.dump({"hooks": {e: hook for e in events}}, f)
        return path

    def command(self):
        argv = [self.claude, "-p", "--output-format", "stream-json", "--verbose", "--include-hook-events"]
        if self.plugin:
            argv += ["--plugin-dir", self.plugin]
        settings = self.settings()
        if settings:
            argv += ["--settings", settings]
        if self.mode == "print":
            argv += ["--dangerously-skip-permissions", self.prompts[0]]
        else:
            argv += ["--input-format", "stream-json", "--permission-prompt-tool", "stdio",
                     "--permission-mode", self.permission_mode]
        return argv

    def run(self):
        self.prepare()
        self.model = Model(self.tag, self.script, self.think)
        env = dict(os.environ)
        for key in list(env):
            if key.startswith(("ANTHROPIC_", "CLAUDE_", "VIBER_")):
                del env[key]
        env.update(QUIET_ENV)
        env.update({"HOME": self.home, "ANTHROPIC_BASE_URL": self.model.url(), "ANTHROPIC_API_KEY": "sk-ant-e2e-dummy",
                    "IS_SANDBOX": "1", "E2E_PAYLOAD_DIR": self.payload_dir})
        started = time.monotonic()
        proc = subprocess.Popen(self.command(), cwd=self.project, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        err_chunks = []
        reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
        reader.start()
        pending = list(self.prompts) if self.mode == "stdio" else []
        if self.mode == "print":
            proc.stdin.close()
        else:
            self.send(proc, pending.pop(0))
        buffer = b""
        done = False
        deadline = started + self.timeout
        while not done and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                self.events.append(event)
                if event.get("type") == "control_request":
                    self.permission(proc, event)
                elif event.get("type") == "result":
                    if self.model.waiting():
                        continue  # the agent's notification starts the next turn
                    if pending:
                        self.send(proc, pending.pop(0))
                    else:
                        done = True
        self.finished = done
        # The last result is out: the transcript is written. The CLI may linger; stop it.
        try:
            if self.mode == "stdio":
                proc.stdin.close()
            proc.wait(timeout=3)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        reader.join(timeout=5)
        self.stderr = b"".join(err_chunks).decode(errors="replace")
        self.status = proc.returncode
        self.elapsed = time.monotonic() - started
        self.model.close()
        return self

    def send(self, proc, prompt):
        if isinstance(prompt, dict):  # {"mode": ..., "text": ...}
            if prompt.get("mode"):
                self.write(proc, {"type": "control_request", "request_id": "e2e-mode-%d" % len(self.events),
                                  "request": {"subtype": "set_permission_mode", "mode": prompt["mode"]}})
            if prompt.get("before"):
                prompt["before"](self)
            prompt = prompt["text"]
        self.write(proc, {"type": "user", "message": {"role": "user", "content": prompt}})

    def write(self, proc, obj):
        proc.stdin.write((json.dumps(obj) + "\n").encode())
        proc.stdin.flush()

    def permission(self, proc, event):
        request = event.get("request") or {}
        if request.get("subtype") != "can_use_tool":
            self.write(proc, {"type": "control_response", "response": {
                "subtype": "success", "request_id": event.get("request_id"), "response": {}}})
            return
        self.permission_requests.append(request)
        if self.on_permission:
            self.on_permission(request)
        self.write(proc, {"type": "control_response", "response": {
            "subtype": "success", "request_id": event.get("request_id"),
            "response": {"behavior": "allow", "updatedInput": request.get("input") or {}}}})

    # --- what the run left -------------------------------------------------------------------
    def session_id(self):
        for event in self.events:
            if event.get("session_id"):
                return event["session_id"]
        return None

    def transcript(self):
        found = glob.glob(os.path.join(self.home, ".claude", "projects", "*", "%s.jsonl" % self.session_id()))
        return found[0] if found else None

    def subagent_transcripts(self):
        main = self.transcript()
        if not main:
            return []
        return sorted(glob.glob(os.path.join(main[:-len(".jsonl")], "subagents", "agent-*.jsonl")))

    def payloads(self):
        out = []
        for path in sorted(glob.glob(os.path.join(self.payload_dir, "*.json"))):
            try:
                with open(path) as f:
                    out.append(json.load(f))
            except (OSError, ValueError):
                pass
        return out

    def hook_events(self):
        return [e for e in self.events if e.get("type") == "system" and str(e.get("subtype", "")).startswith("hook")]
