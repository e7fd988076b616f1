"""An agent's terminal UI in tmux, driven as a human would: keys typed, the screen read back.

Each Terminal has a tmux server of its own (`tmux -L <name>-<pid>`): a run started while the
last one's server stops would fail to reach it ("server exited unexpectedly"), and a user's
own tmux is left alone. The drivers (claude-code/interactive.py, claude-code/bridge.py,
codex/interactive.py, gemini/interactive.py) wait for what the screen must show before each next key, so a changed
UI fails loudly instead of writing a wrong fixture.

The agent runs without the markers of a CI machine (`CI`, `CONTINUOUS_INTEGRATION`, `CI_*`):
Gemini CLI's terminal UI (Ink, through the is-in-ci package) draws nothing while it sees one,
and these drivers exist to run the interactive UI. An agent that exits leaves its last screen
and its exit status in the pane, and a wait fails at once, showing them.
"""
import os
import subprocess
import time


# What the pane shows once the agent's process has ended (see Terminal.shell_line).
EXITED = "[the agent exited with status "


def without_ci_markers(environment):
    """`environment` less the variables by which a program decides it runs on a CI machine."""
    return {name: value for name, value in environment.items()
            if name not in ("CI", "CONTINUOUS_INTEGRATION") and not name.startswith("CI_")}


class Terminal:
    def __init__(self, name, delay=0.4):
        """`name` is the tmux session's; `delay` the pause after each key, in seconds."""
        self.session = name
        self.socket = f"{name}-{os.getpid()}"
        self.delay = delay
        # The tmux server, started by the first command, passes its environment to the agent.
        self.environment = without_ci_markers(os.environ)
        # Waits before the first start (for a server the agent will need) have no pane to read.
        self.started = False

    def tmux(self, *args):
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              env=self.environment)
        if done.returncode != 0:
            raise SystemExit(f"error: tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    @staticmethod
    def shell_line(command):
        """`command`, then the exit notice; the pane stays open (until close) to show both."""
        return f'{command}; echo "{EXITED}$?]"; sleep 3600'

    def start(self, cwd, command, width=200, height=50):
        """Runs `command` (a shell line) in a new window of `width` × `height` cells."""
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height),
                  "-c", cwd, self.shell_line(command))
        self.started = True

    def restart(self, cwd, command):
        """Replaces the running agent with `command`, in the same window, its history cleared.

        Killing the only session would stop the tmux server, and a session started while it
        stops fails ("server exited unexpectedly"), so the pane's process is replaced instead.
        """
        self.tmux("respawn-pane", "-k", "-t", self.session, "-c", cwd, self.shell_line(command))
        self.tmux("clear-history", "-t", self.session)

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
            screen = self.pane() if self.started else ""
            if EXITED in screen:
                raise SystemExit(f"error: the agent exited before showing {what}:\n{screen}")
            time.sleep(0.2)
        screen = self.pane() if self.started else "(nothing: the agent has not been started)"
        raise SystemExit(f"error: never saw {what}; the terminal shows:\n{screen}")

    def wait_for(self, words, seconds=30):
        """Waits until the screen shows `words`."""
        self.wait_until(repr(words), lambda: words in self.pane(), seconds)

    def keys(self, *names):
        """Presses each key (tmux names: Enter, Escape, Up, C-u, …) in turn."""
        for name in names:
            self.tmux("send-keys", "-t", self.session, name)
            time.sleep(self.delay)

    def press_until(self, key, words, seconds=30):
        """Presses `key`, and again every 3 s, until the screen shows `words`.

        A prompt can be drawn before it reads keys, and on a busy machine a key sent the moment
        it shows is lost (Codex's folder-trust prompt was seen to stay up after its Enter).
        """
        pressed = [0.0]

        def shown():
            if words in self.pane():
                return True
            if time.time() - pressed[0] >= 3:
                self.keys(key)
                pressed[0] = time.time()
            return False

        self.wait_until(repr(words), shown, seconds)

    def type_line(self, text):
        """Types `text` as it is, then Enter."""
        self.tmux("send-keys", "-t", self.session, "-l", text)
        time.sleep(self.delay)
        self.keys("Enter")

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
