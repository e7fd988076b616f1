//! `chatsurface mcp` end to end: the real `chatsurface serve` on a real unix socket, the
//! official Python MCP SDK (`tests/mcp_client.py`) launching `chatsurface mcp` over stdio, and
//! the operator answering with curl, as the window would.
//!
//! Without the Python `mcp` package the test passes with a note, except under CI (`CI` set),
//! where `.ci/run` installs it and its absence is a failure.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A data directory, a socket and a running `chatsurface serve`, torn down on drop.
struct Surface {
    dir: PathBuf,
    server: Child,
}

impl Surface {
    fn start(name: &str) -> Surface {
        let dir = std::env::temp_dir().join(format!("cs-mcp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let server = command(&dir, &["serve"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let surface = Surface { dir, server };
        let started = Instant::now();
        while std::os::unix::net::UnixStream::connect(surface.socket()).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the server did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        surface
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("run/api.sock")
    }

    fn integration(&self, slug: &str) -> String {
        let output = command(&self.dir, &["integration", "add", slug])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    fn operator_token(&self) -> String {
        std::fs::read_to_string(self.dir.join("data/operator.token"))
            .unwrap()
            .trim()
            .to_owned()
    }

    /// A request with curl as the operator: (status, JSON body).
    fn operator(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut curl = Command::new("curl");
        curl.args([
            "-sS",
            "--max-time",
            "30",
            "-X",
            method,
            "-w",
            "\n%{http_code}",
        ])
        .arg("--unix-socket")
        .arg(self.socket())
        .args([
            "-H",
            &format!("Authorization: Bearer {}", self.operator_token()),
        ]);
        if let Some(body) = body {
            curl.args(["-H", "Content-Type: application/json", "--data-binary"])
                .arg(body.to_string());
        }
        let output = curl
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

    fn answer(&self, id: &str, response: &Value) {
        let (status, body) = self.operator("POST", &format!("/v1/pending/{id}"), Some(response));
        assert_eq!(status, 200, "answering {id}: {body}");
    }

    /// The id of the open batch whose first question is `prompt`, once it is listed.
    fn pending_batch(&self, prompt: &str) -> String {
        let started = Instant::now();
        loop {
            let (status, body) = self.operator("GET", "/v1/pending", None);
            assert_eq!(status, 200, "{body}");
            let found = body["pending"].as_array().and_then(|pending| {
                pending
                    .iter()
                    .find(|entry| entry["items"][0]["prompt"] == json!(prompt))
                    .and_then(|entry| entry["id"].as_str())
                    .map(str::to_owned)
            });
            if let Some(id) = found {
                return id;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no pending batch asks {prompt:?}: {body}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Surface {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `chatsurface ARGS` against the surface in `dir`, with no token inherited.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chatsurface"));
    command
        .args(args)
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_SOCKET", dir.join("run/api.sock"))
        .env_remove("CHATSURFACE_TOKEN")
        .env_remove("CHATSURFACE_OPERATOR_TOKEN")
        .env_remove("CHATSURFACE_SESSION");
    command
}

/// Whether the Python MCP SDK can be imported; without it, a note (or, under CI, a failure).
fn python_mcp_available() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python `mcp` package is missing (.ci/run installs it: python3 -m pip install 'mcp>=1,<2')"
        );
        eprintln!("note: skipping the MCP end-to-end test: python3 -m pip install 'mcp>=1,<2'");
    }
    available
}

/// The next JSON line the client prints.
fn next_line(stdout: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    let read = stdout.read_line(&mut line).unwrap();
    assert!(read > 0, "the MCP client ended early (its stderr is above)");
    serde_json::from_str(&line).unwrap_or_else(|error| panic!("{line:?}: {error}"))
}

#[test]
fn python_mcp_client_lists_the_tools_and_gets_answers_now_and_later() {
    if !python_mcp_available() {
        return;
    }
    let surface = Surface::start("python");
    let token = surface.integration("agent");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp_client.py");
    let mut client = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_chatsurface"))
        .env("CHATSURFACE_DATA_DIR", surface.dir.join("data"))
        .env("CHATSURFACE_SOCKET", surface.socket())
        .env("CHATSURFACE_TOKEN", &token)
        .env_remove("CHATSURFACE_OPERATOR_TOKEN")
        .env_remove("CHATSURFACE_SESSION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = client.stdin.take().unwrap();
    let mut output = BufReader::new(client.stdout.take().unwrap());

    let pending = next_line(&mut output);
    let call_id = pending["callId"].as_str().unwrap().to_owned();
    assert_eq!(
        surface.pending_batch("Where should 4.12 go first?"),
        call_id,
        "the timed question stays answerable after its timeout"
    );
    surface.answer(
        &call_id,
        &json!({"answers": [
            {"item_id": "env", "selected": ["o2"], "text": "after 18:00"},
            {"item_id": "checks", "selected": ["o3", "o1"]},
            {"item_id": "notes", "skipped": true}
        ]}),
    );
    writeln!(input, "answered").unwrap();

    assert_eq!(next_line(&mut output), json!({"blocking": true}));
    let blocking = surface.pending_batch("Proceed with the rollout?");
    surface.answer(
        &blocking,
        &json!({"answers": [{"item_id": "go", "selected": ["o1"]}]}),
    );

    assert_eq!(next_line(&mut output), json!({"batch_id": "ship"}));
    surface.answer(
        "ship",
        &json!({"answers": [{"item_id": "ok", "selected": ["yes"]}], "general": "after 18:00"}),
    );

    assert_eq!(next_line(&mut output), json!({"ok": true}));
    assert!(client.wait().unwrap().success());

    let log = std::fs::read_to_string(surface.dir.join("data/sessions/mcp-test.jsonl")).unwrap();
    for expected in [
        "Preparing **4.12**.",
        "Release 4.12",
        &call_id,
        "after 18:00",
    ] {
        assert!(log.contains(expected), "{expected:?} is not in the log");
    }
}
