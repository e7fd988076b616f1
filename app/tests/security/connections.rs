//! Slow, idle and countless connections: none of them keeps the server from serving.

use super::common_surface::Surface;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The server's limit on how long a request's head may take (`api/connections.rs`).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the server closed the connection: a read that ends (or fails) within `wait`.
fn closed_within(stream: &mut UnixStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(error) => !matches!(
            error.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

#[test]
fn silent_and_slow_connections_are_closed_and_the_server_keeps_answering() {
    let surface = Surface::new("cs-security", "slowloris");
    let token = surface.operator_token();
    let started = Instant::now();
    let mut silent: Vec<UnixStream> = (0..40)
        .map(|_| UnixStream::connect(surface.socket()).unwrap())
        .collect();
    let mut slow = UnixStream::connect(surface.socket()).unwrap();
    slow.write_all(b"GET /v1/pending HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // While they hang, others are served.
    let (status, _) = surface.http("GET", "/v1/pending", Some(&token), None);
    assert_eq!(status, 200);
    let deadline = HEADER_TIMEOUT + Duration::from_secs(8);
    for stream in silent.iter_mut().chain(std::iter::once(&mut slow)) {
        let left = deadline.saturating_sub(started.elapsed());
        assert!(
            closed_within(stream, left.max(Duration::from_millis(10))),
            "still open after {:?}",
            started.elapsed()
        );
    }
    assert!(
        started.elapsed() >= HEADER_TIMEOUT - Duration::from_secs(1),
        "closed only once the time was up"
    );
    let (status, _) = surface.http("GET", "/v1/pending", Some(&token), None);
    assert_eq!(status, 200);
}

#[test]
fn more_connections_than_file_handles_do_not_end_the_server() {
    let dir = super::scratch("fd-limit");
    // A server with room for 64 open files in all.
    let (mut server, socket) = serve_under_ulimit(&dir, "-n 64", Stdio::null());
    let started = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "serve did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let held: Vec<UnixStream> = (0..300)
        .filter_map(|_| UnixStream::connect(&socket).ok())
        .collect();
    assert!(held.len() > 64, "the backlog took them: {}", held.len());
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        server.try_wait().unwrap().is_none(),
        "serve ended under the load"
    );
    drop(held);
    let served = answers(&socket, Duration::from_secs(20));
    let _ = server.kill();
    let _ = server.wait();
    assert!(served, "serve answers again once the connections are gone");
}

/// `serve` over `dir/data`, listening at `dir/run/api.sock`, under `ulimit LIMIT`.
fn serve_under_ulimit(
    dir: &Path,
    limit: &str,
    stderr: Stdio,
) -> (std::process::Child, std::path::PathBuf) {
    let socket = dir.join("run/api.sock");
    let server = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit {limit} && exec {} serve",
            env!("CARGO_BIN_EXE_chatsurface")
        ))
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_SOCKET", &socket)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    (server, socket)
}

/// Whether a request is answered (any HTTP status) within `wait`.
fn answers(socket: &Path, wait: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < wait {
        if let Ok(mut stream) = UnixStream::connect(socket) {
            stream
                .set_read_timeout(Some(Duration::from_secs(2)))
                .unwrap();
            let _ = stream
                .write_all(b"GET /v1/sessions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            if reply.starts_with("HTTP/1.1 ") {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn serve_starts_with_more_session_logs_than_its_soft_open_files_limit() {
    let dir = super::scratch("many-logs");
    let sessions = dir.join("data/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for number in 0..300 {
        let line = serde_json::json!({"v":1,"seq":1,"at":"2026-12-01T00:00:00Z","type":"session_started","session":{"id":format!("s{number}"),"title":"Old"}});
        std::fs::write(
            sessions.join(format!("s{number}.jsonl")),
            format!("{line}\n"),
        )
        .unwrap();
    }
    // The soft limit only, as a login shell's 1,024 is: the hard one is left as it is.
    let (mut server, socket) = serve_under_ulimit(&dir, "-Sn 128", Stdio::piped());
    let served = answers(&socket, Duration::from_secs(30));
    let ended = server.try_wait().unwrap();
    let _ = server.kill();
    let output = server.wait_with_output().unwrap();
    assert!(
        served && ended.is_none(),
        "serve did not start with 300 logs: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// POSTs `body` to `path` with the operator's token on a connection of its own; returns the
/// status code.
fn post(socket: &Path, token: &str, path: &str, body: &str) -> u16 {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

#[test]
fn more_sessions_than_file_handles_all_take_events_and_serve_restarts() {
    let dir = super::scratch("many-sessions");
    // Hard and soft: serve cannot raise it, so 400 sessions cannot each keep a handle.
    let limit = "-n 256";
    let (mut server, socket) = serve_under_ulimit(&dir, limit, Stdio::null());
    assert!(
        answers(&socket, Duration::from_secs(20)),
        "serve did not start"
    );
    let token = std::fs::read_to_string(dir.join("data/operator.token")).unwrap();
    let token = token.trim();
    let message = r#"{"role":"user","text":"Hello"}"#;
    for number in 0..400 {
        let status = post(
            &socket,
            token,
            &format!("/v1/sessions/s{number}/messages"),
            message,
        );
        assert_eq!(status, 200, "session s{number}");
    }
    let handles = std::fs::read_dir(format!("/proc/{}/fd", server.id()))
        .unwrap()
        .count();
    assert!(
        handles < 200,
        "{handles} file handles held for 400 sessions"
    );
    let _ = server.kill();
    let _ = server.wait();

    let (mut server, socket) = serve_under_ulimit(&dir, limit, Stdio::null());
    let served = answers(&socket, Duration::from_secs(20));
    let again = served.then(|| post(&socket, token, "/v1/sessions/s0/messages", message));
    let _ = server.kill();
    let _ = server.wait();
    assert!(served, "serve did not start again with 400 logs");
    assert_eq!(
        again,
        Some(200),
        "the oldest session takes events after a restart"
    );
}

/// A process that opens `count` connections to `socket`, waits a moment, prints how many the
/// server kept open and how many it closed, and holds the rest until killed.
fn holder(socket: &Path, count: usize) -> std::process::Child {
    let script = r#"
import socket, sys, time
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    held.append(s)
time.sleep(1.0)
closed = 0
for s in held:
    s.setblocking(False)
    try:
        closed += s.recv(1) == b""
    except BlockingIOError:
        pass
print(f"open={len(held) - closed} closed={closed}", flush=True)
time.sleep(60)
"#;
    Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(socket)
        .arg(count.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The line a holder printed: (kept open, closed).
fn held_line(holder: &mut std::process::Child) -> (usize, usize) {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(holder.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let number = |key: &str| {
        line.split_whitespace()
            .find_map(|part| part.strip_prefix(key))
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("holder said {line:?}"))
    };
    (number("open="), number("closed="))
}

#[test]
fn one_process_holds_at_most_64_connections_and_others_are_still_served() {
    let surface = Surface::new("cs-security", "per-peer");
    let token = surface.operator_token();
    let mut greedy = holder(&surface.socket(), 100);
    let (open, closed) = held_line(&mut greedy);
    let (status, _) = surface.http("GET", "/v1/pending", Some(&token), None);
    let _ = greedy.kill();
    let _ = greedy.wait();
    assert_eq!((open, closed), (64, 36), "one process's connections");
    assert_eq!(status, 200, "another process is served meanwhile");
}

#[test]
fn the_operator_is_served_when_agents_hold_every_connection() {
    let surface = Surface::new("cs-security", "operator-first");
    let token = surface.operator_token();
    let agent = surface.integration("agent", false);
    // 520 idle connections from nine processes: the 512 anyone may use, and 8 of the
    // operator's reserve.
    let mut holders: Vec<_> = (0..9)
        .map(|number| holder(&surface.socket(), if number < 8 { 60 } else { 40 }))
        .collect();
    let held: usize = holders.iter_mut().map(|h| held_line(h).0).sum();
    let say = || {
        surface.http(
            "POST",
            "/v1/sessions/mine/messages",
            Some(&agent),
            Some(br#"{"role":"agent","text":"Hi"}"#),
        )
    };
    let (agent_status, agent_body) = say();
    let (operator_status, _) = surface.http("GET", "/v1/pending", Some(&token), None);
    for holder in &mut holders {
        let _ = holder.kill();
        let _ = holder.wait();
    }
    assert_eq!(held, 520, "all were kept: 512 and 8 of the reserve");
    assert_eq!(
        (agent_status, agent_body["error"].as_str()),
        (503, Some("busy")),
        "an agent is told the server is busy"
    );
    assert_eq!(operator_status, 200, "the operator is served");
    assert_eq!(say().0, 200, "the agent is served again once they are gone");
}
