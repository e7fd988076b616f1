"""The real `chatsurface serve` for the bridges' end-to-end tests (claude-code/bridge.py,
codex/bridge.py), and the operator's side of its API, reached as the window reaches it: curl
over the unix socket with the operator token.
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
        """What waits for the human, across sessions."""
        return self.api("GET", "/v1/pending")["pending"]
