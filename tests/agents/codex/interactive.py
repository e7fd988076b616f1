#!/usr/bin/env python3
"""Drives the real interactive Codex CLI in tmux through a session with two reverts, against
tests/agents/fake_openai.py, and copies the rollouts it writes.

Usage: interactive.py CODEX_BIN OUT_DIR

The session: a prompt; a second prompt; Esc Esc and Enter on it (Codex reverts the
conversation to before it) and a prompt in Russian instead; the same again on that one and a
third prompt. Codex 0.169.0 writes each revert as a new rollout that names the part of the
previous one it keeps. Each step waits for what the terminal must show before the next key,
so a changed UI fails here loudly instead of writing a wrong fixture.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from terminal import Terminal  # noqa: E402  (the drivers' shared module, beside this folder)

codex, out_dir = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
TITLE = "Generate a concise"
# Codex asks for a title beside every prompt; those requests race the prompt's own, so each
# step answers only the request it is for.
SCRIPT = [{"when": TITLE, "items": [{"text": "Log format"}]} for _ in range(4)] + [
    {"when": "Which log format", "items": [{"text": "JSONL: one event per line."}]},
    {"when": "And the index?", "items": [{"text": "A B-tree over the offsets."}]},
    {"when": "А индекс?", "items": [{"text": "Индекс — по смещениям строк."}]},
    {"when": "Skip the index", "items": [{"text": "Then no index for now."}]},
]

work = tempfile.mkdtemp(prefix="chatsurface-codex-tmux-")
home, project = os.path.join(work, "home"), os.path.join(work, "project")
os.makedirs(home)
os.makedirs(project)
subprocess.run(["git", "init", "-q"], cwd=project, check=True)
with open(os.path.join(work, "script.json"), "w") as f:
    json.dump(SCRIPT, f)
port_file = os.path.join(work, "port")
server = subprocess.Popen([sys.executable, os.path.join(here, "..", "fake_openai.py"),
                           os.path.join(work, "script.json"), port_file,
                           os.path.join(work, "requests.jsonl")])
terminal = Terminal("chatsurface-codex", delay=0.5)
tmux, pane, wait_for, keys, type_line = (terminal.tmux, terminal.pane, terminal.wait_for,
                                         terminal.keys, terminal.type_line)


def revert_last_prompt():
    keys("Escape", "Escape")
    wait_for("rewind")
    keys("Enter")
    wait_for("Conversation reverted")
    keys("C-u")


try:
    for _ in range(50):
        if os.path.exists(port_file) and open(port_file).read():
            break
        time.sleep(0.1)
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f"""model = "gpt-fake"
model_provider = "fake"
[model_providers.fake]
name = "Fake"
base_url = "http://127.0.0.1:{open(port_file).read()}/v1"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
""")
    terminal.start(project, f"env CODEX_HOME={home} FAKE_OPENAI_KEY=sk-test {codex}",
                   width=160, height=45)
    wait_for("Trust this folder?")
    terminal.press_until("Enter", "Ask Codex to do anything")
    type_line("Which log format should we use?")
    wait_for("JSONL: one event per line.")
    type_line("And the index?")
    wait_for("A B-tree over the offsets.")
    revert_last_prompt()
    type_line("А индекс?")
    wait_for("Индекс — по смещениям строк.")
    revert_last_prompt()
    type_line("Skip the index for now")
    wait_for("Then no index for now.")
    time.sleep(1)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    for folder, _, names in os.walk(os.path.join(home, "sessions")):
        for name in sorted(names):
            if name.endswith(".jsonl"):
                shutil.copy(os.path.join(folder, name), out_dir)
                print(f"revert: {name}")
finally:
    terminal.close()
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
