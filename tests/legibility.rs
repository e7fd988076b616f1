//! Legibility: thread titles, item headers and button labels can be read off rendered frames.
//!
//! The frame is rendered with the embedded fonts and read back with the tesseract OCR engine
//! (Debian packages `tesseract-ocr`, `tesseract-ocr-rus`; `.ci/run` installs them). Where
//! tesseract is missing the test says so and passes, except under CI (`CI` set), where a
//! missing engine fails the test, so CI can never skip it silently.
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use chatsurface::dev::generate::{fold_in_memory, generate_breadth, GeneratorConfig};
use chatsurface_compositor::frame_regions;
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::Theme;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_model::read_log;
use std::path::{Path, PathBuf};
use std::process::Command;
use tiny_skia::{IntRect, Pixmap};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Whether tesseract can be run; under CI its absence fails the test instead.
fn tesseract_present() -> bool {
    if Command::new("tesseract").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tesseract is not installed, and CI must run this test"
        );
        eprintln!("tesseract is not installed: legibility not checked (apt-get install tesseract-ocr tesseract-ocr-rus)");
        return false;
    }
    true
}

/// The request for a frame at twice the scale, as on a HiDPI panel.
fn hidpi(theme: Theme, width: f32, height: f32) -> IntentRequest {
    IntentRequest {
        viewport: Viewport {
            width: px(width),
            height: px(height),
            scale: ScaleFactor(2.0),
        },
        theme,
        ..IntentRequest::default()
    }
}

/// What OCR reads on `pixmap`, saved first as `target/legibility/NAME.png`.
fn read_pixmap(pixmap: &Pixmap, name: &str) -> String {
    let dir = root().join("target/legibility");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{name}.png"));
    pixmap.save_png(&png).unwrap();
    let output = Command::new("tesseract")
        .arg(&png)
        .arg("stdout")
        .args(["-l", "rus+eng"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "tesseract failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Renders a log at twice the scale and returns what OCR reads.
fn read_frame(log: &str, theme: Theme, width: f32, height: f32) -> Option<String> {
    if !tesseract_present() {
        return None;
    }
    let snapshot = read_log(&root().join(log)).unwrap().snapshot;
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    let (pixmap, _) = compositor
        .compose(&snapshot, &hidpi(theme, width, height))
        .unwrap();
    let name = Path::new(log)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    Some(read_pixmap(pixmap, &format!("{name}-{theme}")))
}

fn assert_reads(text: &str, words: &[&str]) {
    let missing: Vec<&&str> = words.iter().filter(|word| !text.contains(**word)).collect();
    assert!(
        missing.is_empty(),
        "OCR could not read {missing:?} in:\n{text}"
    );
}

#[test]
fn russian_titles_headers_and_buttons_are_legible() {
    for theme in Theme::ALL {
        let Some(text) = read_frame("tests/fixtures/minimal-ru.jsonl", theme, 1200.0, 760.0) else {
            return;
        };
        assert_reads(
            &text,
            &[
                "ADR-0031",
                // The overview row ends in an ellipsis ("агентск…") when the panel is narrow,
                // and OCR may run the header's title into its pill: the Cyrillic stem is read.
                "агентск",
                "Форма",
                "Границы",
                "Перезаписать",
                "Отмена",
                "вопроса",
            ],
        );
    }
}

#[test]
fn english_titles_and_confirmation_buttons_are_legible() {
    let Some(text) = read_frame(
        "examples/sessions/deploy-review-en.jsonl",
        Theme::Dark,
        1400.0,
        900.0,
    ) else {
        return;
    };
    assert_reads(
        &text,
        &[
            "Deploy 4.12 to production",
            "Rollback plan",
            "Drop table",
            "Keep table",
            "CONFIRM",
        ],
    );
}

#[test]
fn every_open_question_of_a_broad_session_reads_inside_the_overview() {
    if !tesseract_present() {
        return;
    }
    let config = GeneratorConfig {
        messages: 300,
        threads: 200,
        batches: 15,
        seed: 1,
    };
    let snapshot = fold_in_memory(generate_breadth(&config)).unwrap();
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    for (width, height) in [(1920.0, 1080.0), (1280.0, 800.0)] {
        let request = hidpi(Theme::Dark, width, height);
        let (frame, _) = compositor.compose(&snapshot, &request).unwrap();
        let intent = chatsurface_compositor::resolve_intent(&snapshot, &request).unwrap();
        let overview = frame_regions(&intent).overview;
        // Only the panel is read: the transcript shows some of the same questions' cards.
        let panel = IntRect::from_xywh(
            (overview.x.as_f32() * 2.0) as i32,
            (overview.y.as_f32() * 2.0) as i32,
            (overview.width.as_f32() * 2.0) as u32,
            (overview.height.as_f32() * 2.0) as u32,
        )
        .unwrap();
        let text = read_pixmap(
            &frame.clone_rect(panel).unwrap(),
            &format!("broad-overview-{width}x{height}"),
        );
        // "Вопрос" is drawn with letters whose shapes Latin has too, and tesseract reads it
        // as "Bonpoc" about half the time: either spelling is the row.
        let unread: Vec<usize> = (0..15)
            .filter(|index| {
                let spellings = if index % 2 == 0 {
                    vec![format!("Вопрос {index} "), format!("Bonpoc {index} ")]
                } else {
                    vec![format!("Question {index} ")]
                };
                !spellings.iter().any(|title| text.contains(title.as_str()))
            })
            .collect();
        assert!(
            unread.is_empty(),
            "at {width}×{height} OCR could not read questions {unread:?} in the overview:\n{text}"
        );
    }
}
