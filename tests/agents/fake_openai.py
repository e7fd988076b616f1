#!/usr/bin/env python3
"""A scripted stand-in for the OpenAI Responses API, for driving the real Codex CLI offline.

Usage: fake_openai.py SCRIPT.json PORT_FILE REQUESTS.jsonl

SCRIPT.json is a list of steps; each `POST …/responses` gets the next step, streamed as the
Responses API streams (SSE: response.created, response.output_item.added / .done per item,
response.completed). A step is a list of items: {"text": "..."} for an assistant message, or
{"call": {"name": "...", "arguments": {...}}} for a function call ("namespace" too, for a
tool in a namespace such as multi_agent_v1; the string "$agent_id" in the arguments becomes
the agent id the request's last spawn_agent output named). A step may instead be
{"when": "...", "items": [...]}: it answers only a request whose last input item contains that
text, so that a sub-agent's requests and its parent's, which race, each get their own. Each
request gets the first unused step that answers it. When the script is used up, every further
request gets "(script done)". Every request body is appended to
REQUESTS.jsonl; the port is written to PORT_FILE once the server listens.
"""
import http.server
import json
import sys
import threading

script = json.load(open(sys.argv[1], encoding="utf-8"))
port_file, requests_file = sys.argv[2], sys.argv[3]
lock = threading.Lock()
state = {"used": set(), "response": 0}


def next_step(last_input):
    """The first unused step that answers a request whose last input item is `last_input`."""
    for number, step in enumerate(script):
        if number in state["used"]:
            continue
        if isinstance(step, dict) and step["when"] not in last_input:
            continue
        state["used"].add(number)
        return step["items"] if isinstance(step, dict) else step
    return [{"text": "(script done)"}]


def spawned_agent(inputs):
    """The agent id in the last spawn_agent output among a request's input items, or ""."""
    for item in reversed(inputs):
        if item.get("type") == "function_call_output":
            try:
                output = json.loads(item.get("output") or "")
            except (TypeError, ValueError):
                continue
            if isinstance(output, dict) and "agent_id" in output:
                return output["agent_id"]
    return ""


def sse(data):
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def stream(items, agent_id):
    with lock:
        state["response"] += 1
        number = state["response"]
    response_id = f"resp_fake_{number:04d}"
    out = [sse({"type": "response.created", "sequence_number": 0,
                "response": {"id": response_id, "object": "response", "status": "in_progress",
                             "output": []}})]
    done = []
    for index, item in enumerate(items):
        if "text" in item:
            body = {"type": "message", "id": f"msg_fake_{number:04d}_{index}", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": item["text"], "annotations": []}]}
        else:
            call = item["call"]
            arguments = json.dumps(call["arguments"]).replace("$agent_id", agent_id)
            body = {"type": "function_call", "id": f"fc_fake_{number:04d}_{index}",
                    "call_id": f"call_fake_{number:04d}_{index}", "name": call["name"],
                    "arguments": arguments, "status": "completed"}
            if "namespace" in call:
                body["namespace"] = call["namespace"]
        out.append(sse({"type": "response.output_item.added", "output_index": index, "item": body}))
        if "text" in item:
            out.append(sse({"type": "response.output_text.delta", "output_index": index,
                            "item_id": body["id"], "content_index": 0, "delta": item["text"]}))
        out.append(sse({"type": "response.output_item.done", "output_index": index, "item": body}))
        done.append(body)
    out.append(sse({"type": "response.completed",
                    "response": {"id": response_id, "object": "response", "status": "completed",
                                 "output": done,
                                 "usage": {"input_tokens": 10, "output_tokens": 5,
                                           "total_tokens": 15,
                                           "input_tokens_details": {"cached_tokens": 0},
                                           "output_tokens_details": {"reasoning_tokens": 0}}}}))
    return b"".join(out)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.reply(200, "application/json", json.dumps({"object": "list", "data": []}).encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"undecoded": len(raw), "encoding": self.headers.get("Content-Encoding")}
        with lock:
            with open(requests_file, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if not self.path.endswith("/responses"):
            self.reply(404, "application/json", b"{}")
            return
        inputs = body.get("input") or [{}]
        last = json.dumps(inputs[-1], ensure_ascii=False)
        with lock:
            items = next_step(last)
        self.reply(200, "text/event-stream", stream(items, spawned_agent(inputs)))


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
