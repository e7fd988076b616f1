//! End-to-end tests of the real window: Xvfb, Mesa's software Vulkan driver (lavapipe) and
//! real X input from xdotool. They answer a batch and a confirmation with the keymap, close the
//! window mid-answer and reopen it, and compare a screenshot with `chatsurface render`.
//!
//! They need `Xvfb`, `xdotool` and ImageMagick's `import` (`.ci/run` installs them). Where
//! those are missing the tests say so and pass, except under CI (`CI` set), where a missing
//! tool is a failure: CI must run them.
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The transcript a real agent wrote for a scenario: the `.jsonl` file in
/// `tests/fixtures/agents/<agent-version>/<scenario>/`.
fn agent_fixture(scenario: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/agents")
        .join(scenario);
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .unwrap_or_else(|| panic!("{}: no transcript", dir.display()))
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("chatsurface-window-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Whether the tools are here; a missing tool fails under CI and skips elsewhere.
fn tools_present() -> bool {
    let missing: Vec<_> = [
        "Xvfb",
        "xdotool",
        "import",
        "dbus-daemon",
        "dunst",
        "dunstctl",
    ]
    .into_iter()
    .filter(|tool| !have(tool))
    .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run the window tests, but {missing:?} are missing (see .ci/run)"
    );
    eprintln!("skipping: {missing:?} not installed (apt-get install xvfb xdotool imagemagick)");
    false
}

/// The window tests run one at a time: each starts an X server and a software-rendered
/// window, and two at once on a small machine only make each other time out.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A private X server.
struct Display {
    _turn: std::sync::MutexGuard<'static, ()>,
    server: Child,
    name: String,
    runtime: PathBuf,
}

impl Display {
    fn start(label: &str) -> Display {
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let runtime = scratch(&format!("{label}-runtime"));
        for number in 60..200 {
            let number = number + (std::process::id() % 400);
            if Path::new(&format!("/tmp/.X11-unix/X{number}")).exists()
                || Path::new(&format!("/tmp/.X{number}-lock")).exists()
            {
                continue;
            }
            let name = format!(":{number}");
            let mut server = Command::new("Xvfb")
                // -noreset: when the last client leaves (a window closed before the next opens),
                // Xvfb would otherwise reset and refuse connections for a moment.
                .args([
                    &name,
                    "-screen",
                    "0",
                    "1600x1000x24",
                    "-nolisten",
                    "tcp",
                    "-noreset",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("Xvfb starts");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                if Path::new(&format!("/tmp/.X11-unix/X{number}")).exists() {
                    return Display {
                        _turn: turn,
                        server,
                        name,
                        runtime,
                    };
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = server.kill();
            let _ = server.wait();
        }
        panic!("no free X display number for Xvfb");
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", &self.name)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_RUNTIME_DIR", &self.runtime);
        command
    }

    /// `chatsurface` with this display's private data directory and API socket.
    fn chatsurface(&self) -> Command {
        let mut command = self.command(env!("CARGO_BIN_EXE_chatsurface"));
        command
            .env("CHATSURFACE_DATA_DIR", self.runtime.join("data"))
            .env("CHATSURFACE_SOCKET", self.runtime.join("run/api.sock"))
            .env(
                "CHATSURFACE_CLAUDE_DIR",
                self.runtime.join("claude-projects"),
            )
            .env("CHATSURFACE_CODEX_DIR", self.runtime.join("codex-sessions"))
            .env("CHATSURFACE_GEMINI_DIR", self.runtime.join("gemini-tmp"))
            .env_remove("CHATSURFACE_TOKEN");
        command
    }

    fn xdotool(&self, args: &[&str]) -> String {
        let output = self
            .command("xdotool")
            .args(args)
            .output()
            .expect("xdotool runs");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Sends keys to the focused window, one at a time, giving each a frame to land.
    fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.xdotool(&["key", key]);
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn type_text(&self, text: &str) {
        self.xdotool(&["type", "--delay", "120", text]);
        std::thread::sleep(Duration::from_millis(250));
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// A running `chatsurface open`.
struct Window {
    child: Child,
    id: String,
}

impl Window {
    fn open(display: &Display, log: &Path, size: &str) -> Window {
        Window::start(display, &["open", log.to_str().unwrap(), "--size", size])
    }

    fn start(display: &Display, args: &[&str]) -> Window {
        let mut command = display.chatsurface();
        command.args(args);
        Window::spawn(display, command)
    }

    /// Starts a prepared `chatsurface` command and waits for its window to take the keyboard.
    fn spawn(display: &Display, mut command: Command) -> Window {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("chatsurface starts");
        let started = Instant::now();
        let id = loop {
            let found = display.xdotool(&["search", "--name", "chatsurface"]);
            if let Some(id) = found.lines().next().filter(|id| !id.is_empty()) {
                break id.to_owned();
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the window exited before it appeared ({status}); its error is above");
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the window did not appear within a minute"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        // Give the first frame time to be presented, then take the keyboard.
        std::thread::sleep(Duration::from_millis(1500));
        display.xdotool(&["windowfocus", "--sync", &id]);
        display.xdotool(&["mousemove", "5", "5"]);
        std::thread::sleep(Duration::from_millis(300));
        Window { child, id }
    }

    fn wait_for_exit(&mut self) {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "the window exited with {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the window did not close within 20 s");
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn events(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Waits until the log holds an event of `kind`, and returns the last one.
fn wait_for_event(log: &Path, kind: &str) -> Value {
    let started = Instant::now();
    loop {
        if let Some(event) = events(log)
            .into_iter()
            .rev()
            .find(|event| event["type"] == kind)
        {
            return event;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no {kind} event in {} after 20 s: {:#?}",
            log.display(),
            events(log).last()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn answer<'a>(event: &'a Value, item: &str) -> &'a Value {
    event["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|answer| answer["item_id"] == item)
        .unwrap_or_else(|| panic!("no answer for {item} in {event}"))
}

#[test]
fn answers_a_batch_and_a_confirmation_with_the_keymap() {
    if !tools_present() {
        return;
    }
    let dir = scratch("answer");
    let log = dir.join("session.jsonl");
    std::fs::copy(fixture("window-answer.jsonl"), &log).unwrap();
    let display = Display::start("answer");
    let mut window = Window::open(&display, &log, "1100x800");

    // o: the first open item (Channel); 2 picks Beta; Tab to Platforms; 1 and 3 toggle Linux
    // and Windows; Tab to Name, which takes typing at once; Tab to Notes; y; Ctrl+Enter.
    display.keys(&["o", "2", "Tab", "1", "3", "Tab"]);
    display.type_text("Маяк 2");
    display.keys(&["Tab", "y", "ctrl+Return"]);
    let submitted = wait_for_event(&log, "clarification_answer_submitted");
    assert_eq!(submitted["batch_id"], "b-plan");
    assert_eq!(
        answer(&submitted, "q-channel")["selected"],
        serde_json::json!(["beta"])
    );
    assert_eq!(
        answer(&submitted, "q-platforms")["selected"],
        serde_json::json!(["linux", "win"])
    );
    assert_eq!(answer(&submitted, "q-name")["text"], "Маяк 2");
    assert_eq!(
        answer(&submitted, "q-notes")["selected"],
        serde_json::json!(["yes"])
    );

    // o: the confirmation, whose comment field takes typing; Ctrl+Backspace deletes the last
    // word typed (never declines); Ctrl+D declines with the comment.
    display.keys(&["o"]);
    display.type_text("not before Friday oops");
    display.keys(&["ctrl+BackSpace", "ctrl+d"]);
    let resolved = wait_for_event(&log, "confirmation_resolved");
    assert_eq!(resolved["confirmation_id"], "c-tag");
    assert_eq!(resolved["outcome"], "declined");
    assert_eq!(resolved["comment"], "not before Friday");

    let title = display.xdotool(&["getwindowname", &window.id]);
    assert!(title.contains("Window e2e"), "title: {title}");
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
    let reopened = chatsurface_model::read_log(&log).expect("the log still opens");
    assert_eq!(reopened.snapshot.open_questions(), 0);
}

#[test]
fn ctrl_o_opens_the_attachment_of_the_question_being_answered() {
    if !tools_present() {
        return;
    }
    let dir = scratch("attachment");
    let (plan, diff) = (dir.join("plan.md"), dir.join("release.diff"));
    std::fs::write(&plan, "# Plan\n").unwrap();
    std::fs::write(&diff, "--- a\n+++ b\n").unwrap();
    // The fixture's questions, each given an attachment.
    let log = dir.join("session.jsonl");
    let fixture_text = std::fs::read_to_string(fixture("window-answer.jsonl")).unwrap();
    let attached = fixture_text
        .replace(
            r#""title":"Release questions","#,
            &format!(
                r#""title":"Release questions","attachment":"{}","#,
                plan.display()
            ),
        )
        .replace(
            r#""title":"Push the tag","#,
            &format!(
                r#""title":"Push the tag","attachment":"{}","#,
                diff.display()
            ),
        );
    assert_ne!(
        attached, fixture_text,
        "the fixture has the questions to attach to"
    );
    std::fs::write(&log, attached).unwrap();
    // An opener that records what it was asked to open, one path a line.
    let opened = dir.join("opened.txt");
    let opener = dir.join("opener.sh");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let display = Display::start("attachment");
    let mut command = display.chatsurface();
    command
        .args(["open", log.to_str().unwrap(), "--size", "1100x800"])
        .env("CHATSURFACE_OPENER", &opener);
    let _window = Window::spawn(&display, command);
    let opened_paths = |count: usize| {
        let started = Instant::now();
        loop {
            let text = std::fs::read_to_string(&opened).unwrap_or_default();
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            if lines.len() >= count || started.elapsed() > Duration::from_secs(10) {
                return lines;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    // o: the batch; Ctrl+O opens its plan. o again: the confirmation; Ctrl+O its diff.
    display.keys(&["o", "ctrl+o"]);
    assert_eq!(opened_paths(1), [plan.display().to_string()]);
    display.keys(&["o", "ctrl+o"]);
    assert_eq!(
        opened_paths(2),
        [plan.display().to_string(), diff.display().to_string()]
    );
}

#[test]
fn a_draft_typed_before_closing_is_there_after_reopening() {
    if !tools_present() {
        return;
    }
    let dir = scratch("draft");
    let log = dir.join("session.jsonl");
    std::fs::copy(fixture("window-answer.jsonl"), &log).unwrap();
    let display = Display::start("draft");
    {
        let mut window = Window::open(&display, &log, "1100x800");
        display.keys(&["o", "Tab", "Tab"]);
        display.type_text("half");
        // Closing at once, before the debounce: the close itself saves the draft.
        display.keys(&["ctrl+q"]);
        window.wait_for_exit();
    }
    let draft = wait_for_event(&log, "draft_saved");
    assert_eq!(answer(&draft, "q-name")["text"], "half");

    let mut window = Window::open(&display, &log, "1100x800");
    display.keys(&["o", "Tab", "Tab"]);
    display.type_text(" done");
    display.keys(&["ctrl+Return"]);
    let submitted = wait_for_event(&log, "clarification_answer_submitted");
    assert_eq!(
        answer(&submitted, "q-name")["text"],
        "half done",
        "the restored draft was edited, not replaced"
    );
    assert_eq!(answer(&submitted, "q-channel")["skipped"], true);
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

fn load_rgb(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let pixmap = tiny_skia::Pixmap::load_png(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let pixels = pixmap
        .pixels()
        .iter()
        .map(|pixel| {
            let color = pixel.demultiply();
            [color.red(), color.green(), color.blue()]
        })
        .collect();
    (pixmap.width(), pixmap.height(), pixels)
}

/// Asserts that the window (1000×700) shows what `chatsurface render` draws of `log` (with
/// `extra` flags).
fn assert_window_shows_render_of(
    display: &Display,
    window: &Window,
    (log, extra): (&Path, &[&str]),
    dir: &Path,
) {
    let shot = dir.join("window.png");
    let status = display
        .command("import")
        .args(["-window", &window.id, shot.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let reference = dir.join("render.png");
    let rendered = display
        .command(env!("CARGO_BIN_EXE_chatsurface"))
        .args([
            "render",
            log.to_str().unwrap(),
            "--width",
            "1000",
            "--height",
            "700",
            "--out",
            reference.to_str().unwrap(),
        ])
        .args(extra)
        .status()
        .unwrap();
    assert!(rendered.success());
    let (width, height, window_pixels) = load_rgb(&shot);
    let (ref_width, ref_height, reference_pixels) = load_rgb(&reference);
    assert_eq!(
        (width, height),
        (ref_width, ref_height),
        "the window is 1000×700"
    );
    let differing = window_pixels
        .iter()
        .zip(&reference_pixels)
        .filter(|(a, b)| (0..3).any(|channel| a[channel].abs_diff(b[channel]) > 24))
        .count();
    let share = differing as f64 / window_pixels.len() as f64;
    assert!(
        share < 0.005,
        "{:.3}% of pixels differ from `chatsurface render` (see {} and {})",
        share * 100.0,
        shot.display(),
        reference.display()
    );
}

#[test]
fn the_window_shows_the_frame_that_render_draws() {
    if !tools_present() {
        return;
    }
    let dir = scratch("screenshot");
    let log = dir.join("session.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/sessions/deploy-review-en.jsonl"),
        &log,
    )
    .unwrap();
    let display = Display::start("screenshot");
    let mut window = Window::open(&display, &log, "1000x700");
    assert_window_shows_render_of(&display, &window, (&log, &[]), &dir);
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

#[test]
fn a_thread_chosen_on_the_branch_map_opens_in_the_transcript() {
    if !tools_present() {
        return;
    }
    let dir = scratch("map");
    let log = dir.join("session.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/sessions/refactor-many-branches-en.jsonl"),
        &log,
    )
    .unwrap();
    let snapshot = chatsurface_model::read_log(&log).unwrap().snapshot;
    // The map opens on the first topic; j goes to its first branch.
    let branch = (0..snapshot.threads.len())
        .find(|&thread| snapshot.parent_of(thread) == Some(0))
        .unwrap();
    let id = snapshot.threads[branch].spec.id.as_str().to_owned();
    let display = Display::start("map");
    let mut window = Window::open(&display, &log, "1000x700");
    display.keys(&["m", "plus", "minus", "0", "j", "Return"]);
    std::thread::sleep(Duration::from_millis(700));
    assert_window_shows_render_of(&display, &window, (&log, &["--focus", &id]), &dir);
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

#[test]
fn the_window_alone_serves_the_api_and_an_agents_question_is_answered_in_it() {
    if !tools_present() {
        return;
    }
    let display = Display::start("serve");
    let mut window = Window::start(&display, &["open", "--size", "1000x700"]);
    wait_for_socket(&display);
    let title = display.xdotool(&["getwindowname", &window.id]);
    assert!(
        title.contains("ADR-0031"),
        "a new store opens the demo: {title}"
    );
    let ask = ask_confirmation(
        &display,
        "deploy",
        "Deploy 4.12 to production?",
        ["Deploy", "Wait"],
    );
    // The window moves to the session the question arrived in.
    let started = Instant::now();
    loop {
        let title = display.xdotool(&["getwindowname", &window.id]);
        if title.starts_with("deploy") && title.contains("1 confirmation") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the question did not show: {title}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    display.keys(&["o"]);
    read_the_confirmation();
    display.keys(&["ctrl+Return"]);
    let output = ask.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "ask exits 0 when accepted");
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

/// Waits as a human reading a confirmation would: the window takes no accept for a
/// confirmation's first half second on screen.
fn read_the_confirmation() {
    std::thread::sleep(Duration::from_millis(800));
}

/// Waits until the window's in-process API listens.
fn wait_for_socket(display: &Display) {
    let started = Instant::now();
    while !display.runtime.join("run/api.sock").exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "no API socket");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Starts `chatsurface ask SLUG QUESTION --accept A --decline D` as the integration `slug`.
fn ask_confirmation(display: &Display, slug: &str, question: &str, buttons: [&str; 2]) -> Child {
    let added = display
        .chatsurface()
        .args(["integration", "add", slug, "--dialogs"])
        .output()
        .unwrap();
    assert!(added.status.success());
    let token = String::from_utf8(added.stdout).unwrap().trim().to_owned();
    display
        .chatsurface()
        .env("CHATSURFACE_TOKEN", &token)
        .args([
            "ask",
            slug,
            question,
            "--accept",
            buttons[0],
            "--decline",
            buttons[1],
            "--timeout",
            "120s",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the window's title (session — what awaits — chatsurface) passes `check`.
fn wait_for_title(display: &Display, window: &Window, what: &str, check: impl Fn(&str) -> bool) {
    let started = Instant::now();
    loop {
        let title = display.xdotool(&["getwindowname", &window.id]);
        if check(&title) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what}: the title is {title:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The deployer asks, and once its question shows, the reviewer asks too: the window stays
/// with the deployer's question and counts the reviewer's. Returns both `ask` processes.
fn deployer_then_reviewer(display: &Display, window: &Window) -> (Child, Child) {
    let deployer = ask_confirmation(
        display,
        "deployer",
        "Roll out 4.13 to prod now?",
        ["Roll", "Wait"],
    );
    wait_for_title(display, window, "the deployer's question shows", |title| {
        title.starts_with("deployer") && title.contains("1 confirmation")
    });
    let reviewer = ask_confirmation(
        display,
        "reviewer",
        "Merge PR #812 (touches auth)?",
        ["Merge", "Hold"],
    );
    // The window stays with the question on screen and counts the other one.
    wait_for_title(
        display,
        window,
        "the reviewer's question is counted",
        |title| title.starts_with("deployer") && title.contains("1 waiting in 1 other session"),
    );
    (deployer, reviewer)
}

#[test]
fn two_agents_asking_at_once_each_get_their_own_answer() {
    if !tools_present() {
        return;
    }
    let display = Display::start("two-agents");
    let mut window = Window::start(&display, &["open", "--size", "1000x700"]);
    wait_for_socket(&display);
    let (mut deployer, reviewer) = deployer_then_reviewer(&display, &window);
    display.keys(&["o"]);
    read_the_confirmation();
    display.keys(&["ctrl+Return"]);
    let answered = deployer.wait().unwrap();
    assert_eq!(
        answered.code(),
        Some(0),
        "the deployer's question was accepted"
    );
    let mut reviewer = reviewer;
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        reviewer.try_wait().unwrap().is_none(),
        "the reviewer's question still waits"
    );
    wait_for_title(
        &display,
        &window,
        "the reviewer's question is still counted",
        |title| title.contains("Nothing here · 1 waiting in 1 other session"),
    );
    // o reaches the question in the other session; Ctrl+Enter answers that one.
    display.keys(&["o"]);
    wait_for_title(&display, &window, "o moves to the reviewer", |title| {
        title.starts_with("reviewer") && title.contains("1 confirmation")
    });
    display.keys(&["Escape", "o"]);
    read_the_confirmation();
    display.keys(&["ctrl+Return"]);
    let output = reviewer.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "the reviewer's question was accepted"
    );
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

#[test]
fn the_inbox_answers_the_question_chosen_in_it_in_its_own_session() {
    if !tools_present() {
        return;
    }
    let display = Display::start("inbox");
    let mut window = Window::start(&display, &["open", "--size", "1000x700"]);
    wait_for_socket(&display);
    let (mut deployer, reviewer) = deployer_then_reviewer(&display, &window);
    // Oldest first: the deployer's, then the reviewer's; the second row is answered.
    display.keys(&["i", "Down", "Return"]);
    wait_for_title(&display, &window, "Enter shows the reviewer", |title| {
        title.starts_with("reviewer") && title.contains("1 confirmation")
    });
    read_the_confirmation();
    display.keys(&["ctrl+Return"]);
    let output = reviewer.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "the reviewer's question was accepted: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        deployer.try_wait().unwrap().is_none(),
        "the deployer's question still waits"
    );
    let _ = deployer.kill();
    let _ = deployer.wait();
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

/// A private D-Bus session bus with a real notification server on it (dunst, on the test's
/// X display), both stopped when dropped.
struct NotificationServer {
    address: String,
    display: String,
    bus: Child,
    dunst: Child,
}

impl NotificationServer {
    fn start(display: &Display) -> NotificationServer {
        let address = format!("unix:path={}", display.runtime.join("bus").display());
        let bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", &format!("--address={address}")])
            .stdout(Stdio::null())
            .spawn()
            .expect("dbus-daemon starts");
        let started = Instant::now();
        while !display.runtime.join("bus").exists() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no session bus"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let dunst = display
            .command("dunst")
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("dunst starts");
        let server = NotificationServer {
            address,
            display: display.name.clone(),
            bus,
            dunst,
        };
        let started = Instant::now();
        while !server.dunstctl(&["count"]).contains("History") {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "dunst does not answer"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    fn dunstctl(&self, args: &[&str]) -> String {
        let output = Command::new("dunstctl")
            .args(args)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .env("DISPLAY", &self.display)
            .output()
            .expect("dunstctl runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The summaries of every notification received so far (closing those still shown, so
    /// dunst's history holds them).
    fn summaries(&self) -> Vec<String> {
        self.dunstctl(&["close-all"]);
        std::thread::sleep(Duration::from_millis(200));
        let history: Value = serde_json::from_str(&self.dunstctl(&["history"])).unwrap();
        history["data"][0]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|notification| notification["summary"]["data"].as_str())
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for NotificationServer {
    fn drop(&mut self) {
        for child in [&mut self.dunst, &mut self.bus] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn a_question_in_another_session_raises_a_desktop_notification_unless_told_not_to() {
    if !tools_present() {
        return;
    }
    let display = Display::start("notify");
    let notifications = NotificationServer::start(&display);
    let mut command = display.chatsurface();
    command
        .env("DBUS_SESSION_BUS_ADDRESS", &notifications.address)
        .args(["open", "--size", "1000x700"]);
    let mut window = Window::spawn(&display, command);
    wait_for_socket(&display);
    let mut deployer = ask_confirmation(
        &display,
        "deployer",
        "Roll out 4.13 to prod now?",
        ["Roll", "Wait"],
    );
    wait_for_title(
        &display,
        &window,
        "the deployer's question shows",
        |title| title.starts_with("deployer") && title.contains("1 confirmation"),
    );
    // Answering the deployer's question: the notification must not take it away.
    display.keys(&["o"]);
    let mut reviewer = ask_confirmation(
        &display,
        "reviewer",
        "Merge PR #812 (touches auth)?",
        ["Merge", "Hold"],
    );
    let started = Instant::now();
    let summaries = loop {
        let summaries = notifications.summaries();
        if !summaries.is_empty() || started.elapsed() > Duration::from_secs(20) {
            break summaries;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(
        summaries,
        ["reviewer asks to confirm: reviewer — Merge PR #812 (touches auth)?"],
        "one notification, for the question in the other session only"
    );
    let title = display.xdotool(&["getwindowname", &window.id]);
    assert!(title.starts_with("deployer"), "the window stayed: {title}");
    read_the_confirmation();
    display.keys(&["ctrl+Return"]);
    let accepted = deployer.wait().unwrap();
    assert_eq!(
        accepted.code(),
        Some(0),
        "the deployer's question, still in hand, was accepted"
    );
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
    let _ = reviewer.kill();
    let _ = reviewer.wait();

    let mut command = display.chatsurface();
    command
        .env("DBUS_SESSION_BUS_ADDRESS", &notifications.address)
        .args(["open", "--size", "1000x700", "--no-notify"]);
    let mut window = Window::spawn(&display, command);
    wait_for_socket(&display);
    let mut auditor = ask_confirmation(&display, "auditor", "Rotate the keys?", ["Rotate", "Keep"]);
    let mut scaler = ask_confirmation(&display, "scaler", "Scale to 40 nodes?", ["Scale", "Hold"]);
    wait_for_title(&display, &window, "both questions are in", |title| {
        title.contains("1 waiting in 1 other session")
    });
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        notifications.summaries().len(),
        1,
        "--no-notify: nothing more was announced"
    );
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
    for asker in [&mut auditor, &mut scaler] {
        let _ = asker.kill();
        let _ = asker.wait();
    }
}

#[test]
fn a_claude_code_session_grows_in_the_window_as_claude_code_writes_it() {
    if !tools_present() {
        return;
    }
    let dir = scratch("claude-follow");
    let source = agent_fixture("claude-code-2.1.328/interactive");
    let whole = std::fs::read_to_string(&source).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    let answered = lines
        .iter()
        .position(|line| line.contains("SQLite it is."))
        .unwrap();
    let log = dir.join("session.jsonl");
    std::fs::write(&log, lines[..=answered].join("\n") + "\n").unwrap();
    let display = Display::start("claude-follow");
    let mut window = Window::open(&display, &log, "1000x700");
    // Claude Code's next turns, appended as it wrote them, a few lines at a time.
    for chunk in lines[answered + 1..].chunks(5) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        for line in chunk {
            writeln!(file, "{line}").unwrap();
        }
        drop(file);
        std::thread::sleep(Duration::from_millis(150));
    }
    std::thread::sleep(Duration::from_millis(1500));
    assert_window_shows_render_of(&display, &window, (&log, &[]), &dir);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        whole,
        "the window never writes to the agent's transcript"
    );
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

#[test]
fn ctrl_p_switches_to_a_codex_session_typed_for() {
    if !tools_present() {
        return;
    }
    let dir = scratch("switcher");
    let display = Display::start("switcher");
    // A rollout the real Codex CLI wrote, where Codex keeps them.
    let day = display.runtime.join("codex-sessions/2026/12/04");
    std::fs::create_dir_all(&day).unwrap();
    let rollout = agent_fixture("codex-0.169.0/exec-command");
    let copied = day.join(rollout.file_name().unwrap());
    std::fs::copy(&rollout, &copied).unwrap();
    let listed = display
        .chatsurface()
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    assert!(listed.status.success());
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let codex_title = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["agent"] == "codex")
        .map(|entry| entry["title"].as_str().unwrap().to_owned())
        .expect("the rollout is listed");

    let log = dir.join("design.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/sessions/design-record-ru.jsonl"),
        &log,
    )
    .unwrap();
    let mut window = Window::open(&display, &log, "1000x700");
    wait_for_title(&display, &window, "the native session", |title| {
        !title.contains(&codex_title)
    });
    display.keys(&["ctrl+p"]);
    // Letters that would browse (o goes to the next question) are the filter's here.
    display.type_text("codex");
    std::thread::sleep(Duration::from_millis(2500));
    let shot = dir.join("switcher.png");
    let status = display
        .command("import")
        .args(["-window", &window.id, shot.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    display.keys(&["Return"]);
    wait_for_title(&display, &window, "the Codex session", |title| {
        title.contains(&codex_title)
    });
    assert_eq!(
        std::fs::read(&copied).unwrap(),
        std::fs::read(&rollout).unwrap(),
        "the window never writes to the agent's rollout"
    );
    display.keys(&["ctrl+q"]);
    window.wait_for_exit();
}

#[test]
fn sigterm_closes_the_window_and_its_api_socket_goes_with_it() {
    if !tools_present() {
        return;
    }
    let display = Display::start("sigterm");
    let mut window = Window::start(&display, &[]);
    wait_for_socket(&display);
    let socket = display.runtime.join("run/api.sock");
    let killed = Command::new("kill")
        .args(["-TERM", &window.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    window.wait_for_exit();
    assert!(
        !socket.exists(),
        "the socket is removed when the window closes"
    );
}
