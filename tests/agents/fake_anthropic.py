#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code offline.

Usage: fake_anthropic.py SCRIPT.json PORT_FILE REQUESTS.jsonl

SCRIPT.json is a list of steps; each request that offers tools (a turn of the agent or of a
sub-agent) gets the next step, streamed as the Messages API streams (SSE). A step is a list of
blocks: {"text": "..."} or {"tool_use": {"name": "...", "input": {...}}}. A request without
tools (a title) gets a short plain text, and a compaction request (Claude Code's "Respond
with TEXT ONLY" summary prompt) a fixed summary; neither uses up a step. When the script is used up, every further
turn gets "(script done)". In a tool call's input, "$PLAN_FILE" stands for the plan file
Claude Code named in its plan-mode instructions (the model writes its plan there). Every request body is appended to REQUESTS.jsonl, so a test can
assert on what the agent sent back (tool results above all). The port it listens on is written
to PORT_FILE once it is ready.
"""
import http.server
import json
import re
import sys
import threading

script = json.load(open(sys.argv[1], encoding="utf-8"))
port_file, requests_file = sys.argv[2], sys.argv[3]
lock = threading.Lock()
state = {"step": 0, "message": 0, "plan_file": None}
PLAN_FILE = re.compile(r"(/[^\s\"\\]+/plans/[A-Za-z0-9._-]+\.md)")


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def stream(blocks, model):
    with lock:
        state["message"] += 1
        message_id = f"msg_fake_{state['message']:04d}"
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    stop = "end_turn"
    for index, block in enumerate(blocks):
        if "text" in block:
            out.append(sse("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "text_delta", "text": block["text"]}}))
        else:
            use = block["tool_use"]
            stop = "tool_use"
            tool_id = f"toolu_fake_{state['message']:04d}_{index}"
            out.append(sse("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "tool_use", "id": tool_id,
                                                                     "name": use["name"], "input": {}}}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": json.dumps(use["input"]).replace(
                                                                 "$PLAN_FILE", state["plan_file"] or "$PLAN_FILE")}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 5}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def is_compaction(body):
    messages = body.get("messages") or []
    if not messages:
        return False
    content = messages[-1].get("content")
    if isinstance(content, list):
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return isinstance(content, str) and "Respond with TEXT ONLY" in content


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.do_HEAD()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        named = PLAN_FILE.findall(json.dumps(body))
        if named:
            state["plan_file"] = named[-1]
        with lock:
            with open(requests_file, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            reply = json.dumps({"input_tokens": 10}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        if is_compaction(body):
            blocks = [{"text": "<analysis>The fake model read the session.</analysis>\n"
                               "<summary>The session so far: the user asked the scripted "
                               "questions and got the scripted answers.</summary>"}]
        elif body.get("tools"):
            with lock:
                step = state["step"]
                state["step"] += 1
            blocks = script[step] if step < len(script) else [{"text": "(script done)"}]
        else:
            blocks = [{"text": "Fake title"}]
        model = body.get("model", "claude-fake")
        if body.get("stream"):
            payload = stream(blocks, model)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        else:
            text = "".join(block.get("text", "") for block in blocks) or "ok"
            reply = json.dumps({"id": "msg_fake_plain", "type": "message", "role": "assistant",
                                "model": model, "content": [{"type": "text", "text": text}],
                                "stop_reason": "end_turn", "stop_sequence": None,
                                "usage": {"input_tokens": 10, "output_tokens": 5}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
