#!/usr/bin/env python3
"""Drives the real interactive Claude Code in tmux through sessions a human would have,
against tests/agents/fake_anthropic.py, and copies the transcripts it writes.

Usage: interactive.py CLAUDE_BIN OUT_DIR SESSION

SESSION is one of:
- `interactive`: a prompt; an AskUserQuestion answered in the terminal (SQLite); a Bash call
  the human declines at the permission prompt, with feedback; /rewind to before that prompt
  and a new prompt in Russian (so the declined part becomes an abandoned branch); /compact;
  one more prompt after the compaction.
- `plan`: in plan mode, an ExitPlanMode the human rejects, a prompt saying why, then an
  AskUserQuestion the human dismisses with Esc.

Each step waits for what the terminal must show before the next key, so a changed UI fails
here loudly instead of writing a wrong fixture.
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

claude, out_dir, which = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
ASK = {"name": "AskUserQuestion", "input": {"questions": [{
    "question": "Which database should we use?", "header": "Database",
    "options": [{"label": "SQLite", "description": "One file, no server"},
                {"label": "PostgreSQL", "description": "A server, more features"}],
    "multiSelect": False}]}}
SCRIPTS = {
    "interactive": [
        [{"text": "Before I start, one question."}, {"tool_use": ASK}],
        [{"text": "SQLite it is. I will write the schema next."}],
        [{"tool_use": {"name": "Bash", "input": {"command": "rm -rf ./build",
                                                 "description": "Delete the old build folder"}}}],
        [{"text": "Understood: I keep the build folder."}],
        [{"text": "Хорошо, начнём заново: журнал — **JSONL**, одна строка на событие."}],
        [{"text": "Продолжаем после сжатия."}],
    ],
    "plan": [
        [{"text": "Here is my plan."},
         {"tool_use": {"name": "ExitPlanMode", "input": {
             "plan": "## Plan\n\n1. Add a `sessions` table.\n2. Migrate the old data.\n3. Drop the old table."}}}],
        [{"text": "Understood, I will keep the old table. One question first."}, {"tool_use": ASK}],
        [{"text": "No answer: I will wait."}],
    ],
}
MODES = {"interactive": "default", "plan": "plan"}

work = tempfile.mkdtemp(prefix="chatsurface-claude-tmux-")
home, project = os.path.join(work, "home"), os.path.join(work, "project")
os.makedirs(home)
os.makedirs(project)
with open(os.path.join(home, ".claude.json"), "w") as f:
    json.dump({"hasCompletedOnboarding": True, "projects": {project: {
        "hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}, f)
with open(os.path.join(work, "script.json"), "w") as f:
    json.dump(SCRIPTS[which], f)
port_file = os.path.join(work, "port")
server = subprocess.Popen([sys.executable, os.path.join(here, "..", "fake_anthropic.py"),
                           os.path.join(work, "script.json"), port_file,
                           os.path.join(work, "requests.jsonl")])
terminal = Terminal("chatsurface-claude")
tmux, pane, wait_for, keys, type_line = (terminal.tmux, terminal.pane, terminal.wait_for,
                                         terminal.keys, terminal.type_line)


def interactive():
    type_line("Set up storage for the app")
    wait_for("Which database should we use?")
    keys("Enter")
    wait_for("SQLite it is.")
    type_line("Delete the old build folder")
    wait_for("Do you want to proceed?")
    keys("Down", "Down", "Down")
    wait_for("❯ 4. No")
    keys("Tab")
    time.sleep(0.5)
    type_line("keep it, we still need the artifacts")
    wait_for("Understood: I keep the build folder.")
    type_line("/rewind")
    wait_for("Restore the code and/or conversation")
    keys("Up", "Enter")
    wait_for("Restore conversation")
    keys("Enter")
    time.sleep(1)
    keys("C-u")
    type_line("Начнём с формата логов")
    wait_for("начнём заново")
    type_line("/compact")
    wait_for("Compacted")
    type_line("И после сжатия: продолжим")
    wait_for("Продолжаем после сжатия.")


def plan():
    type_line("Plan the storage migration")
    wait_for("Exit plan mode?")
    wait_for("2. No")
    keys("Down")
    wait_for("❯ 2. No")
    keys("Enter")
    wait_for("Rejected Claude's plan")
    type_line("Keep the old table until we have a backup")
    wait_for("Which database should we use?", seconds=40)
    keys("Escape")
    time.sleep(3)


try:
    for _ in range(50):
        if os.path.exists(port_file) and open(port_file).read():
            break
        time.sleep(0.1)
    env = (f"env HOME={home} ANTHROPIC_BASE_URL=http://127.0.0.1:{open(port_file).read()} "
           "ANTHROPIC_API_KEY=sk-test CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
    terminal.start(project, f"{env} {claude} --permission-mode {MODES[which]}")
    wait_for("Do you want to use this API key?")
    keys("Up", "Enter")
    wait_for("? for shortcuts" if which == "interactive" else "plan mode on")
    {"interactive": interactive, "plan": plan}[which]()
    time.sleep(1)
    projects = os.path.join(home, ".claude", "projects")
    [folder] = os.listdir(projects)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    for name in os.listdir(os.path.join(projects, folder)):
        if name.endswith(".jsonl"):
            shutil.copy(os.path.join(projects, folder, name), out_dir)
            print(f"{which}: {name}")
finally:
    terminal.close()
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
