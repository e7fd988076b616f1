//! The local API end to end: the real `chatsurface serve` on a real unix socket, a real HTTP
//! client (curl), and `chatsurface ask` as a shell script would run it.
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use serde_json::{json, Value};
use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Surface;

/// What only these tests ask of the surface.
impl Surface {
    fn pending(&self) -> Vec<Value> {
        let (status, body) = self.http("GET", "/v1/pending", Some(&self.operator_token()), None);
        assert_eq!(status, 200, "{body}");
        body["pending"].as_array().cloned().unwrap_or_default()
    }

    fn wait_pending(&self, count: usize) -> Vec<Value> {
        let started = Instant::now();
        loop {
            let pending = self.pending();
            if pending.len() == count {
                return pending;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "expected {count} pending, have {pending:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn ask(&self, token: &str, args: &[&str]) -> Child {
        let mut full = vec!["ask"];
        full.extend_from_slice(args);
        self.command(&full)
            .env(
                format!(
                    "CHATSURFACE_TOKEN_{}",
                    args[0].to_uppercase().replace('-', "_")
                ),
                token,
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn log(&self, session: &str) -> String {
        std::fs::read_to_string(self.dir.join(format!("data/sessions/{session}.jsonl"))).unwrap()
    }
}

fn finish(child: Child) -> Output {
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn ask_blocks_until_the_operator_chooses_and_prints_the_option_id() {
    let surface = Surface::new("cs-api", "choose");
    let token = surface.integration("deploy", true);
    let ask = surface.ask(
        &token,
        &[
            "deploy",
            "Deploy 4.12 to production?",
            "-o",
            "yes:Ship it",
            "-o",
            "no:Not today",
            "--attach",
            "Cargo.toml",
        ],
    );
    let pending = surface.wait_pending(1);
    assert_eq!(pending[0]["kind"], "batch");
    assert_eq!(pending[0]["session_id"], "deploy");
    assert_eq!(pending[0]["items"][0]["options"][1]["label"], "Not today");
    let id = pending[0]["id"].as_str().unwrap();
    let answer = json!({"answers": [{"item_id": "choice", "selected": ["yes"]}]});
    let (status, body) = surface.http(
        "POST",
        &format!("/v1/pending/{id}"),
        Some(&surface.operator_token()),
        Some(answer.to_string().as_bytes()),
    );
    assert_eq!(status, 200, "{body}");
    let output = finish(ask);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout(&output), "yes\n");
    let log = surface.log("deploy");
    assert!(log.contains("\"type\":\"clarification_answer_submitted\""));
    let attached = format!(
        "\"attachment\":\"{}/Cargo.toml\"",
        env!("CARGO_MANIFEST_DIR")
    );
    assert!(
        log.contains(&attached),
        "the choice keeps its attachment: {log}"
    );
}

#[test]
fn a_declined_confirmation_exits_1_with_the_comment() {
    let surface = Surface::new("cs-api", "decline");
    let token = surface.integration("agent", true);
    let ask = surface.ask(
        &token,
        &[
            "agent",
            "Delete branch feature/old?",
            "--accept",
            "Delete",
            "--decline",
            "Keep",
            "--comment",
        ],
    );
    let pending = surface.wait_pending(1);
    assert_eq!(pending[0]["kind"], "confirmation");
    let id = pending[0]["id"].as_str().unwrap();
    let answer = json!({"outcome": "declined", "comment": "still in review"});
    let (status, _) = surface.http(
        "POST",
        &format!("/v1/pending/{id}"),
        Some(&surface.operator_token()),
        Some(answer.to_string().as_bytes()),
    );
    assert_eq!(status, 200);
    let output = finish(ask);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "still in review\n");
}

#[test]
fn one_dialog_per_integration_and_tokens_are_checked() {
    let surface = Surface::new("cs-api", "rules");
    let token = surface.integration("ci", true);
    let quiet = surface.integration("quiet", false);
    let first = surface.ask(&token, &["ci", "First?", "--accept", "Yes"]);
    surface.wait_pending(1);
    let second = finish(surface.ask(&token, &["ci", "Second?"]));
    assert_eq!(second.status.code(), Some(69), "409 dialog_pending");
    let (status, body) = surface.http(
        "POST",
        "/v1/integrations/ci/dialogs",
        Some(&token),
        Some(br#"{"message":"Third?"}"#),
    );
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("dialog_pending"))
    );
    let (status, body) = surface.http(
        "POST",
        "/v1/integrations/quiet/dialogs",
        Some(&quiet),
        Some(br#"{"message":"?"}"#),
    );
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("dialogs_disabled"))
    );
    let (status, _) = surface.http(
        "POST",
        "/v1/integrations/ci/dialogs",
        Some("cs_wrong"),
        Some(br#"{"message":"?"}"#),
    );
    assert_eq!(status, 401);
    let (status, _) = surface.http("GET", "/v1/pending", Some(&token), None);
    assert_eq!(
        status, 403,
        "an integration can never list or answer questions"
    );
    let id = surface.pending()[0]["id"].as_str().unwrap().to_owned();
    let (status, _) = surface.http(
        "POST",
        &format!("/v1/pending/{id}"),
        Some(&token),
        Some(br#"{"outcome":"accepted"}"#),
    );
    assert_eq!(status, 403, "not even its own");
    let (status, _) = surface.http(
        "POST",
        &format!("/v1/pending/{id}"),
        Some(&surface.operator_token()),
        Some(br#"{"outcome":"accepted"}"#),
    );
    assert_eq!(status, 200);
    assert_eq!(finish(first).status.code(), Some(0));
}

#[test]
fn bad_input_is_a_json_4xx_and_writes_nothing() {
    let surface = Surface::new("cs-api", "bad");
    let token = surface.integration("bad", true);
    let too_long = json!({"message": "x".repeat(601)});
    let (status, body) = surface.http(
        "POST",
        "/v1/integrations/bad/dialogs",
        Some(&token),
        Some(too_long.to_string().as_bytes()),
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["field"], "message");
    let both = json!({"message": "?", "options": ["a", "b"], "accept": "Yes"});
    let (status, body) = surface.http(
        "POST",
        "/v1/integrations/bad/dialogs",
        Some(&token),
        Some(both.to_string().as_bytes()),
    );
    assert_eq!(status, 400, "{body}");
    let huge = vec![b' '; (1 << 20) + 10];
    let (status, body) = surface.http(
        "POST",
        "/v1/integrations/bad/dialogs",
        Some(&token),
        Some(&huge),
    );
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"], "too_large");
    let log = surface.dir.join("data/sessions/bad.jsonl");
    let written = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        written.trim().is_empty(),
        "a refused request leaves no event, not even session_started: {written}"
    );
}

#[test]
fn options_picked_and_text_written_are_both_printed_ids_first() {
    let surface = Surface::new("cs-api", "both");
    let token = surface.integration("deploy", true);
    let ask = surface.ask(
        &token,
        &[
            "deploy",
            "Where to?",
            "-o",
            "prod",
            "-o",
            "stage",
            "--multi",
            "--custom",
        ],
    );
    let pending = surface.wait_pending(1);
    let id = pending[0]["id"].as_str().unwrap();
    let answer = json!({"answers": [{"item_id": "choice", "selected": ["prod", "stage"], "text": "and the canary"}]});
    let (status, body) = surface.http(
        "POST",
        &format!("/v1/pending/{id}"),
        Some(&surface.operator_token()),
        Some(answer.to_string().as_bytes()),
    );
    assert_eq!(status, 200, "{body}");
    let output = finish(ask);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "prod\nstage\nand the canary\n");
}

#[test]
fn a_question_expires_at_its_timeout() {
    let surface = Surface::new("cs-api", "expire");
    let token = surface.integration("slow", true);
    let started = Instant::now();
    let output = finish(surface.ask(&token, &["slow", "Anyone there?", "--timeout", "5s"]));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("expired"),
        "exit 2 says why on stderr"
    );
    assert!(started.elapsed() >= Duration::from_secs(5));
    assert!(surface.log("slow").contains("\"outcome\":\"expired\""));
    assert!(surface.pending().is_empty());
}

#[test]
fn a_client_that_disconnects_withdraws_its_question() {
    let surface = Surface::new("cs-api", "disconnect");
    let token = surface.integration("gone", true);
    let mut ask = surface.ask(&token, &["gone", "Still there?", "-o", "a", "-o", "b"]);
    surface.wait_pending(1);
    ask.kill().unwrap();
    let _ = ask.wait();
    surface.wait_pending(0);
    assert!(surface.log("gone").contains("\"reason\":\"withdrawn\""));
}

#[test]
fn after_kill_9_the_acknowledged_answer_is_kept_and_the_orphan_is_withdrawn() {
    let mut surface = Surface::new("cs-api", "kill9");
    let token = surface.integration("crash", true);
    let first = surface.ask(
        &token,
        &["crash", "Answered before the crash?", "--accept", "Yes"],
    );
    let id = surface.wait_pending(1)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _) = surface.http(
        "POST",
        &format!("/v1/pending/{id}"),
        Some(&surface.operator_token()),
        Some(br#"{"outcome":"accepted"}"#),
    );
    assert_eq!(status, 200, "acknowledged");
    assert_eq!(finish(first).status.code(), Some(0));
    let mut orphan = surface.ask(
        &token,
        &[
            "crash",
            "Left waiting when the server dies?",
            "--accept",
            "Yes",
        ],
    );
    surface.wait_pending(1);
    surface.kill_server();
    let output = finish_with_timeout(&mut orphan);
    assert_eq!(output, Some(2), "the surface closed");
    surface.start();
    assert!(surface.pending().is_empty(), "the orphan no longer waits");
    let log = surface.log("crash");
    assert!(
        log.contains("\"outcome\":\"accepted\""),
        "the acknowledged answer survived"
    );
    assert!(
        log.contains("\"outcome\":\"withdrawn\""),
        "the orphan shows as withdrawn"
    );
}

#[test]
fn a_batch_keeps_its_deadline_across_a_restart() {
    let mut surface = Surface::new("cs-api", "deadline");
    let token = surface.integration("planner", false);
    let open = |id: &str, timeout_s: f64| {
        let batch = json!({
            "id": id, "wait": 0, "timeout_s": timeout_s,
            "items": [{"id": "q", "prompt": "Go on?", "kind": "yes_no"}]
        });
        let (status, body) = surface.http(
            "POST",
            "/v1/sessions/plan/clarifications",
            Some(&token),
            Some(batch.to_string().as_bytes()),
        );
        assert_eq!((status, &body["pending"]), (200, &json!(true)), "{body}");
    };
    // One batch whose timeout passes while no server runs, one that is still due after it.
    open("soon", 1.0);
    open("later", 6.0);
    surface.kill_server();
    std::thread::sleep(Duration::from_millis(1500));
    surface.start();
    let poll = |id: &str, wait: u32| {
        let path = format!("/v1/sessions/plan/clarifications/{id}?wait={wait}");
        surface.http("GET", &path, Some(&token), None).1
    };
    assert_eq!(
        poll("soon", 5)["status"],
        "expired",
        "a deadline that passed during the restart is kept at once"
    );
    assert_eq!(poll("later", 0)["pending"], true, "not yet due");
    let started = Instant::now();
    assert_eq!(poll("later", 15)["status"], "expired");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "expired at its deadline, not a full timeout after the restart"
    );
}

fn finish_with_timeout(child: &mut Child) -> Option<i32> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut sink = String::new();
            if let Some(mut out) = child.stdout.take() {
                let _ = out.read_to_string(&mut sink);
            }
            return status.code();
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_socket_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let surface = Surface::new("cs-api", "mode");
    let mode = std::fs::metadata(surface.socket())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn an_agent_mirrors_its_session_and_reads_it_back() {
    let surface = Surface::new("cs-api", "mirror");
    let token = surface.integration("codex", false);
    let post = |path: &str, body: Value| {
        surface.http(
            "POST",
            path,
            Some(&token),
            Some(body.to_string().as_bytes()),
        )
    };
    let (status, body) = post(
        "/v1/sessions/work/messages",
        json!({"role": "agent", "text": "Starting"}),
    );
    assert_eq!(status, 200, "{body}");
    let message = body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        post(
            &format!("/v1/sessions/work/messages/{message}/chunks"),
            json!({"text": " now"})
        )
        .0,
        200
    );
    assert_eq!(
        post(
            "/v1/sessions/work/threads",
            json!({"id": "side", "parent": "main", "title": "Side quest"})
        )
        .0,
        200
    );
    assert_eq!(
        post(
            "/v1/sessions/work/decisions",
            json!({"thread_id": "side", "text": "Use JSONL"})
        )
        .0,
        200
    );
    let (status, body) = post(
        "/v1/sessions/work/messages",
        json!({"thread_id": "nowhere", "role": "agent", "text": "x"}),
    );
    assert_eq!(status, 400, "{body}");
    let (status, snapshot) = surface.http("GET", "/v1/sessions/work/snapshot", Some(&token), None);
    assert_eq!(status, 200);
    assert_eq!(snapshot["messages"][0]["text"], "Starting now");
    assert_eq!(snapshot["threads"][1]["kind"], "branch");
    assert_eq!(snapshot["decisions"][0]["text"], "Use JSONL");
    assert_eq!(
        snapshot["messages"].as_array().unwrap().len(),
        1,
        "the refused message was not written"
    );
}

#[test]
fn many_events_in_one_request_land_together_or_not_at_all() {
    let surface = Surface::new("cs-api", "events");
    let token = surface.integration("streamer", false);
    let post = |body: Value| {
        surface.http(
            "POST",
            "/v1/sessions/stream/events",
            Some(&token),
            Some(body.to_string().as_bytes()),
        )
    };
    let (status, body) = post(json!({"events": [
        {"type": "message", "role": "agent", "text": "Reading"},
        {"type": "chunk", "message_id": "m-3", "text": " the log"},
        {"type": "thread", "id": "side", "parent": "main", "title": "Aside"},
        {"type": "decision", "thread_id": "side", "text": "Keep JSONL"},
    ]}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ids"], json!(["m-3", "m-3", "side", "d-6"]));
    let log_after_first = surface.log("stream");

    // The third entry breaks a rule (a chunk for no message): nothing of the request lands.
    let (status, body) = post(json!({"events": [
        {"type": "message", "role": "agent", "text": "fine"},
        {"type": "message", "role": "agent", "text": "also fine"},
        {"type": "chunk", "message_id": "ghost", "text": "x"},
    ]}));
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("ghost"),
        "{body}"
    );
    let (status, body) = post(json!({"events": [
        {"type": "message", "role": "agent", "text": "fine"},
        {"type": "message", "role": "agent"},
    ]}));
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("events[1]")),
        "{body}"
    );
    let (status, body) = post(json!({"events": []}));
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("events")),
        "{body}"
    );
    assert_eq!(
        surface.log("stream"),
        log_after_first,
        "refused requests wrote nothing"
    );

    let (_, snapshot) = surface.http("GET", "/v1/sessions/stream/snapshot", Some(&token), None);
    assert_eq!(snapshot["messages"][0]["text"], "Reading the log");
    assert_eq!(snapshot["threads"][1]["kind"], "branch");
    assert_eq!(snapshot["decisions"][0]["text"], "Keep JSONL");
    let (status, _) = surface.http(
        "POST",
        "/v1/sessions/stream/events",
        Some("cs_bad"),
        Some(b"{}"),
    );
    assert_eq!(status, 401);
}

#[test]
fn a_batch_with_wait_returns_pending_and_is_answered_later() {
    let surface = Surface::new("cs-api", "batch");
    let token = surface.integration("claude", false);
    let batch = json!({
        "id": "b1", "title": "Storage", "wait": 0.2,
        "items": [
            {"id": "format", "prompt": "Format?", "kind": "choice", "options": [{"id": "jsonl", "label": "JSONL"}, {"id": "sqlite", "label": "SQLite"}], "recommended": "jsonl"},
            {"id": "why", "prompt": "Why?", "kind": "multiline"}
        ]
    });
    let (status, body) = surface.http(
        "POST",
        "/v1/sessions/plan/clarifications",
        Some(&token),
        Some(batch.to_string().as_bytes()),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"pending": true, "batch_id": "b1"}));
    let pending = surface.wait_pending(1);
    assert_eq!(pending[0]["items"][0]["options"][0]["id"], "jsonl");
    let answer = json!({"answers": [{"item_id": "format", "selected": ["jsonl"]}, {"item_id": "why", "text": "append-only"}]});
    let (status, _) = surface.http(
        "POST",
        "/v1/pending/b1",
        Some(&surface.operator_token()),
        Some(answer.to_string().as_bytes()),
    );
    assert_eq!(status, 200);
    let (status, body) = surface.http(
        "GET",
        "/v1/sessions/plan/clarifications/b1?wait=5",
        Some(&token),
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "answered");
    assert_eq!(body["response"]["answers"][1]["text"], "append-only");
    let bad = json!({"answers": [{"item_id": "format", "selected": ["mongo"]}]});
    let (status, _) = surface.http(
        "POST",
        "/v1/pending/b1",
        Some(&surface.operator_token()),
        Some(bad.to_string().as_bytes()),
    );
    assert_eq!(status, 404, "nothing waits under b1 any more");
}

/// A curl that POSTs `body` to `path` and waits for the reply, as a child process a test can
/// kill (a bridge's hook that the agent stopped).
fn waiting_post(surface: &Surface, token: &str, path: &str, body: &Value) -> Child {
    Command::new("curl")
        .args(["-sS", "--max-time", "30", "--unix-socket"])
        .arg(surface.socket())
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["-H", "Content-Type: application/json", "--data-binary"])
        .arg(body.to_string())
        .arg(format!("http://chatsurface{path}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_confirmation_asked_in_a_session_returns_the_verdict_and_comment() {
    let surface = Surface::new("cs-api", "confirm");
    let token = surface.integration("bridge", false);
    let ask = json!({"id": "c1", "title": "Bash", "message": "rm -rf build", "comment": true});
    let waiting = waiting_post(&surface, &token, "/v1/sessions/cc-1/confirmations", &ask);
    let pending = surface.wait_pending(1);
    assert_eq!(pending[0]["id"], "c1");
    assert_eq!(pending[0]["session_id"], "cc-1");
    let verdict = json!({"outcome": "declined", "comment": "not the build folder"});
    let (status, body) = surface.http(
        "POST",
        "/v1/pending/c1",
        Some(&surface.operator_token()),
        Some(verdict.to_string().as_bytes()),
    );
    assert_eq!(status, 200, "{body}");
    let output = finish(waiting);
    let reply: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        reply,
        json!({"confirmation_id": "c1", "status": "declined", "comment": "not the build folder"})
    );
    let quick = json!({"id": "c2", "message": "push", "wait": 0.1});
    let (status, body) = surface.http(
        "POST",
        "/v1/sessions/cc-1/confirmations",
        Some(&token),
        Some(quick.to_string().as_bytes()),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"pending": true, "confirmation_id": "c2"}));
    let (status, body) = surface.http(
        "POST",
        "/v1/sessions/cc-1/confirmations",
        Some(&token),
        Some(json!({"id": "c3"}).to_string().as_bytes()),
    );
    assert_eq!(status, 400, "no message: {body}");
}

#[test]
fn a_confirmation_offering_always_is_accepted_for_good_only_where_it_offers_it() {
    let surface = Surface::new("cs-api", "always");
    let token = surface.integration("bridge", false);
    let operator = surface.operator_token();
    let ask = json!({"id": "c1", "message": "Edit a.txt", "accept_always": "Allow all edits"});
    let waiting = waiting_post(&surface, &token, "/v1/sessions/cc-1/confirmations", &ask);
    let pending = surface.wait_pending(1);
    assert_eq!(pending[0]["accept_always"], "Allow all edits");
    let for_good = json!({"outcome": "accepted", "always": true});
    let (status, body) = surface.http(
        "POST",
        "/v1/pending/c1",
        Some(&operator),
        Some(for_good.to_string().as_bytes()),
    );
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_slice(&finish(waiting).stdout).unwrap();
    assert_eq!(
        reply,
        json!({"confirmation_id": "c1", "status": "accepted", "always": true})
    );
    // Without the offer, or declined, or not a boolean: refused, naming the field; still open.
    let plain = json!({"id": "c2", "message": "rm -rf build", "wait": 0});
    let (status, _) = surface.http(
        "POST",
        "/v1/sessions/cc-1/confirmations",
        Some(&token),
        Some(plain.to_string().as_bytes()),
    );
    assert_eq!(status, 200);
    for (verdict, field) in [
        (json!({"outcome": "accepted", "always": true}), "always"),
        (json!({"outcome": "accepted", "always": "yes"}), "always"),
    ] {
        let (status, body) = surface.http(
            "POST",
            "/v1/pending/c2",
            Some(&operator),
            Some(verdict.to_string().as_bytes()),
        );
        assert_eq!(status, 400, "{verdict}: {body}");
        assert!(body.to_string().contains(field), "{verdict}: {body}");
    }
    assert_eq!(surface.pending().len(), 1, "c2 still waits");
}

#[test]
fn a_held_question_is_withdrawn_when_its_client_goes_away_and_kept_otherwise() {
    let surface = Surface::new("cs-api", "hold");
    let token = surface.integration("bridge", false);
    let confirm = json!({"id": "c1", "message": "rm -rf build", "hold": true});
    let batch = json!({"id": "b1", "hold": true, "items": [{"id": "q", "prompt": "Which?", "kind": "text"}]});
    let kept = json!({"id": "b2", "items": [{"id": "q", "prompt": "Kept?", "kind": "text"}]});
    let mut clients = vec![
        waiting_post(&surface, &token, "/v1/sessions/s/confirmations", &confirm),
        waiting_post(&surface, &token, "/v1/sessions/s/clarifications", &batch),
        waiting_post(&surface, &token, "/v1/sessions/s/clarifications", &kept),
    ];
    surface.wait_pending(3);
    for client in &mut clients {
        client.kill().unwrap();
        let _ = client.wait();
    }
    let pending = surface.wait_pending(1);
    assert_eq!(
        pending[0]["id"], "b2",
        "a question asked without hold stays"
    );
    let log = surface.log("s");
    assert_eq!(log.matches("\"withdrawn\"").count(), 2, "{log}");
}

#[test]
fn a_held_question_left_by_a_server_that_died_is_withdrawn_when_one_starts() {
    let mut surface = Surface::new("cs-api", "hold-crash");
    let token = surface.integration("bridge", false);
    let held = json!({"id": "c1", "message": "rm -rf build", "hold": true});
    let kept = json!({"id": "c2", "message": "deploy", "wait": 0});
    let mut client = waiting_post(&surface, &token, "/v1/sessions/s/confirmations", &held);
    let (status, _) = surface.http(
        "POST",
        "/v1/sessions/s/confirmations",
        Some(&token),
        Some(kept.to_string().as_bytes()),
    );
    assert_eq!(status, 200);
    surface.wait_pending(2);
    surface.kill_server();
    let _ = client.kill();
    let _ = client.wait();
    assert!(
        surface.log("s").contains("\"held\":true"),
        "the log says it was held"
    );
    surface.start();
    let pending = surface.pending();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(
        pending[0]["id"], "c2",
        "a question asked without hold still waits"
    );
    assert_eq!(surface.log("s").matches("\"withdrawn\"").count(), 1);
}

#[test]
fn removing_an_integration_withdraws_its_waiting_question() {
    let surface = Surface::new("cs-api", "remove");
    let token = surface.integration("temp", true);
    let ask = surface.ask(&token, &["temp", "Keep going?", "--accept", "Yes"]);
    surface.wait_pending(1);
    let removed = surface
        .command(&["integration", "remove", "temp"])
        .output()
        .unwrap();
    assert!(removed.status.success());
    let output = finish(ask);
    assert_eq!(output.status.code(), Some(2), "withdrawn");
    assert!(surface.log("temp").contains("\"outcome\":\"withdrawn\""));
}

#[test]
fn events_stream_as_server_sent_events() {
    let surface = Surface::new("cs-api", "sse");
    let token = surface.integration("watcher", false);
    let post = json!({"role": "agent", "text": "first"});
    assert_eq!(
        surface
            .http(
                "POST",
                "/v1/sessions/live/messages",
                Some(&token),
                Some(post.to_string().as_bytes())
            )
            .0,
        200
    );
    let stream = Command::new("curl")
        .args(["-sN", "--max-time", "3", "--unix-socket"])
        .arg(surface.socket())
        .args([
            "-H",
            &format!("Authorization: Bearer {token}"),
            "http://chatsurface/v1/sessions/live/events",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let post = json!({"role": "agent", "text": "streamed"});
    assert_eq!(
        surface
            .http(
                "POST",
                "/v1/sessions/live/messages",
                Some(&token),
                Some(post.to_string().as_bytes())
            )
            .0,
        200
    );
    let output = stream.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("event: event") && text.contains("\"text\":\"streamed\""),
        "{text}"
    );
    assert!(
        !text.contains("\"text\":\"first\""),
        "only events after subscribing are streamed"
    );
}

#[test]
fn concurrent_agents_get_distinct_ids_and_one_main_thread() {
    let surface = Surface::new("cs-api", "concurrent");
    let token = surface.integration("swarm", false);
    let surface = std::sync::Arc::new(surface);
    let posts: Vec<_> = (0..12)
        .map(|index| {
            let (surface, token) = (surface.clone(), token.clone());
            std::thread::spawn(move || {
                let body = json!({"role": "agent", "text": format!("worker {index}")});
                let (status, body) = surface.http(
                    "POST",
                    "/v1/sessions/fresh/messages",
                    Some(&token),
                    Some(body.to_string().as_bytes()),
                );
                assert_eq!(status, 200, "{body}");
                status
            })
        })
        .collect();
    for post in posts {
        assert_eq!(post.join().unwrap(), 200);
    }
    let (_, snapshot) = surface.http("GET", "/v1/sessions/fresh/snapshot", Some(&token), None);
    assert_eq!(snapshot["messages"].as_array().unwrap().len(), 12);
    assert_eq!(snapshot["threads"].as_array().unwrap().len(), 1);
}

#[test]
fn a_socket_directory_other_users_can_enter_is_refused_and_left_as_it_is() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("cs-api-{}-shared-dir", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = dir.join("api.sock");
    let served = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("serve")
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_SOCKET", &socket)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&served.stderr);
    assert!(!served.status.success(), "serve must refuse: {stderr}");
    assert!(
        stderr.contains(&format!("{}: mode 0755 lets other users in", dir.display())),
        "{stderr}"
    );
    assert!(!socket.exists(), "nothing listens there");
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o755,
        "a directory the server did not create is not chmod-ed"
    );
}
