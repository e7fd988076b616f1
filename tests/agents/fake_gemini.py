#!/usr/bin/env python3
"""A scripted stand-in for the Gemini API, for driving the real Gemini CLI offline.

Usage: fake_gemini.py SCRIPT.json PORT_FILE REQUESTS.jsonl

SCRIPT.json is a list of steps; each `…:streamGenerateContent` (or `:generateContent`)
request that offers tools (a turn of the agent) gets the next step; one without tools (a
title, a check) gets a short text without using a step. A step is a list of parts:
{"text": "..."} or {"call": {"name": "...", "args": {...}}}, or {"sleep": SECONDS} to answer
that late (so that a driver can interrupt the turn). When the script is used up every
further turn gets "(script done)". Every request body is appended to REQUESTS.jsonl; the
port is written to PORT_FILE once the server listens.
"""
import http.server
import json
import sys
import threading
import time

script = json.load(open(sys.argv[1], encoding="utf-8"))
port_file, requests_file = sys.argv[2], sys.argv[3]
lock = threading.Lock()
state = {"step": 0}
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def candidate(parts):
    shown = []
    for part in parts:
        if "sleep" in part:
            continue
        if "text" in part:
            shown.append({"text": part["text"]})
        else:
            shown.append({"functionCall": {"name": part["call"]["name"], "args": part["call"]["args"]}})
    return {"candidates": [{"content": {"role": "model", "parts": shown}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": USAGE, "modelVersion": "gemini-fake"}


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
        self.reply(200, "application/json", b"{}")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        with lock:
            with open(requests_file, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if ":countTokens" in self.path:
            self.reply(200, "application/json", json.dumps({"totalTokens": 10}).encode())
            return
        if body.get("tools"):
            with lock:
                step = state["step"]
                state["step"] += 1
            parts = script[step] if step < len(script) else [{"text": "(script done)"}]
        else:
            # The side requests (routing, titles, next-speaker checks) ask for JSON: one
            # object with every field they ask for.
            parts = [{"text": json.dumps({"title": "Fake", "next_speaker": "user",
                                          "reasoning": "done", "complexity_reasoning": "simple",
                                          "complexity_score": 1})}]
        time.sleep(sum(part.get("sleep", 0) for part in parts))
        answer = candidate(parts)
        try:
            if "streamGenerateContent" in self.path:
                self.reply(200, "text/event-stream",
                           f"data: {json.dumps(answer)}\r\n\r\n".encode())
            else:
                self.reply(200, "application/json", json.dumps(answer).encode())
        except (BrokenPipeError, ConnectionResetError):
            pass  # the turn was interrupted while it waited


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
