//! Criterion benchmarks on a generated 100,000-message session: fold time, the first frame
//! from a cold start, and a frame after scrolling one screen.
//!
//! Peak memory is not something criterion measures; `chatsurface bench LOG` reports it for
//! the same workload in one process.
#![allow(
    clippy::unwrap_used,
    reason = "a benchmark stops at the first surprise"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use chatsurface::dev::generate::{generate, GeneratorConfig};
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_model::{read_log, LogWriter};
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

criterion_group!(frame, benches);
criterion_main!(frame);
