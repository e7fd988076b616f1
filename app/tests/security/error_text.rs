//! Errors quote what agents wrote (an id, a title, a log line): that text must not drive the
//! terminal, split the one error line, or be echoed whole when it is huge.

use serde_json::json;
use std::process::Command;

#[test]
fn an_error_quoting_hostile_text_is_one_inert_bounded_line() {
    let dir = super::scratch("error-text");
    let log = dir.join("hostile.jsonl");
    let hostile_id = format!(
        "\u{1b}[2J\u{1b}]0;pwned\u{7}evil\nsecond\u{202e}{}",
        "z".repeat(100_000)
    );
    let lines = [
        json!({"v":1,"seq":1,"at":"2026-12-01T00:00:00Z","type":"session_started","session":{"id":"s","title":"T"}}),
        json!({"v":1,"seq":2,"at":"2026-12-01T00:00:00Z","type":"message_appended","message":{"id":"m","thread_id":hostile_id,"role":"agent","text":"hi"}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&log, text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("render")
        .arg(&log)
        .arg("--out")
        .arg(dir.join("frame.png"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains("hostile.jsonl:2"),
        "{stderr:?}"
    );
    let line = stderr.trim_end_matches('\n');
    assert!(!line.chars().any(char::is_control), "{line:?}");
    assert!(!line.contains('\u{202e}'));
    assert!(line.contains("^[[2J^[]0;pwned^Gevil second"), "{line:?}");
    assert!(
        line.len() < 2_200,
        "cut, not echoed whole: {} bytes",
        line.len()
    );
    assert!(!dir.join("frame.png").exists(), "nothing half-written");
}

#[test]
fn a_log_with_a_byte_order_mark_opens_and_one_broken_by_cr_alone_is_refused_untouched() {
    let dir = super::scratch("bom-cr");
    let lines = [
        json!({"v":1,"seq":1,"at":"2026-12-01T00:00:00Z","type":"session_started","session":{"id":"s","title":"T"}}),
        json!({"v":1,"seq":2,"at":"2026-12-01T00:00:00Z","type":"thread_opened","thread":{"id":"main","parent":null,"title":"Main","kind":"topic"}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let snapshot = |log: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_chatsurface"))
            .arg("snapshot")
            .arg(log)
            .output()
            .unwrap()
    };
    let bom = dir.join("bom.jsonl");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let output = snapshot(&bom);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let folded: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(folded["last_seq"], 2);

    let cr = dir.join("cr.jsonl");
    let cr_text = text.replace('\n', "\r");
    std::fs::write(&cr, &cr_text).unwrap();
    let output = snapshot(&cr);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(65), "{stderr}");
    assert!(stderr.contains("carriage return (CR) alone"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&cr).unwrap(),
        cr_text,
        "never cut as a torn line"
    );
}
