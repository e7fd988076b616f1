"""The real `chatsurface serve` for the bridges' end-to-end tests (claude-code/bridge.py,
codex/bridge.py), and the operator's side of its API, reached as the window reaches it: curl
over the unix socket with the operator token; or the real window as the surface (Window),
answered with keys.
"""
import json
import os
import subprocess
import time


class Surface:
    def __init__(self, chatsurface, env):
        """`env` names the data dir (CHATSURFACE_DATA_DIR) and socket (CHATSURFACE_SOCKET)."""
        self.chatsurface = chatsurface
        self.env = env
        self.data = env["CHATSURFACE_DATA_DIR"]
        self.socket = env["CHATSURFACE_SOCKET"]

    def start(self, processes):
        """Starts `chatsurface serve` (added to `processes`) and waits for its socket."""
        served = subprocess.Popen([self.chatsurface, "serve"], env=self.env,
                                  stderr=subprocess.PIPE, text=True)
        processes.append(served)
        deadline = time.time() + 20
        while not os.path.exists(self.socket):
            if time.time() > deadline:
                raise SystemExit(f"error: never saw the surface's socket {self.socket}")
            time.sleep(0.2)
        return served

    def api(self, method, path, body=None):
        """The operator's request `method path` with the JSON `body`; the reply's JSON."""
        token = open(os.path.join(self.data, "operator.token")).read().strip()
        command = ["curl", "-sS", "--unix-socket", self.socket, "-X", method, "-H",
                   f"Authorization: Bearer {token}", f"http://chatsurface{path}"]
        if body is not None:
            command += ["-H", "Content-Type: application/json", "--data", json.dumps(body)]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        return json.loads(done.stdout)

    def pending(self):
        """What waits for the human, across sessions, but for the sample questions of the
        bundled demo, which the window writes to an empty store as the session `demo`."""
        return [asked for asked in self.api("GET", "/v1/pending")["pending"]
                if asked["session_id"] != "demo"]


class Window:
    """The real window as the surface: `chatsurface` alone (the surface for the store, serving
    the same API in-process) on a private Xvfb display, answered as a human does, with keys
    typed through xdotool (real X input)."""

    def __init__(self, surface, processes):
        """Starts Xvfb and the window (both added to `processes`), waits for the API's socket
        and the window, and gives the window the keyboard."""
        self.surface = surface
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x900x24",
                                 "-nolisten", "tcp", "-noreset"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(xvfb)
        self.display = ":" + xvfb.stdout.readline().strip()
        env = dict(surface.env, DISPLAY=self.display)
        env.pop("WAYLAND_DISPLAY", None)
        self.process = subprocess.Popen([surface.chatsurface, "open", "--size", "1200x850",
                                         "--no-notify"], env=env)
        processes.append(self.process)
        deadline = time.time() + 60
        self.id = ""
        while not (self.id and os.path.exists(surface.socket)):
            if self.process.poll() is not None or time.time() > deadline:
                raise SystemExit(f"error: the window never came up (exit {self.process.poll()})")
            found = self.xdotool("search", "--name", "chatsurface", check=False)
            self.id = found.split("\n")[0] if found else ""
            time.sleep(0.2)
        time.sleep(1.5)  # the first frame presented
        self.xdotool("windowfocus", "--sync", self.id)

    def xdotool(self, *args, check=True):
        done = subprocess.run(["xdotool", *args], env=dict(os.environ, DISPLAY=self.display),
                              capture_output=True, text=True)
        if check and done.returncode != 0:
            raise SystemExit(f"error: xdotool {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.strip()

    def keys(self, *keys):
        """Presses each key (xdotool's names: "o", "Tab", "ctrl+Return") in the focused window,
        giving each a frame to land. Not `--window`: a window may ignore synthetic events."""
        for key in keys:
            self.xdotool("key", key)
            time.sleep(0.25)

    def type_text(self, text):
        self.xdotool("type", "--delay", "40", text)

    def wait_for_title(self, what, check, seconds=30):
        """Waits until the window's title (session — what awaits — chatsurface) passes
        `check`; returns it."""
        deadline = time.time() + seconds
        while True:
            title = self.xdotool("getwindowname", self.id)
            if check(title):
                return title
            if time.time() > deadline:
                raise SystemExit(f"error: {what}: the window's title is {title!r}")
            time.sleep(0.2)
