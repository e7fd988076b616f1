//! The `chatsurface` binary as a user runs it: outputs, exit codes and one-line errors.
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("app/ sits in the workspace")
        .to_owned()
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

fn example(name: &str) -> PathBuf {
    root().join("examples/sessions").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chatsurface-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn chatsurface(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn render(log: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "render",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--bundled-fonts-only",
    ];
    args.extend_from_slice(extra);
    chatsurface(&args)
}

#[test]
fn render_writes_a_png_of_exactly_width_times_scale() {
    let out = scratch("scaled.png");
    let output = render(
        &fixture("minimal-ru.jsonl"),
        &out,
        &["--width", "800", "--height", "600", "--scale", "1.5"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let pixmap = tiny_skia::Pixmap::load_png(&out).expect("a valid PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (1200, 900));
}

#[test]
fn render_defaults_to_1920_by_1080() {
    let out = scratch("default.png");
    let output = render(&example("deploy-review-en.jsonl"), &out, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let pixmap = tiny_skia::Pixmap::load_png(&out).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (1920, 1080));
}

#[test]
fn a_missing_log_is_one_line_exit_66_and_no_png() {
    let out = scratch("missing.png");
    let output = render(Path::new("/nonexistent/session.jsonl"), &out, &[]);
    assert_eq!(output.status.code(), Some(66));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("/nonexistent/session.jsonl") && lines[0].contains("no such file"),
        "{lines:?}"
    );
    assert!(!out.exists());
}

#[test]
fn file_errors_read_the_same_from_every_command_and_name_the_path() {
    let missing = "/nonexistent/session.jsonl";
    let expected = format!("error: {missing}: cannot read the file: no such file");
    for args in [
        vec!["snapshot", missing],
        vec!["bench", missing],
        vec!["render", missing, "--out", "/tmp/never.png"],
    ] {
        let output = chatsurface(&args);
        assert_eq!(output.status.code(), Some(66), "{args:?}");
        assert_eq!(
            stderr_lines(&output),
            std::slice::from_ref(&expected),
            "{args:?}"
        );
    }
    // A target whose directory is missing names the directory, not a temporary file.
    let log = fixture("minimal-ru.jsonl");
    let output = render(&log, Path::new("/nonexistent/dir/frame.png"), &[]);
    assert_ne!(output.status.code(), Some(0));
    assert_eq!(
        stderr_lines(&output),
        ["error: /nonexistent/dir/frame.png: cannot write: no such directory /nonexistent/dir"]
    );
    let output = chatsurface(&["gen", "--out", "/nonexistent/dir/big.jsonl"]);
    assert_ne!(output.status.code(), Some(0));
    let lines = stderr_lines(&output);
    assert!(
        lines.len() == 1 && lines[0].ends_with("no such directory /nonexistent/dir"),
        "{lines:?}"
    );
}

#[test]
fn a_broken_middle_line_names_file_and_line_and_writes_nothing() {
    let out = scratch("broken.png");
    let output = render(&fixture("broken-middle.jsonl"), &out, &[]);
    assert_eq!(output.status.code(), Some(65));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("broken-middle.jsonl:5:"), "{lines:?}");
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "no partial file is left behind");
}

#[test]
fn a_torn_tail_renders_with_a_warning() {
    let out = scratch("torn.png");
    let output = render(
        &fixture("torn-tail.jsonl"),
        &out,
        &["--width", "900", "--height", "600"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("warning: ") && lines[0].contains("torn-tail.jsonl:10:"),
        "{lines:?}"
    );
    assert!(out.exists());
}

#[test]
fn bad_flags_are_usage_errors_that_say_what_to_type() {
    let out = scratch("flags.png");
    for (flags, first, also) in [
        (
            vec!["--theme", "neon"],
            "neon",
            "[possible values: dark, light, cockpit]",
        ),
        (
            vec!["--widht", "1000"],
            "--widht",
            "a similar argument exists: '--width'",
        ),
        (
            vec!["--height", "abc"],
            "abc",
            "For more information, try '--help'.",
        ),
        (vec!["--width", "10"], "--width", "between 240 and 16384"),
        (vec!["--scale", "9"], "--scale", "between 0.5 and 4"),
        (
            vec!["--focus", "no-such-thread"],
            "no-such-thread",
            "no-such-thread",
        ),
    ] {
        let output = render(&fixture("minimal-ru.jsonl"), &out, &flags);
        assert_eq!(output.status.code(), Some(64), "{flags:?}");
        let lines = stderr_lines(&output);
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(first),
            "{flags:?}: {lines:?}"
        );
        assert!(
            lines.iter().any(|line| line.contains(also)),
            "{flags:?}: {lines:?}"
        );
        assert!(!out.exists(), "{flags:?}");
    }
    // A file named for another format is refused, with the name to use.
    let jpeg = scratch("frame.JPG");
    let output = render(&fixture("minimal-ru.jsonl"), &jpeg, &[]);
    assert_eq!(output.status.code(), Some(64));
    let lines = stderr_lines(&output);
    assert!(
        lines[0].contains("render writes PNG only: name the file")
            && lines[0].contains("frame.png"),
        "{lines:?}"
    );
    assert!(!jpeg.exists());
    // A missing flag is named.
    let output = chatsurface(&["render", fixture("minimal-ru.jsonl").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--out <OUT>"), "{stderr}");
}

#[test]
fn snapshot_prints_the_fold_as_json() {
    let output = chatsurface(&[
        "snapshot",
        example("design-record-ru.jsonl").to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for key in [
        "session",
        "threads",
        "messages",
        "batches",
        "confirmations",
        "decisions",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    let batches = json["batches"].as_array().unwrap();
    assert!(batches
        .iter()
        .any(|batch| batch["status"] == "open" && batch["response"].is_null()));
    assert!(batches
        .iter()
        .any(|batch| batch["status"] == "answered" && batch["response"].is_object()));
    let confirmations = json["confirmations"].as_array().unwrap();
    assert!(confirmations
        .iter()
        .any(|confirmation| confirmation["status"] == "pending"));
    let thread = &json["threads"][0];
    for key in [
        "id",
        "parent",
        "title",
        "kind",
        "status",
        "open_questions",
        "decisions",
    ] {
        assert!(thread.get(key).is_some(), "thread lacks {key}");
    }
}

#[test]
fn gen_writes_a_log_that_snapshot_reads() {
    let out = scratch("generated.jsonl");
    let output = chatsurface(&[
        "gen",
        "--out",
        out.to_str().unwrap(),
        "--messages",
        "2000",
        "--threads",
        "50",
        "--batches",
        "20",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = chatsurface(&["snapshot", out.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["messages"].as_array().unwrap().len(), 2000);
    assert_eq!(json["threads"].as_array().unwrap().len(), 50);
    let again = chatsurface(&["gen", "--out", out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(64), "gen never overwrites a log");
}

fn claude_fixture(scenario: &str) -> PathBuf {
    let dir = fixture("agents/claude-code-2.1.328").join(scenario);
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .unwrap()
}

#[test]
fn sessions_lists_the_store_and_claude_codes_transcripts_newest_first() {
    let root =
        std::env::temp_dir().join(format!("chatsurface-cli-sessions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (store, claude) = (root.join("data/sessions"), root.join("claude/projects"));
    std::fs::create_dir_all(&store).unwrap();
    std::fs::create_dir_all(claude.join("-work-app")).unwrap();
    std::fs::copy(
        example("deploy-review-en.jsonl"),
        store.join("deploy.jsonl"),
    )
    .unwrap();
    // The newest: written a moment after the native log.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let transcript = claude.join("-work-app/session.jsonl");
    std::fs::copy(claude_fixture("interactive"), &transcript).unwrap();
    std::fs::write(claude.join("-work-app/notes.jsonl"), "{\"hello\": 1}\n").unwrap();
    // A Codex rollout, older than both, in Codex's YYYY/MM/DD folders.
    let day = root.join("codex/sessions/2026/12/03");
    std::fs::create_dir_all(&day).unwrap();
    let codex_fixtures = fixture("agents/codex-0.169.0/exec-command");
    let rollout = std::fs::read_dir(&codex_fixtures)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::copy(&rollout, day.join(rollout.file_name().unwrap())).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(day.join(rollout.file_name().unwrap()))
        .unwrap()
        .set_modified(old)
        .unwrap();
    // A Gemini CLI session, the oldest, in <project>/chats/.
    let chats = root.join("gemini/tmp/app/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let gemini_fixtures = fixture("agents/gemini-0.61.0/plain-ru");
    let chat = std::fs::read_dir(&gemini_fixtures)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let copied = chats.join(chat.file_name().unwrap());
    std::fs::copy(&chat, &copied).unwrap();
    std::fs::File::options()
        .append(true)
        .open(&copied)
        .unwrap()
        .set_modified(old - std::time::Duration::from_secs(3600))
        .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .args(["sessions", "--json"])
        .env("CHATSURFACE_GEMINI_DIR", root.join("gemini/tmp"))
        .env("CHATSURFACE_DATA_DIR", root.join("data"))
        .env("CLAUDE_CONFIG_DIR", root.join("claude"))
        .env("CODEX_HOME", root.join("codex"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 4, "{list:?}");
    assert_eq!(list[3]["agent"], "gemini");
    assert_eq!(
        list[3]["title"],
        "Привет! Коротко: что такое журнал событий?"
    );
    assert!(
        list[3]["project"].as_str().unwrap().ends_with("/project"),
        "{}",
        list[3]
    );
    assert_eq!(list[2]["agent"], "codex");
    assert_eq!(list[2]["messages"], 3);
    assert_eq!(list[0]["agent"], "claude-code");
    assert_eq!(list[0]["title"], "Set up storage for the app");
    assert_eq!(list[0]["messages"], 13);
    assert!(list[0]["project"].as_str().unwrap().ends_with("/project"));
    assert_eq!(list[0]["path"], transcript.to_str().unwrap());
    assert_eq!(list[1]["agent"], "chatsurface");
    assert!(list[1]["open_questions"].as_u64().unwrap() > 0);
    // The file of no known format is left out, with a warning naming it.
    let warnings = stderr_lines(&output);
    assert!(
        warnings
            .iter()
            .any(|line| line.starts_with("warning: ") && line.contains("notes.jsonl")),
        "{warnings:?}"
    );
}

#[test]
fn a_file_of_no_known_format_exits_65_naming_the_formats_tried() {
    let path = scratch("not-a-session.jsonl");
    std::fs::write(&path, "{\"hello\": \"world\"}\n").unwrap();
    let output = chatsurface(&["snapshot", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(65));
    assert_eq!(
        stderr_lines(&output),
        [format!(
            "error: {}: not a session in any known format (tried chatsurface v1, claude-code, codex, gemini; --format picks one)",
            path.display()
        )]
    );
    // --format says what the file is: read as v1 it is a broken line, named as such.
    let forced = chatsurface(&[
        "snapshot",
        path.to_str().unwrap(),
        "--format",
        "chatsurface",
    ]);
    assert_eq!(forced.status.code(), Some(65));
    assert!(
        stderr_lines(&forced)[0].contains(":1: "),
        "{:?}",
        stderr_lines(&forced)
    );
}

#[test]
fn a_claude_code_transcript_renders_and_snapshots_like_a_log() {
    let transcript = claude_fixture("interactive");
    let output = chatsurface(&["snapshot", transcript.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let snapshot: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(snapshot["session"]["agent"], "claude-code");
    assert_eq!(snapshot["batches"][0]["status"], "answered");
    let png = scratch("claude.png");
    let rendered = render(&transcript, &png, &["--width", "900", "--height", "600"]);
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
}

#[test]
fn map_writes_the_format_its_name_says_and_refuses_any_other() {
    let log = example("refactor-many-branches-en.jsonl");
    let png = scratch("map.png");
    let output = chatsurface(&[
        "map",
        log.to_str().unwrap(),
        "--out",
        png.to_str().unwrap(),
        "--scale",
        "2",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let svg = scratch("map.svg");
    let output = chatsurface(&["map", log.to_str().unwrap(), "--out", svg.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(
        text.contains("Split compositor into layout"),
        "titles are text"
    );
    // A Claude Code transcript's map shows its rewind as a branch.
    let transcript = claude_fixture("interactive");
    let output = chatsurface(&[
        "map",
        transcript.to_str().unwrap(),
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .contains("Delete the old build folder"));

    let jpeg = scratch("map.jpg");
    let output = chatsurface(&[
        "map",
        log.to_str().unwrap(),
        "--out",
        jpeg.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(64));
    assert!(
        stderr_lines(&output)[0].contains("map writes PNG or SVG"),
        "{:?}",
        stderr_lines(&output)
    );
    assert!(!jpeg.exists());
    let output = chatsurface(&[
        "map",
        log.to_str().unwrap(),
        "--out",
        png.to_str().unwrap(),
        "--scale",
        "9",
    ]);
    assert_eq!(output.status.code(), Some(64));
    assert_eq!(
        stderr_lines(&output),
        ["error: --scale: must be between 0.25 and 4 (got 9)"]
    );
}

/// `chatsurface` with the data directory and socket in `dir`, and `stdin` on its stdin.
fn chatsurface_in(dir: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .args(args)
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_SOCKET", dir.join("data/run/api.sock"))
        .env_remove("CHATSURFACE_TOKEN")
        .env_remove("CHATSURFACE_TOKEN_CLAUDE_CODE")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project/.claude")).unwrap();
    dir
}

#[test]
fn install_claude_code_keeps_the_file_is_idempotent_and_uninstall_gives_it_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = fresh_dir("install");
    let settings = dir.join("project/.claude/settings.json");
    let original = "{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n  \"model\": \"x\",\n  \
        \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]}\n}\n";
    std::fs::write(&settings, original).unwrap();
    let project = dir.join("project");
    let install = [
        "install",
        "claude-code",
        "--project",
        project.to_str().unwrap(),
    ];

    let dry = chatsurface_in(&dir, &[&install[..], &["--dry-run"]].concat(), "");
    assert!(dry.status.success(), "{dry:?}");
    assert!(String::from_utf8_lossy(&dry.stdout).contains("dry run: nothing written"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    let added = chatsurface_in(&dir, &install, "");
    assert!(added.status.success(), "{added:?}");
    let said = String::from_utf8_lossy(&added.stdout);
    assert!(said.contains("added the PermissionRequest hook"), "{said}");
    let written = std::fs::read_to_string(&settings).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&written).unwrap();
    let hook = &parsed["hooks"]["PermissionRequest"][0]["hooks"][0];
    assert!(hook["command"]
        .as_str()
        .unwrap()
        .ends_with("chatsurface hook claude-code"));
    assert_eq!(
        parsed["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "echo hi"
    );
    assert!(
        written.find("\"permissions\"") < written.find("\"model\""),
        "the keys keep their order: {written}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("project/.claude/settings.json.chatsurface-backup"))
            .unwrap(),
        original
    );
    let token = dir.join("data/bridges/claude-code.token");
    assert_eq!(
        std::fs::metadata(&token).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let listed = chatsurface_in(&dir, &["integration", "list"], "");
    assert!(String::from_utf8_lossy(&listed.stdout).starts_with("claude-code\t"));

    let again = chatsurface_in(&dir, &install, "");
    assert!(String::from_utf8_lossy(&again.stdout).contains("already installed"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), written);

    let removed = chatsurface_in(&dir, &[&install[..], &["--uninstall"]].concat(), "");
    assert!(removed.status.success(), "{removed:?}");
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        back,
        serde_json::from_str::<serde_json::Value>(original).unwrap()
    );
}

#[test]
fn install_into_a_broken_settings_file_names_its_line_and_changes_nothing() {
    let dir = fresh_dir("install-broken");
    let settings = dir.join("project/.claude/settings.json");
    std::fs::write(&settings, "{\n  \"a\": 1,\n}\n").unwrap();
    let project = dir.join("project");
    let output = chatsurface_in(
        &dir,
        &[
            "install",
            "claude-code",
            "--project",
            project.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(65));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("settings.json: not JSON") && lines[0].contains("line 3"));
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  \"a\": 1,\n}\n"
    );
    assert!(!dir.join("data/bridges/claude-code.token").exists());
}

#[test]
fn the_hook_leaves_the_decision_to_claude_code_without_a_surface_or_for_another_event() {
    let dir = fresh_dir("hook");
    let token_dir = dir.join("data/bridges");
    std::fs::create_dir_all(&token_dir).unwrap();
    std::fs::write(token_dir.join("claude-code.token"), "cs_x\n").unwrap();
    let event = |name: &str| {
        serde_json::json!({
            "session_id": "52aed463-d8f9-41bf-bf5b-55b53367d924",
            "hook_event_name": name, "tool_name": "Bash", "tool_input": {"command": "ls"},
        })
        .to_string()
    };
    for name in ["PermissionRequest", "PreToolUse"] {
        let output = chatsurface_in(&dir, &["hook", "claude-code"], &event(name));
        assert_eq!(output.status.code(), Some(0), "{name}: {output:?}");
        assert!(output.stdout.is_empty(), "{name}: no decision");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("Claude Code asks in its terminal")
        );
    }
    let garbage = chatsurface_in(&dir, &["hook", "claude-code"], "not json");
    assert_eq!(
        garbage.status.code(),
        Some(65),
        "not 2, which would block the tool"
    );
    assert_eq!(stderr_lines(&garbage).len(), 1);
    assert!(garbage.stdout.is_empty());
}

/// `chatsurface search` with its data directory and the agents' folders under `dir`.
fn search_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chatsurface"))
        .arg("search")
        .args(args)
        .env("CHATSURFACE_DATA_DIR", dir.join("data"))
        .env("CHATSURFACE_CLAUDE_DIR", dir.join("claude"))
        .env("CHATSURFACE_CODEX_DIR", dir.join("codex"))
        .env("CHATSURFACE_GEMINI_DIR", dir.join("gemini"))
        .output()
        .expect("the binary runs")
}

/// The nodes a `--json` search found, as `path node` pairs.
fn found_nodes(output: &Output) -> Vec<(String, String)> {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    found
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            let path = hit["path"].as_str().unwrap();
            let name = Path::new(path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, hit["node"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn search_finds_words_in_folded_tool_output_and_other_agents_sessions_and_rebuilds_its_index() {
    let dir = scratch("search");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data/sessions")).unwrap();
    std::fs::create_dir_all(dir.join("claude/project")).unwrap();
    // A native session whose tool output is long enough to fold, the word deep inside it.
    let log = dir.join("data/sessions/deploy.jsonl");
    let output = format!("{}the QUOKKA migration finished\n", "step ok\n".repeat(40));
    let events = [
        serde_json::json!({"v":1,"seq":1,"at":"2026-12-01T00:00:00Z","type":"session_started","session":{"id":"s","title":"Deploy"}}),
        serde_json::json!({"v":1,"seq":2,"at":"2026-12-01T00:00:01Z","type":"thread_opened","thread":{"id":"main","parent":null,"title":"Main","kind":"topic"}}),
        serde_json::json!({"v":1,"seq":3,"at":"2026-12-01T00:00:02Z","type":"message_appended","message":{"id":"tool-1","thread_id":"main","role":"tool","text":output}}),
    ];
    let lines: String = events.iter().map(|event| format!("{event}\n")).collect();
    std::fs::write(&log, lines).unwrap();
    let transcript = claude_fixture("interactive");
    std::fs::copy(&transcript, dir.join("claude/project/session.jsonl")).unwrap();

    let quokka = search_in(&dir, &["quokka", "--json"]);
    assert_eq!(
        found_nodes(&quokka),
        [("deploy.jsonl".to_owned(), "message tool-1".to_owned())]
    );
    let build = found_nodes(&search_in(&dir, &["build", "folder", "--json"]));
    assert!(
        !build.is_empty() && build.iter().all(|(file, _)| file == "session.jsonl"),
        "{build:?}"
    );
    assert!(found_nodes(&search_in(
        &dir,
        &["build", "folder", "--agent", "chatsurface", "--json"]
    ))
    .is_empty());
    assert!(found_nodes(&search_in(
        &dir,
        &["quokka", "--since", "3000-01-01", "--json"]
    ))
    .is_empty());

    // A log that grows is indexed again: what it says now is found.
    let more = serde_json::json!({"v":1,"seq":4,"at":"2026-12-01T00:00:03Z","type":"message_appended","message":{"id":"m-2","thread_id":"main","role":"agent","text":"Rolled back: the wombat check failed."}});
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, format!("{more}\n").as_bytes()).unwrap();
    drop(file);
    let wombat = search_in(&dir, &["wombat", "--json"]);
    assert_eq!(
        found_nodes(&wombat),
        [("deploy.jsonl".to_owned(), "message m-2".to_owned())]
    );
    assert!(
        wombat.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&wombat.stderr)
    );

    // A corrupted index is rebuilt from the logs, saying so in one line; so is a deleted one.
    let index = dir.join("data/search-index");
    std::fs::write(index.join("meta.json"), b"\x00 not an index").unwrap();
    let rebuilt = search_in(&dir, &["quokka", "--json"]);
    assert_eq!(found_nodes(&rebuilt).len(), 1);
    let said = stderr_lines(&rebuilt);
    assert!(
        said.len() == 1 && said[0].starts_with("note: ") && said[0].contains("rebuilding"),
        "{said:?}"
    );
    std::fs::remove_dir_all(&index).unwrap();
    assert_eq!(
        found_nodes(&search_in(&dir, &["quokka", "--json"])).len(),
        1
    );

    // The lines a human reads name the session, the thread, the node and the file.
    let text = search_in(&dir, &["quokka"]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.starts_with("chatsurface  Deploy › Main  (message tool-1)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("QUOKKA migration"), "{stdout}");
    let bad = search_in(&dir, &["quokka", "--agent", "vim"]);
    assert_eq!(bad.status.code(), Some(64));
    assert_eq!(
        stderr_lines(&bad),
        ["error: --agent: \"vim\" is none of chatsurface, claude-code, codex, gemini"]
    );
}
