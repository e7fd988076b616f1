//! Golden images of whole frames, drawn with the embedded fonts only so the CPU raster is the
//! same on every machine (the idea of cosmic-text's own image tests).
//!
//! Each case renders a session log and compares it with `tests/golden/NAME.png`. A pixel
//! differs when any channel is off by more than [`CHANNEL_TOLERANCE`]; a case fails when more
//! than [`MAX_DIFFERING_FRACTION`] of its pixels differ. On failure the actual frame and a diff
//! image (differing pixels in red) are written to `target/golden-failures/`. Run with
//! `CHATSURFACE_BLESS=1` to re-bless the goldens after an intended change, and look at them.
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use chatsurface_compositor::frame_regions;
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{Density, Theme};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_model::{read_log, Snapshot};
use std::path::{Path, PathBuf};
use tiny_skia::Pixmap;

/// Largest per-channel difference that still counts as the same pixel.
const CHANNEL_TOLERANCE: u8 = 2;
/// Largest share of pixels that may differ.
const MAX_DIFFERING_FRACTION: f64 = 0.0005;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn load(relative: &str) -> Snapshot {
    read_log(&root().join(relative))
        .unwrap_or_else(|error| panic!("{error}"))
        .snapshot
}

fn request(width: f32, height: f32, scale: f32, theme: Theme) -> IntentRequest {
    IntentRequest {
        viewport: Viewport {
            width: px(width),
            height: px(height),
            scale: ScaleFactor(scale),
        },
        theme,
        density: Density::Comfortable,
        ..IntentRequest::default()
    }
}

fn render(snapshot: &Snapshot, request: &IntentRequest) -> Pixmap {
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    let (pixmap, _) = compositor.compose(snapshot, request).unwrap();
    pixmap.clone()
}

fn check_golden(name: &str, actual: &Pixmap) {
    check_picture(
        &root().join("tests/golden").join(format!("{name}.png")),
        name,
        actual,
    );
}

/// Compares `actual` with the picture at `golden_path` (or writes it, when blessing); `name`
/// names the failure images.
fn check_picture(golden_path: &Path, name: &str, actual: &Pixmap) {
    if std::env::var_os("CHATSURFACE_BLESS").is_some() {
        std::fs::create_dir_all(golden_path.parent().unwrap()).unwrap();
        actual.save_png(golden_path).unwrap();
        return;
    }
    let expected = Pixmap::load_png(golden_path).unwrap_or_else(|error| {
        panic!(
            "{}: {error} (run with CHATSURFACE_BLESS=1 to create it)",
            golden_path.display()
        )
    });
    let failures = root().join("target/golden-failures");
    let save_failure = |diff: Option<&Pixmap>| {
        std::fs::create_dir_all(&failures).unwrap();
        actual
            .save_png(failures.join(format!("{name}.actual.png")))
            .unwrap();
        if let Some(diff) = diff {
            diff.save_png(failures.join(format!("{name}.diff.png")))
                .unwrap();
        }
    };
    if (expected.width(), expected.height()) != (actual.width(), actual.height()) {
        save_failure(None);
        panic!(
            "{name}: size {}×{} differs from the golden {}×{}",
            actual.width(),
            actual.height(),
            expected.width(),
            expected.height()
        );
    }
    let mut diff = Pixmap::new(actual.width(), actual.height()).unwrap();
    let mut differing = 0usize;
    for ((a, e), d) in actual
        .data()
        .chunks(4)
        .zip(expected.data().chunks(4))
        .zip(diff.data_mut().chunks_mut(4))
    {
        let off = a
            .iter()
            .zip(e)
            .any(|(a, e)| a.abs_diff(*e) > CHANNEL_TOLERANCE);
        if off {
            differing += 1;
            d.copy_from_slice(&[255, 0, 0, 255]);
        } else {
            d.copy_from_slice(&[e[0] / 3, e[1] / 3, e[2] / 3, 255]);
        }
    }
    let fraction = differing as f64 / (actual.width() as f64 * actual.height() as f64);
    if fraction > MAX_DIFFERING_FRACTION {
        save_failure(Some(&diff));
        panic!(
            "{name}: {differing} pixels ({:.3}%) differ; see {}",
            fraction * 100.0,
            failures.display()
        );
    }
}

/// The README's pictures are goldens too, so they cannot drift from what `render` draws: the
/// README gives the commands that make them.
#[test]
fn the_readmes_pictures_are_what_render_draws_today() {
    let snapshot = load("examples/sessions/design-record-ru.jsonl");
    let pictures = [
        ("frame-dark", request(1440.0, 900.0, 1.0, Theme::Dark)),
        ("frame-cockpit", request(600.0, 1000.0, 1.0, Theme::Cockpit)),
    ];
    for (name, request) in pictures {
        let path = root().join("docs").join(format!("{name}.png"));
        check_picture(&path, &format!("docs-{name}"), &render(&snapshot, &request));
    }
}

#[test]
fn minimal_russian_session_in_every_theme() {
    let snapshot = load("tests/fixtures/minimal-ru.jsonl");
    for theme in Theme::ALL {
        let frame = render(&snapshot, &request(1200.0, 760.0, 1.0, theme));
        check_golden(&format!("minimal-ru-{theme}"), &frame);
    }
}

#[test]
fn deploy_review_light_at_scale_two() {
    let snapshot = load("examples/sessions/deploy-review-en.jsonl");
    let frame = render(&snapshot, &request(900.0, 640.0, 2.0, Theme::Light));
    assert_eq!((frame.width(), frame.height()), (1800, 1280));
    check_golden("deploy-review-en-light-2x", &frame);
}

#[test]
fn many_branches_on_a_narrow_cockpit_panel() {
    let snapshot = load("examples/sessions/refactor-many-branches-en.jsonl");
    check_golden(
        "refactor-many-branches-cockpit-narrow",
        &render(&snapshot, &request(600.0, 1000.0, 1.0, Theme::Cockpit)),
    );
}

#[test]
fn focused_branch_is_highlighted() {
    let snapshot = load("examples/sessions/design-record-ru.jsonl");
    let branch = snapshot
        .threads
        .iter()
        .find(|thread| thread.spec.parent.is_some())
        .expect("the example branches");
    let mut request = request(1200.0, 800.0, 1.0, Theme::Dark);
    request.focus = Some(branch.spec.id.clone());
    check_golden(
        "design-record-ru-focused-branch",
        &render(&snapshot, &request),
    );
}

#[test]
fn hostile_text_renders_and_stays_inside_its_regions() {
    let snapshot = load("tests/fixtures/hostile.jsonl");
    let request = request(1200.0, 800.0, 1.0, Theme::Dark);
    let frame = render(&snapshot, &request);
    check_golden("hostile-dark", &frame);
    // The gutter between the overview panel and the transcript holds no card: every pixel
    // there is the background colour, so nothing spilled out of its card sideways.
    let intent = chatsurface_compositor::resolve_intent(&snapshot, &request).unwrap();
    let regions = frame_regions(&intent);
    let gutter_left = (regions.overview.right().as_f32() + 10.0) as u32;
    let gutter_right = (regions.transcript.x.as_f32() - 2.0) as u32;
    assert!(gutter_right > gutter_left);
    let background = frame
        .pixel(gutter_left, 5 + regions.transcript.y.as_f32() as u32)
        .unwrap();
    for y in regions.transcript.y.as_f32() as u32..frame.height() - 10 {
        for x in gutter_left..gutter_right {
            assert_eq!(
                frame.pixel(x, y).unwrap(),
                background,
                "pixel ({x}, {y}) in the gutter was painted"
            );
        }
    }
}

/// The one transcript a real agent wrote for a scenario (`tests/fixtures/agents/…`), folded
/// by the app's reader for its format.
fn load_agent(scenario_dir: &str) -> Snapshot {
    let dir = root().join(scenario_dir);
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .unwrap();
    chatsurface::agents::load(&path, None)
        .unwrap_or_else(|error| panic!("{error}"))
        .snapshot
}

#[test]
fn one_session_of_each_agent() {
    for (name, scenario) in [
        (
            "agent-claude-code-interactive",
            "tests/fixtures/agents/claude-code-2.1.328/interactive",
        ),
        (
            "agent-codex-exec-command",
            "tests/fixtures/agents/codex-0.169.0/exec-command",
        ),
        (
            "agent-gemini-shell-command",
            "tests/fixtures/agents/gemini-0.61.0/shell-command",
        ),
    ] {
        let snapshot = load_agent(scenario);
        check_golden(
            name,
            &render(&snapshot, &request(1200.0, 800.0, 1.0, Theme::Dark)),
        );
    }
}

/// The branch map a reviewer exports: a native session's many branches (dark) and a Claude
/// Code session whose rewind is a parked branch (light), as PNG; and the native one as SVG,
/// compared as text, since its words must stay words.
#[test]
fn branch_maps_as_png_and_svg() {
    use chatsurface_compositor::Style;
    let native = load("examples/sessions/refactor-many-branches-en.jsonl");
    let rewound = load_agent("tests/fixtures/agents/claude-code-2.1.328/interactive");
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    for (name, snapshot, theme) in [
        ("map-refactor-many-branches", &native, Theme::Dark),
        ("map-agent-claude-code-interactive", &rewound, Theme::Light),
    ] {
        let style = Style::new(theme, Density::Comfortable);
        let (pixmap, scale) = compositor.map_png(snapshot, &style, ScaleFactor(1.0));
        assert_eq!(
            scale,
            ScaleFactor(1.0),
            "a small map is drawn at the scale asked"
        );
        check_golden(name, &pixmap);
    }
    let style = Style::new(Theme::Dark, Density::Comfortable);
    let svg = compositor.map_svg(&native, &style);
    for thread in &native.threads {
        let title = &thread.spec.title;
        let start: String = title.chars().take(12).collect();
        assert!(svg.contains(&start), "{title} is in the SVG as text");
    }
    let golden = root().join("tests/golden/map-refactor-many-branches.svg");
    if std::env::var_os("CHATSURFACE_BLESS").is_some() {
        std::fs::write(&golden, &svg).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|error| {
        panic!(
            "{}: {error} (run with CHATSURFACE_BLESS=1 to create it)",
            golden.display()
        )
    });
    if svg != expected {
        let failed = root().join("target/golden-failures");
        std::fs::create_dir_all(&failed).unwrap();
        std::fs::write(failed.join("map-refactor-many-branches.svg"), &svg).unwrap();
        panic!("the SVG map differs from {}", golden.display());
    }
}
