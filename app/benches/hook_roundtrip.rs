//! The Claude Code hook's own overhead, over a real unix socket: 200 runs of the real
//! `chatsurface hook claude-code` process, each given a `PermissionRequest` event on stdin as
//! Claude Code gives it, and answered by the operator the moment the confirmation shows on
//! the session's event stream (as the window sees it).
//!
//! Two times per run, each way of the trip: from starting the hook's process to its question
//! showing on the stream (process start, reading the event, the token, the socket checks,
//! the request, the fsync), and from the operator's answer being sent to the hook's decision
//! arriving on its stdout. The human's thinking time is not in either.
#![allow(
    clippy::unwrap_used,
    reason = "a benchmark stops at the first surprise"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

mod common;

use chatsurface::api::auth::TokenStore;
use chatsurface::api::store::SessionStore;
use common::{connect, exchange, report_ms, EventStream, InProcessServer};
use hyper::Method;
use serde_json::{json, Value};
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const RUNS: usize = 200;
/// The integration `chatsurface install claude-code` adds.
const SLUG: &str = "claude-code";
/// Claude Code's session id in every event: the hook asks in `claude-code-<id>`.
const CLAUDE_SESSION: &str = "0b4c43c5-3b7e-4a55-9d0a-bench00000001";

/// A permission request for a command, as Claude Code 2.1.328 sends it.
fn permission_request() -> String {
    json!({
        "session_id": CLAUDE_SESSION,
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf ./build", "description": "Remove the build folder"},
    })
    .to_string()
}

/// The hook's process, started with the event written to its stdin.
async fn start_hook(dir: &Path, socket: &Path, token: &str) -> tokio::process::Child {
    let mut hook = tokio::process::Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .args(["hook", "claude-code"])
        .env("CHATSURFACE_DATA_DIR", dir)
        .env("CHATSURFACE_SOCKET", socket)
        .env("CHATSURFACE_TOKEN", token)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the hook starts");
    let mut stdin = hook.stdin.take().expect("a stdin");
    stdin
        .write_all(permission_request().as_bytes())
        .await
        .expect("the hook reads its event");
    drop(stdin);
    hook
}

/// Reads the hook's stdout to the end and checks that it allowed the command.
async fn decision(hook: &mut tokio::process::Child, first_byte: &mut Option<Instant>) {
    let mut stdout = hook.stdout.take().expect("a stdout");
    let mut printed = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = stdout.read(&mut buffer).await.expect("the hook's stdout");
        if read == 0 {
            break;
        }
        first_byte.get_or_insert_with(Instant::now);
        printed.extend_from_slice(&buffer[..read]);
    }
    let status = hook.wait().await.expect("the hook exits");
    assert!(status.success(), "the hook exited with {status}");
    let printed: Value = serde_json::from_slice(&printed).expect("the decision is JSON");
    assert_eq!(
        printed["hookSpecificOutput"]["decision"]["behavior"], "allow",
        "{printed}"
    );
}

fn main() {
    let dir = std::env::temp_dir().join(format!("chatsurface-hook-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .expect("a private temp dir");
    let socket = dir.join("api.sock");
    let tokens = Arc::new(TokenStore::new(&dir));
    let operator = tokens.operator_token().expect("operator token");
    let hook_token = tokens
        .add_integration(SLUG, false, &[])
        .expect("integration");
    let session = format!("{SLUG}-{CLAUDE_SESSION}");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let store = Arc::new(SessionStore::open(&dir).expect("temp dir"));
        let server = InProcessServer::start(store, &socket, tokens.clone()).await;
        let mut answers = connect(&socket).await;

        // The first run makes the session (and brings the binary into the page cache); it is
        // answered from the pending list, since no stream can be opened before the session is.
        let mut hook = start_hook(&dir, &socket, &hook_token).await;
        let id = loop {
            let (_, listed) = exchange(
                &mut answers,
                Method::GET,
                "/v1/pending",
                &operator,
                String::new(),
            )
            .await;
            let listed: Value = serde_json::from_slice(&listed).expect("a list");
            if let Some(id) = listed["pending"][0]["id"].as_str() {
                break id.to_owned();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        let accept = r#"{"outcome":"accepted"}"#.to_owned();
        let path = format!("/v1/pending/{id}");
        let (status, _) =
            exchange(&mut answers, Method::POST, &path, &operator, accept.clone()).await;
        assert_eq!(status, 200);
        decision(&mut hook, &mut None).await;

        let mut stream = EventStream::open(&socket, &session, &operator).await;
        let (mut asked, mut answered) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
        for _ in 0..RUNS {
            let started = Instant::now();
            let mut hook = start_hook(&dir, &socket, &hook_token).await;
            let event = stream
                .next_of("confirmation_requested")
                .await
                .expect("the question shows");
            asked.push(started.elapsed().as_secs_f64() * 1000.0);
            let id = event["confirmation"]["id"].as_str().expect("an id");
            let path = format!("/v1/pending/{id}");
            let sent = Instant::now();
            let (status, _) =
                exchange(&mut answers, Method::POST, &path, &operator, accept.clone()).await;
            assert_eq!(status, 200);
            let mut printed = None;
            decision(&mut hook, &mut printed).await;
            answered.push((printed.expect("a decision") - sent).as_secs_f64() * 1000.0);
        }
        report_ms(
            &format!("hook start → question on the surface, {RUNS} runs"),
            asked,
        );
        report_ms(
            &format!("answer sent → decision on the hook's stdout, {RUNS} runs"),
            answered,
        );
        server.stop().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}
