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

use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::Theme;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_model::read_log;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Renders a log at twice the scale (as on a HiDPI panel) and returns what OCR reads.
fn read_frame(log: &str, theme: Theme, width: f32, height: f32) -> Option<String> {
    if Command::new("tesseract").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tesseract is not installed, and CI must run this test"
        );
        eprintln!("tesseract is not installed: legibility not checked (apt-get install tesseract-ocr tesseract-ocr-rus)");
        return None;
    }
    let snapshot = read_log(&root().join(log)).unwrap().snapshot;
    let request = IntentRequest {
        viewport: Viewport {
            width: px(width),
            height: px(height),
            scale: ScaleFactor(2.0),
        },
        theme,
        ..IntentRequest::default()
    };
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    let (pixmap, _) = compositor.compose(&snapshot, &request).unwrap();
    let dir = root().join("target/legibility");
    std::fs::create_dir_all(&dir).unwrap();
    let name = Path::new(log)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let png = dir.join(format!("{name}-{theme}.png"));
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
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
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
