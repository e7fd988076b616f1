//! Work per request is bounded: a request cannot make every later frame of its session lay
//! out thousands of items.

use super::common_surface::Surface;
use serde_json::json;

#[test]
fn a_batch_of_thousands_of_items_is_refused_and_leaves_nothing_behind() {
    let surface = Surface::new("cs-security", "huge-batch");
    let agent = surface.integration("agent", false);
    let items: Vec<_> = (0..24_000)
        .map(|i| json!({"id": format!("q{i}"), "prompt": "?", "kind": "text"}))
        .collect();
    let body = json!({"id": "b", "items": items, "wait": 0}).to_string();
    assert!(
        body.len() < 1024 * 1024,
        "under the body limit: {}",
        body.len()
    );
    let (status, reply) = surface.http(
        "POST",
        "/v1/sessions/flood/clarifications",
        Some(&agent),
        Some(body.as_bytes()),
    );
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["field"], "batch.items");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("at most 50 items (got 24000)"),
        "{reply}"
    );
    assert!(
        !surface.dir.join("data/sessions/flood.jsonl").exists(),
        "no session was made"
    );
    let fifty: Vec<_> = (0..50)
        .map(|i| json!({"id": format!("q{i}"), "prompt": "?", "kind": "text"}))
        .collect();
    let (status, reply) = surface.http(
        "POST",
        "/v1/sessions/flood/clarifications",
        Some(&agent),
        Some(
            json!({"id": "b", "items": fifty, "wait": 0})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(status, 200, "{reply}");
}

#[test]
fn refused_requests_leave_no_session_file_and_hold_no_file_handle() {
    let surface = Surface::new("cs-security", "refused-requests");
    let agent = surface.integration("agent", true);
    let pid = surface.server.as_ref().unwrap().id();
    let handles = || {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .count()
    };
    let before = handles();
    for number in 0..200 {
        let sid = format!("refused-{number}");
        let (status, _) = surface.http(
            "POST",
            &format!("/v1/sessions/{sid}/messages"),
            Some(&agent),
            Some(
                json!({"role": "agent", "text": "Hi", "thread_id": "never-opened"})
                    .to_string()
                    .as_bytes(),
            ),
        );
        assert_eq!(status, 400, "a message in a thread never opened is refused");
    }
    let (status, _) = surface.http(
        "POST",
        "/v1/integrations/agent/dialogs",
        Some(&agent),
        Some(json!({"message": ""}).to_string().as_bytes()),
    );
    assert_eq!(status, 400, "an empty dialog is refused");
    let sessions: Vec<_> = std::fs::read_dir(surface.dir.join("data/sessions"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name())
        .collect();
    assert!(sessions.is_empty(), "files left behind: {sessions:?}");
    assert!(
        handles() <= before + 2,
        "file handles grew from {before} to {}",
        handles()
    );
    // An accepted request still makes its session.
    let (status, _) = surface.http(
        "POST",
        "/v1/sessions/kept/messages",
        Some(&agent),
        Some(
            json!({"role": "agent", "text": "Hello"})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(status, 200);
    assert!(surface.dir.join("data/sessions/kept.jsonl").exists());
}

#[test]
fn a_session_id_of_the_longest_allowed_length_takes_messages() {
    let surface = Surface::new("cs-security", "long-session-id");
    let agent = surface.integration("agent", false);
    let sid = "s".repeat(128);
    let (status, reply) = surface.http(
        "POST",
        &format!("/v1/sessions/{sid}/messages"),
        Some(&agent),
        Some(
            json!({"role": "agent", "text": "Hello"})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(status, 200, "{reply}");
    let (status, _) = surface.http(
        "POST",
        &format!("/v1/sessions/{}/messages", "s".repeat(129)),
        Some(&agent),
        Some(
            json!({"role": "agent", "text": "Hello"})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(status, 400);
}

/// The reply to one raw request: its status code and body.
fn raw_exchange(surface: &Surface, request: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::os::unix::net::UnixStream::connect(surface.socket()).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    // The server may answer and close before a body over the limit is all sent.
    let _ = stream.write_all(request);
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, reply)
}

#[test]
fn a_broken_chunked_body_is_a_bad_request_and_only_an_oversized_one_too_large() {
    let surface = Surface::new("cs-security", "chunked");
    let agent = surface.integration("agent", false);
    let head = format!(
        "POST /v1/sessions/work/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {agent}\r\nContent-Type: application/json\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    let broken = format!("{head}zz\r\n{{}}\r\n0\r\n\r\n");
    let (status, reply) = raw_exchange(&surface, broken.as_bytes());
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("\"bad_body\""), "{reply}");
    let big = "x".repeat(2 * 1024 * 1024);
    let oversized = format!("{head}{:x}\r\n{big}\r\n0\r\n\r\n", big.len());
    let (status, reply) = raw_exchange(&surface, oversized.as_bytes());
    assert_eq!(status, 413, "{}", &reply[..reply.len().min(300)]);
}
