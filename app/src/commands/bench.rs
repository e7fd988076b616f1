//! `chatsurface bench LOG`: fold (of a v1 log or an agent's transcript), first frame, scrolled frames and peak memory, measured in
//! one process so the memory figure covers all of it.

use crate::cli::BenchArgs;
use crate::error::AppError;
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::FontSet;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_model::CheckpointUse;
use std::time::{Duration, Instant};

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Peak resident memory of this process in MiB, from `/proc/self/status` (Linux).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn percentile(sorted: &[f64], share: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * share).round() as usize]
}

/// What the fold made of the log's checkpoint, in words.
fn checkpoint_report(checkpoint: Option<&CheckpointUse>) -> String {
    match checkpoint {
        None => "none (the log is too short, or not a v1 log)".to_owned(),
        Some(CheckpointUse::Absent) => "none yet: the whole log was folded".to_owned(),
        Some(CheckpointUse::Reused {
            covered_lines,
            tail_lines,
        }) => format!("reused for {covered_lines} lines, {tail_lines} folded after it"),
        Some(CheckpointUse::Ignored(mismatch)) => {
            format!("ignored ({mismatch}): the whole log was folded")
        }
    }
}

/// Runs the measurements and prints them.
pub(super) fn run(args: &BenchArgs) -> Result<(), AppError> {
    let started = Instant::now();
    let (loaded, checkpoint) = crate::agents::load_reporting(&args.log, None)?;
    let fold = started.elapsed();
    let snapshot = &loaded.snapshot;
    let mut request = IntentRequest {
        viewport: Viewport {
            width: px(args.width as f32),
            height: px(args.height as f32),
            scale: ScaleFactor(1.0),
        },
        ..IntentRequest::default()
    };
    let usage = |error: chatsurface_compositor::IntentError| AppError::Usage(format!("--{error}"));
    let started = Instant::now();
    let mut compositor = ChatSurfaceCompositor::new(FontSet::BundledOnly);
    compositor.compose(snapshot, &request).map_err(usage)?;
    let first = started.elapsed();
    let mut scrolled = Vec::with_capacity(args.frames);
    for _ in 0..args.frames {
        let started = Instant::now();
        request.scroll = compositor
            .scroll(snapshot, &request, px(-(args.height as f32)))
            .map_err(usage)?;
        compositor.compose(snapshot, &request).map_err(usage)?;
        scrolled.push(millis(started.elapsed()));
    }
    scrolled.sort_by(f64::total_cmp);
    let mut report = vec![
        format!(
            "log: {} ({} messages, {} threads, {} batches)",
            args.log.display(),
            snapshot.messages.len(),
            snapshot.threads.len(),
            snapshot.batches.len()
        ),
        format!("fold (read + parse + fold): {:.1} ms", millis(fold)),
        format!("checkpoint: {}", checkpoint_report(checkpoint.as_ref())),
        format!(
            "first frame from a cold start ({}x{}, fonts loaded): {:.1} ms",
            args.width,
            args.height,
            millis(first)
        ),
    ];
    if let Some(slowest) = scrolled.last() {
        report.push(format!(
            "frame after scrolling one screen, {} frames: median {:.2} ms, p95 {:.2} ms, max {slowest:.2} ms",
            scrolled.len(),
            percentile(&scrolled, 0.5),
            percentile(&scrolled, 0.95),
        ));
    }
    report.push(format!(
        "cached cards after scrolling: {}",
        compositor.cached_cards()
    ));
    report.push(match peak_rss_mib() {
        Some(peak) => format!("peak memory (VmHWM): {peak:.1} MiB"),
        None => "peak memory: not available on this system".to_owned(),
    });
    super::print(&(report.join("\n") + "\n"))
}
