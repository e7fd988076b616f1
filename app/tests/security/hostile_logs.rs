//! Logs of hostile shape that fold: none of them may hang a command or crash the server.

use serde_json::json;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn endless_inputs_are_refused_at_once() {
    let dir = super::scratch("endless");
    let fifo = dir.join("pipe.jsonl");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (input, kind) in [
        ("/dev/zero", "a device"),
        (fifo.to_str().unwrap(), "a FIFO"),
    ] {
        for command in ["render", "snapshot"] {
            let started = Instant::now();
            let mut args = vec![command, input];
            if command == "render" {
                args.extend(["--out", "/tmp/never.png"]);
            }
            let output = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
                .args(&args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(66), "{args:?}: {stderr}");
            assert!(
                stderr.contains(kind) && stderr.lines().count() == 1,
                "{stderr}"
            );
            assert!(started.elapsed() < Duration::from_secs(5));
        }
    }
}

#[test]
fn serve_starts_on_a_log_whose_deadline_is_past_the_last_date() {
    let dir = super::scratch("year-9999");
    let sessions = dir.join("data/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let lines = [
        json!({"v":1,"seq":1,"at":"2026-12-01T00:00:00Z","type":"session_started","session":{"id":"late","title":"Late"}}),
        json!({"v":1,"seq":2,"at":"2026-12-01T00:00:00Z","type":"thread_opened","thread":{"id":"main","parent":null,"title":"Main","kind":"topic"}}),
        json!({"v":1,"seq":3,"at":"9999-12-31T23:59:59Z","type":"clarification_batch_opened","batch":{"id":"b","thread_id":"main","timeout_s":1,"items":[{"id":"q","prompt":"When?","kind":"text"}]}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(sessions.join("late.jsonl"), text).unwrap();
    let socket = dir.join("run/api.sock");
    let mut server = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("serve")
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_SOCKET", &socket)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let listening = loop {
        if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
            break true;
        }
        if server.try_wait().unwrap().is_some() || started.elapsed() > Duration::from_secs(20) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(500));
    let alive = server.try_wait().unwrap().is_none();
    let _ = server.kill();
    let status = server.wait().unwrap();
    assert!(listening && alive, "serve ended: {status}");
}
