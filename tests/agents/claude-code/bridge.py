#!/usr/bin/env python3
"""The Claude Code bridge end to end: the real interactive Claude Code in tmux, its hook
installed by `chatsurface install claude-code --project`, the real surface, and the human
answering on it, against tests/agents/fake_anthropic.py. In steps 1 and 2 the surface is the
real window (`chatsurface` alone, under Xvfb), answered with keys typed through xdotool; from
step 5 on it is `chatsurface serve`, answered with the operator's `POST /v1/pending/{id}`,
what the window sends.

Usage: bridge.py CLAUDE_BIN CHATSURFACE_BIN

It checks, on what Claude Code sends back to the model and on what the surface holds:
1. an AskUserQuestion of two questions (one multi-select) appears on the surface as one batch
   in the session `claude-code-<Claude Code's session id>`; the answers given there in the
   window (a label, two labels) reach the model as Claude Code's own answer text;
2. a Bash call declined in the window with a comment typed there reaches the model as an
   error carrying that comment, and the command does not run;
3. a permission answered in the terminal first runs the command, and its question on the
   surface shows as withdrawn;
4. with the surface stopped, the hook gives up at once and the terminal's prompt decides;
5. an edit accepted for good on the surface (its "always" answer, Claude Code's own first
   suggestion) switches Claude Code to accepting edits: the next edit asks nobody;
6. in plan mode, an ExitPlanMode is a confirmation showing the plan: declined there with a
   comment, the model is told the comment; approved there, the model is told so.
Exits non-zero with what it saw when any of that does not hold.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from surface import Surface, Window  # noqa: E402  (the bridges' shared module, beside this folder)
from terminal import Terminal  # noqa: E402  (the drivers' shared module, beside this folder)

# tmux starts Claude Code in the project folder, so a relative path must be resolved here.
claude = os.path.abspath(shutil.which(sys.argv[1]) or sys.argv[1])
chatsurface = os.path.abspath(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
QUESTIONS = [
    {"question": "Which database should we use?", "header": "Database", "multiSelect": False,
     "options": [{"label": "SQLite", "description": "One file, no server"},
                 {"label": "PostgreSQL", "description": "A server, more features"}]},
    {"question": "Which features first?", "header": "Features", "multiSelect": True,
     "options": [{"label": "Search", "description": "Find anything said"},
                 {"label": "Export", "description": "A file per session"},
                 {"label": "Sync", "description": "Between machines"}]},
]
SCRIPT = [
    [{"text": "Two questions first."},
     {"tool_use": {"name": "AskUserQuestion", "input": {"questions": QUESTIONS}}}],
    [{"text": "Noted: SQLite, search and sync."}],
    [{"tool_use": {"name": "Bash", "input": {"command": "rm -rf ./build",
                                             "description": "Delete the old build folder"}}}],
    [{"text": "Understood: I keep the build folder."}],
    [{"tool_use": {"name": "Bash", "input": {"command": "touch ./answered-in-terminal",
                                             "description": "Mark the spot"}}}],
    [{"text": "Marked from the terminal."}],
    [{"tool_use": {"name": "Bash", "input": {"command": "touch ./no-surface",
                                             "description": "Mark again"}}}],
    [{"text": "Marked without a surface."}],
    [{"tool_use": {"name": "Edit", "input": {"file_path": "$PROJECT/a.txt",
                                             "old_string": "one", "new_string": "two"}}}],
    [{"tool_use": {"name": "Edit", "input": {"file_path": "$PROJECT/b.txt",
                                             "old_string": "three", "new_string": "four"}}}],
    [{"text": "Edited both."}],
    # In plan mode the model writes its plan to the file Claude Code names, then asks.
    [{"tool_use": {"name": "Write", "input": {"file_path": "$PLAN_FILE",
                                              "content": "## Plan\n\n1. Drop the old table.\n"}}}],
    [{"text": "Here is my plan."}, {"tool_use": {"name": "ExitPlanMode", "input": {}}}],
    [{"text": "Understood: I keep planning."}],
    [{"tool_use": {"name": "Write", "input": {"file_path": "$PLAN_FILE",
                                              "content": "## Plan\n\n1. Keep the old table.\n"}}}],
    [{"tool_use": {"name": "ExitPlanMode", "input": {}}}],
    [{"text": "Starting on the approved plan."}],
]

work = tempfile.mkdtemp(prefix="chatsurface-bridge-")
home, project, data = (os.path.join(work, name) for name in ("home", "project", "data"))
for folder in (home, project, os.path.join(project, "build")):
    os.makedirs(folder)
with open(os.path.join(home, ".claude.json"), "w") as f:
    json.dump({"hasCompletedOnboarding": True, "projects": {project: {
        "hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}, f)
with open(os.path.join(work, "script.json"), "w") as f:
    f.write(json.dumps(SCRIPT).replace("$PROJECT", project))
for name, text in (("a.txt", "one\n"), ("b.txt", "three\n")):
    with open(os.path.join(project, name), "w") as f:
        f.write(text)
socket = os.path.join(data, "run", "api.sock")
env = dict(os.environ, HOME=home, CHATSURFACE_DATA_DIR=data, CHATSURFACE_SOCKET=socket)
env.pop("XDG_RUNTIME_DIR", None)
requests_file = os.path.join(work, "requests.jsonl")
port_file = os.path.join(work, "port")
processes = []
surface_api = Surface(chatsurface, env)
api, pending = surface_api.api, surface_api.pending


def fail(why):
    raise SystemExit(f"error: {why}")


terminal = Terminal("chatsurface-bridge")
pane, wait_until, keys, type_line = (terminal.pane, terminal.wait_until, terminal.keys,
                                     terminal.type_line)


def tool_results():
    results = []
    if not os.path.exists(requests_file):
        return results
    for line in open(requests_file, encoding="utf-8"):
        body = json.loads(line)["body"]
        if not body.get("tools"):
            continue
        for message in body["messages"]:
            if isinstance(message["content"], list):
                results += [part for part in message["content"] if part.get("type") == "tool_result"]
    # Claude Code sends a turn's messages again with every request: keep each result once.
    unique = {}
    for result in results:
        unique.setdefault(result["tool_use_id"], result)
    return list(unique.values())


def result_text(result):
    content = result["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content


def start_claude(mode, ready):
    exports = " ".join(f"{name}={env[name]}" for name in ("HOME", "CHATSURFACE_DATA_DIR", "CHATSURFACE_SOCKET"))
    command = (f"env -u XDG_RUNTIME_DIR {exports} ANTHROPIC_BASE_URL=http://127.0.0.1:{open(port_file).read()} "
               f"ANTHROPIC_API_KEY=sk-test CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "
               f"{claude} --permission-mode {mode}")
    if terminal.running():
        terminal.restart(project, command)
    else:
        terminal.start(project, command)
    deadline = time.time() + 40
    while ready not in pane():
        if "Do you want to use this API key?" in pane():
            keys("Up", "Enter")
        if time.time() > deadline:
            fail(f"Claude Code never showed {ready!r}:\n{pane()}")
        time.sleep(0.2)


def allow_in_terminal():
    """Answers Claude Code's own permission prompt with its first choice, "Yes"."""
    wait_until("the terminal's prompt", lambda: "Do you want to proceed?" in pane())
    # A loaded machine draws the prompt before it takes keys: press again while it shows.
    for _ in range(5):
        keys("Enter")
        deadline = time.time() + 3
        while time.time() < deadline and "Do you want to proceed?" in pane():
            time.sleep(0.2)
        if "Do you want to proceed?" not in pane():
            return
    fail(f"the terminal's prompt never took Enter:\n{pane()}")


try:
    installed = subprocess.run([chatsurface, "install", "claude-code", "--project", project],
                               env=env, capture_output=True, text=True)
    if installed.returncode != 0 or "added the PermissionRequest hook" not in installed.stdout:
        fail(f"install said {installed.stdout!r} {installed.stderr!r}")
    window = Window(surface_api, processes)
    server = subprocess.Popen([sys.executable, os.path.join(here, "..", "fake_anthropic.py"),
                               os.path.join(work, "script.json"), port_file, requests_file])
    processes.append(server)
    wait_until("the fake model's port", lambda: os.path.exists(port_file) and open(port_file).read())
    start_claude("default", "? for shortcuts")

    # 1. The questions, answered on the surface.
    type_line("Set up storage for the app")
    [batch] = wait_until("the batch on the surface", pending)
    [transcript] = glob.glob(os.path.join(home, ".claude", "projects", "*", "*.jsonl"))
    claude_session = os.path.basename(transcript)[: -len(".jsonl")]
    if batch["kind"] != "batch" or batch["session_id"] != f"claude-code-{claude_session}":
        fail(f"the batch is {batch}, not in claude-code-{claude_session}")
    prompts = [item["prompt"] for item in batch["items"]]
    if prompts != [question["question"] for question in QUESTIONS]:
        fail(f"the batch asks {prompts}")
    wait_until("Claude Code's own prompt beside it", lambda: "Which database should we use?" in pane())
    # The window moves to the session that asks; o takes the first item: 1 picks SQLite; Tab
    # to the features, where 1 and 3 pick Search and Sync; Ctrl+Enter sends the batch.
    window.wait_for_title("the batch in the window", lambda title: "2 open questions" in title)
    window.keys("o", "1", "Tab", "1", "3", "ctrl+Return")
    wait_until("the model's reply", lambda: "Noted: SQLite" in pane())
    [asked] = tool_results()
    text = result_text(asked)
    for expected in ('"Which database should we use?"="SQLite"',
                     '"Which features first?"="Search, Sync"'):
        if expected not in text:
            fail(f"the model was told {text!r}, without {expected!r}")
    print(f"1. answered in the window; the model was told: {text[:160]}")

    # 2. A dangerous command, declined on the surface with a comment.
    type_line("Delete the old build folder")
    [confirmation] = wait_until("the confirmation on the surface", pending)
    if "rm -rf ./build" not in confirmation["message"]:
        fail(f"the confirmation says {confirmation}")
    # o takes the confirmation, whose comment field takes typing; Ctrl+D declines with it.
    window.wait_for_title("the confirmation in the window", lambda title: "1 confirmation" in title)
    window.keys("o")
    window.type_text("keep it, we need the artifacts")
    window.keys("ctrl+d")
    wait_until("the model's reply", lambda: "I keep the build folder" in pane())
    denied = tool_results()[-1]
    if not denied.get("is_error") or "keep it, we need the artifacts" not in result_text(denied):
        fail(f"the model was told {denied}")
    if not os.path.isdir(os.path.join(project, "build")):
        fail("the declined command ran")
    print(f"2. declined in the window; the model was told: {result_text(denied)[:160]}")

    # 3. Answered in the terminal first: the surface's question is withdrawn.
    type_line("Mark the spot")
    [answered_there] = wait_until("the confirmation on the surface", pending)
    allow_in_terminal()
    wait_until("the model's reply", lambda: "Marked from the terminal." in pane())
    if not os.path.exists(os.path.join(project, "answered-in-terminal")):
        fail("the command allowed in the terminal did not run")
    status = wait_until("the question withdrawn", lambda: [
        asked["status"] for asked in api("GET", f"/v1/sessions/{answered_there['session_id']}/snapshot")["confirmations"]
        if asked["id"] == answered_there["id"] and asked["status"] != "pending"], seconds=10)
    if status != ["withdrawn"] or pending():
        fail(f"after the terminal's answer the surface holds {status} and {pending()}")
    print("3. answered in the terminal; the surface's question is withdrawn")

    # 4. No surface: the terminal decides.
    window.process.send_signal(signal.SIGTERM)
    window.process.wait(timeout=10)
    type_line("Mark again")
    allow_in_terminal()
    wait_until("the model's reply", lambda: "Marked without a surface." in pane())
    if not os.path.exists(os.path.join(project, "no-surface")):
        fail("the command allowed in the terminal did not run")
    print("4. no surface; the terminal's prompt decided")

    # 5. An edit accepted for good: Claude Code stops asking for edits.
    surface_api.start(processes)
    type_line("Edit both files")
    [edit] = wait_until("the edit's confirmation on the surface", pending)
    if edit.get("accept_always") != "Allow all edits this session":
        fail(f"the edit's question is {edit}")
    api("POST", f"/v1/pending/{edit['id']}", {"outcome": "accepted", "always": True})
    wait_until("the model's reply", lambda: "Edited both." in pane())
    edited = [open(os.path.join(project, name)).read() for name in ("a.txt", "b.txt")]
    asked = [asked["id"] for asked in api("GET", f"/v1/sessions/{edit['session_id']}/snapshot")["confirmations"]]
    if edited != ["two\n", "four\n"] or len(asked) != 3 or "accept edits on" not in pane():
        fail(f"after an edit accepted for good the files hold {edited}, the surface was asked "
             f"{asked}, and the terminal shows:\n{pane()}")
    print("5. an edit accepted for good on the surface; the next edit was not asked")

    # 6. A plan, declined and then approved on the surface.
    start_claude("plan", "plan mode on")
    type_line("Plan the storage migration")
    [plan] = wait_until("the plan on the surface", pending)
    if plan["kind"] != "confirmation" or "1. Drop the old table." not in plan["message"]:
        fail(f"the plan's question is {plan}")
    api("POST", f"/v1/pending/{plan['id']}", {"outcome": "declined", "comment": "keep the old table"})
    wait_until("the model's reply", lambda: "Understood: I keep planning." in pane())
    rejected = tool_results()[-1]
    if "keep the old table" not in result_text(rejected):
        fail(f"the model was told {rejected}")
    print(f"6. plan declined on the surface; the model was told: {result_text(rejected)[:160]}")
    type_line("Keep the old table, then")
    [second] = wait_until("the second plan on the surface", pending)
    if "1. Keep the old table." not in second["message"]:
        fail(f"the second plan's question is {second}")
    api("POST", f"/v1/pending/{second['id']}", {"outcome": "accepted"})
    wait_until("the model's reply", lambda: "Starting on the approved plan." in pane())
    approved = tool_results()[-1]
    if approved.get("is_error") or "approved" not in result_text(approved).lower():
        fail(f"the model was told {approved}")
    print(f"   plan approved on the surface; the model was told: {result_text(approved)[:160]}")
finally:
    terminal.close()
    for process in processes:
        process.kill()
    shutil.rmtree(work, ignore_errors=True)
