"""An agent's terminal UI in tmux, driven as a human would: keys typed, the screen read back.

Each Terminal has a tmux server of its own (`tmux -L <name>-<pid>`): a run started while the
last one's server stops would fail to reach it ("server exited unexpectedly"), and a user's
own tmux is left alone. The drivers (claude-code/interactive.py, claude-code/bridge.py,
codex/interactive.py) wait for what the screen must show before each next key, so a changed
UI fails loudly instead of writing a wrong fixture.
"""
import os
import subprocess
import time


class Terminal:
    def __init__(self, name, delay=0.4):
        """`name` is the tmux session's; `delay` the pause after each key, in seconds."""
        self.session = name
        self.socket = f"{name}-{os.getpid()}"
        self.delay = delay

    def tmux(self, *args):
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"error: tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, cwd, command, width=200, height=50):
        """Runs `command` (a shell line) in a new window of `width` × `height` cells."""
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height),
                  "-c", cwd, command)

    def running(self):
        return subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", self.session],
                              capture_output=True).returncode == 0

    def pane(self):
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def wait_until(self, what, check, seconds=40):
        """Returns what `check()` returns once it is truthy; fails naming `what` after `seconds`."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            found = check()
            if found:
                return found
            time.sleep(0.2)
        raise SystemExit(f"error: never saw {what}; the terminal shows:\n{self.pane()}")

    def wait_for(self, words, seconds=30):
        """Waits until the screen shows `words`."""
        self.wait_until(repr(words), lambda: words in self.pane(), seconds)

    def keys(self, *names):
        """Presses each key (tmux names: Enter, Escape, Up, C-u, …) in turn."""
        for name in names:
            self.tmux("send-keys", "-t", self.session, name)
            time.sleep(self.delay)

    def type_line(self, text):
        """Types `text` as it is, then Enter."""
        self.tmux("send-keys", "-t", self.session, "-l", text)
        time.sleep(self.delay)
        self.keys("Enter")

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
