"""model.py: a scripted Anthropic Messages API on 127.0.0.1 for the end-to-end test.

Contract: Model(script) serves one Claude Code session on a random free port of 127.0.0.1
(`HEAD /` answers 200; `POST /v1/messages` answers with the SSE stream of one assistant message,
or its JSON when the request does not ask for a stream). Each request is recorded with its arrival
time and sorted into a conversation: a request without tools is a side request (a session title
and the like) and gets a short text; a request whose system prompt holds `E2E-AGENT:<name>` is
that stand-in agent's conversation; anything else is the main conversation. The script is a
function (conversation, step, request) -> list of blocks, where step is the number of assistant
turns the request already holds (its waits left out, below), and a block is ("text", str) or
("tool", name, input). Tool-use ids are whole `toolu_` tokens unique in the session. A model
waits for a background agent as a real one does: when the request's last message holds an
`Agent` call's "Async agent launched" result (Claude Code 2.1.3xx runs agents in the background),
the model ends its turn with the text WAIT instead of asking the script, and goes on when the
agent's `<task-notification>` arrives as a new message; waiting() is true meanwhile. The model
also times every tool call: from the moment its tool_use was written to the socket to the arrival of the request that carries its
tool_result. think (seconds) delays every answer but a side request's, as a model's time to its
first token does. Python 3's standard library only.
"""

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

AGENT_MARK = re.compile(r"E2E-AGENT:([a-z-]+)")
WAIT = "The review runs in the background; I wait for its notification."
ASYNC_LAUNCHED = "Async agent launched"
NOTIFIED = re.compile(r"<task-notification>.*?<tool-use-id>(toolu_[A-Za-z0-9_]+)</tool-use-id>", re.S)


def text_of(value):
    """Every string inside a JSON value, joined with newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(text_of(v) for v in value.values())
    return ""


def system_text(request):
    return text_of(request.get("system", ""))


def conversation_of(request):
    if not request.get("tools"):
        return "side"
    found = AGENT_MARK.search(system_text(request))
    return found.group(1) if found else "main"


def last_tool_results(request):
    """The tool_result blocks of the request's last user message: [(id, text, is_error)]."""
    messages = request.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return []
    content = messages[-1].get("content")
    if not isinstance(content, list):
        return []
    out = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            out.append((block.get("tool_use_id"), text_of(block.get("content", "")), bool(block.get("is_error"))))
    return out


def all_tool_results(request):
    """Every tool_result block of the request's messages: [(id, text, is_error)]."""
    out = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                out.append((block.get("tool_use_id"), text_of(block.get("content", "")), bool(block.get("is_error"))))
    return out


def last_user_text(request):
    """The text blocks of the request's last user message (tool_results left out)."""
    messages = request.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return ""
    content = messages[-1].get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def turn_text(request):
    """Every string of the messages after the request's last assistant message: the new turn."""
    messages = request.get("messages") or []
    last = max([i for i, m in enumerate(messages) if m.get("role") == "assistant"], default=-1)
    return text_of(messages[last + 1:])


def first_user_text(request):
    messages = request.get("messages") or []
    return text_of(messages[0].get("content", "")) if messages else ""


def blocks_text(content):
    """The text of a message's content: the string, or its text blocks joined with newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def is_wait(message):
    return message.get("role") == "assistant" and blocks_text(message.get("content")).strip() == WAIT


def step_of(request):
    """The assistant turns the request holds, its waits for background agents left out."""
    return sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant" and not is_wait(m))


def async_launches(request):
    """The tool ids whose result in the request's last message says the agent runs in the background."""
    return {i for i, text, error in last_tool_results(request) if not error and ASYNC_LAUNCHED in text}


def notified(request):
    """The tool ids a <task-notification> names in the request's messages (a user message in 2.1.3xx's
    transcript, a system message in what it sends the model)."""
    out = set()
    for message in request.get("messages") or []:
        if message.get("role") != "assistant":
            out.update(NOTIFIED.findall(text_of(message.get("content"))))
    return out


class Model:
    def __init__(self, tag, script, think=0.0):
        self.tag = tag
        self.script = script
        self.think = think
        self.lock = threading.Lock()
        self.requests = []  # (arrival monotonic, conversation, request)
        self.sent = {}  # tool id -> monotonic time its tool_use was written
        self.round_trips = {}  # tool id -> seconds until its tool_result came back
        self.tool_names = {}  # tool id -> (conversation, tool name, input)
        self.errors = []
        self.launched = set()  # background agents' tool ids
        self.notified = set()  # ... whose task notification reached the model
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                arrived = time.monotonic()
                try:
                    request = json.loads(body)
                except ValueError:
                    request = {}
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    payload = json.dumps({"input_tokens": 1}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                model.answer(self, request, arrived)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, handler, request, arrived):
        conversation = conversation_of(request)
        step = step_of(request)
        launched = async_launches(request) if conversation != "side" else set()
        with self.lock:
            self.requests.append((arrived, conversation, request))
            self.launched |= launched
            self.notified |= notified(request)
            wait = bool(launched - self.notified)
            for tool_id, _, _ in all_tool_results(request):
                if tool_id in self.sent and tool_id not in self.round_trips:
                    self.round_trips[tool_id] = arrived - self.sent[tool_id]
        if conversation != "side" and self.think:
            # A model's time to its first token. The CLI appends to the transcript in batches: a
            # model that answers at once can have the CLI run the next hook before the previous
            # tool_result line is on disk, a race no real model's latency leaves open.
            time.sleep(self.think)
        if conversation == "side":
            blocks = [("text", "ok")]
        elif wait:
            blocks = [("text", WAIT)]
        else:
            try:
                blocks = self.script(conversation, step, request) or [("text", "done")]
            except Exception as error:  # the script's own bug: say so, end the turn
                self.errors.append("%s step %d: %r" % (conversation, step, error))
                blocks = [("text", "script error")]
        content = []
        for index, block in enumerate(blocks):
            if block[0] == "text":
                content.append({"type": "text", "text": block[1]})
            else:
                tool_id = "toolu_01E2E%s%s%02d%d" % (self.tag, re.sub(r"[^A-Za-z0-9]", "", conversation), step, index)
                content.append({"type": "tool_use", "id": tool_id, "name": block[1], "input": block[2]})
                with self.lock:
                    self.tool_names[tool_id] = (conversation, block[1], block[2])
        stop = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
        message_id = "msg_e2e_%s_%d" % (self.tag, len(self.requests))
        usage = {"input_tokens": 10, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not request.get("stream"):
            body = json.dumps({"id": message_id, "type": "message", "role": "assistant", "model": request.get("model", "m"),
                               "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        events = [("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": request.get("model", "m"), "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}})]
        for index, block in enumerate(content):
            if block["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {"type": "text", "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                       "delta": {"type": "text_delta", "text": block["text"]}}))
            else:
                events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 10}}))
        events.append(("message_stop", {"type": "message_stop"}))
        body = "".join("event: %s\ndata: %s\n\n" % (name, json.dumps(data)) for name, data in events).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
        written = time.monotonic()
        with self.lock:
            for block in content:
                if block["type"] == "tool_use":
                    self.sent[block["id"]] = written

    def waiting(self):
        """True while a background agent launched in the session has not notified the model."""
        with self.lock:
            return bool(self.launched - self.notified)

    def conversation(self, name):
        """The requests of one conversation, in arrival order."""
        with self.lock:
            return [r for _, c, r in self.requests if c == name]
