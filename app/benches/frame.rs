//! Criterion benchmarks on a generated 100,000-message session: fold time, the first frame
//! from a cold start, and a frame after scrolling one screen; and on a broad session of 10,000
//! threads, the layout a new event costs (the overview chosen again).
//!
//! Peak memory is not something criterion measures; `chatsurface bench LOG` reports it for
//! the same workload in one process.
#![allow(
    clippy::unwrap_used,
    reason = "a benchmark stops at the first surprise"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use chatsurface::dev::generate::{fold_in_memory, generate, generate_breadth, GeneratorConfig};
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{Density, Style, Theme};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_compositor::{MapCamera, MapView, Overlay, Point};
use chatsurface_model::{read_log, LogWriter, Snapshot};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::hint::black_box;
use std::path::PathBuf;

const SESSION: GeneratorConfig = GeneratorConfig {
    messages: 100_000,
    threads: 2_000,
    batches: 500,
    seed: 1,
};

fn generated_log() -> PathBuf {
    let path = std::env::temp_dir().join(format!("chatsurface-bench-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut writer = LogWriter::open(&path).expect("temp dir is writable");
    writer
        .append_all(generate(&SESSION))
        .expect("generated events fold");
    path
}

fn request(width: f32, height: f32) -> IntentRequest {
    IntentRequest {
        viewport: Viewport {
            width: px(width),
            height: px(height),
            scale: ScaleFactor(1.0),
        },
        ..IntentRequest::default()
    }
}

fn benches(c: &mut Criterion) {
    let path = generated_log();
    let mut group = c.benchmark_group("session_100k");
    group.sample_size(10);
    group.bench_function("fold", |b| {
        b.iter(|| black_box(read_log(&path).unwrap().snapshot.messages.len()))
    });
    let snapshot = read_log(&path).unwrap().snapshot;
    group.bench_function("first_frame_cold_1920x1080", |b| {
        b.iter_batched(
            || (),
            |()| {
                let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
                let (pixmap, _) = compositor
                    .compose(&snapshot, &request(1920.0, 1080.0))
                    .unwrap();
                black_box(pixmap.width());
            },
            BatchSize::PerIteration,
        )
    });
    for (width, height) in [(1920.0, 1080.0), (3840.0, 2160.0)] {
        let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
        let mut request = request(width, height);
        compositor.compose(&snapshot, &request).unwrap();
        group.bench_function(
            format!("frame_after_scrolling_one_screen_{width}x{height}"),
            |b| {
                b.iter(|| {
                    request.scroll = compositor.scroll(&snapshot, &request, px(-height)).unwrap();
                    let (pixmap, _) = compositor.compose(&snapshot, &request).unwrap();
                    black_box(pixmap.width());
                })
            },
        );
    }
    group.finish();
    let _ = std::fs::remove_file(&path);
}

/// A broad session folded in memory: `threads` threads, `open` open batches.
fn broad_session(threads: usize, open: usize) -> Snapshot {
    let config = GeneratorConfig {
        messages: 2_000,
        threads,
        batches: open,
        seed: 1,
    };
    fold_in_memory(generate_breadth(&config)).unwrap()
}

/// The layout of a frame after a new event, on 10,000 threads: Declutter runs again (the
/// transcript's blocks and the overview's rows), the cards on screen come from the cache. Two
/// clones of one snapshot stand for "before" and "after": a clone has a history of its own, so
/// nothing decluttered for one is reused for the other.
fn overview(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad_10k_threads");
    group.sample_size(20);
    for open in [15, 500] {
        let before = broad_session(10_000, open);
        let after = before.clone();
        let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
        let request = request(1920.0, 1080.0);
        group.bench_function(
            format!("layout_after_a_new_event_{open}_open_1920x1080"),
            |b| {
                let mut flip = false;
                b.iter(|| {
                    flip = !flip;
                    let snapshot = if flip { &before } else { &after };
                    let (frame, _) = compositor.layout(snapshot, &request).unwrap();
                    black_box(frame.hits.len());
                })
            },
        );
    }
    group.finish();
}

/// The branch map of 2,000 threads over a 1920×1080 frame: the layout of a frame with the map
/// open, fitted (every node drawn, no text: too small to read) and zoomed in to 1 (the nodes
/// in view drawn with their words), and the whole map painted for `map --out map.png`.
fn branch_map(c: &mut Criterion) {
    let mut group = c.benchmark_group("branch_map_2k_threads");
    group.sample_size(20);
    let snapshot = broad_session(2_000, 15);
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    for (name, camera) in [
        ("layout_fitted_1920x1080", None),
        (
            "layout_zoom_1_1920x1080",
            Some(MapCamera {
                zoom: 1.0,
                origin: Point::default(),
            }),
        ),
    ] {
        let request = IntentRequest {
            overlay: Some(Overlay::Map(MapView {
                camera,
                ..MapView::default()
            })),
            ..request(1920.0, 1080.0)
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let (frame, _) = compositor.layout(&snapshot, &request).unwrap();
                black_box(frame.hits.len());
            })
        });
    }
    let style = Style::new(Theme::Dark, Density::Comfortable);
    group.bench_function("whole_map_png_scale_1", |b| {
        b.iter(|| {
            let (pixmap, _) = compositor.map_png(&snapshot, &style, ScaleFactor(1.0));
            black_box(pixmap.width());
        })
    });
    group.finish();
}

criterion_group!(frame, benches, overview, branch_map);
criterion_main!(frame);
