#!/usr/bin/env python3
"""Drives the real interactive Gemini CLI in tmux through a session with questions, a rewind
and an interrupted turn, against tests/agents/fake_gemini.py, and copies the session it writes.

Usage: interactive.py GEMINI_BIN OUT_DIR

The session: a prompt the model answers with `ask_user` (a choice, a multi-select and a text
question, answered in the terminal's dialog); a second prompt; `/rewind` to that second
prompt and a prompt in Russian instead; a prompt whose answer is slow, interrupted with Esc,
and another after it; then `ask_user` with a yes/no question answered "No" and one more
dismissed with Esc (which ends the turn). Each step waits for what the terminal must show before the next key, so
a changed UI fails here loudly instead of writing a wrong fixture.
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

gemini, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))


def ask(*questions):
    return [{"call": {"name": "ask_user", "args": {"questions": list(questions)}}}]


SCRIPT = [
    ask({"question": "Which database should we use?", "header": "Database", "type": "choice",
         "options": [{"label": "SQLite", "description": "One file, no server"},
                     {"label": "PostgreSQL", "description": "We already run one"}]},
        {"question": "Which features first?", "header": "Features", "type": "choice",
         "multiSelect": True,
         "options": [{"label": "Search", "description": "Full text"},
                     {"label": "Sync", "description": "Across machines"},
                     {"label": "Export", "description": "To PDF"}]},
        {"question": "Anything else to keep in mind?", "header": "Notes", "type": "text"}),
    [{"text": "Noted: PostgreSQL, search and sync first."}],
    [{"text": "A B-tree over the offsets."}],
    [{"text": "Индекс — по смещениям строк."}],
    [{"sleep": 30}, {"text": "(never seen: the turn is interrupted)"}],
    [{"text": "Then no index for now."}],
    ask({"question": "Deploy to staging now?", "header": "Deploy", "type": "yesno"}),
    [{"text": "Not deploying."}],
    ask({"question": "Which region?", "header": "Region", "type": "choice",
         "options": [{"label": "eu-west", "description": "Dublin"},
                     {"label": "us-east", "description": "Virginia"}]}),
]

work = tempfile.mkdtemp(prefix="chatsurface-gemini-tmux-")
home, project = os.path.join(work, "home"), os.path.join(work, "project")
os.makedirs(os.path.join(home, ".gemini"))
os.makedirs(project)
subprocess.run(["git", "init", "-q"], cwd=project, check=True)
with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
    json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}}, f)
with open(os.path.join(work, "script.json"), "w") as f:
    json.dump(SCRIPT, f)
port_file = os.path.join(work, "port")
server = subprocess.Popen([sys.executable, os.path.join(here, "..", "fake_gemini.py"),
                           os.path.join(work, "script.json"), port_file,
                           os.path.join(work, "requests.jsonl")])
terminal = Terminal("chatsurface-gemini", delay=0.5)
pane, wait_for, keys, type_line = terminal.pane, terminal.wait_for, terminal.keys, terminal.type_line
READY = "Type your message"

try:
    for _ in range(50):
        if os.path.exists(port_file) and open(port_file).read():
            break
        time.sleep(0.1)
    env = (f"HOME={home} GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_API_KEY=test-key "
           f"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:{open(port_file).read()}")
    terminal.start(project, f"env {env} {gemini}", width=160, height=45)
    wait_for(READY, seconds=60)
    # A question mark typed last opens Gemini CLI's shortcuts help, so the prompts have none.
    type_line("Which database should we use for the log")
    wait_for("Answer Questions")
    keys("Down", "Enter")  # PostgreSQL
    wait_for("Which features first?")
    keys("Enter", "Down", "Enter", "Right")  # Search and Sync
    wait_for("Anything else to keep in mind?")
    type_line("Keep it small, без сервера")
    wait_for("Review your answers")
    keys("Enter")
    wait_for("Noted: PostgreSQL")
    type_line("And the index")
    wait_for("A B-tree over the offsets.")
    type_line("/rewind")
    wait_for("Stay at current position")
    keys("Up", "Enter")  # the last prompt
    wait_for("Confirm Rewind")
    keys("Enter")  # Rewind conversation
    terminal.wait_until("the rewound prompt back in the input",
                        lambda: "A B-tree" not in pane())
    keys("C-u")
    type_line("А индекс")
    wait_for("Индекс — по смещениям строк.")
    type_line("Take your time over the index")
    time.sleep(2)
    keys("Escape")
    wait_for("Request cancelled")
    type_line("Skip the index for now")
    wait_for("Then no index for now.")
    type_line("Ship it")
    wait_for("Deploy to staging now?")
    keys("Down", "Enter")  # No
    terminal.wait_until("the yes/no answered", lambda: "Review your answers" in pane()
                        or "Not deploying." in pane())
    if "Review your answers" in pane():
        keys("Enter")
    wait_for("Not deploying.")
    type_line("Pick a region")
    wait_for("Which region?")
    keys("Escape")  # dismissed: Gemini CLI cancels the call and ends the turn
    terminal.wait_until("the question dismissed", lambda: "Request cancelled"
                        in pane().split("Pick a region")[-1])
    time.sleep(1)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    for folder, _, names in os.walk(os.path.join(home, ".gemini", "tmp")):
        for name in sorted(names):
            if os.path.basename(folder) == "chats" and name.endswith(".jsonl"):
                shutil.copy(os.path.join(folder, name), out_dir)
                print(f"interactive: {name}")
finally:
    terminal.close()
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
