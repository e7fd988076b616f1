//! Frame statistics for the window benchmark: CPU time per frame, key press to presented
//! frame, layer memory and the process's peak memory, written as JSON.
//!
//! Only `--bench-frames` reads these; an ordinary window records into them too (it costs a
//! push per frame) but never writes them anywhere.

use crate::error::AppError;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// Upper edges of the histogram's buckets, in milliseconds.
const BUCKETS_MS: [f64; 8] = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 33.0, f64::INFINITY];

/// What was measured so far.
#[derive(Debug, Default)]
pub(super) struct FrameStats {
    next_is_scrolled: bool,
    next_is_key: bool,
    scrolled_still: Vec<f64>,
    scrolled_painting: Vec<f64>,
    scrolled_present: Vec<f64>,
    keys: Vec<f64>,
    keys_before_present: Vec<f64>,
    layer_bytes_max: u64,
}

fn summary(samples: &[f64]) -> serde_json::Value {
    if samples.is_empty() {
        return json!({ "count": 0 });
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |share: f64| sorted[((sorted.len() - 1) as f64 * share).round() as usize];
    let histogram: Vec<_> = BUCKETS_MS
        .iter()
        .scan(0.0, |low, &high| {
            let count = sorted
                .iter()
                .filter(|ms| **ms >= *low && **ms < high)
                .count();
            let label = if high.is_finite() {
                format!("{low}–{high} ms")
            } else {
                format!("≥ {low} ms")
            };
            *low = high;
            Some(json!({ "bucket": label, "frames": count }))
        })
        .collect();
    json!({
        "count": sorted.len(),
        "p50_ms": at(0.5),
        "p90_ms": at(0.9),
        "p99_ms": at(0.99),
        "max_ms": sorted[sorted.len() - 1],
        "histogram": histogram,
    })
}

/// The process's peak resident memory in bytes (Linux), if known.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

impl FrameStats {
    /// The next frame is a scrolled one.
    pub(super) fn start_scrolled_frame(&mut self) {
        self.next_is_scrolled = true;
    }

    /// The next key press is timed.
    pub(super) fn start_key_press(&mut self) {
        self.next_is_key = true;
    }

    /// Records a presented frame: the CPU time to prepare it (layout, repaints, the draw
    /// list), the time the present call took (with a software driver, the GPU's work too),
    /// the layers it painted and the layers' bytes.
    pub(super) fn frame(
        &mut self,
        cpu: Duration,
        present: Duration,
        painted: usize,
        layer_bytes: u64,
    ) {
        self.layer_bytes_max = self.layer_bytes_max.max(layer_bytes);
        if std::mem::take(&mut self.next_is_scrolled) {
            self.scrolled_present.push(present.as_secs_f64() * 1000.0);
            let ms = cpu.as_secs_f64() * 1000.0;
            if painted == 0 {
                self.scrolled_still.push(ms);
            } else {
                self.scrolled_painting.push(ms);
            }
        }
    }

    /// Records the time from a key press to the frame that shows it: until the frame was
    /// ready to present (the app's own work), and until the present call returned.
    pub(super) fn key_to_present(&mut self, until_prepared: Duration, until_presented: Duration) {
        if std::mem::take(&mut self.next_is_key) {
            self.keys_before_present
                .push(until_prepared.as_secs_f64() * 1000.0);
            self.keys.push(until_presented.as_secs_f64() * 1000.0);
        }
    }

    /// Scrolled frames recorded.
    pub(super) fn scrolled_frames(&self) -> usize {
        self.scrolled_still.len() + self.scrolled_painting.len()
    }

    /// Key presses recorded.
    pub(super) fn key_presses(&self) -> usize {
        self.keys.len()
    }

    /// Writes the statistics as JSON.
    pub(super) fn write(
        &self,
        path: &Path,
        size: (u32, u32),
        adapter: &str,
    ) -> Result<(), AppError> {
        let report = json!({
            "surface": format!("{}x{}", size.0, size.1),
            "adapter": adapter,
            "scrolled_frames_without_repaint": summary(&self.scrolled_still),
            "scrolled_frames_that_painted_a_card": summary(&self.scrolled_painting),
            "scrolled_frames_present_call": summary(&self.scrolled_present),
            "key_press_to_frame_ready": summary(&self.keys_before_present),
            "key_press_to_present": summary(&self.keys),
            "layer_texture_bytes_max": self.layer_bytes_max,
            "peak_rss_bytes": peak_rss_bytes(),
        });
        let text = serde_json::to_string_pretty(&report)
            .map_err(|error| AppError::CannotCreate(format!("{}: {error}", path.display())))?;
        crate::fsutil::write_atomically(path, text.as_bytes(), 0o644)
            .map_err(|error| AppError::CannotCreate(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolled_frames_are_split_by_whether_they_painted() {
        let mut stats = FrameStats::default();
        stats.frame(Duration::from_millis(3), Duration::ZERO, 0, 10);
        assert_eq!(
            stats.scrolled_frames(),
            0,
            "an unmarked frame is not a scrolled one"
        );
        stats.start_scrolled_frame();
        stats.frame(Duration::from_micros(700), Duration::ZERO, 0, 10);
        stats.start_scrolled_frame();
        stats.frame(Duration::from_millis(5), Duration::ZERO, 2, 30);
        assert_eq!(stats.scrolled_frames(), 2);
        let still = summary(&stats.scrolled_still);
        assert_eq!(still["count"], 1);
        assert_eq!(
            still["histogram"][1]["frames"], 1,
            "0.7 ms falls in 0.5–1 ms"
        );
        assert_eq!(stats.layer_bytes_max, 30);
    }
}
