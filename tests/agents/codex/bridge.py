#!/usr/bin/env python3
"""The Codex bridge end to end: `chatsurface codex` running the real Codex app-server (npm
@openai/codex, pinned in regenerate.sh) against tests/agents/fake_openai.py, the real window
as the surface (`chatsurface` alone under Xvfb, serving the API in-process), and the human
answering in it with keys typed through xdotool.

Usage: bridge.py CODEX_BIN CHATSURFACE_BIN

It checks, on what Codex sends back to the model, on the project folder and on the surface:
1. a command Codex asks to run appears on the surface as a confirmation in the session
   `codex-<thread id>`; accepted in the window (Ctrl+Enter), it runs and its output reaches
   the model;
2. a command declined in the window with a comment typed there does not run, and the comment
   reaches the model as the human's words;
3. what Codex said and ran is mirrored into that session as messages (the human's prompts
   are not: the API keeps the human's role for the operator);
4. in plan mode, Codex's questions (request_user_input) are one batch on the surface; the
   answers given in the window (a label, words of the human's own) reach the model under
   Codex's ids;
5. a file change (Codex's apply_patch) is a confirmation showing the file and its diff;
   applied from the window, the file is written; this step attaches (`--attach`) to an
   app-server already listening on a unix socket, and attaching where none listens is one
   clear error;
6. with no surface running, a command is declined, never run.
Exits non-zero with what it saw when any of that does not hold.
"""
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

codex = os.path.abspath(shutil.which(sys.argv[1]) or sys.argv[1])
chatsurface = os.path.abspath(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
QUESTIONS = [
    {"id": "database", "header": "Database", "question": "Which database should we use?",
     "options": [{"label": "SQLite", "description": "One file, no server"},
                 {"label": "PostgreSQL", "description": "A server, more features"}]},
    # Codex 0.169.0 refuses a question without options ("requires non-empty options").
    {"id": "name", "header": "Name", "question": "What is the app called?", "isOther": True,
     "options": [{"label": "Ledger", "description": "Plain"}, {"label": "Tally", "description": "Short"}]},
]
PATCH = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+kept on the surface\n*** End Patch\nEOF\n"
SCRIPT = [
    [{"call": {"name": "exec_command", "arguments": {"cmd": "touch made-on-surface && echo made-it"}}}],
    [{"text": "Made the file."}],
    [{"call": {"name": "exec_command", "arguments": {"cmd": "rm -rf build"}}}],
    {"when": "keep it, we need the artifacts", "items": [{"text": "Understood: I keep the build folder."}]},
    [{"call": {"name": "request_user_input", "arguments": {"questions": QUESTIONS}}}],
    [{"text": "Noted the answers."}],
    # Codex takes a shell call of apply_patch as a file change, asked as one.
    [{"call": {"name": "exec_command", "arguments": {"cmd": PATCH}}}],
    [{"text": "Wrote the notes."}],
    [{"call": {"name": "exec_command", "arguments": {"cmd": "touch made-without-surface"}}}],
    [{"text": "Could not run it."}],
]

work = tempfile.mkdtemp(prefix="chatsurface-codex-bridge-")
home, project, data = (os.path.join(work, name) for name in ("home", "project", "data"))
for folder in (home, os.path.join(project, "build")):
    os.makedirs(folder)
with open(os.path.join(work, "script.json"), "w") as f:
    json.dump(SCRIPT, f)
socket = os.path.join(data, "run", "api.sock")
env = dict(os.environ, CODEX_HOME=home, FAKE_OPENAI_KEY="sk-test", CHATSURFACE_DATA_DIR=data,
           CHATSURFACE_SOCKET=socket)
env.pop("XDG_RUNTIME_DIR", None)
requests_file = os.path.join(work, "requests.jsonl")
port_file = os.path.join(work, "port")
processes = []
surface_api = Surface(chatsurface, env)
api, pending = surface_api.api, surface_api.pending


def fail(why):
    raise SystemExit(f"error: {why}")


def wait_until(what, check, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    fail(f"never saw {what}; the model was last sent: {json.dumps(model_inputs()[-3:])[:1500]}")


def model_inputs():
    """Every input item of every request Codex sent the model, each once, in order."""
    seen, items = set(), []
    if os.path.exists(requests_file):
        for line in open(requests_file, encoding="utf-8"):
            for item in json.loads(line)["body"].get("input", []):
                key = json.dumps(item, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    items.append(item)
    return items


def outputs():
    return [item.get("output", "") for item in model_inputs() if item.get("type") == "function_call_output"]


def user_words():
    return [part.get("text", "") for item in model_inputs()
            if item.get("type") == "message" and item.get("role") == "user"
            for part in item.get("content", [])]


def start_bridge(*flags, link=("--codex-bin", codex)):
    bridge = subprocess.Popen([chatsurface, "codex", *link, "--cwd", project,
                               "--ask-for-approval", "untrusted", *flags],
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    processes.append(bridge)
    return bridge


def finish(bridge, what):
    """Ends stdin (no more prompts) and waits for the bridge to finish the last turn."""
    try:
        out, err = bridge.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        bridge.kill()
        out, err = bridge.communicate()
        fail(f"{what}: chatsurface codex did not end:\n{out}\n{err}")
    if bridge.returncode != 0:
        fail(f"{what}: chatsurface codex exited {bridge.returncode}:\n{out}\n{err}")
    return out, err


try:
    subprocess.run(["git", "init", "-q", project], check=True)
    server = subprocess.Popen([sys.executable, os.path.join(here, "..", "fake_openai.py"),
                               os.path.join(work, "script.json"), port_file, requests_file])
    processes.append(server)
    wait_until("the fake model's port", lambda: os.path.exists(port_file) and open(port_file).read())
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'model = "gpt-fake"\nmodel_provider = "fake"\n[model_providers.fake]\n'
                f'name = "Fake"\nbase_url = "http://127.0.0.1:{open(port_file).read()}/v1"\n'
                f'env_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n')
    window = Window(surface_api, processes)

    # 1. A command accepted on the surface.
    bridge = start_bridge("Make a file")
    [run] = wait_until("the command's confirmation on the surface", pending)
    session = run["session_id"]
    if run["kind"] != "confirmation" or not session.startswith("codex-") or "touch made-on-surface" not in run["message"]:
        fail(f"the confirmation is {run}")
    window.wait_for_title("the confirmation in the window", lambda title: "1 confirmation" in title)
    time.sleep(0.8)  # a confirmation takes no accept in its first half second on screen
    window.keys("o", "ctrl+Return")
    wait_until("the command's output sent to the model", lambda: any("made-it" in o for o in outputs()))
    if not os.path.exists(os.path.join(project, "made-on-surface")):
        fail("the command accepted on the surface did not run")
    print(f"1. accepted in the window in {session}; the model was told: {outputs()[-1][-60:]!r}")

    # 2. A command declined on the surface with a comment.
    bridge.stdin.write("Delete the build folder\n")
    bridge.stdin.flush()
    [delete] = wait_until("the second confirmation on the surface", pending)
    if "rm -rf build" not in delete["message"]:
        fail(f"the confirmation is {delete}")
    window.wait_for_title("the second confirmation in the window", lambda title: "1 confirmation" in title)
    window.keys("o")
    window.type_text("keep it, we need the artifacts")
    window.keys("ctrl+d")
    wait_until("the comment sent to the model", lambda: any("keep it, we need the artifacts" in w for w in user_words()))
    out, err = finish(bridge, "steps 1 and 2")
    if not os.path.isdir(os.path.join(project, "build")):
        fail("the declined command ran")
    if "Understood: I keep the build folder." not in out:
        fail(f"chatsurface codex printed:\n{out}\n{err}")
    print("2. declined in the window; the comment reached the model, the folder is there")

    # 3. What Codex said and ran, mirrored into the session.
    messages = api("GET", f"/v1/sessions/{session}/snapshot")["messages"]
    texts = [message.get("text", "") for message in messages]
    for expected in ("touch made-on-surface", "Made the file.", "Understood: I keep the build folder."):
        if not any(expected in text for text in texts):
            fail(f"the session holds {texts}, without {expected!r}; chatsurface codex said:\n{err}")
    print(f"3. the session mirrors {len(messages)} messages")

    # 4. Questions in plan mode, answered on the surface.
    bridge = start_bridge("--plan", "Set up storage for the app")
    [batch] = wait_until("the batch on the surface", pending)
    prompts = [item["prompt"] for item in batch["items"]]
    if batch["kind"] != "batch" or prompts != [q["question"] for q in QUESTIONS]:
        fail(f"the batch is {batch}")
    # The window moves to the new thread's session; o takes the database, 2 picks PostgreSQL;
    # Tab to the name, whose own answer takes the letters typed; Ctrl+Enter sends the batch.
    window.wait_for_title("the batch in the window", lambda title: "2 open questions" in title)
    window.keys("o", "2", "Tab")
    window.type_text("Abacus")
    window.keys("ctrl+Return")
    answer = wait_until("the answers sent to the model", lambda: [o for o in outputs() if "Abacus" in o])[-1]
    for expected in ("database", "PostgreSQL", "name"):
        if expected not in answer:
            fail(f"the model was told {answer!r}, without {expected!r}")
    finish(bridge, "step 4")
    print(f"4. answered in the window; the model was told: {answer[:160]}")

    # 5. A file change, shown with its diff and applied from the window, through an
    # app-server already running.
    app_socket = os.path.join(work, "app-server.sock")
    missing = subprocess.run([chatsurface, "codex", "--attach", app_socket, "--cwd", project, "hi"],
                             env=env, capture_output=True, text=True, timeout=30)
    if missing.returncode == 0 or "no app-server answers there" not in missing.stderr:
        fail(f"attaching where no app-server listens: exit {missing.returncode}, {missing.stderr!r}")
    app_server = subprocess.Popen([codex, "app-server", "--listen", f"unix://{app_socket}"], env=env,
                                  cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    processes.append(app_server)
    wait_until("the app-server's socket", lambda: os.path.exists(app_socket))
    bridge = start_bridge("Write the notes", link=("--attach", app_socket))
    [change] = wait_until("the file change on the surface", pending)
    if "notes.txt" not in change["message"] or "kept on the surface" not in change["message"]:
        fail(f"the file change's question is {change}")
    window.wait_for_title("the file change in the window", lambda title: "1 confirmation" in title)
    time.sleep(0.8)
    window.keys("o", "ctrl+Return")
    out, err = finish(bridge, "step 5")
    written = os.path.join(project, "notes.txt")
    if not os.path.exists(written) or open(written).read() != "kept on the surface\n":
        fail(f"the change applied in the window is not in the project:\n{out}\n{err}")
    if app_server.poll() is not None:
        fail("the attached app-server ended with the bridge")
    print(f"5. attached to a running app-server; a file change applied from the window; "
          f"notes.txt holds {open(written).read()!r}")

    # 6. No surface: the command is declined.
    window.process.send_signal(signal.SIGTERM)
    window.process.wait(timeout=10)
    bridge = start_bridge("Make another file")
    out, err = finish(bridge, "step 6")
    if os.path.exists(os.path.join(project, "made-without-surface")):
        fail("a command ran with no surface to accept it")
    if "no surface" not in err:
        fail(f"chatsurface codex said:\n{err}")
    print("6. no surface; the command was declined and did not run")
finally:
    for process in processes:
        process.kill()
    shutil.rmtree(work, ignore_errors=True)
