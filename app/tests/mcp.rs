//! `chatsurface mcp` end to end: the real `chatsurface serve` on a real unix socket, the
//! official Python MCP SDK (`tests/mcp_client.py`) launching `chatsurface mcp` over stdio, and
//! the operator answering with curl, as the window would.
//!
//! Without the Python `mcp` package the test passes with a note, except under CI (`CI` set),
//! where `.ci/run` installs it and its absence is a failure.
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Surface;

/// What only this test asks of the surface.
impl Surface {
    /// A request as the operator: (status, JSON body).
    fn operator(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let body = body.map(Value::to_string);
        self.http(
            method,
            path,
            Some(&self.operator_token()),
            body.as_deref().map(str::as_bytes),
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
    let surface = Surface::new("cs-mcp", "python");
    let token = surface.integration("agent", false);
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
