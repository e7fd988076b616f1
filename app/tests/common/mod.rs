//! The harness the API's end-to-end tests share: a scratch data directory, a socket and a
//! real `chatsurface serve`, the CLI run against them, and curl as the HTTP client.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A data directory, a socket and a running server, torn down on drop.
pub(crate) struct Surface {
    /// The scratch directory: `data/` (the data dir) and `run/api.sock`.
    pub dir: PathBuf,
    /// The server, while it runs.
    pub server: Option<Child>,
}

impl Surface {
    /// A fresh directory named after the test (`prefix` keeps test crates apart) and a
    /// server listening in it.
    pub(crate) fn new(prefix: &str, name: &str) -> Surface {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut surface = Surface { dir, server: None };
        surface.start();
        surface
    }

    /// The API socket.
    pub(crate) fn socket(&self) -> PathBuf {
        self.dir.join("run/api.sock")
    }

    /// `chatsurface ARGS` against this surface, with no token or session inherited.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_chatsurface"));
        command
            .args(args)
            .env("CHATSURFACE_DATA_DIR", self.dir.join("data"))
            .env("CHATSURFACE_SOCKET", self.socket())
            .env_remove("CHATSURFACE_TOKEN")
            .env_remove("CHATSURFACE_OPERATOR_TOKEN")
            .env_remove("CHATSURFACE_SESSION");
        command
    }

    /// Starts `serve` and waits until it listens.
    pub(crate) fn start(&mut self) {
        let server = self
            .command(&["serve"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.server = Some(server);
        let started = Instant::now();
        while std::os::unix::net::UnixStream::connect(self.socket()).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the server did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Adds an integration (with `--dialogs` when asked) and returns its token.
    pub(crate) fn integration(&self, slug: &str, dialogs: bool) -> String {
        let mut args = vec!["integration", "add", slug];
        if dialogs {
            args.push("--dialogs");
        }
        let output = self.command(&args).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            stdout.lines().count(),
            1,
            "the token is the only line: {stdout:?}"
        );
        stdout.trim().to_owned()
    }

    /// The operator's token, as `serve` made it.
    pub(crate) fn operator_token(&self) -> String {
        std::fs::read_to_string(self.dir.join("data/operator.token"))
            .unwrap()
            .trim()
            .to_owned()
    }

    /// A request with curl: returns (status, JSON body).
    pub(crate) fn http(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&[u8]>,
    ) -> (u16, Value) {
        let mut command = Command::new("curl");
        command
            .args([
                "-sS",
                "--max-time",
                "30",
                "-X",
                method,
                "-w",
                "\n%{http_code}",
                "--unix-socket",
            ])
            .arg(self.socket());
        if let Some(token) = token {
            command.args(["-H", &format!("Authorization: Bearer {token}")]);
        }
        if let Some(body) = body {
            static BODIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let number = BODIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let file = self.dir.join(format!("body-{number}"));
            std::fs::write(&file, body).unwrap();
            command
                .args(["-H", "Content-Type: application/json", "--data-binary"])
                .arg(format!("@{}", file.display()));
        }
        let output = command
            .arg(format!("http://chatsurface{path}"))
            .output()
            .expect("curl runs");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let (body, status) = text.rsplit_once('\n').unwrap_or(("", "0"));
        (
            status.trim().parse().unwrap_or(0),
            serde_json::from_str(body).unwrap_or(Value::Null),
        )
    }

    /// Stops the server (as `kill -9` would).
    pub(crate) fn kill_server(&mut self) {
        if let Some(mut server) = self.server.take() {
            let _ = server.kill();
            let _ = server.wait();
        }
    }
}

impl Drop for Surface {
    fn drop(&mut self) {
        self.kill_server();
    }
}
